/**
 * When a failed full sync is tried again (docs/decisions/0007-source-identity-and-start-sync.md): about
 * 10 s, 30 s, 1 min, 2 min and 5 min after the 1st to 5th failure in a row, then every 5 min, each spread
 * by up to ±20 % so that bridges failing together (one POS down for all) do not come back in step; never
 * later than the next scheduled run, which is then the retry.
 */
export const SYNC_RETRY_STEPS_MS: readonly number[] = [10_000, 30_000, 60_000, 120_000, 300_000];

/** The largest share a delay is moved by either way. */
export const RETRY_JITTER = 0.2;

/**
 * The delay before the next try after `failures` failures in a row (1 = the first). `random` gives
 * numbers in [0, 1) (`Math.random`); 0.5 gives the step itself.
 *
 * @throws RangeError when `failures` is not a positive integer or `steps` is empty.
 */
export function retryDelayMs(
  failures: number,
  random: () => number,
  steps: readonly number[] = SYNC_RETRY_STEPS_MS,
  jitter: number = RETRY_JITTER,
): number {
  if (!Number.isInteger(failures) || failures < 1) throw new RangeError(`failures must be a positive integer, got ${failures}`);
  const step = steps[Math.min(failures, steps.length) - 1];
  if (step === undefined) throw new RangeError('steps must not be empty');
  const roll = Math.min(Math.max(random(), 0), 1);
  return Math.round(step * (1 - jitter + 2 * jitter * roll));
}

/** The next try: by its own timer, or by the scheduled run when that comes first. */
export type RetryPlan = { readonly by: 'retry'; readonly at: number } | { readonly by: 'schedule'; readonly at: number };

/**
 * Where the next try of a failed job falls, `delayMs` after `nowMs`, given its next scheduled run (epoch
 * ms, `undefined` when it has none): a retry that would come at or after that run is left to it.
 */
export function planRetry(nowMs: number, delayMs: number, nextRunMs: number | undefined): RetryPlan {
  const at = nowMs + Math.max(0, delayMs);
  if (nextRunMs !== undefined && nextRunMs <= at) return { by: 'schedule', at: nextRunMs };
  return { by: 'retry', at };
}
