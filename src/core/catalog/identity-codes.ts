import type { IdentityKey } from './source.js';

/**
 * The codes identity resolution compares (docs/catalog-rules.md rule 5): which keys name an article, and the
 * comparable form of a code under each. Codes are trimmed strings, compared exactly (case-sensitive). PLUs
 * compare as numbers: a digits-only string without its leading zeros (`"0012"` = 12; `"12.0"`/`"12,0"` from
 * spreadsheets too); a non-numeric code is never a PLU. EANs that are digits only compare without leading
 * zeros, like GTINs (`"0012345678905"` = `"12345678905"`), so a spreadsheet that dropped them still matches.
 */

export const IDENTITY_KEYS = ['localId', 'internalIdentifier', 'plu', 'ean'] as const satisfies readonly IdentityKey[];

/** The identifying fields of an article. */
export interface IdentityArticle {
  readonly localId: string;
  readonly internalIdentifier?: string;
  readonly plu?: number;
  readonly ean?: string;
}

/**
 * Articles read by position, for lists not held as an array of objects: `article(position)` may build the
 * article anew on each call (the index keeps none of them).
 */
export interface IdentityArticleList {
  readonly length: number;
  article(position: number): IdentityArticle;
}

/**
 * The comparable form of a code under `key`, or `undefined` when it cannot be such a code (empty, or
 * a non-numeric PLU).
 *
 * @example normalizeCode('plu', ' 0012 ') // '12'
 */
export function normalizeCode(key: IdentityKey, raw: string): string | undefined {
  const value = raw.trim();
  if (value === '') return undefined;
  if (key === 'plu') {
    const end = digitsEnd(value);
    if (end === 0 || (end < value.length && !isZeroFraction(value, end))) return undefined;
    return stripLeadingZeros(value, end);
  }
  if (key === 'ean' && digitsEnd(value) === value.length) return stripLeadingZeros(value, value.length);
  return value;
}

/** The comparable code of an article under `key`, or `undefined` when the article has none. */
export function articleCode(key: IdentityKey, article: IdentityArticle): string | undefined {
  if (key === 'plu') {
    const plu = article.plu;
    return plu !== undefined && Number.isSafeInteger(plu) && plu >= 0 ? String(plu) : undefined;
  }
  const value = article[key];
  return value === undefined ? undefined : normalizeCode(key, value);
}

/** Index of the first non-digit of `value` (its length when all are digits). */
function digitsEnd(value: string): number {
  let end = 0;
  while (end < value.length) {
    const char = value.charCodeAt(end);
    if (char < 48 || char > 57) break;
    end += 1;
  }
  return end;
}

/** Whether `value` from `start` is a decimal separator followed by zeros only (`.0`, `,00`). */
function isZeroFraction(value: string, start: number): boolean {
  const separator = value[start];
  if ((separator !== '.' && separator !== ',') || start + 1 >= value.length) return false;
  for (let position = start + 1; position < value.length; position += 1) {
    if (value[position] !== '0') return false;
  }
  return true;
}

/** The digits `value[0, end)` without leading zeros (`"000"` → `"0"`). */
function stripLeadingZeros(value: string, end: number): string {
  let start = 0;
  while (start < end - 1 && value.charCodeAt(start) === 48) start += 1;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}
