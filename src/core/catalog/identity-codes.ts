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

/** Where a code lies in an array of UTF-16 code units: `units[start, end)`. */
export interface CodeRange {
  start: number;
  end: number;
}

/**
 * `normalizeCode` of the text in `units[start, end)` without making it: writes where its comparable form lies
 * into `range` (always within `[start, end)`, as the comparable form is a part of the text); `false` when it
 * cannot be such a code. Identity resolution reads millions of rows' codes this way (`row-codes.ts`); a
 * property test holds it to `normalizeCode`.
 */
export function normalizeCodeUnits(key: IdentityKey, units: Uint16Array, start: number, end: number, range: CodeRange): boolean {
  let first = start;
  let last = end;
  while (first < last && isTrimmedUnit(units[first] ?? 0)) first += 1;
  while (last > first && isTrimmedUnit(units[last - 1] ?? 0)) last -= 1;
  if (first === last) return false;
  if (key === 'plu') {
    const digits = digitsEndOfUnits(units, first, last);
    if (digits === first || (digits < last && !isZeroFractionOfUnits(units, digits, last))) return false;
    range.start = leadingZerosEnd(units, first, digits);
    range.end = digits;
    return true;
  }
  if (key === 'ean' && digitsEndOfUnits(units, first, last) === last) {
    range.start = leadingZerosEnd(units, first, last);
    range.end = last;
    return true;
  }
  range.start = first;
  range.end = last;
  return true;
}

/** Whether `String.prototype.trim` removes the code unit: ECMAScript's white space and line terminators. */
function isTrimmedUnit(unit: number): boolean {
  if (unit <= 0x20) return unit === 0x20 || (unit >= 0x09 && unit <= 0x0d);
  if (unit < 0xa0) return false;
  return (
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000 ||
    unit === 0xfeff
  );
}

function digitsEndOfUnits(units: Uint16Array, start: number, end: number): number {
  let at = start;
  while (at < end) {
    const unit = units[at] ?? 0;
    if (unit < 48 || unit > 57) break;
    at += 1;
  }
  return at;
}

/** `isZeroFraction` of `units[start, end)`. */
function isZeroFractionOfUnits(units: Uint16Array, start: number, end: number): boolean {
  const separator = units[start];
  if ((separator !== 0x2e && separator !== 0x2c) || start + 1 >= end) return false;
  for (let at = start + 1; at < end; at += 1) {
    if (units[at] !== 48) return false;
  }
  return true;
}

/** Where the digits `units[start, end)` start without their leading zeros (`"000"` → its last `0`). */
function leadingZerosEnd(units: Uint16Array, start: number, end: number): number {
  let at = start;
  while (at < end - 1 && units[at] === 48) at += 1;
  return at;
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
