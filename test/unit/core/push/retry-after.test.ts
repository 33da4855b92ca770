import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHttpDate, retryAfterMs } from '../../../../src/core/push/retry-after.js';

const NOW = Date.UTC(2024, 6, 1, 12, 0, 0); // Mon, 01 Jul 2024 12:00:00 GMT
const MAX = 300_000;

describe('core/push/retry-after retryAfterMs', () => {
  it('reads delay-seconds', () => {
    expect(retryAfterMs('120', NOW, MAX)).toBe(120_000);
    expect(retryAfterMs('0', NOW, MAX)).toBe(0);
    expect(retryAfterMs(' 5 ', NOW, MAX)).toBe(5_000);
    expect(retryAfterMs('007', NOW, MAX)).toBe(7_000);
  });

  it('reads an HTTP-date relative to now, as Shoptet sends it', () => {
    expect(retryAfterMs('Mon, 01 Jul 2024 12:01:11 GMT', NOW, MAX)).toBe(71_000);
    expect(retryAfterMs('Mon, 01 Jul 2024 12:00:00 GMT', NOW, MAX)).toBe(0);
  });

  it('waits 0 for a date in the past', () => {
    expect(retryAfterMs('Mon, 01 Jul 2024 11:59:59 GMT', NOW, MAX)).toBe(0);
    expect(retryAfterMs('Sun, 06 Nov 1994 08:49:37 GMT', NOW, MAX)).toBe(0);
  });

  it('caps huge values at the maximum', () => {
    expect(retryAfterMs('301', NOW, MAX)).toBe(MAX);
    expect(retryAfterMs('99999999999999999999999', NOW, MAX)).toBe(MAX);
    expect(retryAfterMs('9'.repeat(400), NOW, MAX)).toBe(MAX); // Number() gives Infinity
    expect(retryAfterMs('Fri, 31 Dec 9999 23:59:59 GMT', NOW, MAX)).toBe(MAX);
    expect(retryAfterMs('120', NOW, 0)).toBe(0);
  });

  it('answers undefined for an absent or invalid value', () => {
    for (const value of [
      undefined,
      null,
      '',
      '   ',
      'soon',
      '1.5',
      '-1',
      '+5',
      '1e3',
      '0x10',
      '12 s',
      'Mon, 01 Jul 2024 12:01:11', // no GMT
      'Mon, 01 Jul 2024 12:01:11 UTC',
      'Mon, 1 Jul 2024 12:01:11 GMT', // IMF-fixdate has a two-digit day
      'mon, 01 jul 2024 12:01:11 gmt', // HTTP-date is case-sensitive
      'Mon, 31 Feb 2024 12:01:11 GMT',
      'Mon, 01 Jul 2024 24:00:00 GMT',
      'Mon, 01 Jul 2024 12:60:00 GMT',
      '2024-07-01T12:01:11Z',
      'Mon, 01 Jul 2024 12:01:11 GMT, Mon, 01 Jul 2024 12:02:11 GMT', // a repeated header joined
    ]) {
      expect(retryAfterMs(value, NOW, MAX), String(value)).toBeUndefined();
    }
  });

  it('refuses a maximum that is negative or not finite', () => {
    expect(() => retryAfterMs('1', NOW, -1)).toThrow(RangeError);
    expect(() => retryAfterMs('1', NOW, Number.NaN)).toThrow(RangeError);
  });

  it('is always within [0, max] or undefined, for any text', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.nat(10_000_000), (text, now, max) => {
        const ms = retryAfterMs(text, now, max);
        if (ms !== undefined) {
          expect(ms).toBeGreaterThanOrEqual(0);
          expect(ms).toBeLessThanOrEqual(max);
        }
      }),
    );
  });

  it('reads back any whole-second date written as IMF-fixdate', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799 }), (seconds) => {
        const at = seconds * 1000;
        expect(parseHttpDate(new Date(at).toUTCString(), NOW)).toBe(at);
      }),
    );
  });
});

describe('core/push/retry-after parseHttpDate', () => {
  it('reads the three forms of RFC 9110 §5.6.7 as the same instant', () => {
    const at = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(at);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(at);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994', NOW)).toBe(at);
  });

  it('reads a two-digit year more than 50 years ahead as the previous century', () => {
    expect(parseHttpDate('Monday, 01-Jul-24 12:01:11 GMT', NOW)).toBe(Date.UTC(2024, 6, 1, 12, 1, 11));
    expect(parseHttpDate('Thursday, 01-Jan-70 00:00:00 GMT', NOW)).toBe(Date.UTC(2070, 0, 1));
    expect(parseHttpDate('Saturday, 01-Jan-80 00:00:00 GMT', NOW)).toBe(Date.UTC(1980, 0, 1));
  });

  it('keeps years below 100 as written and reads 29 Feb only in leap years', () => {
    expect(parseHttpDate('Mon, 01 Jan 0050 00:00:00 GMT', NOW)).toBe(new Date('0050-01-01T00:00:00Z').getTime());
    expect(parseHttpDate('Thu, 29 Feb 2024 00:00:00 GMT', NOW)).toBe(Date.UTC(2024, 1, 29));
    expect(parseHttpDate('Thu, 29 Feb 2023 00:00:00 GMT', NOW)).toBeUndefined();
    expect(parseHttpDate('Thu, 00 Feb 2024 00:00:00 GMT', NOW)).toBeUndefined();
  });
});
