import { createSlicer } from '../async/create-slicer.js';
import type { CatalogSnapshot } from './catalog.js';
import { type AsyncFamilyCache, createAsyncFamilyCache } from './catalog-family.js';
import type { CodeLookup, FamilyIndex } from './family-index.js';
import { normalizeCode } from './identity-codes.js';
import { matchNames, NAME_RANKS, type NameIndex, SEARCH_BOUNDS, searchWords } from './name-search.js';

/**
 * Product search (docs/console.md#finding-a-product): by exact code (id, EAN, PLU, internal identifier) or
 * by name, diacritics- and case-insensitively ("cokolada" finds "Čokoláda"), every word of the query a
 * substring of the name.
 *
 * The index holds what the versions of a catalog family share (`catalog-family.ts`: ids, codes, names
 * and product positions), so it is built once per family, in slices; its hits are positions into whichever
 * version of the family is served, whose prices and stock the caller shows. It holds:
 * - codes: the family index (`family-index.ts`), which the bridge builds for every family anyway, and the
 *   positions of the few products that share a code (the family index names none of them);
 * - names: every product's folded name in one string, each followed by `\n` (a folded query never holds
 *   one, so no match spans two names), with the offset where each name starts. A name search is a few
 *   `indexOf` passes over ~2.4 MB at 100,000 products rather than 100,000 comparisons.
 * It costs ~3 MiB at 100,000 products besides the family index (bench/product-search.ts).
 *
 * Ranking: exact code matches first, then names that start with the query, then names in which every
 * word of the query starts a word, then other substring matches; within a rank, catalog order. `total`
 * counts every product found (never capped).
 */

/** How a product was found; a product found several ways reports the first of these. */
export const SEARCH_MATCHES = ['id', 'ean', 'plu', 'internalIdentifier', 'name'] as const;
export type SearchMatch = (typeof SEARCH_MATCHES)[number];

/** Positions of the products that share a code, by code: only codes two or more products have. */
export interface SharedCodes {
  readonly ean: ReadonlyMap<string, readonly number[]>;
  readonly plu: ReadonlyMap<number, readonly number[]>;
  readonly internalIdentifier: ReadonlyMap<string, readonly number[]>;
}

/** What a search of a catalog family reads. */
export interface ProductSearchIndex extends NameIndex {
  /** Products of the family, in catalog order. */
  readonly products: number;
  /** Every product's folded name (`foldSearchText`) followed by `\n`, in catalog order. */
  readonly names: string;
  /** Where each product's name starts in `names`, and `names.length` last. */
  readonly starts: Int32Array;
  /** The family's codes → product. */
  readonly codes: FamilyIndex;
  readonly shared: SharedCodes;
}

export interface ProductSearchHit {
  /** The product's position in the snapshot (any version of the indexed family). */
  readonly position: number;
  readonly matchedBy: SearchMatch;
}

export interface ProductSearchResult {
  /** At most `limit`, best first. */
  readonly hits: readonly ProductSearchHit[];
  /** Every product found; with `complete` false, those found before the time budget ran out. */
  readonly total: number;
  /** False when the name search stopped at its time budget: hits and total cover the catalog's start only. */
  readonly complete: boolean;
}

export interface SearchOptions {
  readonly sliceMs?: number;
  readonly budgetMs?: number;
}

/** Printable ASCII words with single spaces between them: nothing to fold but their case. */
const PLAIN = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;
const NOT_PLAIN_CHAR = /[^\x20-\x7e]/g;
const SPACE_RUNS = / {2,}/g;
const MARKS = /\p{M}+/gu;
const WHITE = /^[\s\p{Cc}]$/u;
const DASH = /^[\u2010-\u2015\u2212]$/;
/** What each character outside printable ASCII folds to, computed once per character. */
const foldedChars = new Map<string, string>();

function foldChar(char: string): string {
  let folded = foldedChars.get(char);
  if (folded === undefined) {
    folded = WHITE.test(char) ? ' ' : DASH.test(char) ? '-' : char.normalize('NFD').replace(MARKS, '');
    foldedChars.set(char, folded);
  }
  return folded;
}

/**
 * Text as search compares it: lower case, diacritics dropped (NFD, combining marks removed), dashes as
 * `-`, every run of white space or control characters one space, trimmed.
 *
 * @example foldSearchText('  Čokoláda  HOŘKÁ – 70 %') // 'cokolada horka - 70 %'
 */
export function foldSearchText(text: string): string {
  const lower = text.toLowerCase();
  if (PLAIN.test(lower)) return lower;
  // Character by character (each one's fold memoized): twice as fast as normalizing the whole name.
  const folded = lower.replace(NOT_PLAIN_CHAR, (char) => foldChar(char));
  return PLAIN.test(folded) ? folded : folded.replace(SPACE_RUNS, ' ').trim();
}

/**
 * Names folded per batch and joined: ~400 strings survive a build instead of 100,000. GC in a build at
 * 100,000 products: ~5 ms in all, longest pause ~2 ms; with a string kept per name, ~28 ms and 5-10 ms.
 */
const BATCH = 256;

/**
 * Work per slice of a build. The event loop turns every ~5 ms during a build at 100,000 products with 3 ms
 * slices, every 7-10 ms with the default 5 ms (a slice ends after its batch, and GC pauses land in slices);
 * the build takes ~120 ms either way (bench/product-search.ts).
 */
const BUILD_SLICE_MS = 3;

function addShared<K>(shared: Map<K, number[]>, code: K | undefined, unique: CodeLookup<K>, position: number) {
  if (code === undefined || unique.get(code) !== null) return;
  const positions = shared.get(code);
  if (positions === undefined) shared.set(code, [position]);
  else positions.push(position);
}

/**
 * Builds the search index of `snapshot`'s family over its family index `codes`, yielding to the event loop
 * every few milliseconds.
 */
export async function buildProductSearchIndex(snapshot: CatalogSnapshot, codes: FamilyIndex): Promise<ProductSearchIndex> {
  const { products } = snapshot;
  const starts = new Int32Array(products.length + 1);
  const shared = {
    ean: new Map<string, number[]>(),
    plu: new Map<number, number[]>(),
    internalIdentifier: new Map<string, number[]>(),
  };
  const batches: string[] = [];
  const batch: string[] = [];
  const slicer = createSlicer(BUILD_SLICE_MS);
  let offset = 0;
  for (let position = 0; position < products.length; position += 1) {
    const product = products[position];
    const name = foldSearchText(product?.name ?? '');
    batch.push(name, '\n');
    starts[position] = offset;
    offset += name.length + 1;
    if (product !== undefined) {
      addShared(shared.ean, product.ean, codes.byEan, position);
      addShared(shared.plu, product.plu, codes.byPlu, position);
      addShared(shared.internalIdentifier, product.internalIdentifier, codes.byInternal, position);
    }
    if (batch.length === 2 * BATCH) {
      batches.push(batch.join(''));
      batch.length = 0;
      await slicer.next();
    }
  }
  batches.push(batch.join(''));
  starts[products.length] = offset;
  // One join (a copy of ~2.4 MB at 100,000 products, ~1 ms) rather than a rope that the first search would flatten.
  return { products: products.length, names: batches.join(''), starts, codes, shared };
}

/** The search indexes of the versions served: each built once per family (in slices) on first use. */
export type ProductSearchIndexes = AsyncFamilyCache<ProductSearchIndex>;

/** `familyIndex`: the family index of a snapshot (`CatalogService.familyIndex`), built first. */
export function createProductSearchIndexes(
  familyIndex: (snapshot: CatalogSnapshot) => Promise<FamilyIndex>,
): ProductSearchIndexes {
  return createAsyncFamilyCache(async (snapshot) => buildProductSearchIndex(snapshot, await familyIndex(snapshot)));
}

/** `code`, and in upper and lower case: codes are exact, but people type `kav-1001` for `KAV-1001`. */
function caseVariants(code: string): string[] {
  return [...new Set([code, code.toUpperCase(), code.toLowerCase()])];
}

/**
 * The spellings of a GTIN that `code` may stand for: as given (spaces and dashes dropped), without its
 * leading zeros, and zero-padded to GTIN-8, -12, -13 and -14, so that an EAN kept with or without its
 * leading zeros is found either way.
 */
function eanVariants(code: string): string[] {
  const digits = /^[\d\s-]+$/.test(code) ? code.replace(/[\s-]/g, '') : undefined;
  if (digits === undefined || digits === '') return [code];
  const core = normalizeCode('ean', digits) ?? digits;
  const padded = [8, 12, 13, 14].filter((length) => length > core.length).map((length) => core.padStart(length, '0'));
  return [...new Set([digits, core, ...padded])];
}

/** The exact code matches of `query`, position → how it matched (the first kind of `SEARCH_MATCHES`). */
function codeMatches({ codes, shared }: ProductSearchIndex, query: string): Map<number, SearchMatch> {
  const found = new Map<number, SearchMatch>();
  const code = query.trim();
  if (code === '') return found;
  const take = (position: number | undefined, kind: SearchMatch) => {
    if (position !== undefined && !found.has(position)) found.set(position, kind);
  };
  /** A code of the family index: one product's id, or `null` when products share it (then `shared` has them). */
  const takeCode = (id: string | null | undefined, kind: SearchMatch, sharing: readonly number[] | undefined) => {
    if (id !== null) take(id === undefined ? undefined : codes.positions.get(id), kind);
    else for (const position of sharing ?? []) take(position, kind);
  };
  for (const id of caseVariants(code)) take(codes.positions.get(id), 'id');
  for (const ean of eanVariants(code)) takeCode(codes.byEan.get(ean), 'ean', shared.ean.get(ean));
  const plu = normalizeCode('plu', code);
  if (plu !== undefined) takeCode(codes.byPlu.get(Number(plu)), 'plu', shared.plu.get(Number(plu)));
  for (const internal of caseVariants(code)) {
    takeCode(codes.byInternal.get(internal), 'internalIdentifier', shared.internalIdentifier.get(internal));
  }
  return found;
}

/**
 * The products `query` finds, best first (see the ranking above), at most `limit` of them, and how many
 * it finds in all; bounded as `SEARCH_BOUNDS` says.
 *
 * @example await searchProducts(await indexes.get(snapshot), 'cokolada hor', 20) // { hits: [{ position: 9, matchedBy: 'name' }], total: 1, complete: true }
 */
export async function searchProducts(
  index: ProductSearchIndex,
  query: string,
  limit: number,
  options: SearchOptions = {},
): Promise<ProductSearchResult> {
  const codes = codeMatches(index, query);
  const hits: ProductSearchHit[] = [...codes]
    .sort(([a], [b]) => a - b)
    .slice(0, limit)
    .map(([position, matchedBy]) => ({ position, matchedBy }));
  let total = codes.size;
  const phrase = foldSearchText(query);
  // Only the first `limit` of each rank can be shown; the others are counted.
  const ranked: number[][] = Array.from({ length: NAME_RANKS }, () => []);
  const visit = (position: number, rank: number) => {
    if (codes.has(position)) return;
    total += 1;
    const bucket = ranked[rank] as number[];
    if (bucket.length < limit) bucket.push(position);
  };
  const complete = await matchNames(index, searchWords(phrase), phrase, visit, {
    sliceMs: options.sliceMs ?? SEARCH_BOUNDS.sliceMs,
    budgetMs: options.budgetMs ?? SEARCH_BOUNDS.budgetMs,
  });
  for (const bucket of ranked) {
    for (const position of bucket) {
      if (hits.length >= limit) break;
      hits.push({ position, matchedBy: 'name' });
    }
  }
  return { hits, total, complete };
}
