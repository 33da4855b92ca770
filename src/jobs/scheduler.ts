import { createTask, type ScheduledTask } from 'node-cron';
import type { Logger } from '../adapters/logger/create-logger.js';

export interface JobDefinition<Result = unknown> {
  /** kebab-case id used in logs, metrics and runNow(). */
  readonly name: string;
  readonly cron: string;
  readonly run: () => Promise<Result>;
}

export type JobOutcome<Result = unknown> =
  | { readonly job: string; readonly ok: true; readonly startedAt: Date; readonly durationMs: number; readonly result: Result }
  | { readonly job: string; readonly ok: false; readonly startedAt: Date; readonly durationMs: number; readonly error: Error };

export interface JobStatus {
  readonly running: boolean;
  readonly last: JobOutcome | undefined;
  readonly nextRun: Date | undefined;
}

export interface Scheduler {
  schedule(definition: JobDefinition): void;
  /** Starts the cron triggers of every scheduled job. */
  start(): void;
  /**
   * Runs a job now. While it is already running, requests coalesce into one follow-up run that starts
   * when the current one ends, and every caller gets that follow-up's outcome: a burst of triggers costs
   * at most two runs, and no trigger is lost.
   */
  runNow(name: string): Promise<JobOutcome>;
  status(): Record<string, JobStatus>;
  /** Stops the triggers and waits for running jobs to end. */
  stop(): Promise<void>;
}

export interface SchedulerDeps {
  readonly timezone: string;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** Decides whether this instance runs a scheduled trigger (leader election when several share a store). */
  readonly shouldRun?: (job: string) => Promise<boolean>;
  readonly onOutcome?: (outcome: JobOutcome) => void;
}

interface JobState {
  readonly definition: JobDefinition;
  task: ScheduledTask | undefined;
  running: Promise<JobOutcome> | undefined;
  followUp: Promise<JobOutcome> | undefined;
  last: JobOutcome | undefined;
}

/** A thin wrapper over node-cron: no overlapping runs, every failure caught, logged and kept. */
export function createScheduler(deps: SchedulerDeps): Scheduler {
  const now = deps.now ?? (() => new Date());
  const jobs = new Map<string, JobState>();
  let stopped = false;

  function stateOf(name: string): JobState {
    const state = jobs.get(name);
    if (state === undefined) throw new Error(`Unknown job: ${name}`);
    return state;
  }

  async function execute(state: JobState, reason: 'scheduled' | 'invoked'): Promise<JobOutcome> {
    const job = state.definition.name;
    const startedAt = now();
    const started = performance.now();
    deps.logger.info({ job, reason }, 'job started');
    let outcome: JobOutcome;
    try {
      const result = await state.definition.run();
      outcome = { job, ok: true, startedAt, durationMs: Math.round(performance.now() - started), result };
      deps.logger.info({ job, durationMs: outcome.durationMs }, 'job finished');
    } catch (caught) {
      const error = caught instanceof Error ? caught : new Error(String(caught));
      outcome = { job, ok: false, startedAt, durationMs: Math.round(performance.now() - started), error };
      deps.logger.warn({ job, durationMs: outcome.durationMs, err: error }, 'job failed');
    }
    state.last = outcome;
    deps.onOutcome?.(outcome);
    return outcome;
  }

  function begin(state: JobState, reason: 'scheduled' | 'invoked'): Promise<JobOutcome> {
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

  async function onTick(state: JobState): Promise<void> {
    // A scheduled tick while a run is in progress is skipped: the next tick comes soon enough.
    if (stopped || state.running !== undefined) return;
    try {
      if (deps.shouldRun !== undefined && !(await deps.shouldRun(state.definition.name))) return;
    } catch (error) {
      deps.logger.warn({ job: state.definition.name, err: error }, 'leader check failed, skipping run');
      return;
    }
    await begin(state, 'scheduled');
  }

  return {
    schedule(definition) {
      if (jobs.has(definition.name)) throw new Error(`Job scheduled twice: ${definition.name}`);
      jobs.set(definition.name, { definition, task: undefined, running: undefined, followUp: undefined, last: undefined });
    },
    start() {
      for (const state of jobs.values()) {
        if (state.task !== undefined) continue;
        state.task = createTask(state.definition.cron, () => onTick(state), {
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
        report[name] = { running: state.running !== undefined, last: state.last, nextRun: state.task?.getNextRun() ?? undefined };
      }
      return report;
    },
    async stop() {
      stopped = true;
      for (const state of jobs.values()) await state.task?.destroy();
      await Promise.allSettled(
        [...jobs.values()].flatMap((state) => [state.running, state.followUp].filter((p) => p !== undefined)),
      );
    },
  };
}
