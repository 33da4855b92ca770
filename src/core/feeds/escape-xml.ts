/**
 * XML escaping of text that `cleanText` has already cleaned. All five predefined entities are used
 * everywhere (docs/channels.md: `& < > " '` in text and attributes alike), and the characters a parser
 * would normalise are written as character references so that every reader gets the exact text back:
 * CR in text (end-of-line handling would turn CR LF into LF), and TAB, LF, CR in attributes
 * (attribute-value normalisation would turn them into spaces).
 */
const TEXT_SPECIAL = /[&<>"'\r]/;
const ATTRIBUTE_SPECIAL = /[&<>"'\t\n\r]/;

/** The reference of a character that needs one in text (`attribute` adds TAB and LF), or `undefined`. */
function referenceOf(code: number, attribute: boolean): string | undefined {
  switch (code) {
    case 38:
      return '&amp;';
    case 60:
      return '&lt;';
    case 62:
      return '&gt;';
    case 34:
      return '&quot;';
    case 39:
      return '&apos;';
    case 13:
      return '&#13;';
    case 9:
      return attribute ? '&#9;' : undefined;
    case 10:
      return attribute ? '&#10;' : undefined;
    default:
      return undefined;
  }
}

/** One pass with slices from the first special character on: cheaper than a replace callback per match. */
function escapeFrom(text: string, first: number, attribute: boolean): string {
  let out = text.slice(0, first);
  let last = first;
  for (let i = first; i < text.length; i++) {
    const reference = referenceOf(text.charCodeAt(i), attribute);
    if (reference === undefined) continue;
    if (i > last) out += text.slice(last, i);
    out += reference;
    last = i + 1;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** Element content. @example escapeXmlText('a & <b>') // 'a &amp; &lt;b&gt;' */
export function escapeXmlText(text: string): string {
  const first = text.search(TEXT_SPECIAL);
  return first < 0 ? text : escapeFrom(text, first, false);
}

/** A double- or single-quoted attribute value. */
export function escapeXmlAttribute(text: string): string {
  const first = text.search(ATTRIBUTE_SPECIAL);
  return first < 0 ? text : escapeFrom(text, first, true);
}
