import { createTask, type ScheduledTask } from 'node-cron';
import type { Logger } from '../adapters/logger/create-logger.js';
import { shuttingDown } from '../core/async/deadline.js';
import { planRetry } from '../core/async/retry-backoff.js';

/** How a job's failed runs are tried again before its next scheduled run. */
export interface RetryPolicy<Result = unknown> {
  /** Whether a run that returned `result` failed (a run that throws always has). */
  readonly failed: (result: Result) => boolean;
  /** The wait after the `failures`-th failed run in a row (1 = the first). */
  readonly delayMs: (failures: number) => number;
}

export interface JobDefinition<Result = unknown> {
  /** kebab-case id used in logs, metrics and runNow(). */
  readonly name: string;
  readonly cron: string;
  /** `signal` aborts when the scheduler stops (a shutdown): a long run should end soon after, cleanly. */
  readonly run: (signal: AbortSignal) => Promise<Result>;
  /**
   * Retries after a failed run, whatever started it: `delayMs(failures)` after it ended, never later than
   * the next cron run (which is then the retry), until a run succeeds; a success resets the count. A retry
   * is a trigger like a cron tick: skipped while a run is in progress (that run's end decides again) and
   * asked of `shouldRun` first.
   */
  readonly retry?: RetryPolicy<Result>;
}

export type JobOutcome<Result = unknown> =
  | { readonly job: string; readonly ok: true; readonly startedAt: Date; readonly durationMs: number; readonly result: Result }
  | { readonly job: string; readonly ok: false; readonly startedAt: Date; readonly durationMs: number; readonly error: Error };

export interface JobStatus {
  readonly running: boolean;
  readonly last: JobOutcome | undefined;
  /** The next cron run. */
  readonly nextRun: Date | undefined;
  /** Failed runs in a row (of a job with a retry policy); 0 after a success. */
  readonly failures: number;
  /** When the job is tried next after failing: its retry, or the next cron run when that comes first. */
  readonly nextTry: Date | undefined;
}

export interface Scheduler {
  schedule<Result>(definition: JobDefinition<Result>): void;
  /** Starts the cron triggers of every scheduled job. */
  start(): void;
  /**
   * Runs a job now. While it is already running, requests coalesce into one follow-up run that starts
   * when the current one ends, and every caller gets that follow-up's outcome: a burst of triggers costs
   * at most two runs, and no trigger is lost.
   */
  runNow(name: string): Promise<JobOutcome>;
  status(): Record<string, JobStatus>;
  /** Stops the triggers, aborts running jobs (their `signal`) and waits for them to end. */
  stop(): Promise<void>;
}

export interface SchedulerDeps {
  readonly timezone: string;
  readonly logger: Logger;
  readonly now?: () => Date;
  /**
   * Decides whether this instance runs a scheduled trigger or a retry (leader election when several share
   * a store). `runNow` is not asked.
   */
  readonly shouldRun?: (job: string) => Promise<boolean>;
  readonly onOutcome?: (outcome: JobOutcome) => void;
}

interface JobState {
  readonly definition: JobDefinition;
  task: ScheduledTask | undefined;
  running: Promise<JobOutcome> | undefined;
  followUp: Promise<JobOutcome> | undefined;
  last: JobOutcome | undefined;
  failures: number;
  retry: { readonly at: Date; readonly timer: NodeJS.Timeout } | undefined;
}

type Reason = 'scheduled' | 'retry' | 'invoked';

/**
 * A thin wrapper over node-cron: no overlapping runs, every failure caught, logged and kept, and retried
 * when the job has a retry policy. Retry timers run on the real clock (as cron does), not on `now`.
 */
export function createScheduler(deps: SchedulerDeps): Scheduler {
  const now = deps.now ?? (() => new Date());
  const jobs = new Map<string, JobState>();
  let stopped = false;
  const stopping = new AbortController();

  function stateOf(name: string): JobState {
    const state = jobs.get(name);
    if (state === undefined) throw new Error(`Unknown job: ${name}`);
    return state;
  }

  async function execute(state: JobState, reason: Reason): Promise<JobOutcome> {
    const job = state.definition.name;
    const startedAt = now();
    const started = performance.now();
    deps.logger.info({ job, reason }, 'job started');
    let outcome: JobOutcome;
    try {
      const result = await state.definition.run(stopping.signal);
      outcome = { job, ok: true, startedAt, durationMs: Math.round(performance.now() - started), result };
      deps.logger.info({ job, durationMs: outcome.durationMs }, 'job finished');
    } catch (caught) {
      const error = caught instanceof Error ? caught : new Error(String(caught));
      outcome = { job, ok: false, startedAt, durationMs: Math.round(performance.now() - started), error };
      deps.logger.warn({ job, durationMs: outcome.durationMs, err: error }, 'job failed');
    }
    state.last = outcome;
    planNextTry(state, outcome);
    deps.onOutcome?.(outcome);
    return outcome;
  }

  function cancelRetry(state: JobState): void {
    if (state.retry !== undefined) clearTimeout(state.retry.timer);
    state.retry = undefined;
  }

  /** After every run of a job with a retry policy: reset on success, else the next try. */
  function planNextTry(state: JobState, outcome: JobOutcome): void {
    const policy = state.definition.retry;
    if (policy === undefined) return;
    cancelRetry(state);
    const job = state.definition.name;
    if (outcome.ok && !policy.failed(outcome.result)) {
      if (state.failures > 0) deps.logger.info({ job, failures: state.failures }, 'job succeeded again after failing');
      state.failures = 0;
      return;
    }
    state.failures += 1;
    if (stopped) return;
    const nowMs = Date.now();
    const plan = planRetry(nowMs, policy.delayMs(state.failures), state.task?.getNextRun()?.getTime());
    if (plan.by === 'schedule') {
      deps.logger.info(
        { job, failures: state.failures, nextTry: new Date(plan.at) },
        'job failed; the next scheduled run tries again',
      );
      return;
    }
    const timer = setTimeout(() => {
      state.retry = undefined;
      void trigger(state, 'retry');
    }, plan.at - nowMs);
    // The HTTP server keeps a running bridge alive; a pending retry alone must not.
    timer.unref();
    state.retry = { at: new Date(plan.at), timer };
    deps.logger.info({ job, failures: state.failures, nextTry: state.retry.at }, 'job failed; retrying');
  }

  function begin(state: JobState, reason: Reason): Promise<JobOutcome> {
    const running = execute(state, reason).finally(() => {
      if (state.running === running) state.running = undefined;
    });
    state.running = running;
    return running;
  }

  function runNow(name: string): Promise<JobOutcome> {
    const state = stateOf(name);
    if (stopped) return Promise.reject(new Error('Scheduler is stopped'));
    if (state.running === undefined) return begin(state, 'invoked');
    state.followUp ??= state.running.then(() => {
      state.followUp = undefined;
      return begin(state, 'invoked');
    });
    return state.followUp;
  }

  /** A cron tick or a retry. */
  async function trigger(state: JobState, reason: 'scheduled' | 'retry'): Promise<void> {
    // Skipped while a run is in progress: the next tick comes soon enough, and that run's end plans a retry.
    if (stopped || state.running !== undefined) return;
    try {
      if (deps.shouldRun !== undefined && !(await deps.shouldRun(state.definition.name))) return;
    } catch (error) {
      deps.logger.warn({ job: state.definition.name, err: error }, 'leader check failed, skipping run');
      return;
    }
    // Checked again: a run may have begun while the leader was asked.
    if (stopped || state.running !== undefined) return;
    await begin(state, reason);
  }

  return {
    schedule(definition) {
      if (jobs.has(definition.name)) throw new Error(`Job scheduled twice: ${definition.name}`);
      jobs.set(definition.name, {
        // Held without its result type: `run` and `retry.failed` only ever meet each other's values.
        definition: definition as unknown as JobDefinition,
        task: undefined,
        running: undefined,
        followUp: undefined,
        last: undefined,
        failures: 0,
        retry: undefined,
      });
    },
    start() {
      for (const state of jobs.values()) {
        if (state.task !== undefined) continue;
        state.task = createTask(state.definition.cron, () => trigger(state, 'scheduled'), {
          name: state.definition.name,
          timezone: deps.timezone,
          noOverlap: true,
        });
        void state.task.start();
      }
    },
    runNow,
    status() {
      const report: Record<string, JobStatus> = {};
      for (const [name, state] of jobs) {
        const nextRun = state.task?.getNextRun() ?? undefined;
        report[name] = {
          running: state.running !== undefined,
          last: state.last,
          nextRun,
          failures: state.failures,
          nextTry: state.failures === 0 ? undefined : (state.retry?.at ?? nextRun),
        };
      }
      return report;
    },
    async stop() {
      stopped = true;
      stopping.abort(shuttingDown());
      for (const state of jobs.values()) {
        cancelRetry(state);
        await state.task?.destroy();
      }
      await Promise.allSettled(
        [...jobs.values()].flatMap((state) => [state.running, state.followUp].filter((p) => p !== undefined)),
      );
    },
  };
}
