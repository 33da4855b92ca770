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
