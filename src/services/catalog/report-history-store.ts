/**
 * The port of the jobs' run history (docs/console.md#sync-history), part of the catalog store;
 * `adapters/store/keyv-report-store.ts` implements it on keyv.
 */

/** A stored run of a job as its history lists it: its id and a small summary (the whole report is apart). */
export interface StoredRun {
  readonly id: string;
  readonly summary: unknown;
}

/**
 * The last runs of each job, of one source (docs/console.md#sync-history). Each report has a key of its own
 * and the job's index holds only ids and summaries, so that saving a run writes one report and a small
 * index (never the whole history again), and listing the history reads one key.
 */
export interface ReportHistoryStore {
  /**
   * Keeps `report` as the job's newest run and drops the runs past the bound. `run` gives its id and
   * summary (and how to summarise the previous release's reports); without it (tools, tests) the id is
   * made up and the report is its own summary.
   */
  saveReport(job: string, report: unknown, run?: NewRun): Promise<void>;
  /** The whole reports of the last runs (at most `limit`), newest first. */
  recentReports(job: string, limit?: number): Promise<unknown[]>;
  /** The job's runs, newest first: ids and summaries. */
  listRuns(job: string): Promise<StoredRun[]>;
  /** The whole report of one run, or `undefined` when the job has no such run (any more). */
  readRun(job: string, id: string): Promise<unknown>;
}

export interface NewRun extends StoredRun {
  /** The summary of a report the previous release stored (a whole report, without id). */
  readonly summarize?: (report: unknown) => unknown;
}
