import { describe, expect, it } from 'vitest';
import { toAmountMicros } from '../../../../src/core/push/money-micros.js';

describe('core/push/money-micros', () => {
  it.each([
    [15.99, '15990000'],
    [0.1, '100000'],
    [0.01, '10000'],
    [0, '0'],
    [129, '129000000'],
    [1e9, '1000000000000000'],
    [1.005, '1010000'],
  ])('%s → %s', (price, micros) => {
    expect(toAmountMicros(price)).toBe(micros);
  });

  it('is exact for every cent from 0 to 100,000.00 (where value * 1e6 is not)', () => {
    let wrong = 0;
    let floatWrong = 0;
    for (let cents = 0; cents <= 10_000_000; cents += 1) {
      const expected = String(cents * 10_000);
      if (toAmountMicros(cents / 100) !== expected) wrong += 1;
      if (String(Math.trunc((cents / 100) * 1e6)) !== expected) floatWrong += 1;
    }
    expect(wrong).toBe(0);
    // Guards the test itself: the naive way must fail somewhere, or this test proves nothing.
    expect(floatWrong).toBeGreaterThan(0);
    // Ten million conversions: a generous limit for a shared 2-core machine, not an assertion on speed.
  }, 120_000);

  it('refuses a non-finite price', () => {
    expect(() => toAmountMicros(Number.NaN)).toThrow(RangeError);
    expect(() => toAmountMicros(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
