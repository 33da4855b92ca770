import type { Logger } from '../adapters/logger/create-logger.js';
import type { Metrics } from '../adapters/metrics/create-metrics.js';

/** What every feature's parts share: one clock, one logger, one metrics registry. */
export interface Shared {
  readonly logger: Logger;
  readonly now: () => Date;
  readonly metrics: Metrics;
}

export interface StopOptions {
  /** How long responses in flight get before their connections are cut (`SHUTDOWN_GRACE_MS`, or `stop`'s own). */
  readonly graceMs: number;
}

/**
 * One entry of the app's ordered list: started in the list's order, stopped in its reverse, so that the
 * start-up and the shutdown (and the cleanup after a failed start) follow one order. A feature may give
 * several entries where its start and its stop belong at different places of that order.
 */
export interface AppPart {
  readonly name: string;
  start?(): void | Promise<void>;
  stop?(options: StopOptions): void | Promise<void>;
}

/**
 * Starts `parts` in order. When one fails to start, those started before it are stopped (backwards) and the
 * error is thrown; the one that failed leaves nothing running (its own start cleans up).
 */
export async function startParts(parts: readonly AppPart[], options: StopOptions): Promise<void> {
  const started: AppPart[] = [];
  for (const part of parts) {
    try {
      await part.start?.();
    } catch (error) {
      await stopParts(started, options);
      throw error;
    }
    started.push(part);
  }
}

/** Stops `parts` backwards, each after the one after it has stopped. */
export async function stopParts(parts: readonly AppPart[], options: StopOptions): Promise<void> {
  for (const part of [...parts].reverse()) await part.stop?.(options);
}

/**
 * One entry of `parts` started in order with `last` after them, whose stop runs `last`'s beside theirs (which
 * stop backwards, as always): the HTTP drain runs while the jobs end.
 */
export function stoppedBeside(name: string, parts: readonly AppPart[], last: AppPart): AppPart {
  return {
    name,
    start: () => startParts([...parts, last], { graceMs: 0 }),
    stop: async (options) => {
      await Promise.all([last.stop?.(options), stopParts(parts, options)]);
    },
  };
}
