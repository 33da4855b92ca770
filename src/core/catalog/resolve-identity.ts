import type { IdentityKey } from './source.js';

/**
 * Identity resolution (docs/catalog-rules.md rule 5): which article does a price-list or stock row mean?
 *
 * A row carries candidate codes (`code`, and maybe `ean`, `plu` columns); an article can be named by
 * its `localId`, `internalIdentifier`, `plu` or `ean`, and one document may mix them (an article
 * without an `internalIdentifier` keyed by its `plu`). In `auto` mode the keys are ranked by how many
 * rows they name uniquely (counted on every row of a document up to `RANKING_SAMPLE_ROWS` rows, on an
 * evenly spread sample of a larger one), and each row takes the first key in that order that names
 * exactly one article; every key stays in the order, so minority keys still resolve their rows. A
 * fixed key (`POS_PRICE_LIST_KEY` / `POS_STOCK_KEY`) tries that key alone.
 *
 * Which row field can carry which key: `localId` and `internalIdentifier` ← `code`;
 * `plu` ← `plu`, `code`; `ean` ← `ean`, `code` (a price-list `code` is the `EAN` when there is no `CODE`).
 *
 * Comparison: codes are trimmed strings, compared exactly (case-sensitive). PLUs compare as numbers:
 * a digits-only string without its leading zeros (`"0012"` = 12; `"12.0"`/`"12,0"` from spreadsheets
 * too); a non-numeric code is never a PLU. EANs that are digits only compare without leading zeros,
 * like GTINs (`"0012345678905"` = `"12345678905"`), so a spreadsheet that dropped them still matches.
 *
 * Safety: a code that names two articles under a key (duplicate EANs) is ambiguous and the row is
 * matched to neither (unless a later key names one article uniquely, e.g. its PLU); two fields of a row
 * that name different articles under one key are ambiguous too. A second row that resolves to an
 * article already taken is a duplicate: the first row wins. No row is ever matched to two articles.
 * A sampled row matched under one key whose codes name another article under another key is still
 * matched, and reported as a conflict (a hint that the operator should fix the key).
 * Lookup maps are built once per article list (`createIdentityIndex`) and reused for every document.
 */

export const IDENTITY_KEYS = ['localId', 'internalIdentifier', 'plu', 'ean'] as const satisfies readonly IdentityKey[];

export type IdentityKeyChoice = 'auto' | IdentityKey;

/** The identifying fields of an article. */
export interface IdentityArticle {
  readonly localId: string;
  readonly internalIdentifier?: string;
  readonly plu?: number;
  readonly ean?: string;
}

/** The candidate codes of one row (price-list: `code`, `ean`, `plu`; stock export: its `codes`). */
export interface IdentityCandidates {
  readonly code?: string;
  readonly ean?: string;
  readonly plu?: string;
}

/**
 * Rows read by index, for documents not held as an array of candidate objects: `candidates(row)` may
 * build the row's candidates anew on each call (they are not kept).
 */
export interface IdentityRows {
  readonly length: number;
  candidates(row: number): IdentityCandidates | undefined;
}

/** Lookup maps of one article list: per key, normalized code → article position (or ambiguous). */
export interface IdentityIndex {
  /** Article ids (`localId`) by position. */
  readonly ids: readonly string[];
  readonly byKey: Readonly<Record<IdentityKey, ReadonlyMap<string, number>>>;
  /** Per key, the codes shared by several articles, with their positions. */
  readonly shared: Readonly<Record<IdentityKey, ReadonlyMap<string, readonly number[]>>>;
  /** Per key, the shortest and longest code: a candidate outside them cannot match and is not probed. */
  readonly lengths: Readonly<Record<IdentityKey, { readonly min: number; readonly max: number }>>;
}

export interface IdentityMatch {
  /** Index of the row in the input array. */
  readonly row: number;
  /** Position of the article in the index. */
  readonly article: number;
  readonly articleId: string;
  readonly key: IdentityKey;
}

export interface IdentityRowRef {
  readonly row: number;
  /** The row's first non-empty code (`code`, else `plu`, else `ean`), for reports. */
  readonly code: string;
}

export interface AmbiguousRow extends IdentityRowRef {
  readonly key: IdentityKey;
  readonly articleIds: readonly string[];
}

export interface DuplicateRow extends IdentityRowRef {
  readonly articleId: string;
  /** Index of the row that took the article first. */
  readonly firstRow: number;
}

/** A row matched under `key` whose codes name a different article under `otherKey` (auto mode only). */
export interface ConflictRow extends IdentityRowRef {
  readonly key: IdentityKey;
  readonly articleId: string;
  readonly otherKey: IdentityKey;
  readonly otherArticleId: string;
}

export interface NotForSaleRow extends IdentityRowRef {
  readonly articleId?: string;
}

export interface IdentityResolution {
  /** Keys in the order rows tried them (one key when the operator fixed it). */
  readonly keyOrder: readonly IdentityKey[];
  /** How many rows were matched by each key. */
  readonly keyCounts: Readonly<Record<IdentityKey, number>>;
  /**
   * The ranking sample: every row of a document up to `RANKING_SAMPLE_ROWS` rows, else rows evenly
   * spread over it; per key, how many sampled rows it names uniquely. Computed for every key even
   * when the operator fixed one, so a wrong fixed key shows (e.g. `plu: 0` next to `ean: 4096`).
   */
  readonly sample: { readonly rows: number; readonly keyCounts: Readonly<Record<IdentityKey, number>> };
  /** In row order; at most one match per row and per article. */
  readonly matches: readonly IdentityMatch[];
  readonly unmatched: readonly IdentityRowRef[];
  readonly ambiguous: readonly AmbiguousRow[];
  readonly duplicates: readonly DuplicateRow[];
  readonly conflicts: readonly ConflictRow[];
  /** Rows that name an article of the `excluded` index (not for sale) rather than nothing at all. */
  readonly notForSale: readonly NotForSaleRow[];
}

const NONE = -1;
const AMBIGUOUS = -2;
const NO_CANDIDATES: IdentityCandidates = Object.freeze({});

/** Rows looked up under every key to rank the keys and to detect conflicts (see `sample`). */
export const RANKING_SAMPLE_ROWS = 4096;

/** Row fields that may carry each key. */
const FIELDS: Readonly<Record<IdentityKey, readonly (keyof IdentityCandidates)[]>> = {
  localId: ['code'],
  internalIdentifier: ['code'],
  plu: ['plu', 'code'],
  ean: ['ean', 'code'],
};

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

/**
 * Articles read by position, for lists not held as an array of objects: `article(position)` may build the
 * article anew on each call (the index keeps none of them).
 */
export interface IdentityArticleList {
  readonly length: number;
  article(position: number): IdentityArticle;
}

/** Builds the lookup maps of `articles` once, O(n). Articles keep their position as their index. */
export function createIdentityIndex(
  articles: readonly IdentityArticle[] | IdentityArticleList,
  /** The keys to index (all by default): rows resolved by one fixed key need no maps of the others. */
  keys: readonly IdentityKey[] = IDENTITY_KEYS,
): IdentityIndex {
  const at: (position: number) => IdentityArticle =
    'article' in articles ? (position) => articles.article(position) : (position) => articles[position] as IdentityArticle;
  const ids: string[] = [];
  const byKey = emptyRecord(() => new Map<string, number>());
  const shared = emptyRecord(() => new Map<string, number[]>());
  const lengths = emptyRecord(() => ({ min: Number.POSITIVE_INFINITY, max: 0 }));
  for (let position = 0; position < articles.length; position += 1) {
    const article = at(position);
    ids.push(article.localId);
    for (const key of keys) {
      const code = articleCode(key, article);
      if (code === undefined) continue;
      const existing = byKey[key].get(code);
      if (existing === undefined) {
        byKey[key].set(code, position);
        const bounds = lengths[key];
        if (code.length < bounds.min) bounds.min = code.length;
        if (code.length > bounds.max) bounds.max = code.length;
      } else if (existing === AMBIGUOUS) {
        shared[key].get(code)?.push(position);
      } else if (existing !== position) {
        byKey[key].set(code, AMBIGUOUS);
        shared[key].set(code, [existing, position]);
      }
    }
  }
  return { ids, byKey, shared, lengths };
}

/**
 * Resolves each row to at most one article of `index` (see the module comment for the rules).
 * `excluded`, when given, indexes the articles that are not for sale: unmatched rows naming one of
 * them are reported as `notForSale` instead of `unmatched`.
 *
 * Cost: the keys are ranked on a sample of at most `RANKING_SAMPLE_ROWS` rows looked up under every
 * key; then each row probes keys in rank order and stops at its first unique hit, so a document keyed
 * mostly by one key costs about one map probe per row. Conflicts (`conflicts`) are looked for on the
 * sampled rows, i.e. on every row of documents up to that size.
 *
 * With `onMatch`, each match is passed to it (row, article position, key) instead of being collected in
 * `matches`, which stays empty (`keyCounts` still add up to the matches): a merge that only maps rows to
 * articles then makes no object per row.
 */
export function resolveIdentity(
  index: IdentityIndex,
  rows: readonly IdentityCandidates[] | IdentityRows,
  choice: IdentityKeyChoice,
  excluded?: IdentityIndex,
  onMatch?: (row: number, article: number, key: IdentityKey) => void,
): IdentityResolution {
  const at: (row: number) => IdentityCandidates | undefined =
    'candidates' in rows ? (row) => rows.candidates(row) : (row) => rows[row];
  const stride = Math.max(1, Math.ceil(rows.length / RANKING_SAMPLE_ROWS));
  const sampleCounts = emptyRecord(() => 0);
  let sampled = 0;
  for (let row = 0; row < rows.length; row += stride) {
    const candidates = at(row);
    if (candidates === undefined) continue;
    sampled += 1;
    for (const key of IDENTITY_KEYS) {
      if (lookup(index, key, candidates) >= 0) sampleCounts[key] += 1;
    }
  }
  const keyOrder = choice === 'auto' ? rankKeys(sampleCounts) : [choice];
  const keyCounts = emptyRecord(() => 0);
  const firstRowOf = new Int32Array(index.ids.length).fill(NONE);
  const matches: IdentityMatch[] = [];
  const unmatched: IdentityRowRef[] = [];
  const ambiguous: AmbiguousRow[] = [];
  const duplicates: DuplicateRow[] = [];
  const conflicts: ConflictRow[] = [];
  const notForSale: NotForSaleRow[] = [];

  for (let row = 0; row < rows.length; row += 1) {
    const candidates = at(row) ?? NO_CANDIDATES;
    let article = NONE;
    let matchedKey: IdentityKey | undefined;
    let ambiguousKey: IdentityKey | undefined;
    for (const key of keyOrder) {
      const hit = lookup(index, key, candidates);
      if (hit >= 0) {
        article = hit;
        matchedKey = key;
        break;
      }
      if (hit === AMBIGUOUS && ambiguousKey === undefined) ambiguousKey = key;
    }

    if (matchedKey === undefined) {
      const code = displayCode(candidates);
      if (ambiguousKey !== undefined) {
        ambiguous.push({ row, code, key: ambiguousKey, articleIds: sharedIds(index, ambiguousKey, candidates) });
        continue;
      }
      const other = excluded === undefined ? NONE : lookupAny(excluded, keyOrder, candidates);
      if (excluded !== undefined && other !== NONE) {
        const articleId = other >= 0 ? excluded.ids[other] : undefined;
        notForSale.push(articleId === undefined ? { row, code } : { row, code, articleId });
        continue;
      }
      unmatched.push({ row, code });
      continue;
    }

    const articleId = index.ids[article] ?? '';
    const firstRow = firstRowOf[article] ?? NONE;
    if (firstRow !== NONE) {
      duplicates.push({ row, code: displayCode(candidates), articleId, firstRow });
      continue;
    }
    firstRowOf[article] = row;
    keyCounts[matchedKey] += 1;
    if (onMatch === undefined) matches.push({ row, article, articleId, key: matchedKey });
    else onMatch(row, article, matchedKey);
    if (choice === 'auto' && row % stride === 0) {
      const conflict = findConflict(index, candidates, matchedKey, article);
      if (conflict !== undefined) conflicts.push({ row, code: displayCode(candidates), ...conflict });
    }
  }

  const sample = { rows: sampled, keyCounts: sampleCounts };
  return { keyOrder, keyCounts, sample, matches, unmatched, ambiguous, duplicates, conflicts, notForSale };
}

/** Another key under which the row's codes name a different article than the one it was matched to. */
function findConflict(
  index: IdentityIndex,
  candidates: IdentityCandidates,
  key: IdentityKey,
  article: number,
): Omit<ConflictRow, 'row' | 'code'> | undefined {
  for (const otherKey of IDENTITY_KEYS) {
    if (otherKey === key) continue;
    const other = lookup(index, otherKey, candidates);
    if (other < 0 || other === article) continue;
    return { key, articleId: index.ids[article] ?? '', otherKey, otherArticleId: index.ids[other] ?? '' };
  }
  return undefined;
}

/** Article position named by the row under `key`: ≥ 0, `NONE` or `AMBIGUOUS`. */
function lookup(index: IdentityIndex, key: IdentityKey, candidates: IdentityCandidates): number {
  // Static property reads (rather than `candidates[field]`) keep this hot path fast on rows of many shapes.
  switch (key) {
    case 'plu':
      return probe(index, key, candidates.plu, candidates.code);
    case 'ean':
      return probe(index, key, candidates.ean, candidates.code);
    default:
      return probe(index, key, candidates.code, undefined);
  }
}

/** The article the row's two candidate fields name under `key`; `AMBIGUOUS` when they disagree. */
function probe(index: IdentityIndex, key: IdentityKey, first: string | undefined, second: string | undefined): number {
  const map = index.byKey[key];
  if (map.size === 0) return NONE;
  const { min, max } = index.lengths[key];
  let found = NONE;
  let previous: string | undefined;
  for (const raw of [first, second]) {
    if (raw === undefined) continue;
    const code = normalizeCode(key, raw);
    // Exact shortcuts: a code of a length no article has cannot match; the same code twice adds nothing.
    if (code === undefined || code.length < min || code.length > max || code === previous) continue;
    previous = code;
    const hit = map.get(code);
    if (hit === undefined) continue;
    if (hit === AMBIGUOUS) return AMBIGUOUS;
    if (found === NONE) found = hit;
    else if (found !== hit) return AMBIGUOUS;
  }
  return found;
}

/** First hit (unique or ambiguous) of the row under any of `keys`. */
function lookupAny(index: IdentityIndex, keys: readonly IdentityKey[], candidates: IdentityCandidates): number {
  let result = NONE;
  for (const key of keys) {
    const hit = lookup(index, key, candidates);
    if (hit >= 0) return hit;
    if (hit === AMBIGUOUS) result = AMBIGUOUS;
  }
  return result;
}

/** Every article id the row's codes name under `key` (for the report of an ambiguous row). */
function sharedIds(index: IdentityIndex, key: IdentityKey, candidates: IdentityCandidates): string[] {
  const positions = new Set<number>();
  for (const field of FIELDS[key]) {
    const raw = candidates[field];
    const code = raw === undefined ? undefined : normalizeCode(key, raw);
    if (code === undefined) continue;
    const hit = index.byKey[key].get(code);
    if (hit === undefined) continue;
    if (hit >= 0) positions.add(hit);
    for (const position of index.shared[key].get(code) ?? []) positions.add(position);
  }
  const ids: string[] = [];
  for (const position of [...positions].sort((a, b) => a - b)) {
    const id = index.ids[position];
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

/** Keys by unique matches, most first; ties keep the fixed order localId, internalIdentifier, plu, ean. */
function rankKeys(counts: Readonly<Record<IdentityKey, number>>): IdentityKey[] {
  return [...IDENTITY_KEYS].sort((a, b) => counts[b] - counts[a]);
}

function displayCode(candidates: IdentityCandidates): string {
  for (const field of ['code', 'plu', 'ean'] as const) {
    const value = candidates[field]?.trim();
    if (value !== undefined && value !== '') return value;
  }
  return '';
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

function emptyRecord<T>(create: () => T): Record<IdentityKey, T> {
  return { localId: create(), internalIdentifier: create(), plu: create(), ean: create() };
}
