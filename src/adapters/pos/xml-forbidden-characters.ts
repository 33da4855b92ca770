import type { SaxesParser } from 'saxes';

/**
 * Characters XML 1.0 forbids inside a document, as a POS's price-list export sometimes carries them in an
 * article name: recognised at the point where saxes stops on one, replaced, and reported
 * (docs/catalog-rules.md rule 3). Used by the price-list parser (`price-list-xml.ts`).
 */

/**
 * Characters XML 1.0 forbids (its `Char` production): C0 controls other than TAB, LF and CR, U+FFFE,
 * U+FFFF, and lone surrogates (the `u` flag makes a class of surrogates match lone ones only, never a pair;
 * they can come only from text input, the decoder turns bad bytes into U+FFFD). XML 1.1's restricted
 * C1 controls are not here: a 1.1 document with one still fails, as Shoptet's feeds are 1.0.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const FORBIDDEN_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/gu;

export function isForbiddenCharacter(code: number): boolean {
  if (code < 0x20) return code !== 0x09 && code !== 0x0a && code !== 0x0d;
  return (code >= 0xd800 && code <= 0xdfff) || code === 0xfffe || code === 0xffff;
}

/**
 * A value with the characters XML forbids replaced. Codes, EAN, PLU, currency and numbers get U+FFFD, not
 * deletion: the value stays visibly damaged instead of quietly becoming another valid one. `12\u000134`
 * must not become the code or price `1234` of something else; as `12\uFFFD34` it matches no article and is
 * no number, and both are reported like any bad value (U+FFFD is also what the decoder puts in place of
 * bytes it cannot read). Availability texts are shown to shoppers, and no identity or amount hangs on them:
 * there the characters are removed, as every feed removes them from its text anyway (core/feeds/clean-text.ts).
 */
export function replaceForbidden(text: string, shownToShoppers: boolean): string {
  return text.replace(FORBIDDEN_CHARACTERS, shownToShoppers ? '' : '\uFFFD');
}

/** The warning of an item or variant that had characters XML forbids. */
export function forbiddenCharacterProblem(count: number, first: number): string {
  const code = `U+${first.toString(16).toUpperCase().padStart(4, '0')}`;
  return count === 1
    ? `1 character that XML forbids (${code}) replaced`
    : `${count} characters that XML forbids (first ${code}) replaced`;
}

/** What saxes 6 keeps of its reading position, in fields its typings declare private. */
interface SaxesReadPosition {
  readonly chunk?: unknown;
  readonly prevI?: unknown;
}

/**
 * The character saxes just failed on, when the failure is only that the character is one XML forbids.
 *
 * saxes checks every character it reads (no pass of ours over the text is needed) and, when an error
 * handler returns instead of throwing, goes on with the character kept in the text. Its message for that,
 * "disallowed character.", is also the one for a `<` inside an attribute value, which must stay fatal (an
 * unclosed quote would otherwise swallow the rows after it): hence the look at the character itself. Should
 * a saxes version no longer have these fields, every such character is fatal again, as it was before.
 */
export function forbiddenCharacterOf(sax: SaxesParser, error: Error): number | undefined {
  if (!error.message.endsWith('disallowed character.')) return undefined;
  const { chunk, prevI } = sax as unknown as SaxesReadPosition;
  if (typeof chunk !== 'string' || typeof prevI !== 'number') return undefined;
  const code = chunk.charCodeAt(prevI);
  return isForbiddenCharacter(code) ? code : undefined;
}
