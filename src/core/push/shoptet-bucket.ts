import type { Pacer, PacerLimits } from './pacer.js';

/**
 * Shoptet's leaky bucket (developers.shoptet.com/api/documentation/rate-limiter/: "Each app has a bucket of
 * 200 drops capacity", "10 drops/second are automatically removed", "Full bucket = error 429"; every answer
 * carries `X-RateLimit-Bucket-Filling: used/max`, and `Retry-After` as an HTTP-date only when it is full).
 * Decision 0013: above 80 % the channel slows to one call at a time with a longer spacing, and waits until the
 * bucket has leaked back under 80 %; below it the normal pace returns. Pure: the wiring applies the answer to
 * the Shoptet worker's pacer.
 */

export interface BucketFilling {
  readonly used: number;
  readonly max: number;
}

/** Drops Shoptet removes per second. */
export const SHOPTET_BUCKET_LEAK_PER_SECOND = 10;
/** Above this share of the bucket the channel slows down. */
export const SHOPTET_BUCKET_SLOW_SHARE = 0.8;
/** The slow pace: one call at a time, at most one every 2 s. */
export const SHOPTET_SLOW_LIMITS: PacerLimits = { capacity: 1, refillPerSecond: 0.5, maxConcurrent: 1 };

export interface BucketPacing {
  /** Whether the bucket is above 80 %. */
  readonly slow: boolean;
  readonly limits: PacerLimits;
  /** How long to send nothing: until the bucket has leaked back to 80 % (0 when under it). */
  readonly waitMs: number;
}

export function shoptetBucketPacing(filling: BucketFilling, normal: PacerLimits): BucketPacing {
  const threshold = filling.max * SHOPTET_BUCKET_SLOW_SHARE;
  if (!(filling.max > 0) || filling.used <= threshold) return { slow: false, limits: normal, waitMs: 0 };
  const waitMs = Math.ceil(((filling.used - threshold) / SHOPTET_BUCKET_LEAK_PER_SECOND) * 1000);
  return { slow: true, limits: SHOPTET_SLOW_LIMITS, waitMs };
}

export interface BucketSteering {
  /** The Shoptet client's `onBucketFilling`: sets the pacer's pace for the filling just reported. */
  readonly onFilling: (filling: { readonly used: number; readonly size: number }) => void;
  /** The last filling reported (for the status), `undefined` before the first answer. */
  readonly last: () => BucketFilling | undefined;
  readonly slow: () => boolean;
}

/** Steers `pacer` by each reported filling; `onChange` is told when the pace switches (for a log line). */
export function createBucketSteering(
  pacer: Pick<Pacer, 'setLimits' | 'closeUntil'>,
  normal: PacerLimits,
  now: () => number,
  onChange?: (slow: boolean, filling: BucketFilling) => void,
): BucketSteering {
  let last: BucketFilling | undefined;
  let slow = false;
  return {
    onFilling({ used, size }) {
      last = { used, max: size };
      const at = now();
      const pacing = shoptetBucketPacing(last, normal);
      pacer.setLimits(pacing.limits, at);
      if (pacing.waitMs > 0) pacer.closeUntil(at + pacing.waitMs);
      if (pacing.slow !== slow) onChange?.(pacing.slow, last);
      slow = pacing.slow;
    },
    last: () => last,
    slow: () => slow,
  };
}
