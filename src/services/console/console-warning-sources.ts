import { withTimeout } from '../../core/async/deadline.js';
import type { FeedReport } from '../../core/feeds/feed-report.js';
import type { SyncJob, SyncReport } from '../catalog/catalog-types.js';
import { type SyncRunSummary, summarizeReport } from '../catalog/sync-history.js';
import type { EnrichmentStatus } from '../enrichment/enrichment-service.js';
import type { FeedFilesStatus } from '../feeds/feed-files.js';
import type { StoreState } from '../health/store-health.js';
import { type ConsoleWarning, collectConsoleWarnings, countWarnings, type WarningInputs } from './console-warnings.js';

/** Where the console's warnings come from in the running bridge (wired in `src/app/http-parts.ts`). */
export interface ConsoleWarningSources {
  readonly settings: WarningInputs['settings'];
  readonly pos: WarningInputs['pos'];
  /** The store's runs of a job, newest first (with a group: the leader's too). */
  readonly history: (job: SyncJob) => Promise<readonly SyncRunSummary[]>;
  /** This process's last report of a job (when the store does not answer, or is behind). */
  readonly lastReport: (job: SyncJob) => SyncReport | undefined;
  /** When the job is tried next (after a failure: its retry). */
  readonly nextTry: (job: SyncJob) => Date | undefined;
  readonly store: () => StoreState;
  readonly enrichment: () => EnrichmentStatus | undefined;
  readonly feeds: {
    reports(): ReadonlyMap<string, FeedReport>;
    readonly feeds: readonly { readonly file: string; readonly title: string }[];
    prewarmFit(): { readonly bytes: number; readonly budget: number } | undefined;
    storage?(): { readonly files?: FeedFilesStatus };
  };
  readonly feedNames: readonly string[];
  /** The fetch log's warnings (feeds no longer fetched), when it is wired. */
  readonly fetchWarnings?: () => readonly ConsoleWarning[];
  /** The channel push's warnings (src/services/push/push-warnings.ts), when a channel is configured. */
  readonly pushWarnings?: () => readonly ConsoleWarning[];
}

export interface ConsoleWarnings {
  /** Every warning now, errors first. */
  list(): Promise<ConsoleWarning[]>;
  /** How many of each severity (the overview's link to `/warnings`). */
  count(): Promise<ReturnType<typeof countWarnings>>;
}

const JOBS: readonly SyncJob[] = ['sync-catalog', 'sync-stock'];

/** How long the warnings wait for the store's sync history before going on without it. */
const HISTORY_DEADLINE_MS = 1_000;

const merged = (run: SyncRunSummary) => run.outcome !== 'failed' && run.outcome !== 'skipped';

/**
 * The runs of a job, newest first: the store's, with this process's last report in front when the store
 * does not have it (yet, or because it does not answer).
 */
async function runsOf(sources: ConsoleWarningSources, job: SyncJob): Promise<readonly SyncRunSummary[]> {
  const own = sources.lastReport(job);
  // A store that does not answer (or stalls) must not hold the overview or the warnings page: its
  // outage is a warning of its own, and this process's last report stands in for the history.
  const stored = sources.store().up
    ? await withTimeout(sources.history(job), HISTORY_DEADLINE_MS, 'reading the sync history').catch(() => [] as const)
    : [];
  if (own === undefined || (stored[0] !== undefined && stored[0].finishedAt >= own.finishedAt)) return stored;
  return [summarizeReport(own), ...stored];
}

export function createConsoleWarnings(sources: ConsoleWarningSources): ConsoleWarnings {
  async function list(): Promise<ConsoleWarning[]> {
    const lastRuns: Partial<Record<SyncJob, SyncRunSummary>> = {};
    const nextTry: Partial<Record<SyncJob, string>> = {};
    let lastMerged: SyncRunSummary | undefined;
    for (const job of JOBS) {
      const runs = await runsOf(sources, job);
      if (runs[0] !== undefined) lastRuns[job] = runs[0];
      if (job === 'sync-catalog') lastMerged = runs.find(merged);
      const next = sources.nextTry(job);
      if (next !== undefined) nextTry[job] = next.toISOString();
    }
    return collectConsoleWarnings({
      settings: sources.settings,
      pos: sources.pos,
      lastRuns,
      ...(lastMerged === undefined ? {} : { lastMerged }),
      nextTry,
      store: sources.store(),
      enrichment: sources.enrichment(),
      enrichmentMatch: sources.lastReport('sync-catalog')?.sources?.enrichment,
      feedReports: sources.feeds.reports(),
      feeds: sources.feeds.feeds,
      feedNames: sources.feedNames,
      prewarmFit: sources.feeds.prewarmFit(),
      feedFilesError: sources.feeds.storage?.().files?.lastError,
      extra: [...(sources.fetchWarnings?.() ?? []), ...(sources.pushWarnings?.() ?? [])],
    });
  }
  return { list, count: async () => countWarnings(await list()) };
}
