import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PUSH_FIRST_BACKOFF_MS, pushBackoffSteps, pushRetryDelayMs } from '../../../../src/core/push/push-backoff.js';

const MAX = 300_000; // PUSH_MAX_BACKOFF_MS default
const top = () => 0.999_999_999;

describe('core/push/push-backoff', () => {
  it('doubles the ceiling from 1 s up to the maximum, then stays there', () => {
    const ceilings = [1, 2, 3, 4, 5, 9, 10, 20, 1_000].map((attempts) => pushRetryDelayMs(attempts, top, MAX));
    expect(ceilings).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 256_000, 300_000, 300_000, 300_000]);
    expect(PUSH_FIRST_BACKOFF_MS).toBe(1_000);
  });

  it('spreads over the whole range down to 0 (full jitter)', () => {
    expect(pushRetryDelayMs(1, () => 0, MAX)).toBe(0);
    expect(pushRetryDelayMs(4, () => 0.5, MAX)).toBe(4_000);
    expect(pushRetryDelayMs(30, () => 0.25, MAX)).toBe(75_000);
  });

  it('lets a longer Retry-After win, and a shorter one lose', () => {
    expect(pushRetryDelayMs(1, () => 0.5, MAX, 71_000)).toBe(71_000);
    expect(pushRetryDelayMs(10, () => 0.5, MAX, 5_000)).toBe(150_000);
    expect(pushRetryDelayMs(1, () => 0.5, MAX, 0)).toBe(500);
  });

  it('builds half-ceiling steps ending at half the maximum', () => {
    expect(pushBackoffSteps(1_000)).toEqual([500]);
    expect(pushBackoffSteps(5_000)).toEqual([500, 1_000, 2_000, 2_500]);
    expect(pushBackoffSteps(3_600_000).at(-1)).toBe(1_800_000);
    expect(() => pushBackoffSteps(999)).toThrow(RangeError);
    expect(() => pushBackoffSteps(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => pushRetryDelayMs(0, top, MAX)).toThrow(RangeError);
  });

  it('is always within [0, min(2^(n−1) s, max)] without Retry-After, for any attempt and roll', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1_000, max: 3_600_000 }),
        (attempts, roll, max) => {
          const delay = pushRetryDelayMs(attempts, () => roll, max);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(Math.min(1_000 * 2 ** Math.min(attempts - 1, 40), max));
        },
      ),
    );
  });
});
