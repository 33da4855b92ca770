/**
 * The catalog merge (SPEC §4): articles + units + per-unit price lists + per-unit stock exports →
 * one `CatalogSnapshot`, an admin-only `InternalCatalog` and a `MergeReport`. Pure: no I/O, no clock,
 * `now` is a parameter. O(articles × units + rows); 100,000 articles × 5 units merge in well under a second.
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
import {
  createIdentityIndex,
  type IdentityCandidates,
  type IdentityIndex,
  type IdentityKeyChoice,
  type IdentityResolution,
  resolveIdentity,
} from './resolve-identity.js';
import { type PriceNote, resolveOfferPrices } from './resolve-offer-prices.js';
import { roundQuantity, toMoney } from './round-money.js';
import type { IdentityKey, PriceListRow, SourceArticle, SourceUnit, StockRow } from './source.js';

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
}

const NO_ROW = -1;
const DEFAULT_MAX_EXAMPLES = 50;

/** Per unit: which row of each document feeds which product (by product position). */
interface UnitRows {
  readonly unit: CatalogUnit;
  readonly priceRows: readonly PriceListRow[];
  readonly priceRowOf: Int32Array;
  readonly stockOf: (number | undefined)[];
  readonly counts: MutableOfferCounts;
}

type MutableOfferCounts = { -readonly [K in keyof UnitOfferCounts]: number };

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Merges the POS sources into one catalog version (SPEC §4 rules 1-7); see the module comment for
 * every decision. Never throws on bad data: problems go to the report.
 *
 * @example
 * const { snapshot, report } = mergeCatalog(input, { version, currency: 'CZK', unknownStockAvailability: 'out_of_stock',
 *   priceListKey: 'auto', stockKey: 'auto' }, now);
 */
export function mergeCatalog(input: MergeInput, options: MergeOptions, now: Date): MergeResult {
  const issues = createIssueLog<MergeIssueReason>(options.maxExamples ?? DEFAULT_MAX_EXAMPLES);
  const warnings: string[] = [];
  const generatedAt = now.toISOString();

  const units = selectUnits(input.units, warnings);
  const primaryUnit = selectPrimaryUnit(units, options.primaryUnit, warnings);
  for (const code of [...input.priceLists.keys(), ...input.stock.keys()]) {
    if (!units.some((unit) => unit.code === code)) warnings.push(`document for unknown unit "${code}" ignored`);
  }

  const { products: articles, excluded, invalid, duplicates } = selectArticles(input.articles, issues);
  const index = createIdentityIndex(articles);
  const excludedIndex = createIdentityIndex(excluded);

  const unitReports: UnitMergeReport[] = [];
  const unitRows: UnitRows[] = [];
  for (const unit of units) {
    const priceRows = input.priceLists.get(unit.code);
    const stockRows = input.stock.get(unit.code);
    const priceResolution = resolveDocument(index, excludedIndex, priceRows ?? [], options.priceListKey);
    const stockResolution = resolveDocument(index, excludedIndex, stockRows ?? [], options.stockKey);
    reportIdentity(issues, 'price-list', unit.code, priceResolution, (row) => priceRows?.[row]?.position);
    reportIdentity(issues, 'stock', unit.code, stockResolution, (row) => stockRows?.[row]?.line);

    const priceRowOf = new Int32Array(articles.length).fill(NO_ROW);
    for (const match of priceResolution.matches) priceRowOf[match.article] = match.row;
    const stockOf = new Array<number | undefined>(articles.length);
    for (const match of stockResolution.matches) {
      const row = stockRows?.[match.row];
      if (row === undefined) continue;
      if (!Number.isFinite(row.quantity)) {
        issues.add({ reason: 'invalid-stock', source: 'stock', unit: unit.code, row: row.line, articleId: match.articleId });
        continue;
      }
      stockOf[match.article] = roundQuantity(row.quantity);
    }

    const counts = emptyOfferCounts();
    unitRows.push({ unit, priceRows: priceRows ?? [], priceRowOf, stockOf, counts });
    unitReports.push({
      unit: unit.code,
      priceList: sourceReport(priceRows !== undefined, priceRows?.length ?? 0, priceResolution),
      stock: sourceReport(stockRows !== undefined, stockRows?.length ?? 0, stockResolution),
      offers: counts,
    });
  }

  const products: Product[] = [];
  const internal: InternalProductData[] = [];
  let withoutPrice = 0;
  for (const [position, article] of articles.entries()) {
    const salesPrice = toMoney(article.salesPrice);
    if (article.salesPrice !== undefined && salesPrice === undefined) {
      issues.add({
        reason: 'invalid-sales-price',
        source: 'articles',
        articleId: article.localId,
        detail: String(article.salesPrice),
      });
    }
    const isStockItem = article.isStockItem !== false;
    const offers: Offer[] = [];
    for (const rows of unitRows) {
      offers.push(buildOffer(rows, position, article.localId, salesPrice, isStockItem, options, issues));
    }
    if (!offers.some((offer) => offer.price !== undefined)) {
      withoutPrice += 1;
      issues.add({ reason: 'no-price', source: 'articles', articleId: article.localId, code: article.localId });
    }
    products.push({
      ...describeArticle(article),
      isStockItem,
      offers,
      aggregate: aggregateOffer(offers, primaryUnit, isStockItem, options.unknownStockAvailability),
    });
    const purchase = internalData(article);
    if (purchase !== undefined) internal.push(purchase);
  }

  const summary = issues.summary();
  return {
    snapshot: { version: options.version, generatedAt, currency: options.currency, primaryUnit, units, products },
    internal: { version: options.version, products: internal },
    report: {
      version: options.version,
      generatedAt,
      primaryUnit,
      articles: {
        received: input.articles.length,
        invalid,
        duplicates,
        notForSale: excluded.length,
        products: products.length,
        withoutPrice,
      },
      units: unitReports,
      warnings,
      issueCounts: summary.counts,
      issues: summary.examples,
    },
  };
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

function resolveDocument(
  index: IdentityIndex,
  excluded: IdentityIndex,
  rows: readonly PriceListRow[] | readonly StockRow[],
  choice: IdentityKeyChoice,
): IdentityResolution {
  const candidates: IdentityCandidates[] = [];
  for (const row of rows) candidates.push('codes' in row ? row.codes : row);
  return resolveIdentity(index, candidates, choice, excluded);
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
    matched: resolution.matches.length,
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
  rows: UnitRows,
  position: number,
  articleId: string,
  salesPrice: number | undefined,
  isStockItem: boolean,
  options: MergeOptions,
  issues: IssueLog<MergeIssueReason>,
): Offer {
  const unit = rows.unit.code;
  const counts = rows.counts;
  const priceRow = rows.priceRows[rows.priceRowOf[position] ?? NO_ROW];
  const prices = resolveOfferPrices({ salesPrice, row: priceRow, currency: options.currency });
  for (const note of prices.notes) {
    issues.add({ reason: note, source: 'price-list', unit, code: priceRow?.code ?? articleId, articleId, ...rowOf(priceRow) });
  }

  let stock = rows.stockOf[position];
  if (stock !== undefined) {
    counts.stockFromExport += 1;
  } else if (priceRow?.stock !== undefined && Number.isFinite(priceRow.stock)) {
    stock = roundQuantity(priceRow.stock);
    counts.stockFromPriceList += 1;
  } else {
    if (priceRow?.stock !== undefined) {
      issues.add({ reason: 'invalid-stock', source: 'price-list', unit, code: priceRow.code, articleId, row: priceRow.position });
    }
    counts.stockUnknown += 1;
  }

  const availability = computeAvailability(stock, isStockItem, options.unknownStockAvailability);
  const texts = availabilityTexts(priceRow);
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
  return offer;
}

function rowOf(row: PriceListRow | undefined): { row?: number } {
  return row === undefined ? {} : { row: row.position };
}

function availabilityTexts(row: PriceListRow | undefined): AvailabilityTexts | undefined {
  if (row?.availabilityInStock === undefined && row?.availabilityOutOfStock === undefined) return undefined;
  const inStock = row?.availabilityInStock?.trim();
  const outOfStock = row?.availabilityOutOfStock?.trim();
  const texts: AvailabilityTexts = {
    ...(inStock === undefined || inStock === '' ? {} : { inStock }),
    ...(outOfStock === undefined || outOfStock === '' ? {} : { outOfStock }),
  };
  return texts.inStock === undefined && texts.outOfStock === undefined ? undefined : texts;
}

/** The public fields of an article; empty optional strings count as absent. Purchase prices stay out. */
function describeArticle(
  article: SourceArticle,
): Pick<Product, 'id' | 'name' | 'groupId' | 'ean' | 'plu' | 'internalIdentifier' | 'measureUnit'> {
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
