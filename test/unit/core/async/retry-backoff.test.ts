import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planRetry, RETRY_JITTER, retryDelayMs, SYNC_RETRY_STEPS_MS } from '../../../../src/core/async/retry-backoff.js';

const middle = () => 0.5;

describe('core/async/retry-backoff', () => {
  it('waits about 10 s, 30 s, 1 min, 2 min and 5 min after the 1st to 5th failure, then 5 min for ever', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 50, 10_000].map((failures) => retryDelayMs(failures, middle));

    expect(delays).toEqual([10_000, 30_000, 60_000, 120_000, 300_000, 300_000, 300_000, 300_000, 300_000]);
    expect(SYNC_RETRY_STEPS_MS).toEqual([10_000, 30_000, 60_000, 120_000, 300_000]);
  });

  it('spreads each delay by at most ±20 %, from the lowest to the highest roll', () => {
    expect(RETRY_JITTER).toBe(0.2);
    expect(retryDelayMs(1, () => 0)).toBe(8_000);
    expect(retryDelayMs(1, () => 0.999_999)).toBe(12_000);
    expect(retryDelayMs(5, () => 0)).toBe(240_000);
    expect(retryDelayMs(5, () => 0.25)).toBe(270_000);
  });

  it('stays within the jitter band of its step and never decreases on average, for any roll', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (failures, roll) => {
          const step = SYNC_RETRY_STEPS_MS[Math.min(failures, SYNC_RETRY_STEPS_MS.length) - 1] ?? 0;
          const delay = retryDelayMs(failures, () => roll);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(step * 0.8));
          expect(delay).toBeLessThanOrEqual(Math.ceil(step * 1.2));
          expect(retryDelayMs(failures + 1, middle)).toBeGreaterThanOrEqual(retryDelayMs(failures, middle));
        },
      ),
    );
  });

  it('keeps a roll outside [0, 1) from a faulty random source within the band', () => {
    expect(retryDelayMs(2, () => -3)).toBe(24_000);
    expect(retryDelayMs(2, () => 7)).toBe(36_000);
  });

  it('takes other steps and jitter', () => {
    expect(retryDelayMs(1, middle, [100, 200])).toBe(100);
    expect(retryDelayMs(9, () => 0, [100, 200], 0)).toBe(200);
  });

  it('rejects a failure count that is not a positive integer, and empty steps', () => {
    for (const failures of [0, -1, 1.5, Number.NaN]) expect(() => retryDelayMs(failures, middle)).toThrow(RangeError);
    expect(() => retryDelayMs(1, middle, [])).toThrow('steps must not be empty');
  });

  it('plans the retry by its own timer when it comes before the next scheduled run', () => {
    expect(planRetry(1_000, 10_000, 60_000)).toEqual({ by: 'retry', at: 11_000 });
    expect(planRetry(1_000, 10_000, undefined)).toEqual({ by: 'retry', at: 11_000 });
  });

  it('leaves the retry to the scheduled run when that comes first or at the same time: never later than the schedule', () => {
    expect(planRetry(1_000, 300_000, 60_000)).toEqual({ by: 'schedule', at: 60_000 });
    expect(planRetry(1_000, 10_000, 11_000)).toEqual({ by: 'schedule', at: 11_000 });
  });

  it('treats a negative delay as none', () => {
    expect(planRetry(1_000, -5, undefined)).toEqual({ by: 'retry', at: 1_000 });
  });
});
