/**
 * The pacer of one channel (docs/decisions/0013-channel-push.md, "Pacer"): a token bucket (requests per
 * second with a burst), a cap on requests in flight (Shoptet: 3 connections per token), and a "closed until"
 * time set from `Retry-After` or quota exhaustion. Pure: every call takes `now`, so tests and the worker's
 * fake clock drive it. Nothing is ever refused for good: a request that cannot go now is told when it can
 * (quota exhaustion waits, never drops).
 */

export interface PacerLimits {
  /** Most tokens the bucket holds: the largest burst, and the largest `n` one take may ask for. */
  readonly capacity: number;
  /** Tokens added per second (Google: 80 % of `quotaMinuteLimit` / 60). */
  readonly refillPerSecond: number;
  /** Most requests in flight at once; each taken token is one until `release`. */
  readonly maxConcurrent: number;
}

export interface Pacer {
  /** Takes `n` tokens and `n` in-flight slots when all are free at `now`; `false` changes nothing. */
  tryTake(now: number, n?: number): boolean;
  /**
   * The earliest time at or after `now` when `tryTake(time, n)` succeeds if nothing else changes, or
   * `undefined` when it waits for a `release` (the in-flight cap is reached) rather than for time.
   */
  nextAvailableAt(now: number, n?: number): number | undefined;
  /** Nothing is taken before `time`; a later close wins over an earlier one (a short 429 keeps a quota close). */
  closeUntil(time: number): void;
  /** Ends `n` requests in flight (answered, failed or timed out alike). */
  release(n?: number): void;
  /** New limits from `now` on (e.g. after a quota read); tokens earned so far are kept, up to the new capacity. */
  setLimits(limits: PacerLimits, now: number): void;
  /** For status and tests: tokens at `now`, requests in flight, and the close time (`-Infinity` when open). */
  snapshot(now: number): { readonly tokens: number; readonly inFlight: number; readonly closedUntil: number };
}

// Float refill can land a hair below a whole token at the computed time; this keeps that time honest.
const EPSILON = 1e-9;

function checkLimits({ capacity, refillPerSecond, maxConcurrent }: PacerLimits): void {
  if (!Number.isFinite(capacity) || capacity < 1) throw new RangeError(`capacity must be >= 1, got ${capacity}`);
  if (!Number.isFinite(refillPerSecond) || refillPerSecond <= 0) {
    throw new RangeError(`refillPerSecond must be > 0, got ${refillPerSecond}`);
  }
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) {
    throw new RangeError(`maxConcurrent must be a positive integer, got ${maxConcurrent}`);
  }
}

function checkCount(n: number, capacity: number, maxConcurrent: number): void {
  // A take larger than the bucket or the cap could never succeed: a caller bug, not a wait.
  if (!Number.isInteger(n) || n < 1 || n > capacity || n > maxConcurrent) {
    throw new RangeError(`n must be an integer from 1 to min(capacity, maxConcurrent), got ${n}`);
  }
}

/** A pacer with a full bucket at `now`. @throws RangeError for limits that could never grant a request. */
export function createPacer(initial: PacerLimits, now: number): Pacer {
  checkLimits(initial);
  let limits = initial;
  let tokens = initial.capacity;
  let refilledAt = now;
  let inFlight = 0;
  let closedUntil = Number.NEGATIVE_INFINITY;

  // A clock that steps back adds nothing (and takes nothing back).
  const refill = (at: number): void => {
    if (at <= refilledAt) return;
    tokens = Math.min(limits.capacity, tokens + ((at - refilledAt) * limits.refillPerSecond) / 1000);
    refilledAt = at;
  };

  return {
    tryTake(at, n = 1) {
      checkCount(n, limits.capacity, limits.maxConcurrent);
      refill(at);
      if (at < closedUntil || inFlight + n > limits.maxConcurrent || tokens + EPSILON < n) return false;
      tokens -= n;
      inFlight += n;
      return true;
    },
    nextAvailableAt(at, n = 1) {
      checkCount(n, limits.capacity, limits.maxConcurrent);
      refill(at);
      if (inFlight + n > limits.maxConcurrent) return undefined;
      const start = Math.max(at, refilledAt, closedUntil);
      const missing = n - (tokens + ((start - refilledAt) * limits.refillPerSecond) / 1000);
      if (missing <= EPSILON) return start;
      return start + Math.ceil((missing * 1000) / limits.refillPerSecond);
    },
    closeUntil(time) {
      if (Number.isNaN(time)) throw new RangeError('closeUntil needs a time, got NaN');
      closedUntil = Math.max(closedUntil, time);
    },
    release(n = 1) {
      if (!Number.isInteger(n) || n < 1 || n > inFlight) throw new RangeError(`release(${n}) with ${inFlight} in flight`);
      inFlight -= n;
    },
    setLimits(next, at) {
      checkLimits(next);
      refill(at);
      limits = next;
      tokens = Math.min(tokens, next.capacity);
    },
    snapshot(at) {
      refill(at);
      return { tokens, inFlight, closedUntil };
    },
  };
}

/**
 * The Merchant API's next daily quota reset after `now`: daily limits "reset at 12:00 PM midday UTC"
 * (`quota_v1.ts`, decision 0013 "Quotas"); the pacer is closed until then when the day's quota is spent.
 */
export function nextMiddayUtc(now: number): number {
  const day = new Date(now);
  const midday = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 12);
  return midday > now ? midday : midday + 86_400_000;
}
