import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MoneyError, metaPrice, toAmountMicros } from '../../../../src/core/push/money-micros.js';

describe('core/push/money-micros toAmountMicros', () => {
  it('gives exact micros for the values that go wrong through floating point', () => {
    expect(toAmountMicros(15.99)).toBe('15990000');
    expect(toAmountMicros(2.01)).toBe('2010000');
    expect(2.01 * 1e6).toBe(2_009_999.999_999_999_8); // why the text route exists
    expect(toAmountMicros(0.1)).toBe('100000');
    expect(toAmountMicros(0.1 + 0.2 - 0.3 + 0.1 - 5.551115123125783e-17)).toBe('100000');
    expect(toAmountMicros(0.01)).toBe('10000');
    expect(toAmountMicros(0)).toBe('0');
    expect(toAmountMicros(-0)).toBe('0');
    expect(toAmountMicros(1)).toBe('1000000');
    expect(toAmountMicros(129)).toBe('129000000');
    expect(toAmountMicros(1234567.89)).toBe('1234567890000');
    expect(toAmountMicros(1e9)).toBe('1000000000000000');
  });

  it('takes whole amounts written with an exponent (1e21 and up) while they fit int64 micros', () => {
    expect(toAmountMicros(9_000_000_000_000)).toBe('9000000000000000000');
    expect(() => toAmountMicros(1e13)).toThrow(/int64/);
    expect(() => toAmountMicros(1e21)).toThrow(/int64/);
  });

  it('refuses what is not a two-decimal non-negative finite amount, with a clear message', () => {
    expect(() => toAmountMicros(Number.NaN)).toThrow(MoneyError);
    expect(() => toAmountMicros(Number.NaN)).toThrow('price must be a finite number, got NaN');
    expect(() => toAmountMicros(Number.POSITIVE_INFINITY)).toThrow('finite');
    expect(() => toAmountMicros(Number.NEGATIVE_INFINITY)).toThrow('finite');
    expect(() => toAmountMicros(-0.01)).toThrow('price must not be negative, got -0.01');
    expect(() => toAmountMicros(1.005)).toThrow('price must have at most 2 decimals, got 1.005');
    expect(() => toAmountMicros(0.1 + 0.2)).toThrow('at most 2 decimals');
    expect(() => toAmountMicros(1e-7)).toThrow('at most 2 decimals, got 1e-7');
  });

  it('equals the cents times 10,000 for every cent from 0 to 10,000.00 (where price * 1e6 is not)', () => {
    let floatWrong = 0;
    for (let c = 0; c <= 1_000_000; c += 1) {
      const got = toAmountMicros(c / 100);
      if (got !== String(c * 10_000)) expect(got, `cents ${c}`).toBe(String(c * 10_000));
      if (String(Math.trunc((c / 100) * 1e6)) !== String(c * 10_000)) floatWrong += 1;
    }
    // Guards the test itself: the naive way goes wrong somewhere in the range, or this proves nothing.
    expect(floatWrong).toBeGreaterThan(0);
  }, 30_000); // a million calls; the property below covers the rest of the range

  it('equals BigInt(cents) * 10000n for any integer cents in [0, 10^11]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000_000 }), (c) => {
        expect(toAmountMicros(c / 100)).toBe(String(BigInt(c) * 10_000n));
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('core/push/money-micros metaPrice', () => {
  it('writes two decimals, a space and the currency, as the Meta feed does', () => {
    expect(metaPrice(15.99, 'CZK')).toBe('15.99 CZK');
    expect(metaPrice(129, 'CZK')).toBe('129.00 CZK');
    expect(metaPrice(0.1, 'EUR')).toBe('0.10 EUR');
    expect(metaPrice(0, 'CZK')).toBe('0.00 CZK');
  });

  it('matches the shape Meta takes for any cents', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000_000 }), (c) => {
        const text = metaPrice(c / 100, 'CZK');
        expect(text).toMatch(/^\d+\.\d{2} CZK$/);
        expect(text).toBe(`${(BigInt(c) / 100n).toString()}.${String(c % 100).padStart(2, '0')} CZK`);
      }),
    );
  });

  it('refuses a bad currency or amount', () => {
    expect(() => metaPrice(1, 'czk')).toThrow('currency must be an ISO 4217 code');
    expect(() => metaPrice(1, 'CZ')).toThrow(MoneyError);
    expect(() => metaPrice(1.005, 'CZK')).toThrow('at most 2 decimals');
    expect(() => metaPrice(-1, 'CZK')).toThrow('negative');
    expect(() => metaPrice(Number.NaN, 'CZK')).toThrow('finite');
  });
});
