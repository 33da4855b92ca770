import { aggregateOffer, computeAvailability } from './aggregate-offer.js';
import type { Availability, CatalogSnapshot, Offer, Product } from './catalog.js';
import { createFamilyCache } from './catalog-family.js';
import { type CatalogIssue, createIssueLog, type IssueLog } from './create-issue-log.js';
import { offerOf } from './offer-of.js';
import type { IdentityKeyChoice } from './resolve-identity.js';
import { roundQuantity } from './round-money.js';
import type { IdentityKey } from './source.js';

/** A new absolute stock of one product in one unit (a stock export line). */
export interface StockSet {
  readonly unitCode: string;
  readonly articleId: string;
  readonly quantity: number;
}

/** A change of stock from a stock movement (a sale: negative delta). */
export interface StockDelta {
  readonly unitCode: string;
  readonly articleId: string;
  readonly delta: number;
}

export type StockUpdate = StockSet | StockDelta;

export interface ApplyStockOptions {
  /** Version id of the new snapshot. */
  readonly version: string;
  readonly unknownStockAvailability: Availability;
  /** Examples kept per issue reason in the report; default 50. */
  readonly maxExamples?: number;
  /**
   * Product positions by id of the snapshot's family (`family-index.ts`), when the caller has them: built
   * here otherwise, at once (~30 ms at 100,000 products).
   */
  readonly positions?: { get(id: string): number | undefined };
}

export interface ApplyStockRowsOptions extends ApplyStockOptions {
  readonly stockKey: IdentityKeyChoice;
}

export type ApplyStockIssueReason =
  | 'unknown-unit'
  | 'unknown-article'
  | 'invalid-stock'
  | 'delta-on-unknown-stock'
  | 'row-unmatched'
  | 'row-ambiguous'
  | 'row-duplicate'
  | 'row-key-conflict';

export type ApplyStockIssue = CatalogIssue<ApplyStockIssueReason>;

/** Identity outcome of one unit's stock export (only for `applyStockRows`). */
export interface StockRowsReport {
  readonly unit: string;
  readonly rows: number;
  readonly matched: number;
  readonly unmatched: number;
  readonly ambiguous: number;
  readonly duplicates: number;
  readonly keyOrder: readonly IdentityKey[];
}

export interface ApplyStockReport {
  readonly version: string;
  readonly generatedAt: string;
  readonly updates: number;
  /** Updates that set a stock (the others are in the issues). */
  readonly applied: number;
  /** Products whose stock or availability changed in some unit. */
  readonly changedProducts: number;
  readonly units: readonly StockRowsReport[];
  readonly issueCounts: Partial<Record<ApplyStockIssueReason, number>>;
  readonly issues: readonly ApplyStockIssue[];
}

export interface ApplyStockResult {
  readonly snapshot: CatalogSnapshot;
  readonly report: ApplyStockReport;
  /** Positions of the products that changed (each a new object; every other product is shared). */
  readonly changedPositions: readonly number[];
}

export const DEFAULT_MAX_EXAMPLES = 50;

/**
 * Applies stock updates onto a published snapshot, giving a new snapshot (new version, `generatedAt`
 * = `now`) with availability and the aggregate `all` recomputed for the touched products; untouched
 * products are shared, not copied. Updates apply in order (a set then a delta adds up).
 *
 * - A delta on an unknown stock leaves it unknown (`delta-on-unknown-stock`): the next stock pull fixes it.
 * - Unknown units and articles (e.g. not-for-sale articles, which have no product) are reported, ignored.
 * - Nothing else changes: prices, names and the stocks of products the updates do not name.
 *   When `report.changedProducts` is 0 the caller may keep the published version.
 *
 * @example applyStock(snapshot, [{ unitCode: 'U1', articleId: 'a-1', delta: -2 }], { version, unknownStockAvailability: 'out_of_stock' }, now)
 */
export function applyStock(
  snapshot: CatalogSnapshot,
  updates: readonly StockUpdate[],
  options: ApplyStockOptions,
  now: Date,
): ApplyStockResult {
  const issues = createIssueLog<ApplyStockIssueReason>(options.maxExamples ?? DEFAULT_MAX_EXAMPLES);
  return applyUpdates(snapshot, updates, options, now, issues, []);
}

/** Product positions by id, once per family of versions (`catalog-family.ts`). */
const positionCache = createFamilyCache<ReadonlyMap<string, number>>();

function positionsOf(snapshot: CatalogSnapshot, rebuild = false): { get(id: string): number | undefined } {
  const build = () => new Map(snapshot.products.map((product, position) => [product.id, position] as const));
  return rebuild ? positionCache.rebuild(snapshot, build) : positionCache.get(snapshot, build);
}

/**
 * Applies updates in order onto `snapshot` (see `applyStock`), reporting into `issues`; `units` are the
 * identity reports of resolved exports (`apply-resolved-stock.ts`).
 */
export function applyUpdates(
  snapshot: CatalogSnapshot,
  updates: readonly StockUpdate[],
  options: ApplyStockOptions,
  now: Date,
  issues: IssueLog<ApplyStockIssueReason>,
  units: readonly StockRowsReport[],
): ApplyStockResult {
  const { working, applied } = workingStocks(snapshot, updates, options, issues);
  const { products, changedPositions } = withWorkingStocks(snapshot, working, options);
  const generatedAt = now.toISOString();
  const summary = issues.summary();
  return {
    snapshot: { ...snapshot, version: options.version, generatedAt, products },
    changedPositions,
    report: {
      version: options.version,
      generatedAt,
      updates: updates.length,
      applied,
      changedProducts: changedPositions.length,
      units,
      issueCounts: summary.counts,
      issues: summary.examples,
    },
  };
}

/**
 * Runs the updates in order over working copies of the touched products' offer stocks: per product position,
 * the stock of each offer (same order as `offers`). Updates that cannot apply are reported into `issues`.
 */
function workingStocks(
  snapshot: CatalogSnapshot,
  updates: readonly StockUpdate[],
  options: ApplyStockOptions,
  issues: IssueLog<ApplyStockIssueReason>,
): { working: Map<number, (number | undefined)[]>; applied: number } {
  const unitCodes = new Set(snapshot.units.map((unit) => unit.code));
  let positionOf = options.positions ?? positionsOf(snapshot);
  let verified = false;
  const working = new Map<number, (number | undefined)[]>();
  let applied = 0;
  for (const update of updates) {
    const where: Omit<ApplyStockIssue, 'reason'> = {
      source: 'delta' in update ? 'movements' : 'stock',
      unit: update.unitCode,
      articleId: update.articleId,
    };
    if (!unitCodes.has(update.unitCode)) {
      issues.add({ reason: 'unknown-unit', ...where });
      continue;
    }
    let position = positionOf.get(update.articleId);
    if (!verified && (position === undefined || snapshot.products[position]?.id !== update.articleId)) {
      // The cached positions do not fit this snapshot (not of the family they were built for): index it.
      positionOf = positionsOf(snapshot, true);
      verified = true;
      position = positionOf.get(update.articleId);
    }
    const product = position === undefined ? undefined : snapshot.products[position];
    if (position === undefined || product === undefined) {
      issues.add({ reason: 'unknown-article', ...where });
      continue;
    }
    const offerIndex = product.offers.findIndex((offer) => offer.unit === update.unitCode);
    if (offerIndex < 0) {
      issues.add({ reason: 'unknown-unit', ...where });
      continue;
    }
    const amount = 'delta' in update ? update.delta : update.quantity;
    if (!Number.isFinite(amount)) {
      issues.add({ reason: 'invalid-stock', ...where, detail: String(amount) });
      continue;
    }
    const stocks = working.get(position) ?? product.offers.map((offer) => offer.stock);
    working.set(position, stocks);
    if ('delta' in update) {
      const current = stocks[offerIndex];
      if (current === undefined) {
        issues.add({ reason: 'delta-on-unknown-stock', ...where, detail: String(update.delta) });
        continue;
      }
      stocks[offerIndex] = roundQuantity(current + update.delta);
    } else {
      stocks[offerIndex] = roundQuantity(update.quantity);
    }
    applied += 1;
  }
  return { working, applied };
}

/** The snapshot's products with the working stocks in place, and the positions of those that changed. */
function withWorkingStocks(
  snapshot: CatalogSnapshot,
  working: ReadonlyMap<number, readonly (number | undefined)[]>,
  options: ApplyStockOptions,
): { products: Product[]; changedPositions: number[] } {
  // `slice`, not a spread: at 100,000 products the spread took ~4 ms per version (bench/event-loop.ts).
  const products = snapshot.products.slice();
  const changedPositions: number[] = [];
  for (const [position, stocks] of working) {
    const product = products[position];
    if (product === undefined) continue;
    const next = withStocks(product, stocks, snapshot.primaryUnit, options.unknownStockAvailability);
    if (next === product) continue;
    products[position] = next;
    changedPositions.push(position);
  }
  return { products, changedPositions };
}

/** The product with new offer stocks, or the same object when no stock or availability changed. */
function withStocks(
  product: Product,
  stocks: readonly (number | undefined)[],
  primaryUnit: string,
  unknownStockAvailability: Availability,
): Product {
  let changed = false;
  const offers: Offer[] = [];
  for (const [index, offer] of product.offers.entries()) {
    const stock = stocks[index];
    const availability = computeAvailability(stock, product.isStockItem, unknownStockAvailability);
    if (stock === offer.stock && availability === offer.availability) {
      offers.push(offer);
      continue;
    }
    changed = true;
    // In the order a full sync writes an offer, or the next sync of an unchanged POS would see a change.
    offers.push(offerOf(offer.unit, availability, { ...offer, stock }));
  }
  if (!changed) return product;
  return { ...product, offers, aggregate: aggregateOffer(offers, primaryUnit, product.isStockItem, unknownStockAvailability) };
}
