import { type CodeRange, IDENTITY_KEYS, normalizeCode, normalizeCodeUnits } from './identity-codes.js';
import {
  type EntryCursor,
  findIdentityCode,
  findIdentityUnits,
  hasIdentityKey,
  type IdentityIndex,
  identityIdAt,
  identityPositions,
  NO_ARTICLE,
  SHARED_CODE,
} from './identity-index.js';
import { createRowCodeUnits, type RowCodeUnits } from './row-codes.js';
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
 * Comparison: `identity-codes.ts` (trimmed, exact; PLUs and digit-only EANs without leading zeros).
 *
 * Safety: a code that names two articles under a key (duplicate EANs) is ambiguous and the row is
 * matched to neither (unless a later key names one article uniquely, e.g. its PLU); two fields of a row
 * that name different articles under one key are ambiguous too. A second row that resolves to an
 * article already taken is a duplicate: the first row wins. No row is ever matched to two articles.
 * A sampled row matched under one key whose codes name another article under another key is still
 * matched, and reported as a conflict (a hint that the operator should fix the key).
 * Lookup tables are built once per article list (`identity-index.ts`) and reused for every document.
 */

export type IdentityKeyChoice = 'auto' | IdentityKey;

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
  /**
   * The row's candidates as code units, where the rows hold them so (`RowCodes.unitsInto`): each row then
   * probes the tables without a string made; `candidates` serves the rows reported (and the ranking sample).
   */
  unitsInto?(row: number, into: RowCodeUnits): boolean;
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

const NONE = NO_ARTICLE;
const AMBIGUOUS = SHARED_CODE;
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
  const firstRowOf = new Int32Array(index.size).fill(NONE);
  const matches: IdentityMatch[] = [];
  const unmatched: IdentityRowRef[] = [];
  const ambiguous: AmbiguousRow[] = [];
  const duplicates: DuplicateRow[] = [];
  const conflicts: ConflictRow[] = [];
  const notForSale: NotForSaleRow[] = [];

  // The rows' code units, when they come so: read into one cursor, row after row.
  const unitsInto = 'candidates' in rows ? rows.unitsInto?.bind(rows) : undefined;
  const units = unitsInto === undefined ? undefined : createRowCodeUnits();
  const cursors = emptyRecord((): EntryCursor => ({ entry: -1 }));
  const unmatchedContext = { index, excluded, keyOrder };
  const unmatchedReports = { ambiguous, notForSale, unmatched };
  for (let row = 0; row < rows.length; row += 1) {
    const viaUnits = units !== undefined && unitsInto?.(row, units) === true;
    let candidates = viaUnits ? undefined : (at(row) ?? NO_CANDIDATES);
    let article = NONE;
    let matchedKey: IdentityKey | undefined;
    let ambiguousKey: IdentityKey | undefined;
    for (const key of keyOrder) {
      const hit = viaUnits ? lookupUnits(index, key, units, cursors[key]) : lookup(index, key, candidates ?? NO_CANDIDATES);
      if (hit >= 0) {
        article = hit;
        matchedKey = key;
        break;
      }
      if (hit === AMBIGUOUS && ambiguousKey === undefined) ambiguousKey = key;
    }

    if (matchedKey === undefined) {
      const unmatchedRow = { row, candidates: candidates ?? at(row) ?? NO_CANDIDATES, ambiguousKey };
      reportUnmatched(unmatchedRow, unmatchedContext, unmatchedReports);
      continue;
    }

    // The article's id is made (a string from the index) only where it is reported: not for every match.
    const firstRow = firstRowOf[article] ?? NONE;
    if (firstRow !== NONE) {
      candidates ??= at(row) ?? NO_CANDIDATES;
      duplicates.push({ row, code: displayCode(candidates), articleId: identityIdAt(index, article), firstRow });
      continue;
    }
    firstRowOf[article] = row;
    keyCounts[matchedKey] += 1;
    if (onMatch === undefined) matches.push({ row, article, articleId: identityIdAt(index, article), key: matchedKey });
    else onMatch(row, article, matchedKey);
    if (choice === 'auto' && row % stride === 0) {
      candidates ??= at(row) ?? NO_CANDIDATES;
      const conflict = findConflict(index, candidates, matchedKey, article);
      if (conflict !== undefined) conflicts.push({ row, code: displayCode(candidates), ...conflict });
    }
  }

  const sample = { rows: sampled, keyCounts: sampleCounts };
  return { keyOrder, keyCounts, sample, matches, unmatched, ambiguous, duplicates, conflicts, notForSale };
}

/** A row no key matched: ambiguous under a key, naming an article not for sale, or unmatched. */
function reportUnmatched(
  { row, candidates, ambiguousKey }: { row: number; candidates: IdentityCandidates; ambiguousKey: IdentityKey | undefined },
  { index, excluded, keyOrder }: { index: IdentityIndex; excluded: IdentityIndex | undefined; keyOrder: readonly IdentityKey[] },
  into: {
    ambiguous: AmbiguousRow[];
    notForSale: NotForSaleRow[];
    unmatched: IdentityRowRef[];
  },
): void {
  const code = displayCode(candidates);
  if (ambiguousKey !== undefined) {
    into.ambiguous.push({ row, code, key: ambiguousKey, articleIds: sharedIds(index, ambiguousKey, candidates) });
    return;
  }
  const other = excluded === undefined ? NONE : lookupAny(excluded, keyOrder, candidates);
  if (excluded !== undefined && other !== NONE) {
    into.notForSale.push(other >= 0 ? { row, code, articleId: identityIdAt(excluded, other) } : { row, code });
    return;
  }
  into.unmatched.push({ row, code });
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
    return { key, articleId: identityIdAt(index, article), otherKey, otherArticleId: identityIdAt(index, other) };
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
  if (!hasIdentityKey(index, key)) return NONE;
  const firstCode = first === undefined ? undefined : normalizeCode(key, first);
  const found = firstCode === undefined ? NONE : findIdentityCode(index, key, firstCode);
  if (found === AMBIGUOUS || second === undefined) return found;
  const secondCode = normalizeCode(key, second);
  // The same code twice adds nothing.
  if (secondCode === undefined || secondCode === firstCode) return found;
  return agreed(found, findIdentityCode(index, key, secondCode));
}

/** What two fields' hits under one key name together: one article, none, or `AMBIGUOUS` when they differ. */
function agreed(first: number, second: number): number {
  if (second === NONE) return first;
  if (second === AMBIGUOUS || first === NONE) return second;
  return first === second ? first : AMBIGUOUS;
}

/** `lookup` of a row read as code units (`IdentityRows.unitsInto`); `cursor` is the key's (`findIdentityUnits`). */
function lookupUnits(index: IdentityIndex, key: IdentityKey, row: RowCodeUnits, cursor: EntryCursor): number {
  if (!hasIdentityKey(index, key)) return NONE;
  const { units } = row;
  switch (key) {
    case 'plu':
      return probeUnits(index, key, units, cursor, row.pluStart, row.pluEnd, row.codeStart, row.codeEnd);
    case 'ean':
      return probeUnits(index, key, units, cursor, row.eanStart, row.eanEnd, row.codeStart, row.codeEnd);
    default:
      return probeUnits(index, key, units, cursor, row.codeStart, row.codeEnd, 0, 0);
  }
}

/** Where a normalized code lies (`normalizeCodeUnits`); one per thread, as rows are probed one at a time. */
const range: CodeRange = { start: 0, end: 0 };

/** `probe` of two fields held as `units[start, end)` ranges (an empty range: no code). */
function probeUnits(
  index: IdentityIndex,
  key: IdentityKey,
  units: Uint16Array,
  cursor: EntryCursor,
  firstStart: number,
  firstEnd: number,
  secondStart: number,
  secondEnd: number,
): number {
  const found = normalizeCodeUnits(key, units, firstStart, firstEnd, range)
    ? findIdentityUnits(index, key, units, range.start, range.end, cursor)
    : NONE;
  if (found === AMBIGUOUS || secondStart === secondEnd) return found;
  if (!normalizeCodeUnits(key, units, secondStart, secondEnd, range)) return found;
  // The same code twice finds the same article: `agreed` keeps it.
  return agreed(found, findIdentityUnits(index, key, units, range.start, range.end, cursor));
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
    for (const position of identityPositions(index, key, code)) positions.add(position);
  }
  return [...positions].sort((a, b) => a - b).map((position) => identityIdAt(index, position));
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

function emptyRecord<T>(create: () => T): Record<IdentityKey, T> {
  return { localId: create(), internalIdentifier: create(), plu: create(), ean: create() };
}
