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
import { buildOffer, createTextsCache } from './build-offer.js';
import { createIssueLog } from './create-issue-log.js';
import { createIdentityIndex, type IdentityIndex, identityIdAt } from './identity-index.js';
import { articleFacts, salesPriceAt, selectArticles, selectPrimaryUnit, selectUnits } from './merge-articles.js';
import { absentReport, replay, reportIdentity, sourceReport } from './merge-identity-report.js';
import {
  emptyOfferCounts,
  type MergedCatalog,
  type MergeInput,
  type MergeIssue,
  type MergeIssueReason,
  type MergeOptions,
  type MergeResult,
  type PositionedIssues,
  type UnitMerge,
  type UnitMergeReport,
} from './merge-types.js';
import { productsOf, replayProductIssues, type UnitOffers, withProductList } from './merged-products.js';
import { createOfferColumns, type OfferColumns, storeOffer } from './offer-columns.js';
import { type PriceListRows, priceListIdentityRows, priceListRowsOf } from './price-list-rows.js';
import { resolveIdentity } from './resolve-identity.js';
import { roundQuantity } from './round-money.js';
import type { PriceListRow, StockRow } from './source.js';
import { createUnitSourceRows, keyCode } from './source-rows.js';
import { asStockRows, type StockRows, stockIdentityRows } from './stock-rows.js';

export type {
  MergedCatalog,
  MergedProducts,
  MergeInput,
  MergeIssue,
  MergeIssueReason,
  MergeOptions,
  MergeReport,
  MergeResult,
  SourceReport,
  UnitMergeReport,
  UnitOfferCounts,
} from './merge-types.js';
// The types live in merge-types.ts; importers keep naming the merge's module.
export { withProductList } from './merged-products.js';

const NO_ROW = -1;
const DEFAULT_MAX_EXAMPLES = 50;

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
  return withProductList(merger.finish());
}

/**
 * `mergeCatalog` one unit document at a time, with the same result (its products made on demand; all of
 * them through `withProductList`): each document is resolved when it
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
  /**
   * The merged catalog, its products made on demand; documents not added count as absent (a unit without
   * an entry in `MergeInput`).
   */
  finish(): MergedCatalog;
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

  // Never `input` itself in a closure: the merger outlives the article list it was made from (see below).
  const listedUnits = input.units;
  const units = selectUnits(input.units, warnings);
  const primaryUnit = selectPrimaryUnit(units, options.primaryUnit, warnings);
  const received = input.articles.length;
  const selected = selectArticles(input.articles, issues);
  const { invalid, duplicates } = selected;
  const notForSale = selected.excluded.length;
  // In shared memory: the products' positions are the articles', so it is the new family's identity index
  // too (`product-identity.ts`), built once for the merge and the worker threads.
  const index = createIdentityIndex(selected.products, undefined, { shared: true });
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
      const position = listedUnits.findIndex((unit) => unit.code === code);
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

  function buildOffers(merge: UnitMerge, priceRows: PriceListRows | undefined, priceRowOf: Int32Array | undefined): OfferColumns {
    const offerIssues: PositionedIssues = { counts: new Map(), examples: [] };
    let position = 0;
    const report = (issue: MergeIssue): void => {
      const count = (offerIssues.counts.get(issue.reason) ?? 0) + 1;
      offerIssues.counts.set(issue.reason, count);
      if (count <= maxExamples) offerIssues.examples.push({ position, issue });
    };
    const stockOf = merge.stock?.stockOf;
    const offers = createOfferColumns(articles.length);
    for (; position < articles.length; position += 1) {
      const rowIndex = priceRowOf === undefined ? NO_ROW : (priceRowOf[position] ?? NO_ROW);
      const exportStock = stockOf?.[position] ?? Number.NaN;
      // Each offer is an object only for a moment: the columns keep it (see offer-columns.ts).
      const offer = buildOffer(
        merge,
        rowIndex === NO_ROW ? undefined : priceRows?.row(rowIndex),
        Number.isNaN(exportStock) ? undefined : exportStock,
        articles.described.idAt(position),
        salesPriceAt(articles.salesPrices, position),
        articles.stockItems[position] === 1,
        options,
        report,
        texts,
        position,
      );
      storeOffer(offers, position, offer);
    }
    merge.offers = offers;
    merge.offerIssues = offerIssues;
    return offers;
  }

  /**
   * Resolves a price list; returns the matched row of each product (`NO_ROW`: none). A function of its
   * own so that the resolution (an object per row) is garbage before the offers are built: kept alive
   * across that work, it outlived the young generation and was promoted only to die (bench/full-sync.ts).
   */
  function resolvePriceList(merge: UnitMerge, rows: PriceListRows): Int32Array {
    const code = merge.unit.code;
    const candidates = priceListIdentityRows(rows);
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
      merge.stock = resolveStockExport(merge, rows, { index, excludedIndex, options, maxExamples });
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
      const offers: UnitOffers[] = [];
      for (const merge of unitMerges) {
        const code = merge.unit.code;
        offers.push({ code, offers: merge.offers ?? buildOffers(merge, undefined, undefined), issues: merge.offerIssues });
        if (merge.priceList !== undefined) replay(issues, merge.priceList.issues);
        if (merge.stock !== undefined) replay(issues, merge.stock.issues);
        unitReports.push({
          unit: code,
          priceList: merge.priceList?.report ?? absentReport(index, excludedIndex, options.priceListKey),
          stock: merge.stock?.report ?? absentReport(index, excludedIndex, options.stockKey),
          offers: merge.counts,
        });
      }

      const withoutPrice = replayProductIssues({ articles, units: offers, issues, maxExamples });
      const products = productsOf(articles, offers, primaryUnit, options.unknownStockAvailability);

      const summary = issues.summary();
      return {
        snapshot: { version: options.version, generatedAt, currency: options.currency, primaryUnit, units },
        products,
        identity: index,
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

interface StockContext {
  readonly index: IdentityIndex;
  readonly excludedIndex: IdentityIndex;
  readonly options: MergeOptions;
  readonly maxExamples: number;
}

/** Resolves a unit's stock export: each product's quantity by position, the export's report and issues. */
function resolveStockExport(merge: UnitMerge, rows: StockRows, context: StockContext): NonNullable<UnitMerge['stock']> {
  const { index, excludedIndex, options, maxExamples } = context;
  const stockOf = new Float64Array(index.size).fill(Number.NaN);
  // Matches go straight into `stockOf` (no object per row); the rare unusable quantities are reported
  // after the identity issues, in row order, as always.
  const unusable: { readonly row: number; readonly article: number }[] = [];
  const candidates = stockIdentityRows(rows);
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
  reportIdentity(log, 'stock', merge.unit.code, resolution, (row) => rows.line(row));
  for (const { row, article } of unusable) {
    const line = rows.line(row);
    const at = line === undefined ? {} : { row: line };
    log.add({ reason: 'invalid-stock', source: 'stock', unit: merge.unit.code, ...at, articleId: identityIdAt(index, article) });
  }
  return { report: sourceReport(true, rows.length, resolution), stockOf, issues: log };
}
