import type { JobOutcome } from '../../jobs/scheduler.js';
import type { SyncJob, SyncReport } from '../../services/catalog/catalog-service.js';

/**
 * The syncs started from the admin area on this instance, kept (the last few, in memory) so that the
 * progress page can follow one from its start to its report. In a group a follower's run is asked of the
 * leader: this instance then knows when it asked and what the leader answered, nothing in between.
 */
export interface TrackedRun {
  readonly id: number;
  readonly job: SyncJob;
  readonly startedAt: Date;
  finishedAt?: Date;
  /** The run's report once it ended (a crash has `error` instead). */
  report?: SyncReport;
  error?: string;
}

export interface SyncRuns {
  /** Starts `job` through `runJob`; the promise settles with the run's outcome, never rejects. */
  start(job: SyncJob): { readonly run: TrackedRun; readonly done: Promise<JobOutcome> };
  byId(id: number): TrackedRun | undefined;
  /** The newest tracked run of `job`. */
  latest(job: SyncJob): TrackedRun | undefined;
}

export function createSyncRuns(deps: {
  readonly runJob: (job: SyncJob) => Promise<JobOutcome>;
  readonly now: () => Date;
  readonly keep?: number;
}): SyncRuns {
  const keep = deps.keep ?? 20;
  const runs: TrackedRun[] = [];
  let nextId = 1;
  return {
    start(job) {
      const run: TrackedRun = { id: nextId, job, startedAt: deps.now() };
      nextId += 1;
      runs.push(run);
      if (runs.length > keep) runs.shift();
      const done = deps.runJob(job).then(
        (outcome) => {
          run.finishedAt = deps.now();
          if (outcome.ok) run.report = outcome.result as SyncReport;
          else run.error = outcome.error.message;
          return outcome;
        },
        (caught: unknown): JobOutcome => {
          // A follower whose leader could not be reached: an outcome like a crashed run's.
          const error = caught instanceof Error ? caught : new Error(String(caught));
          run.finishedAt = deps.now();
          run.error = error.message;
          return {
            job,
            ok: false,
            startedAt: run.startedAt,
            durationMs: run.finishedAt.getTime() - run.startedAt.getTime(),
            error,
          };
        },
      );
      return { run, done };
    },
    byId: (id) => runs.find((run) => run.id === id),
    latest: (job) => runs.findLast((run) => run.job === job),
  };
}
