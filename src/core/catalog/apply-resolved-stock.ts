import {
  type ApplyStockIssue,
  type ApplyStockIssueReason,
  type ApplyStockOptions,
  type ApplyStockResult,
  type ApplyStockRowsOptions,
  applyUpdates,
  DEFAULT_MAX_EXAMPLES,
  type StockRowsReport,
  type StockSet,
} from './apply-stock.js';
import type { CatalogSnapshot, Product } from './catalog.js';
import { createIssueLog, type IssueLog, type IssueSummary } from './create-issue-log.js';
import type { IdentityArticle } from './identity-codes.js';
import { createIdentityIndex, type IdentityIndex } from './identity-index.js';
import { productIdentity } from './product-identity.js';
import { type IdentityKeyChoice, resolveIdentity } from './resolve-identity.js';
import { roundQuantity } from './round-money.js';
import type { StockRow } from './source.js';
import { asStockRows, type StockRows, stockIdentityRows } from './stock-rows.js';

/**
 * Stock exports applied to the served catalog, in two halves: resolving an export's rows to product
 * positions (`resolveStockExport`, the part that reads every row: a worker thread runs it in the app) and
 * applying the result (`applyResolvedStock`, on the served version). `applyStockRows` does both at once.
 */

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
  const candidates = stockIdentityRows(rows);
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

/** The identifying fields of the products, in their order. */
export function identitiesOf(products: readonly Product[]): IdentityArticle[] {
  return products.map(productIdentity);
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

function lineOf(rows: StockRows, row: number): { row?: number } {
  const line = rows.line(row);
  return line === undefined ? {} : { row: line };
}
