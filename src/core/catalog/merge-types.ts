import type { ArticleDescriptions } from './article-descriptions.js';
import type { Availability, CatalogSnapshot, CatalogUnit, InternalCatalog, InternalProductData, Product } from './catalog.js';
import type { CatalogIssue, IssueLog } from './create-issue-log.js';
import type { IdentityIndex } from './identity-index.js';
import type { OfferColumns } from './offer-columns.js';
import type { IdentityKeyChoice } from './resolve-identity.js';
import type { PriceNote } from './resolve-offer-prices.js';
import type { IdentityKey, PriceListRow, SourceArticle, SourceUnit, StockRow } from './source.js';
import type { CatalogSourceRows, UnitSourceRows } from './source-rows.js';

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

/**
 * The merged products of `createCatalogMerger`, each made when asked: a sync serializes them as they are
 * made and never holds the whole list (~100 MB of objects at 100,000 × 5; bench/full-sync.ts).
 */
export interface MergedProducts {
  readonly length: number;
  /** The product at `position`, a new object at each call. */
  at(position: number): Product;
  /** Each product's article fields (id, name, codes, group), by position: what identity tables and sheets match. */
  readonly described: ArticleDescriptions;
}

/**
 * The purchase prices of the articles that have one, in article order, each made when asked: kept as columns,
 * not an object and two numbers per article, for the reason of `ArticleDescriptions`.
 */
export interface PurchasePriceColumns {
  readonly length: number;
  /** The `index`-th article with a purchase price, a new object at each call. */
  at(index: number): InternalProductData;
}

/** `MergeResult` with its products made on demand (`MergedProducts`). */
export interface MergedCatalog extends Omit<MergeResult, 'snapshot' | 'internal'> {
  readonly snapshot: Omit<CatalogSnapshot, 'products'>;
  readonly products: MergedProducts;
  /** Purchase prices, for admin endpoints only, each made when asked. */
  readonly internal: { readonly version: string; readonly products: PurchasePriceColumns };
  /** The products' identity index (positions = product positions), in shared memory. */
  readonly identity: IdentityIndex;
}

export type MutableOfferCounts = { -readonly [K in keyof UnitOfferCounts]: number };

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** One unit's merge state: what its documents resolved to, and its offers once its price list is in. */
export interface UnitMerge {
  readonly unit: CatalogUnit;
  readonly counts: MutableOfferCounts;
  readonly rows: UnitSourceRows;
  stock?: {
    readonly report: SourceReport;
    /** Each product's quantity from the export, by position; `NaN` when the export has none. */
    readonly stockOf: Float64Array;
    readonly issues: IssueLog<MergeIssueReason>;
  };
  priceList?: { readonly report: SourceReport; readonly issues: IssueLog<MergeIssueReason> };
  /** By product position. */
  offers?: OfferColumns;
  /** Issues found while building the offers, with the product position, for replay in product order. */
  offerIssues?: PositionedIssues;
}

/**
 * Capped like `IssueLog` (the first `maxExamples` of each reason are kept, all are counted), with each
 * example's product position. Within one unit issues arrive in product order, so the kept examples of
 * all units, replayed in product order, contain the first `maxExamples` of each reason overall.
 */
export interface PositionedIssues {
  readonly counts: Map<MergeIssueReason, number>;
  readonly examples: { readonly position: number; readonly issue: MergeIssue }[];
}

export function emptyOfferCounts(): MutableOfferCounts {
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
