import type { SyncJob, SyncReport } from '../../services/catalog/catalog-service.js';
import type { GroupStatus } from '../../services/group/group-monitor.js';
import type { JobTiming } from '../../services/health/readiness.js';
import type { TrackedRun } from './sync-runs.js';

export const SYNC_JOBS: readonly SyncJob[] = ['sync-catalog', 'sync-stock'];

/** What this instance knows of one job now: `GET /admin/sync/status` and the progress page show it. */
export interface JobProgress {
  readonly job: SyncJob;
  readonly running: boolean;
  /** When the run in progress was started from the admin area of this instance (else unknown). */
  readonly runningSince?: string;
  readonly elapsedMs?: number;
  /** The phase of a full sync in progress (`units`, `articles`, `sources`, `merge`, `fingerprint`, `publish`). */
  readonly phase?: string;
  readonly next?: string;
  /** The newest run started from the admin area of this instance. */
  readonly run?: {
    readonly id: number;
    readonly startedAt: string;
    readonly finishedAt?: string;
    readonly outcome?: string;
    readonly error?: string;
  };
  readonly last?: ReportSummary;
}

export interface ReportSummary {
  readonly outcome: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly version?: string;
  readonly products?: number;
  readonly articles?: number;
  readonly rejectedArticles?: number;
  readonly reason?: string;
  readonly error?: { readonly code: string; readonly message: string };
}

export interface ProgressSources {
  readonly lastReport?: (job: SyncJob) => SyncReport | undefined;
  readonly timing?: (job: SyncJob) => JobTiming | undefined;
  /** The phase a full sync runs now, when the catalog service reports phases; `since` is its run's start. */
  readonly phase?: (job: SyncJob, since: Date | undefined) => string | undefined;
  readonly group?: () => GroupStatus | undefined;
}

export function summaryOf(report: SyncReport): ReportSummary {
  const articles = report.sources?.articles;
  return {
    outcome: report.outcome,
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    durationMs: report.durationMs,
    ...(report.version === undefined ? {} : { version: report.version }),
    ...(report.products === undefined ? {} : { products: report.products }),
    ...(articles === undefined ? {} : { articles: articles.count, rejectedArticles: articles.rejectedCount }),
    ...(report.reason === undefined ? {} : { reason: report.reason }),
    ...(report.error === undefined ? {} : { error: { code: report.error.code, message: report.error.message } }),
  };
}

export function progressOf(job: SyncJob, sources: ProgressSources, run: TrackedRun | undefined, now: Date): JobProgress {
  const timing = sources.timing?.(job);
  const runOpen = run !== undefined && run.finishedAt === undefined;
  const running = timing?.running === true || runOpen;
  const since = runOpen ? run.startedAt : undefined;
  const phase = running ? sources.phase?.(job, since) : undefined;
  const report = sources.lastReport?.(job) ?? run?.report;
  return {
    job,
    running,
    ...(since === undefined ? {} : { runningSince: since.toISOString(), elapsedMs: now.getTime() - since.getTime() }),
    ...(phase === undefined ? {} : { phase }),
    ...(timing?.next === undefined ? {} : { next: timing.next.toISOString() }),
    ...(run === undefined ? {} : { run: runView(run) }),
    ...(report === undefined ? {} : { last: summaryOf(report) }),
  };
}

function runView(run: TrackedRun): NonNullable<JobProgress['run']> {
  return {
    id: run.id,
    startedAt: run.startedAt.toISOString(),
    ...(run.finishedAt === undefined ? {} : { finishedAt: run.finishedAt.toISOString() }),
    ...(run.report === undefined ? {} : { outcome: run.report.outcome }),
    ...(run.error === undefined ? {} : { outcome: 'crashed', error: run.error }),
  };
}
