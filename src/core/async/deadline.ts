import { setMaxListeners } from 'node:events';

/**
 * Deadlines and cancellation of long runs (a full or stock sync): one `AbortSignal` that fires when the
 * run's own deadline passes or when whoever started it gives up (a shutdown), whichever comes first, with
 * a reason that says which. Everything the run starts takes that signal, so a stuck read cannot hold the
 * run, and the lock the run holds, past its deadline (docs/failure-modes.md).
 */

/** Why a run was aborted: its `code` goes into the run's report. */
export class RunAbortedError extends Error {
  override readonly name = 'RunAbortedError';
  readonly code: 'SYNC_DEADLINE' | 'SYNC_ABORTED';
  constructor(code: 'SYNC_DEADLINE' | 'SYNC_ABORTED', message: string) {
    super(message);
    this.code = code;
  }
}

/** The reason a run's signal carries when its deadline passed. */
export function deadlineExceeded(deadlineMs: number): RunAbortedError {
  return new RunAbortedError('SYNC_DEADLINE', `ran over its deadline of ${formatSeconds(deadlineMs)}`);
}

/** The reason a run's signal carries when the bridge shuts down while it runs. */
export function shuttingDown(): RunAbortedError {
  return new RunAbortedError('SYNC_ABORTED', 'aborted because the bridge is shutting down');
}

export interface Deadline {
  readonly signal: AbortSignal;
  /**
   * Clears the timer, lets go of the outer signals and aborts what the run left behind (work of other
   * units after one failed); call it when the run has ended.
   */
  dispose(): void;
}

/** A signal that aborts after `deadlineMs` (reason: `deadlineExceeded`) or with the first of `outer` that does. */
export function withDeadline(deadlineMs: number, ...outer: readonly (AbortSignal | undefined)[]): Deadline {
  const controller = new AbortController();
  // Each request and worker task of a run listens to the one signal; a run has dozens at once.
  setMaxListeners(0, controller.signal);
  const timer = setTimeout(() => controller.abort(deadlineExceeded(deadlineMs)), deadlineMs);
  // A pending deadline alone must not keep a process alive.
  timer.unref?.();
  const signals = outer.filter((signal): signal is AbortSignal => signal !== undefined);
  const follows = signals.map((signal) => {
    const follow = () => controller.abort(signal.reason);
    if (signal.aborted) follow();
    else signal.addEventListener('abort', follow, { once: true });
    return follow;
  });
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      signals.forEach((signal, index) => {
        const follow = follows[index];
        if (follow !== undefined) signal.removeEventListener('abort', follow);
      });
      if (!controller.signal.aborted) controller.abort(new RunAbortedError('SYNC_ABORTED', 'the run has ended'));
    },
  };
}

/**
 * `promise`, or a rejection with the signal's reason as soon as it aborts: the caller stops waiting for
 * work that cannot be cancelled from here (it is cancelled by other means, or ends and is dropped).
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    // The promise's own outcome no longer matters; it must not be reported as unhandled.
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The signal's reason as a run's error, when it aborted with one of ours. */
export function abortReasonOf(signal: AbortSignal): RunAbortedError | undefined {
  return signal.aborted && signal.reason instanceof RunAbortedError ? signal.reason : undefined;
}

function formatSeconds(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  return ms % 1_000 === 0 ? `${ms / 1_000} s` : `${(ms / 1_000).toFixed(1)} s`;
}

/** Thrown by `withTimeout` when the work did not settle in time. */
export class TimedOutError extends Error {
  override readonly name = 'TimedOutError';
}

/**
 * `promise`, or a `TimedOutError` after `ms`: the caller answers now (a webhook's `503`) while the work,
 * which cannot be cancelled from here, goes on and its late outcome is dropped.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new TimedOutError(`${what} took longer than ${formatSeconds(ms)}`)), ms);
  timer.unref?.();
  return raceAbort(promise, controller.signal).finally(() => clearTimeout(timer));
}
