import type { CatalogLogger, SyncJob, SyncReport } from './catalog-types.js';

/** Where reports are kept beyond the process (the catalog store). */
export interface ReportStore {
  saveReport(job: string, report: unknown): Promise<void>;
  recentReports(job: string): Promise<unknown[]>;
}

export interface SyncReports {
  /** Logs the report, keeps it as the job's last and stores it; returns it. */
  finish(report: SyncReport): Promise<SyncReport>;
  last(job: SyncJob): SyncReport | undefined;
  recent(job: SyncJob): Promise<unknown[]>;
}

/** The outcome of every run: one log line, the last report per job in memory, the last few in the store. */
export function createSyncReports(store: ReportStore, logger: CatalogLogger): SyncReports {
  const lastReports = new Map<SyncJob, SyncReport>();
  return {
    async finish(report) {
      lastReports.set(report.job, report);
      const meta = { job: report.job, outcome: report.outcome, version: report.version, durationMs: report.durationMs };
      if (report.outcome === 'failed')
        logger.warn(
          { ...meta, error: report.error },
          report.version === undefined ? 'sync failed; no catalog is served yet' : 'sync failed, keeping the last good catalog',
        );
      else if (report.outcome === 'refused') logger.warn({ ...meta, reason: report.reason }, 'sync refused by the publish guard');
      else logger.info({ ...meta, products: report.products }, 'sync finished');
      try {
        await store.saveReport(report.job, report);
      } catch (error) {
        logger.error({ job: report.job, err: error }, 'could not store the sync report');
      }
      return report;
    },
    last: (job) => lastReports.get(job),
    recent: (job) => store.recentReports(job),
  };
}
