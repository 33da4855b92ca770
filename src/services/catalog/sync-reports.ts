import type { CatalogLogger, SyncJob, SyncReport } from './catalog-types.js';
import type { NewRun, StoredRun } from './report-history-store.js';
import { asRunSummary, newRunId, type SyncRunSummary, summarizeReport } from './sync-history.js';

/** Where reports are kept beyond the process (the catalog store): the last runs per job. */
export interface ReportStore {
  saveReport(job: string, report: unknown, run?: NewRun): Promise<void>;
  recentReports(job: string): Promise<unknown[]>;
  listRuns(job: string): Promise<StoredRun[]>;
  readRun(job: string, id: string): Promise<unknown>;
}

export interface SyncReports {
  /** Gives the report its run id, logs it, keeps it as the job's last and stores it; returns it. */
  finish(report: SyncReport): Promise<SyncReport>;
  last(job: SyncJob): SyncReport | undefined;
  recent(job: SyncJob): Promise<unknown[]>;
  /** The job's stored runs, newest first (with a group on Redis: the group's, whoever ran them). */
  history(job: SyncJob): Promise<SyncRunSummary[]>;
  /** The whole report of a stored run, by its id; `undefined` when no job has it. */
  run(runId: string): Promise<SyncReport | undefined>;
}

const JOBS: readonly SyncJob[] = ['sync-catalog', 'sync-stock'];

function logReport(logger: CatalogLogger, report: SyncReport): void {
  const meta = { job: report.job, outcome: report.outcome, version: report.version, durationMs: report.durationMs };
  if (report.outcome === 'failed')
    logger.warn(
      { ...meta, error: report.error },
      report.version === undefined ? 'sync failed; no catalog is served yet' : 'sync failed, keeping the last good catalog',
    );
  else if (report.outcome === 'refused') logger.warn({ ...meta, reason: report.reason }, 'sync refused by the publish guard');
  else logger.info({ ...meta, products: report.products }, 'sync finished');
}

/** The outcome of every run: one log line, the last report per job in memory, the last runs in the store. */
export function createSyncReports(store: ReportStore, logger: CatalogLogger): SyncReports {
  const lastReports = new Map<SyncJob, SyncReport>();
  return {
    async finish(finished) {
      const report: SyncReport = { ...finished, runId: finished.runId ?? newRunId(finished.job, finished.startedAt) };
      const runId = report.runId as string;
      lastReports.set(report.job, report);
      logReport(logger, report);
      try {
        await store.saveReport(report.job, report, {
          id: runId,
          summary: summarizeReport(report, runId),
          summarize: (old) => asRunSummary(old, 'legacy') ?? null,
        });
      } catch (error) {
        logger.error({ job: report.job, err: error }, 'could not store the sync report');
      }
      return report;
    },
    last: (job) => lastReports.get(job),
    recent: (job) => store.recentReports(job),
    async history(job) {
      const runs = await store.listRuns(job);
      return runs.flatMap((run) => asRunSummary(run.summary, run.id) ?? []);
    },
    async run(runId) {
      for (const job of JOBS) {
        const report = (await store.readRun(job, runId)) as SyncReport | undefined;
        if (report !== undefined) return { ...report, runId };
      }
      return undefined;
    },
  };
}
