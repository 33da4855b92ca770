/**
 * Length rules of the channels count characters, so these count Unicode code points: an emoji is one
 * character, and a cut never splits a surrogate pair (half a pair would be a forbidden lone surrogate).
 * Combining sequences may be cut between base and mark; Czech POS text is precomposed (NFC) in practice.
 */

/** Number of code points of `text`. */
export function countCodePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/**
 * The first `maxLength` code points of `text` (the whole text when shorter). No ellipsis is added and
 * nothing is trimmed: the result is exactly a prefix of the input.
 *
 * @example truncateText('ab😀c', 3) // 'ab😀'
 */
export function truncateText(text: string, maxLength: number): string {
  // Code points never outnumber UTF-16 units, so short texts need no scan.
  if (text.length <= maxLength) return text;
  let count = 0;
  let i = 0;
  while (i < text.length) {
    if (count === maxLength) return text.slice(0, i);
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      i += next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
    } else {
      i++;
    }
    count++;
  }
  return text;
}

/** A cut may go back this far (a share of the limit) to end at a word; a longer last word is cut. */
const WORD_CUT_MIN_SHARE = 0.6;

/**
 * The first `maxLength` code points of `text`, ending at a word boundary: a title cut mid-word reads as a
 * typo to a buyer. When the last word that fits would leave less than 60 % of the limit (one very long
 * word), the text is cut at the limit as `truncateText` does. Trailing spaces of the cut are removed.
 *
 * @example truncateAtWord('Káva zrnková Brazílie', 15) // 'Káva zrnková'
 */
export function truncateAtWord(text: string, maxLength: number): string {
  const cut = truncateText(text, maxLength);
  if (cut.length === text.length) return text;
  // The cut ends a word when the next character is a space.
  if (/\s/.test(text.charAt(cut.length))) return cut.trimEnd();
  const lastSpace = cut.search(/\s\S*$/);
  if (lastSpace > 0 && countCodePoints(cut.slice(0, lastSpace)) >= maxLength * WORD_CUT_MIN_SHARE) {
    return cut.slice(0, lastSpace).trimEnd();
  }
  return cut;
}
