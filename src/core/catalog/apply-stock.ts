import { aggregateOffer, computeAvailability } from './aggregate-offer.js';
import type { Availability, CatalogSnapshot, Offer, Product } from './catalog.js';
import { createFamilyCache } from './catalog-family.js';
import { type CatalogIssue, createIssueLog, type IssueLog, type IssueSummary } from './create-issue-log.js';
import {
  createIdentityIndex,
  type IdentityArticle,
  type IdentityIndex,
  type IdentityKeyChoice,
  resolveIdentity,
} from './resolve-identity.js';
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
  /**
   * Product positions by id of the snapshot's family (`family-index.ts`), when the caller has them: built
   * here otherwise, at once (~30 ms at 100,000 products).
   */
  readonly positions?: ReadonlyMap<string, number>;
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
 * One unit's stock-export rows resolved to products (same identity rules as the merge): the part of the
 * stock sync that reads every row, kept apart from applying the result to the served version, so that it
 * can run in a worker thread against the products' identities (bench/event-loop.ts).
 */
export interface ResolvedStockExport {
  readonly unit: string;
  /** Positions of the matched products in the list the index was built from, in row order. */
  readonly positions: Int32Array;
  /** The quantity of each matched row (same order as `positions`). */
  readonly quantities: Float64Array;
  readonly report: StockRowsReport;
  readonly issues: IssueSummary<ApplyStockIssueReason>;
}

/** Resolves the rows of `unitCode`'s export against `index` (built from the products in their order). */
export function resolveStockExport(
  index: IdentityIndex,
  unitCode: string,
  documentRows: readonly StockRow[] | StockRows,
  stockKey: IdentityKeyChoice,
  maxExamples = DEFAULT_MAX_EXAMPLES,
): ResolvedStockExport {
  const rows = asStockRows(documentRows);
  const issues = createIssueLog<ApplyStockIssueReason>(maxExamples);
  const candidates = { length: rows.length, candidates: (row: number) => rows.codes(row) };
  const resolution = resolveIdentity(index, candidates, stockKey);
  const positions = new Int32Array(resolution.matches.length);
  const quantities = new Float64Array(resolution.matches.length);
  let matched = 0;
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
    positions[matched] = match.article;
    quantities[matched] = quantity;
    matched += 1;
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
  return {
    unit: unitCode,
    positions: positions.subarray(0, matched),
    quantities: quantities.subarray(0, matched),
    report: {
      unit: unitCode,
      rows: rows.length,
      matched: resolution.matches.length,
      unmatched: resolution.unmatched.length,
      ambiguous: resolution.ambiguous.length,
      duplicates: resolution.duplicates.length,
      keyOrder: resolution.keyOrder,
    },
    issues: issues.summary(),
  };
}

/** The identifying fields of the products, in their order: what `createIdentityIndex` takes. */
export function identitiesOf(products: readonly Product[]): IdentityArticle[] {
  return products.map(identityOf);
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
  const index = createIdentityIndex(identitiesOf(snapshot.products));
  const resolved: ResolvedStockExport[] = [];
  const unitCodes = new Set(snapshot.units.map((unit) => unit.code));
  for (const [unitCode, documentRows] of rowsByUnit) {
    if (!unitCodes.has(unitCode)) {
      const rows = asStockRows(documentRows);
      issues.add({ reason: 'unknown-unit', source: 'stock', unit: unitCode, detail: `${rows.length} rows ignored` });
      continue;
    }
    resolved.push(resolveStockExport(index, unitCode, documentRows, options.stockKey, options.maxExamples));
  }
  return applyResolvedStock(snapshot, resolved, options, now, issues);
}

/**
 * Applies resolved exports (positions of `snapshot`'s family) as absolute stocks, with the resolution's
 * issues and unit reports in the report. `changedOnly` lists, per export, the indexes of its entries to
 * apply (those that change something; see `changedStockEntries`); all of them when absent.
 */
export function applyResolvedStock(
  snapshot: CatalogSnapshot,
  resolved: readonly ResolvedStockExport[],
  options: ApplyStockOptions,
  now: Date,
  issues = createIssueLog<ApplyStockIssueReason>(options.maxExamples ?? DEFAULT_MAX_EXAMPLES),
  changedOnly?: readonly (readonly number[])[],
): ApplyStockResult {
  const updates: StockSet[] = [];
  let total = 0;
  for (const [which, entry] of resolved.entries()) {
    replayIssues(issues, entry.issues);
    total += entry.positions.length;
    const indexes = changedOnly?.[which];
    const count = indexes === undefined ? entry.positions.length : indexes.length;
    for (let i = 0; i < count; i += 1) {
      const at = indexes === undefined ? i : (indexes[i] as number);
      const product = snapshot.products[entry.positions[at] as number];
      if (product === undefined) continue;
      updates.push({ unitCode: entry.unit, articleId: product.id, quantity: entry.quantities[at] as number });
    }
  }
  const result = applyUpdates(
    snapshot,
    updates,
    options,
    now,
    issues,
    resolved.map((entry) => entry.report),
  );
  if (changedOnly === undefined) return result;
  // Entries left out change nothing, but they count as updates applied.
  return { ...result, report: { ...result.report, updates: total, applied: result.report.applied + total - updates.length } };
}

/**
 * The indexes of `resolved`'s entries whose quantity differs from the stock `snapshot` shows in that
 * unit, looking at entries `from` to `to` (the caller slices the loop on the main thread).
 */
export function changedStockEntries(
  snapshot: CatalogSnapshot,
  resolved: ResolvedStockExport,
  from: number,
  to: number,
): number[] {
  const changed: number[] = [];
  const end = Math.min(to, resolved.positions.length);
  for (let i = from; i < end; i += 1) {
    const product = snapshot.products[resolved.positions[i] as number];
    if (product === undefined) continue;
    const offer = product.offers.find((candidate) => candidate.unit === resolved.unit);
    const quantity = roundQuantity(resolved.quantities[i] as number);
    if (offer === undefined || offer.stock !== quantity) changed.push(i);
  }
  return changed;
}

function replayIssues(into: IssueLog<ApplyStockIssueReason>, summary: IssueSummary<ApplyStockIssueReason>): void {
  const shown = new Map<ApplyStockIssueReason, number>();
  for (const issue of summary.examples) {
    into.add(issue);
    shown.set(issue.reason, (shown.get(issue.reason) ?? 0) + 1);
  }
  for (const [reason, count] of Object.entries(summary.counts) as [ApplyStockIssueReason, number][]) {
    into.addCount(reason, count - (shown.get(reason) ?? 0));
  }
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
  let positionOf = options.positions ?? positionsOf(snapshot);
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

  // `slice`, not a spread: at 100,000 products the spread took ~4 ms per version (bench/event-loop.ts).
  const products = snapshot.products.slice();
  let changedProducts = 0;
  const changedPositions: number[] = [];
  for (const [position, stocks] of working) {
    const product = products[position];
    if (product === undefined) continue;
    const next = withStocks(product, stocks, snapshot.primaryUnit, options.unknownStockAvailability);
    if (next === product) continue;
    products[position] = next;
    changedProducts += 1;
    changedPositions.push(position);
  }

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

function identityOf(product: Product): IdentityArticle {
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
