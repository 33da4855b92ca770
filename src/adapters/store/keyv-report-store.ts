import type { Keyv } from 'keyv';
import type { ReportHistoryStore, StoredRun } from '../../services/catalog/report-history-store.js';

export interface KeyvReportStoreOptions {
  readonly source: { readonly id: string };
  readonly prefix: string;
  /** Runs kept per job (default 50). */
  readonly keep?: number;
}

/** The default bound: 50 runs per job, about two days of hourly full syncs. */
export const DEFAULT_KEPT_RUNS = 50;

interface RunIndex {
  readonly source: string;
  readonly runs: readonly StoredRun[];
}

/** The previous release's list of whole reports (`{ source, reports }`), read once and then replaced. */
interface LegacyReports {
  readonly source: string;
  readonly reports: readonly unknown[];
}

/**
 * The last runs of each job, of one source, on keyv: the `ReportHistoryStore` port. Each report has a key
 * of its own and the job's index holds only ids and summaries, so that saving a run writes one report and
 * a small index (never the whole history again), and listing the history reads one key.
 */
export function createKeyvReportStore(keyv: Keyv, options: KeyvReportStoreOptions): ReportHistoryStore {
  const { source, prefix } = options;
  const keep = Math.max(1, options.keep ?? DEFAULT_KEPT_RUNS);
  const indexKey = (job: string) => `${prefix}:runs:${job}`;
  const runKey = (job: string, id: string) => `${prefix}:run:${job}:${id}`;
  const legacyKey = (job: string) => `${prefix}:reports:${job}`;

  /** This source's legacy reports as runs whose reports are their own summaries (ids `legacy-N`). */
  async function legacyRuns(job: string): Promise<(StoredRun & { readonly report: unknown })[]> {
    const stored = (await keyv.get(legacyKey(job))) as LegacyReports | unknown[] | undefined;
    if (stored === undefined || Array.isArray(stored) || stored.source !== source.id) return [];
    return stored.reports.map((report, index) => ({ id: `legacy-${index + 1}`, summary: report, report }));
  }

  /** The job's index when it is this source's; `undefined` when there is none (or another source's). */
  async function ownIndex(job: string): Promise<RunIndex | undefined> {
    const index = (await keyv.get(indexKey(job))) as RunIndex | undefined;
    return index?.source === source.id ? index : undefined;
  }

  async function listRuns(job: string): Promise<StoredRun[]> {
    const index = await ownIndex(job);
    if (index !== undefined) return [...index.runs];
    return (await legacyRuns(job)).map(({ id, summary }) => ({ id, summary }));
  }

  async function readRun(job: string, id: string): Promise<unknown> {
    const index = await ownIndex(job);
    if (index === undefined) return (await legacyRuns(job)).find((run) => run.id === id)?.report;
    if (!index.runs.some((run) => run.id === id)) return undefined;
    return keyv.get(runKey(job, id));
  }

  return {
    async saveReport(job, report, run) {
      const entry = run ?? { id: `run-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`, summary: report };
      const stored = (await keyv.get(indexKey(job))) as RunIndex | undefined;
      const own = stored?.source === source.id;
      let previous: StoredRun[] = own ? [...(stored?.runs ?? [])] : [];
      if (stored === undefined) {
        // First save since the upgrade: the previous release's reports become runs of their own.
        const legacy = await legacyRuns(job);
        for (const old of legacy) await keyv.set(runKey(job, old.id), old.report);
        const summarize = run?.summarize ?? ((report: unknown) => report);
        previous = legacy.map(({ id, report: old }) => ({ id, summary: summarize(old) }));
      }
      const runs: StoredRun[] = [{ id: entry.id, summary: entry.summary }, ...previous.filter((old) => old.id !== entry.id)];
      await keyv.set(runKey(job, entry.id), report);
      await keyv.set(indexKey(job), { source: source.id, runs: runs.slice(0, keep) } satisfies RunIndex);
      // Another source's history goes with its index (as its versions go); past the bound, the oldest run.
      const dropped = [...runs.slice(keep), ...(own || stored === undefined ? [] : stored.runs)];
      for (const old of dropped) await keyv.delete(runKey(job, old.id));
      if (stored === undefined) await keyv.delete(legacyKey(job));
    },

    async recentReports(job, limit = keep) {
      const runs = (await listRuns(job)).slice(0, limit);
      const reports = await Promise.all(runs.map((run) => readRun(job, run.id)));
      return reports.filter((report) => report !== undefined);
    },

    listRuns,
    readRun,
  };
}
