/**
 * The catalog merge (docs/catalog-rules.md): articles + units + per-unit price lists + per-unit stock exports →
 * one `CatalogSnapshot`, an admin-only `InternalCatalog` and a `MergeReport`. Pure: no I/O, no clock,
 * `now` is a parameter. O(articles × units + rows); 100,000 articles × 5 units merge in well under a second.
 * `createCatalogMerger` is the same merge one unit document at a time (what a sync uses, so that it never
 * holds every unit's rows at once); `mergeCatalog` runs it over all documents.
 *
 * Decisions (also in `README.md` of this folder):
 * - Articles: one product per `localId`, in article-list order. A repeated `localId` keeps the first
 *   article (`duplicate-article`); an empty `localId` is dropped (`invalid-article`). `isSalesItem: false`
 *   is excluded, absent counts as true. Absent `isStockItem` counts as a stock item.
 * - Units: in unit-list order; a repeated unit code keeps the first (warning). The primary unit is
 *   `options.primaryUnit` when it exists, else the first unit, with a warning when a configured one is
 *   missing (failing the sync would also freeze stock, the worse outcome for shoppers).
 * - Identity: `resolve-identity.ts` (ranked keys, mixed keys, ambiguous rows matched to nothing). Rows
 *   that name a not-for-sale article are reported as `row-not-for-sale`, not as unmatched. When two rows
 *   of one document name the same article, the first row wins and the others are `row-duplicate`
 *   (for stock: no summing; a stock export has one line per article and a second one is a data error).
 * - Prices: `resolve-offer-prices.ts`. A product without any price is kept, without price, and reported
 *   (`no-price`); each channel renderer drops what its rules require. A negative `salesPrice` is dropped
 *   (`invalid-sales-price`).
 * - Stock: the stock-export row wins over the XML's `STOCK/AMOUNT`; neither → unknown (absent). Negative
 *   and fractional quantities are kept. A non-finite quantity is ignored (`invalid-stock`).
 * - Aggregate `all`: see `aggregate-offer.ts`.
 * - Purchase prices never enter `Product`; they go to `InternalCatalog` (admin only).
 * - Report: counts per unit and source, key order and per-key counts, and the first `maxExamples`
 *   (default 50) issues of each reason.
 */
import { aggregateOffer, computeAvailability } from './aggregate-offer.js';
import {
  ALL_UNITS,
  type Availability,
  type AvailabilityTexts,
  type CatalogSnapshot,
  type CatalogUnit,
  type InternalCatalog,
  type InternalProductData,
  type Offer,
  type Product,
} from './catalog.js';
import { type CatalogIssue, createIssueLog, type IssueLog, type IssueSource } from './create-issue-log.js';
import { type PriceListRows, priceListRowsOf } from './price-list-rows.js';
import {
  createIdentityIndex,
  IDENTITY_KEYS,
  type IdentityIndex,
  type IdentityKeyChoice,
  type IdentityResolution,
  resolveIdentity,
} from './resolve-identity.js';
import { type PriceNote, resolveOfferPrices } from './resolve-offer-prices.js';
import { roundQuantity, toMoney } from './round-money.js';
import type { IdentityKey, PriceListRow, SourceArticle, SourceUnit, StockRow } from './source.js';
import {
  type CatalogSourceRows,
  createUnitSourceRows,
  keyCode,
  PRICE_FROM_ARTICLE,
  PRICE_FROM_ROW,
  type UnitSourceRows,
} from './source-rows.js';
import { asStockRows, type StockRows } from './stock-rows.js';

export interface MergeInput {
  readonly units: readonly SourceUnit[];
  readonly articles: readonly SourceArticle[];
  /** Rows of each unit's price-list XML by unit code; a unit without an entry has no price list. */
  readonly priceLists: ReadonlyMap<string, readonly PriceListRow[]>;
  /** Rows of each unit's stock export by unit code; a unit without an entry has no export. */
  readonly stock: ReadonlyMap<string, readonly StockRow[]>;
}

export interface MergeOptions {
  readonly version: string;
  readonly currency: string;
  /** Unit code whose prices the aggregate shows (`FEED_PRIMARY_UNIT`); default: the first unit. */
  readonly primaryUnit?: string;
  readonly unknownStockAvailability: Availability;
  readonly priceListKey: IdentityKeyChoice;
  readonly stockKey: IdentityKeyChoice;
  /** Examples kept per issue reason in the report; default 50. */
  readonly maxExamples?: number;
}

export type MergeIssueReason =
  | 'invalid-article'
  | 'duplicate-article'
  | 'invalid-sales-price'
  | 'no-price'
  | 'row-unmatched'
  | 'row-ambiguous'
  | 'row-duplicate'
  | 'row-key-conflict'
  | 'row-not-for-sale'
  | 'invalid-stock'
  | PriceNote;

export type MergeIssue = CatalogIssue<MergeIssueReason>;

/** Identity outcome of one document (a unit's price list or stock export). */
export interface SourceReport {
  /** Whether the unit had this document at all. */
  readonly present: boolean;
  readonly rows: number;
  readonly matched: number;
  readonly unmatched: number;
  readonly ambiguous: number;
  readonly duplicates: number;
  readonly notForSale: number;
  readonly conflicts: number;
  readonly keyOrder: readonly IdentityKey[];
  /** Rows matched by each key. */
  readonly keyCounts: Readonly<Record<IdentityKey, number>>;
  /** Per key, rows of the ranking sample it names uniquely (every key, even when one is fixed). */
  readonly sampleKeyCounts: Readonly<Record<IdentityKey, number>>;
}

export interface UnitOfferCounts {
  readonly withPrice: number;
  readonly withoutPrice: number;
  readonly priceFromPriceList: number;
  readonly priceFromArticle: number;
  readonly onSale: number;
  readonly stockFromExport: number;
  readonly stockFromPriceList: number;
  readonly stockUnknown: number;
  readonly inStock: number;
  readonly outOfStock: number;
}

export interface UnitMergeReport {
  readonly unit: string;
  readonly priceList: SourceReport;
  readonly stock: SourceReport;
  readonly offers: UnitOfferCounts;
}

export interface MergeReport {
  readonly version: string;
  readonly generatedAt: string;
  readonly primaryUnit: string;
  readonly articles: {
    readonly received: number;
    readonly invalid: number;
    readonly duplicates: number;
    readonly notForSale: number;
    readonly products: number;
    readonly withoutPrice: number;
  };
  readonly units: readonly UnitMergeReport[];
  /** Problems of the whole run (units, primary unit, documents for unknown units). */
  readonly warnings: readonly string[];
  readonly issueCounts: Partial<Record<MergeIssueReason, number>>;
  readonly issues: readonly MergeIssue[];
}

export interface MergeResult {
  readonly snapshot: CatalogSnapshot;
  /** Purchase prices, for admin endpoints only. */
  readonly internal: InternalCatalog;
  readonly report: MergeReport;
  /** Which document rows gave each product its values, per unit (a product's console page). */
  readonly sourceRows: CatalogSourceRows;
}

const NO_ROW = -1;
const DEFAULT_MAX_EXAMPLES = 50;

type MutableOfferCounts = { -readonly [K in keyof UnitOfferCounts]: number };

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Merges the POS sources into one catalog version (docs/catalog-rules.md rules 1-7); see the module comment for
 * every decision. Never throws on bad data: problems go to the report.
 *
 * @example
 * const { snapshot, report } = mergeCatalog(input, { version, currency: 'CZK', unknownStockAvailability: 'out_of_stock',
 *   priceListKey: 'auto', stockKey: 'auto' }, now);
 */
export function mergeCatalog(input: MergeInput, options: MergeOptions, now: Date): MergeResult {
  const merger = createCatalogMerger(input, options, now);
  // Stock first: a unit's price list builds its offers, which take the export's quantities.
  for (const [code, rows] of input.stock) merger.addStock(code, rows);
  for (const [code, rows] of input.priceLists) merger.addPriceList(code, rows);
  return merger.finish();
}

/**
 * `mergeCatalog` one unit document at a time, with the same result: each document is resolved when it
 * is added and only what the offers need is kept, so a sync can drop a unit's rows as soon as they are
 * merged instead of holding every unit's rows at once (~50 MB per unit of 100,000 articles;
 * bench/full-sync.ts). Issues are buffered per unit and replayed in `finish()` in `mergeCatalog`'s order.
 *
 * Add a unit's stock export (if any) before its price list; each document at most once. A document of a
 * code that is not a unit of `input.units` is ignored with a warning.
 */
export interface CatalogMerger {
  /** Rows as an array, or held compactly (`createStockRowCollector`). */
  addStock(unitCode: string, rows: readonly StockRow[] | StockRows): void;
  /** Rows as an array, or held compactly (`createPriceListRowCollector`). */
  addPriceList(unitCode: string, rows: readonly PriceListRow[] | PriceListRows): void;
  /** The merged catalog; documents not added count as absent (a unit without an entry in `MergeInput`). */
  finish(): MergeResult;
}

/** One unit's merge state: what its documents resolved to, and its offers once its price list is in. */
interface UnitMerge {
  readonly unit: CatalogUnit;
  readonly counts: MutableOfferCounts;
  readonly rows: UnitSourceRows;
  stock?: {
    readonly report: SourceReport;
    readonly stockOf: readonly (number | undefined)[];
    readonly issues: IssueLog<MergeIssueReason>;
  };
  priceList?: { readonly report: SourceReport; readonly issues: IssueLog<MergeIssueReason> };
  /** By product position. */
  offers?: readonly Offer[] | undefined;
  /** Issues found while building the offers, with the product position, for replay in product order. */
  offerIssues?: PositionedIssues;
}

/**
 * Capped like `IssueLog` (the first `maxExamples` of each reason are kept, all are counted), with each
 * example's product position. Within one unit issues arrive in product order, so the kept examples of
 * all units, replayed in product order, contain the first `maxExamples` of each reason overall.
 */
interface PositionedIssues {
  readonly counts: Map<MergeIssueReason, number>;
  readonly examples: { readonly position: number; readonly issue: MergeIssue }[];
}

export function createCatalogMerger(
  input: Pick<MergeInput, 'units' | 'articles'>,
  options: MergeOptions,
  now: Date,
): CatalogMerger {
  const maxExamples = options.maxExamples ?? DEFAULT_MAX_EXAMPLES;
  const issues = createIssueLog<MergeIssueReason>(maxExamples);
  const warnings: string[] = [];
  const generatedAt = now.toISOString();

  const units = selectUnits(input.units, warnings);
  const primaryUnit = selectPrimaryUnit(units, options.primaryUnit, warnings);
  const received = input.articles.length;
  const selected = selectArticles(input.articles, issues);
  const { invalid, duplicates } = selected;
  const notForSale = selected.excluded.length;
  const index = createIdentityIndex(selected.products);
  const excludedIndex = createIdentityIndex(selected.excluded);
  // Only what the merge needs of each article is kept, never `input.articles` itself: a sync can then
  // drop its article list (~35 MB for 100,000 articles) while it reads the units (bench/full-sync.ts).
  const articles = articleFacts(selected.products);
  const merges = new Map<string, UnitMerge>(
    units.map((unit) => [
      unit.code,
      { unit, counts: emptyOfferCounts(), rows: createUnitSourceRows(unit.code, articles.length) },
    ]),
  );
  const texts = createTextsCache();
  const unknownDocuments = { priceList: [] as string[], stock: [] as string[] };
  let finished = false;

  /**
   * Codes of documents for unknown units in the order of the unit list (a code that trims to another unit's,
   * or an empty one), then the others as added: a sync adds units as they finish, and the report must not
   * depend on that.
   */
  function inListOrder(codes: readonly string[]): string[] {
    const rank = (code: string): number => {
      const position = input.units.findIndex((unit) => unit.code === code);
      return position < 0 ? Number.POSITIVE_INFINITY : position;
    };
    return [...codes].sort((a, b) => rank(a) - rank(b));
  }

  function unitMerge(code: string, document: 'priceList' | 'stock'): UnitMerge | undefined {
    if (finished) throw new Error('catalog merger already finished');
    const merge = merges.get(code);
    if (merge === undefined) {
      unknownDocuments[document].push(code);
      return undefined;
    }
    if (merge[document] !== undefined) throw new Error(`${document} of unit "${code}" added twice`);
    return merge;
  }

  function buildOffers(merge: UnitMerge, priceRows: PriceListRows | undefined, priceRowOf: Int32Array | undefined): void {
    const offerIssues: PositionedIssues = { counts: new Map(), examples: [] };
    let position = 0;
    const report = (issue: MergeIssue): void => {
      const count = (offerIssues.counts.get(issue.reason) ?? 0) + 1;
      offerIssues.counts.set(issue.reason, count);
      if (count <= maxExamples) offerIssues.examples.push({ position, issue });
    };
    const stockOf = merge.stock?.stockOf;
    const offers: Offer[] = new Array(articles.length);
    for (; position < articles.length; position += 1) {
      const rowIndex = priceRowOf === undefined ? NO_ROW : (priceRowOf[position] ?? NO_ROW);
      offers[position] = buildOffer(
        merge,
        rowIndex === NO_ROW ? undefined : priceRows?.row(rowIndex),
        stockOf?.[position],
        index.ids[position] ?? '',
        articles.salesPrices[position],
        articles.stockItems[position] === 1,
        options,
        report,
        texts,
        position,
      );
    }
    merge.offers = offers;
    merge.offerIssues = offerIssues;
  }

  /**
   * Resolves a price list; returns the matched row of each product (`NO_ROW`: none). A function of its
   * own so that the resolution (an object per row) is garbage before the offers are built: kept alive
   * across that work, it outlived the young generation and was promoted only to die (bench/full-sync.ts).
   */
  function resolvePriceList(merge: UnitMerge, rows: PriceListRows): Int32Array {
    const code = merge.unit.code;
    // Candidates are built row by row as resolution reads them, never all at once: kept in an array for
    // the whole resolution they outlived the young generation (~12 MB per unit; bench/full-sync.ts).
    const candidates = { length: rows.length, candidates: (row: number) => rows.identity(row) };
    const priceRowOf = new Int32Array(articles.length).fill(NO_ROW);
    const { priceRows, priceKeys } = merge.rows;
    const resolution = resolveIdentity(index, candidates, options.priceListKey, excludedIndex, (row, article, key) => {
      priceRowOf[article] = row;
      priceRows[article] = rows.position(row) ?? 0;
      priceKeys[article] = keyCode(key);
    });
    const log = createIssueLog<MergeIssueReason>(maxExamples);
    reportIdentity(log, 'price-list', code, resolution, (row) => rows.position(row));
    merge.priceList = { report: sourceReport(true, rows.length, resolution), issues: log };
    return priceRowOf;
  }

  return {
    addStock(code, documentRows) {
      const rows = asStockRows(documentRows);
      const merge = unitMerge(code, 'stock');
      if (merge === undefined) return;
      if (merge.priceList !== undefined) throw new Error(`stock of unit "${code}" added after its price list`);
      const stockOf = new Array<number | undefined>(articles.length);
      // Matches go straight into `stockOf` (no object per row); the rare unusable quantities are reported
      // after the identity issues, in row order, as always.
      const unusable: { readonly row: number; readonly article: number }[] = [];
      const candidates = { length: rows.length, candidates: (row: number) => rows.codes(row) };
      const { stockLines, stockKeys } = merge.rows;
      const resolution = resolveIdentity(index, candidates, options.stockKey, excludedIndex, (row, article, key) => {
        const quantity = rows.quantity(row);
        if (quantity === undefined) return;
        if (Number.isFinite(quantity)) {
          stockOf[article] = roundQuantity(quantity);
          stockLines[article] = rows.line(row) ?? 0;
          stockKeys[article] = keyCode(key);
        } else unusable.push({ row, article });
      });
      const log = createIssueLog<MergeIssueReason>(maxExamples);
      reportIdentity(log, 'stock', code, resolution, (row) => rows.line(row));
      for (const { row, article } of unusable) {
        const line = rows.line(row);
        const at = line === undefined ? {} : { row: line };
        log.add({ reason: 'invalid-stock', source: 'stock', unit: code, ...at, articleId: index.ids[article] ?? '' });
      }
      merge.stock = { report: sourceReport(true, rows.length, resolution), stockOf, issues: log };
    },

    addPriceList(code, documentRows) {
      const merge = unitMerge(code, 'priceList');
      if (merge === undefined) return;
      const rows = 'identity' in documentRows ? documentRows : priceListRowsOf(documentRows);
      const priceRowOf = resolvePriceList(merge, rows);
      buildOffers(merge, rows, priceRowOf);
    },

    finish() {
      if (finished) throw new Error('catalog merger already finished');
      finished = true;
      for (const code of inListOrder(unknownDocuments.priceList)) warnings.push(`document for unknown unit "${code}" ignored`);
      for (const code of inListOrder(unknownDocuments.stock)) warnings.push(`document for unknown unit "${code}" ignored`);

      // Identity issues, unit by unit in unit order: the price list's, then the stock export's.
      const unitMerges = [...merges.values()];
      const unitReports: UnitMergeReport[] = [];
      for (const merge of unitMerges) {
        const code = merge.unit.code;
        if (merge.offers === undefined) buildOffers(merge, undefined, undefined);
        if (merge.priceList !== undefined) replay(issues, merge.priceList.issues);
        if (merge.stock !== undefined) replay(issues, merge.stock.issues);
        unitReports.push({
          unit: code,
          priceList: merge.priceList?.report ?? absentReport(index, excludedIndex, options.priceListKey),
          stock: merge.stock?.report ?? absentReport(index, excludedIndex, options.stockKey),
          offers: merge.counts,
        });
      }

      // Products in article order; each product's issues in the order `mergeCatalog` always found them.
      const cursors = unitMerges.map(() => 0);
      const products: Product[] = [];
      let withoutPrice = 0;
      for (let position = 0; position < articles.length; position += 1) {
        const articleId = index.ids[position] ?? '';
        const invalidSalesPrice = articles.invalidSalesPrices.get(position);
        if (invalidSalesPrice !== undefined) {
          issues.add({ reason: 'invalid-sales-price', source: 'articles', articleId, detail: invalidSalesPrice });
        }
        const isStockItem = articles.stockItems[position] === 1;
        const offers: Offer[] = [];
        for (const [unitIndex, merge] of unitMerges.entries()) {
          const examples = merge.offerIssues?.examples ?? [];
          let cursor = cursors[unitIndex] ?? 0;
          for (; cursor < examples.length && examples[cursor]?.position === position; cursor += 1) {
            issues.add((examples[cursor] as { issue: MergeIssue }).issue);
          }
          cursors[unitIndex] = cursor;
          offers.push((merge.offers as readonly Offer[])[position] as Offer);
        }
        if (!offers.some((offer) => offer.price !== undefined)) {
          withoutPrice += 1;
          issues.add({ reason: 'no-price', source: 'articles', articleId, code: articleId });
        }
        products.push({
          ...(articles.described[position] as ArticleDescription),
          isStockItem,
          offers,
          aggregate: aggregateOffer(offers, primaryUnit, isStockItem, options.unknownStockAvailability),
        });
      }
      // What the units' offer logs only counted came after every kept example.
      for (const merge of unitMerges) {
        const offerIssues = merge.offerIssues;
        if (offerIssues === undefined) continue;
        for (const [reason, count] of offerIssues.counts) issues.addCount(reason, count - Math.min(count, maxExamples));
        // The units' offers now live in the products.
        merge.offers = undefined;
      }

      const summary = issues.summary();
      return {
        snapshot: { version: options.version, generatedAt, currency: options.currency, primaryUnit, units, products },
        internal: { version: options.version, products: articles.internal },
        sourceRows: { units: unitMerges.map((merge) => merge.rows) },
        report: {
          version: options.version,
          generatedAt,
          primaryUnit,
          articles: {
            received,
            invalid,
            duplicates,
            notForSale,
            products: products.length,
            withoutPrice,
          },
          units: unitReports,
          warnings,
          issueCounts: summary.counts,
          issues: summary.examples,
        },
      };
    },
  };
}

/** Replays a unit's capped log into the run's: its examples in order, then what it only counted. */
function replay(into: IssueLog<MergeIssueReason>, from: IssueLog<MergeIssueReason>): void {
  const { counts, examples } = from.summary();
  const kept = new Map<MergeIssueReason, number>();
  for (const issue of examples) {
    into.add(issue);
    kept.set(issue.reason, (kept.get(issue.reason) ?? 0) + 1);
  }
  for (const [reason, count] of Object.entries(counts) as [MergeIssueReason, number][]) {
    into.addCount(reason, count - (kept.get(reason) ?? 0));
  }
}

/** The report of a document the unit does not have. */
function absentReport(index: IdentityIndex, excluded: IdentityIndex, choice: IdentityKeyChoice): SourceReport {
  return sourceReport(false, 0, resolveIdentity(index, [], choice, excluded));
}

/** What the merge keeps of the selected articles, by product position (the ids are in the identity index). */
interface ArticleFacts {
  readonly length: number;
  readonly salesPrices: readonly (number | undefined)[];
  /** The sales prices that are present but unusable, as reported. */
  readonly invalidSalesPrices: ReadonlyMap<number, string>;
  /** 1 for a stock item, 0 for a service. */
  readonly stockItems: Uint8Array;
  readonly described: readonly ArticleDescription[];
  /** Purchase prices, in article order, of the articles that have one. */
  readonly internal: readonly InternalProductData[];
}

function articleFacts(articles: readonly SourceArticle[]): ArticleFacts {
  const salesPrices: (number | undefined)[] = new Array(articles.length);
  const invalidSalesPrices = new Map<number, string>();
  const stockItems = new Uint8Array(articles.length);
  const described: ArticleDescription[] = new Array(articles.length);
  const internal: InternalProductData[] = [];
  for (const [position, article] of articles.entries()) {
    const salesPrice = toMoney(article.salesPrice);
    salesPrices[position] = salesPrice;
    if (article.salesPrice !== undefined && salesPrice === undefined)
      invalidSalesPrices.set(position, String(article.salesPrice));
    stockItems[position] = article.isStockItem === false ? 0 : 1;
    described[position] = describeArticle(article);
    const purchase = internalData(article);
    if (purchase !== undefined) internal.push(purchase);
  }
  return { length: articles.length, salesPrices, invalidSalesPrices, stockItems, described, internal };
}

/** Units in list order, first of each code kept. */
function selectUnits(source: readonly SourceUnit[], warnings: string[]): CatalogUnit[] {
  const units: CatalogUnit[] = [];
  const seen = new Set<string>();
  for (const unit of source) {
    const code = unit.code.trim();
    if (code === '') {
      warnings.push(`unit "${unit.localId}" has no code and is ignored`);
      continue;
    }
    if (seen.has(code)) {
      warnings.push(`unit code "${code}" appears twice; the first unit is kept`);
      continue;
    }
    if (code === ALL_UNITS) warnings.push(`unit code "${ALL_UNITS}" clashes with the aggregate view, which takes precedence`);
    seen.add(code);
    units.push({ code, localId: unit.localId, name: unit.name });
  }
  if (units.length === 0) warnings.push('the POS returned no units: products have no offers');
  return units;
}

function selectPrimaryUnit(units: readonly CatalogUnit[], configured: string | undefined, warnings: string[]): string {
  const first = units[0]?.code ?? '';
  if (configured === undefined || units.some((unit) => unit.code === configured)) return configured ?? first;
  warnings.push(`primary unit "${configured}" does not exist; the aggregate shows the prices of "${first}"`);
  return first;
}

interface SelectedArticles {
  readonly products: SourceArticle[];
  readonly excluded: SourceArticle[];
  readonly invalid: number;
  readonly duplicates: number;
}

function selectArticles(source: readonly SourceArticle[], issues: IssueLog<MergeIssueReason>): SelectedArticles {
  const products: SourceArticle[] = [];
  const excluded: SourceArticle[] = [];
  const seen = new Set<string>();
  let invalid = 0;
  let duplicates = 0;
  for (const article of source) {
    if (article.localId.trim() === '') {
      invalid += 1;
      issues.add({ reason: 'invalid-article', source: 'articles', code: article.name, detail: 'empty localId' });
      continue;
    }
    if (seen.has(article.localId)) {
      duplicates += 1;
      issues.add({ reason: 'duplicate-article', source: 'articles', articleId: article.localId, code: article.localId });
      continue;
    }
    seen.add(article.localId);
    if (article.isSalesItem === false) excluded.push(article);
    else products.push(article);
  }
  return { products, excluded, invalid, duplicates };
}

function reportIdentity(
  issues: IssueLog<MergeIssueReason>,
  source: IssueSource,
  unit: string,
  resolution: IdentityResolution,
  rowNumber: (row: number) => number | undefined,
): void {
  function at(row: number): { row?: number } {
    const number = rowNumber(row);
    return number === undefined ? {} : { row: number };
  }
  for (const entry of resolution.unmatched) {
    issues.add({ reason: 'row-unmatched', source, unit, code: entry.code, ...at(entry.row) });
  }
  for (const entry of resolution.ambiguous) {
    issues.add({
      reason: 'row-ambiguous',
      source,
      unit,
      code: entry.code,
      ...at(entry.row),
      articleIds: entry.articleIds,
      detail: `${entry.key} names several articles`,
    });
  }
  for (const entry of resolution.duplicates) {
    const first = rowNumber(entry.firstRow);
    issues.add({
      reason: 'row-duplicate',
      source,
      unit,
      code: entry.code,
      ...at(entry.row),
      articleId: entry.articleId,
      detail: `article already taken by row ${first ?? entry.firstRow + 1}; the first row wins`,
    });
  }
  for (const entry of resolution.conflicts) {
    issues.add({
      reason: 'row-key-conflict',
      source,
      unit,
      code: entry.code,
      ...at(entry.row),
      articleId: entry.articleId,
      articleIds: [entry.articleId, entry.otherArticleId],
      detail: `matched by ${entry.key}; by ${entry.otherKey} it would name ${entry.otherArticleId}`,
    });
  }
  for (const entry of resolution.notForSale) {
    issues.add({
      reason: 'row-not-for-sale',
      source,
      unit,
      code: entry.code,
      ...at(entry.row),
      ...(entry.articleId === undefined ? {} : { articleId: entry.articleId }),
    });
  }
}

function sourceReport(present: boolean, rows: number, resolution: IdentityResolution): SourceReport {
  return {
    present,
    rows,
    // Summed over the keys rather than `matches.length`: the merge takes matches through `onMatch`.
    matched: IDENTITY_KEYS.reduce((sum, key) => sum + resolution.keyCounts[key], 0),
    unmatched: resolution.unmatched.length,
    ambiguous: resolution.ambiguous.length,
    duplicates: resolution.duplicates.length,
    notForSale: resolution.notForSale.length,
    conflicts: resolution.conflicts.length,
    keyOrder: resolution.keyOrder,
    keyCounts: resolution.keyCounts,
    sampleKeyCounts: resolution.sample.keyCounts,
  };
}

function buildOffer(
  merge: UnitMerge,
  priceRow: PriceListRow | undefined,
  exportStock: number | undefined,
  articleId: string,
  salesPrice: number | undefined,
  isStockItem: boolean,
  options: MergeOptions,
  report: (issue: MergeIssue) => void,
  textsCache: TextsCache,
  position: number,
): Offer {
  const unit = merge.unit.code;
  const counts = merge.counts;
  const prices = resolveOfferPrices({ salesPrice, row: priceRow, currency: options.currency });
  for (const note of prices.notes) {
    report({ reason: note, source: 'price-list', unit, code: priceRow?.code ?? articleId, articleId, ...rowOf(priceRow) });
  }

  let stock = exportStock;
  if (stock !== undefined) {
    counts.stockFromExport += 1;
  } else if (priceRow?.stock !== undefined && Number.isFinite(priceRow.stock)) {
    stock = roundQuantity(priceRow.stock);
    counts.stockFromPriceList += 1;
  } else {
    if (priceRow?.stock !== undefined) {
      report({ reason: 'invalid-stock', source: 'price-list', unit, code: priceRow.code, articleId, row: priceRow.position });
    }
    counts.stockUnknown += 1;
  }

  const availability = computeAvailability(stock, isStockItem, options.unknownStockAvailability);
  const texts = availabilityTexts(priceRow, textsCache);
  if (prices.price === undefined) counts.withoutPrice += 1;
  else counts.withPrice += 1;
  if (prices.source === 'price-list') counts.priceFromPriceList += 1;
  if (prices.source === 'article') counts.priceFromArticle += 1;
  if (prices.salePrice !== undefined) counts.onSale += 1;
  if (availability === 'in_stock') counts.inStock += 1;
  else counts.outOfStock += 1;

  // Built by assignment rather than conditional spreads: this runs once per product and unit.
  const offer: Mutable<Offer> = { unit, availability };
  if (prices.price !== undefined) offer.price = prices.price;
  if (prices.salePrice !== undefined) offer.salePrice = prices.salePrice;
  if (prices.standardPrice !== undefined) offer.standardPrice = prices.standardPrice;
  if (stock !== undefined) offer.stock = stock;
  if (texts !== undefined) offer.availabilityTexts = texts;
  if (prices.source !== 'none')
    merge.rows.priceFrom[position] = prices.source === 'article' ? PRICE_FROM_ARTICLE : PRICE_FROM_ROW;
  return offer;
}

function rowOf(row: PriceListRow | undefined): { row?: number } {
  return row === undefined ? {} : { row: row.position };
}

/**
 * Offers with the same pair of availability labels share one (immutable) `AvailabilityTexts` object: a
 * catalog has a handful of distinct pairs and 500,000 offers. Objects built by conditional spreads also
 * got a hidden class each (~160 bytes apiece); together ~110 MB for 100,000 articles × 5 units
 * (bench/full-sync.ts). Bounded: past `TEXTS_CACHE_LIMIT` pairs, objects are built per offer.
 */
interface TextsCache {
  readonly byInStock: Map<string, Map<string, AvailabilityTexts>>;
  size: number;
}

const TEXTS_CACHE_LIMIT = 10_000;

function createTextsCache(): TextsCache {
  return { byInStock: new Map(), size: 0 };
}

function availabilityTexts(row: PriceListRow | undefined, cache: TextsCache): AvailabilityTexts | undefined {
  if (row?.availabilityInStock === undefined && row?.availabilityOutOfStock === undefined) return undefined;
  const inStock = row.availabilityInStock?.trim() ?? '';
  const outOfStock = row.availabilityOutOfStock?.trim() ?? '';
  if (inStock === '' && outOfStock === '') return undefined;
  const byOutOfStock = cache.byInStock.get(inStock);
  const cached = byOutOfStock?.get(outOfStock);
  if (cached !== undefined) return cached;
  // Three literals rather than spreads: each keeps one shared hidden class, with `inStock` first as before.
  const texts: AvailabilityTexts = outOfStock === '' ? { inStock } : inStock === '' ? { outOfStock } : { inStock, outOfStock };
  if (cache.size < TEXTS_CACHE_LIMIT) {
    if (byOutOfStock === undefined) cache.byInStock.set(inStock, new Map([[outOfStock, texts]]));
    else byOutOfStock.set(outOfStock, texts);
    cache.size += 1;
  }
  return texts;
}

type ArticleDescription = Pick<Product, 'id' | 'name' | 'groupId' | 'ean' | 'plu' | 'internalIdentifier' | 'measureUnit'>;

/** The public fields of an article; empty optional strings count as absent. Purchase prices stay out. */
function describeArticle(article: SourceArticle): ArticleDescription {
  const groupId = present(article.groupId);
  const ean = present(article.ean);
  const internalIdentifier = present(article.internalIdentifier);
  const measureUnit = present(article.measureUnit);
  return {
    id: article.localId,
    name: article.name,
    ...(groupId === undefined ? {} : { groupId }),
    ...(ean === undefined ? {} : { ean }),
    ...(article.plu === undefined || !Number.isFinite(article.plu) ? {} : { plu: article.plu }),
    ...(internalIdentifier === undefined ? {} : { internalIdentifier }),
    ...(measureUnit === undefined ? {} : { measureUnit }),
  };
}

function present(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function internalData(article: SourceArticle): InternalProductData | undefined {
  const purchasePrice = toMoney(article.purchasePrice);
  const avgPurchasePrice = toMoney(article.avgPurchasePrice);
  if (purchasePrice === undefined && avgPurchasePrice === undefined) return undefined;
  return {
    id: article.localId,
    ...(purchasePrice === undefined ? {} : { purchasePrice }),
    ...(avgPurchasePrice === undefined ? {} : { avgPurchasePrice }),
  };
}

function emptyOfferCounts(): MutableOfferCounts {
  return {
    withPrice: 0,
    withoutPrice: 0,
    priceFromPriceList: 0,
    priceFromArticle: 0,
    onSale: 0,
    stockFromExport: 0,
    stockFromPriceList: 0,
    stockUnknown: 0,
    inStock: 0,
    outOfStock: 0,
  };
}
