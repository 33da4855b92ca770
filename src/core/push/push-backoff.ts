/**
 * When a push that failed with `retry` is tried again (docs/decisions/0013-channel-push.md, "Backoff"):
 * full jitter from 1 s doubling up to `PUSH_MAX_BACKOFF_MS`, and the channel's `Retry-After` wins when it
 * is longer. Built on `retryDelayMs` (src/core/async/retry-backoff.ts) rather than a second jitter: with a
 * jitter of 1 it spreads a step over [0, 2 × step), so steps of half the ceiling give full jitter.
 */

import { retryDelayMs } from '../async/retry-backoff.js';

/** The first ceiling of the full-jitter range: 1 s (decision 0013). */
export const PUSH_FIRST_BACKOFF_MS = 1_000;

/** Half of each ceiling 1 s, 2 s, 4 s … up to `maxBackoffMs`, the steps `retryDelayMs` spreads by ±100 %. */
export function pushBackoffSteps(maxBackoffMs: number): readonly number[] {
  if (!Number.isFinite(maxBackoffMs) || maxBackoffMs < PUSH_FIRST_BACKOFF_MS) {
    throw new RangeError(`maxBackoffMs must be at least ${PUSH_FIRST_BACKOFF_MS}, got ${maxBackoffMs}`);
  }
  const steps: number[] = [];
  for (let ceiling = PUSH_FIRST_BACKOFF_MS; ; ceiling *= 2) {
    steps.push(Math.min(ceiling, maxBackoffMs) / 2);
    if (ceiling >= maxBackoffMs) return steps;
  }
}

/**
 * The delay before try `attempts + 1`, after `attempts` failures in a row (1 = the first): uniform in
 * [0, min(1 s × 2^(attempts−1), maxBackoffMs)] from `random` (`Math.random`), or `retryAfterMs` when that
 * is longer. Attempts are never capped: an update is retried until sent, rejected or replaced.
 *
 * @throws RangeError when `attempts` is not a positive integer or `maxBackoffMs` is below 1 s.
 */
export function pushRetryDelayMs(attempts: number, random: () => number, maxBackoffMs: number, retryAfterMs?: number): number {
  const backoff = retryDelayMs(attempts, random, pushBackoffSteps(maxBackoffMs), 1);
  return retryAfterMs !== undefined && retryAfterMs > backoff ? retryAfterMs : backoff;
}
