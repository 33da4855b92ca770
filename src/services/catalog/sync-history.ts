import { randomBytes } from 'node:crypto';
import type { SyncError, SyncJob, SyncOutcome, SyncReport } from './catalog-types.js';

/**
 * One run of a job as the history lists it (docs/console.md#sync-history): what it did and how many of
 * each source's items it read, without the examples a whole report carries (that one is downloaded).
 */
export interface SyncRunSummary {
  readonly runId: string;
  readonly job: SyncJob;
  readonly outcome: SyncOutcome;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly version?: string;
  readonly products?: number;
  readonly reason?: string;
  readonly error?: SyncError;
  /** Items read per source; a source the run did not read (or not get to) is absent. */
  readonly counts: SyncRunCounts;
  /** Rows and articles the sources or the merge refused (invalid, duplicate, conflicting). */
  readonly rejected: number;
  /** Rows that named no product, or several. */
  readonly unmatched: number;
  /** The merge's (full sync) or the stock update's (stock sync) issue counts, per code. */
  readonly issueCounts: Readonly<Record<string, number>>;
}

export interface SyncRunCounts {
  readonly units?: number;
  readonly articles?: number;
  readonly priceListRows?: number;
  readonly stockRows?: number;
  readonly enrichmentRows?: number;
  /** Stock sync: products whose stock or availability changed. */
  readonly changedProducts?: number;
}

/** Issue codes that mean a row named no product, or several (docs/report-codes.md#rows-and-articles). */
const UNMATCHED_CODES: ReadonlySet<string> = new Set(['row-unmatched', 'row-ambiguous']);

/** Issue codes that mean a row or article was refused; the others are notes (no price, not for sale). */
const REJECTED_CODES: ReadonlySet<string> = new Set([
  'invalid-article',
  'duplicate-article',
  'invalid-sales-price',
  'row-duplicate',
  'row-key-conflict',
  'invalid-stock',
  'invalid-price',
  'unknown-unit',
  'unknown-article',
]);

/** A run id that sorts by time and names its job: `catalog-20261126T105903Z-a1b2c3`. */
export function newRunId(job: SyncJob, startedAt: string): string {
  const stamp = startedAt.replace(/[-:]/g, '').replace(/\.\d+/, '');
  const name = job === 'sync-catalog' ? 'catalog' : 'stock';
  return `${name}-${/^\d{8}T\d{6}Z$/.test(stamp) ? stamp : 'run'}-${randomBytes(3).toString('hex')}`;
}

function sum(values: Iterable<number>): number | undefined {
  let total: number | undefined;
  for (const value of values) total = (total ?? 0) + value;
  return total;
}

function countsOf(report: SyncReport): SyncRunCounts {
  const sources = report.sources;
  const counts: Record<string, number | undefined> = {
    units: sources?.units?.count,
    articles: sources?.articles?.count,
    priceListRows: sum(Object.values(sources?.priceLists ?? {}).map((list) => list.rows)),
    stockRows: sum(Object.values(sources?.stock ?? {}).map((exportReport) => exportReport.rows)),
    enrichmentRows: sources?.enrichment?.rows,
    changedProducts: report.stock?.changedProducts,
  };
  return Object.fromEntries(Object.entries(counts).filter(([, value]) => value !== undefined)) as SyncRunCounts;
}

/** Refused at the source: articles and units the POS list marked invalid, rows the documents skipped. */
function sourceRejections(report: SyncReport): number {
  const sources = report.sources;
  if (sources === undefined) return 0;
  return (
    (sources.units?.rejected.length ?? 0) +
    (sources.articles?.rejectedCount ?? 0) +
    (sum(Object.values(sources.priceLists ?? {}).map((list) => list.skippedCount)) ?? 0) +
    (sum(Object.values(sources.stock ?? {}).map((exportReport) => exportReport.skippedCount)) ?? 0)
  );
}

/** What the history lists of a report (also of a report the previous release stored, which has no id). */
export function summarizeReport(report: SyncReport, runId = report.runId ?? 'unknown'): SyncRunSummary {
  const issueCounts: Record<string, number> = { ...(report.merge?.issueCounts ?? report.stock?.issueCounts ?? {}) };
  let rejected = sourceRejections(report);
  let unmatched = 0;
  for (const [code, count] of Object.entries(issueCounts)) {
    if (UNMATCHED_CODES.has(code)) unmatched += count;
    else if (REJECTED_CODES.has(code)) rejected += count;
  }
  return {
    runId,
    job: report.job,
    outcome: report.outcome,
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    durationMs: report.durationMs,
    ...(report.version === undefined ? {} : { version: report.version }),
    ...(report.products === undefined ? {} : { products: report.products }),
    ...(report.reason === undefined ? {} : { reason: report.reason }),
    ...(report.error === undefined ? {} : { error: report.error }),
    counts: countsOf(report),
    rejected,
    unmatched,
    issueCounts,
  };
}

/** A stored summary, or (from the previous release) a whole report: as a summary either way. */
export function asRunSummary(stored: unknown, runId: string): SyncRunSummary | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const candidate = stored as Partial<SyncRunSummary> & Partial<SyncReport>;
  if (typeof candidate.job !== 'string' || typeof candidate.outcome !== 'string') return undefined;
  if (candidate.counts !== undefined && typeof candidate.rejected === 'number')
    return { ...(candidate as SyncRunSummary), runId };
  return summarizeReport(candidate as SyncReport, runId);
}
