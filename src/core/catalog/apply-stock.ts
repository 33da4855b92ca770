import { aggregateOffer, computeAvailability } from './aggregate-offer.js';
import type { Availability, CatalogSnapshot, Offer, Product } from './catalog.js';
import { createFamilyCache } from './catalog-family.js';
import { type CatalogIssue, createIssueLog, type IssueLog } from './create-issue-log.js';
import { createIdentityIndex, type IdentityKeyChoice, resolveIdentity } from './resolve-identity.js';
import { roundQuantity } from './round-money.js';
import type { IdentityKey, StockRow } from './source.js';
import { asStockRows, type StockRows } from './stock-rows.js';

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
}

const DEFAULT_MAX_EXAMPLES = 50;

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

/**
 * The stock-only sync: resolves each unit's stock-export rows to products (same identity rules as
 * the merge, indexed on the snapshot's products) and applies them as absolute stocks. Products absent
 * from a unit's export keep their stock: the export's silence is not read as zero. Rows naming
 * articles that are not products (not for sale, or new since the last full sync) are unmatched.
 */
export function applyStockRows(
  snapshot: CatalogSnapshot,
  rowsByUnit: ReadonlyMap<string, readonly StockRow[] | StockRows>,
  options: ApplyStockRowsOptions,
  now: Date,
): ApplyStockResult {
  const issues = createIssueLog<ApplyStockIssueReason>(options.maxExamples ?? DEFAULT_MAX_EXAMPLES);
  const index = createIdentityIndex(snapshot.products.map(identityOf));
  const updates: StockSet[] = [];
  const units: StockRowsReport[] = [];
  const unitCodes = new Set(snapshot.units.map((unit) => unit.code));
  for (const [unitCode, documentRows] of rowsByUnit) {
    const rows = asStockRows(documentRows);
    if (!unitCodes.has(unitCode)) {
      issues.add({ reason: 'unknown-unit', source: 'stock', unit: unitCode, detail: `${rows.length} rows ignored` });
      continue;
    }
    const candidates = { length: rows.length, candidates: (row: number) => rows.codes(row) };
    const resolution = resolveIdentity(index, candidates, options.stockKey);
    for (const match of resolution.matches) {
      const quantity = rows.quantity(match.row);
      if (quantity === undefined) continue;
      if (!Number.isFinite(quantity)) {
        issues.add({
          reason: 'invalid-stock',
          source: 'stock',
          unit: unitCode,
          ...lineOf(rows, match.row),
          articleId: match.articleId,
        });
        continue;
      }
      updates.push({ unitCode, articleId: match.articleId, quantity });
    }
    for (const entry of resolution.unmatched) {
      issues.add({ reason: 'row-unmatched', source: 'stock', unit: unitCode, code: entry.code, ...lineOf(rows, entry.row) });
    }
    for (const entry of resolution.ambiguous) {
      const issue: ApplyStockIssue = { reason: 'row-ambiguous', source: 'stock', unit: unitCode, code: entry.code };
      issues.add({ ...issue, ...lineOf(rows, entry.row), articleIds: entry.articleIds });
    }
    for (const entry of resolution.duplicates) {
      const issue: ApplyStockIssue = { reason: 'row-duplicate', source: 'stock', unit: unitCode, code: entry.code };
      issues.add({ ...issue, ...lineOf(rows, entry.row), articleId: entry.articleId });
    }
    for (const entry of resolution.conflicts) {
      const issue: ApplyStockIssue = { reason: 'row-key-conflict', source: 'stock', unit: unitCode, code: entry.code };
      issues.add({ ...issue, ...lineOf(rows, entry.row), articleIds: [entry.articleId, entry.otherArticleId] });
    }
    units.push({
      unit: unitCode,
      rows: rows.length,
      matched: resolution.matches.length,
      unmatched: resolution.unmatched.length,
      ambiguous: resolution.ambiguous.length,
      duplicates: resolution.duplicates.length,
      keyOrder: resolution.keyOrder,
    });
  }
  return applyUpdates(snapshot, updates, options, now, issues, units);
}

/** Product positions by id, once per family of versions (`catalog-family.ts`). */
const positionCache = createFamilyCache<ReadonlyMap<string, number>>();

function positionsOf(snapshot: CatalogSnapshot, rebuild = false): ReadonlyMap<string, number> {
  const build = () => new Map(snapshot.products.map((product, position) => [product.id, position] as const));
  return rebuild ? positionCache.rebuild(snapshot, build) : positionCache.get(snapshot, build);
}

function applyUpdates(
  snapshot: CatalogSnapshot,
  updates: readonly StockUpdate[],
  options: ApplyStockOptions,
  now: Date,
  issues: IssueLog<ApplyStockIssueReason>,
  units: readonly StockRowsReport[],
): ApplyStockResult {
  const unitCodes = new Set(snapshot.units.map((unit) => unit.code));
  let positionOf = positionsOf(snapshot);
  let verified = false;

  /** Per touched product position: the working stock of each offer (same order as `offers`). */
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

  const products = [...snapshot.products];
  let changedProducts = 0;
  for (const [position, stocks] of working) {
    const product = products[position];
    if (product === undefined) continue;
    const next = withStocks(product, stocks, snapshot.primaryUnit, options.unknownStockAvailability);
    if (next === product) continue;
    products[position] = next;
    changedProducts += 1;
  }

  const generatedAt = now.toISOString();
  const summary = issues.summary();
  return {
    snapshot: { ...snapshot, version: options.version, generatedAt, products },
    report: {
      version: options.version,
      generatedAt,
      updates: updates.length,
      applied,
      changedProducts,
      units,
      issueCounts: summary.counts,
      issues: summary.examples,
    },
  };
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
    const { stock: _old, ...rest } = offer;
    offers.push({ ...rest, ...(stock === undefined ? {} : { stock }), availability });
  }
  if (!changed) return product;
  return { ...product, offers, aggregate: aggregateOffer(offers, primaryUnit, product.isStockItem, unknownStockAvailability) };
}

function identityOf(product: Product): { localId: string; internalIdentifier?: string; plu?: number; ean?: string } {
  return {
    localId: product.id,
    ...(product.internalIdentifier === undefined ? {} : { internalIdentifier: product.internalIdentifier }),
    ...(product.plu === undefined ? {} : { plu: product.plu }),
    ...(product.ean === undefined ? {} : { ean: product.ean }),
  };
}

function lineOf(rows: StockRows, row: number): { row?: number } {
  const line = rows.line(row);
  return line === undefined ? {} : { row: line };
}
