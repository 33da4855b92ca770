import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPacer, nextMiddayUtc, type PacerLimits } from '../../../../src/core/push/pacer.js';

const T0 = 1_700_000_000_000;
const limits: PacerLimits = { capacity: 3, refillPerSecond: 2, maxConcurrent: 10 };

describe('core/push/pacer token bucket', () => {
  it('grants a full burst at once, then one token per 1/rate seconds', () => {
    const pacer = createPacer(limits, T0);
    expect([1, 2, 3, 4].map(() => pacer.tryTake(T0))).toEqual([true, true, true, false]);
    expect(pacer.nextAvailableAt(T0)).toBe(T0 + 500);
    expect(pacer.tryTake(T0 + 499)).toBe(false);
    expect(pacer.tryTake(T0 + 500)).toBe(true);
    expect(pacer.nextAvailableAt(T0 + 500, 2)).toBe(T0 + 1_500);
    expect(pacer.tryTake(T0 + 1_499, 2)).toBe(false);
    expect(pacer.tryTake(T0 + 1_500, 2)).toBe(true);
  });

  it('never holds more than its capacity, however long it idles', () => {
    const pacer = createPacer(limits, T0);
    expect(pacer.snapshot(T0 + 86_400_000).tokens).toBe(3);
    expect(pacer.tryTake(T0 + 86_400_000, 3)).toBe(true);
    expect(pacer.tryTake(T0 + 86_400_000)).toBe(false);
  });

  it('a clock that steps back neither adds nor removes tokens', () => {
    const pacer = createPacer(limits, T0);
    pacer.tryTake(T0, 3);
    expect(pacer.tryTake(T0 - 10_000)).toBe(false);
    expect(pacer.nextAvailableAt(T0 - 10_000)).toBe(T0 + 500);
    expect(pacer.tryTake(T0 + 500)).toBe(true);
  });

  it('a failed take changes nothing', () => {
    const pacer = createPacer(limits, T0);
    pacer.tryTake(T0, 2);
    expect(pacer.tryTake(T0, 2)).toBe(false);
    expect(pacer.snapshot(T0)).toEqual({ tokens: 1, inFlight: 2, closedUntil: Number.NEGATIVE_INFINITY });
  });

  it('refuses limits or counts that could never be granted, rather than waiting for ever', () => {
    expect(() => createPacer({ ...limits, capacity: 0 }, T0)).toThrow(RangeError);
    expect(() => createPacer({ ...limits, refillPerSecond: 0 }, T0)).toThrow(RangeError);
    expect(() => createPacer({ ...limits, refillPerSecond: Number.NaN }, T0)).toThrow(RangeError);
    expect(() => createPacer({ ...limits, maxConcurrent: 1.5 }, T0)).toThrow(RangeError);
    const pacer = createPacer(limits, T0);
    expect(() => pacer.tryTake(T0, 4)).toThrow(RangeError);
    expect(() => pacer.tryTake(T0, 0)).toThrow(RangeError);
    expect(() => pacer.nextAvailableAt(T0, 1.5)).toThrow(RangeError);
    expect(() => pacer.release()).toThrow('release(1) with 0 in flight');
    expect(() => pacer.closeUntil(Number.NaN)).toThrow(RangeError);
  });
});

describe('core/push/pacer concurrency cap', () => {
  it('holds at most maxConcurrent in flight and frees a slot on release', () => {
    const pacer = createPacer({ capacity: 10, refillPerSecond: 100, maxConcurrent: 3 }, T0);
    expect([1, 2, 3, 4].map(() => pacer.tryTake(T0))).toEqual([true, true, true, false]);
    expect(pacer.nextAvailableAt(T0)).toBeUndefined();
    expect(pacer.tryTake(T0 + 60_000)).toBe(false); // time alone does not help
    pacer.release();
    expect(pacer.nextAvailableAt(T0 + 60_000)).toBe(T0 + 60_000);
    expect(pacer.tryTake(T0 + 60_000)).toBe(true);
    pacer.release(3);
    expect(pacer.snapshot(T0 + 60_000).inFlight).toBe(0);
  });
});

describe('core/push/pacer closed until', () => {
  it('grants nothing before the close time and waits for it, keeping the tokens', () => {
    const pacer = createPacer(limits, T0);
    pacer.closeUntil(T0 + 71_000); // Retry-After: 71
    expect(pacer.tryTake(T0)).toBe(false);
    expect(pacer.nextAvailableAt(T0)).toBe(T0 + 71_000);
    expect(pacer.tryTake(T0 + 70_999)).toBe(false);
    expect(pacer.tryTake(T0 + 71_000, 3)).toBe(true);
  });

  it('a later close wins over an earlier one, in either order', () => {
    const pacer = createPacer(limits, T0);
    const reset = nextMiddayUtc(T0);
    pacer.closeUntil(reset); // quota spent for the day
    pacer.closeUntil(T0 + 5_000); // then a short 429
    expect(pacer.nextAvailableAt(T0)).toBe(reset);
    pacer.closeUntil(reset + 1);
    expect(pacer.snapshot(T0).closedUntil).toBe(reset + 1);
  });

  it('after the close, waits for tokens too when the bucket was empty', () => {
    const pacer = createPacer(limits, T0);
    pacer.tryTake(T0, 3);
    pacer.closeUntil(T0 + 100);
    expect(pacer.nextAvailableAt(T0, 1)).toBe(T0 + 500);
    expect(pacer.nextAvailableAt(T0, 3)).toBe(T0 + 1_500);
  });
});

describe('core/push/pacer setLimits', () => {
  it('keeps the tokens earned, up to the new capacity, and refills at the new rate from then on', () => {
    const pacer = createPacer({ capacity: 10, refillPerSecond: 1, maxConcurrent: 10 }, T0);
    pacer.tryTake(T0, 10);
    pacer.setLimits({ capacity: 2, refillPerSecond: 10, maxConcurrent: 1 }, T0 + 5_000); // 5 earned, 2 kept
    expect(pacer.snapshot(T0 + 5_000).tokens).toBe(2);
    // ten in flight against a cap of 1: nothing until releases bring it below the cap
    expect(pacer.tryTake(T0 + 5_000)).toBe(false);
    pacer.release(10);
    expect(pacer.tryTake(T0 + 5_000)).toBe(true);
    pacer.release();
    expect(pacer.tryTake(T0 + 5_000)).toBe(true);
    pacer.release();
    expect(pacer.nextAvailableAt(T0 + 5_000)).toBe(T0 + 5_100);
  });
});

type Op =
  | { readonly kind: 'take'; readonly dt: number; readonly n: number }
  | { readonly kind: 'wait'; readonly n: number }
  | { readonly kind: 'close'; readonly dt: number; readonly forMs: number }
  | { readonly kind: 'release'; readonly dt: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('take' as const), dt: fc.nat(2_000), n: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('wait' as const), n: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('close' as const), dt: fc.nat(2_000), forMs: fc.nat(10_000) }),
  fc.record({ kind: fc.constant('release' as const), dt: fc.nat(500) }),
);

const limitsArb = fc.record({
  capacity: fc.integer({ min: 3, max: 50 }),
  refillPerSecond: fc.double({ min: 0.01, max: 500, noNaN: true }),
  maxConcurrent: fc.integer({ min: 3, max: 8 }),
});

describe('core/push/pacer properties', () => {
  it('never grants more than capacity + rate × elapsed, nor over the cap, nor while closed; a wait always ends in a grant', () => {
    fc.assert(
      fc.property(limitsArb, fc.array(opArb, { maxLength: 200 }), (lim, ops) => {
        const pacer = createPacer(lim, T0);
        let now = T0;
        const grants: { at: number; n: number }[] = [];
        let inFlight = 0;
        let closedUntil = Number.NEGATIVE_INFINITY;
        const grant = (n: number): void => {
          grants.push({ at: now, n });
          inFlight += n;
          expect(now).toBeGreaterThanOrEqual(closedUntil);
          expect(inFlight).toBeLessThanOrEqual(lim.maxConcurrent);
          // Over every window ending now (from the start, and from each earlier grant), not just since T0:
          // a bucket that filled past its capacity while idle would pass the latter alone.
          for (const from of [T0, ...grants.map((g) => g.at)]) {
            const inWindow = grants.filter((g) => g.at >= from).reduce((sum, g) => sum + g.n, 0);
            expect(inWindow).toBeLessThanOrEqual(lim.capacity + (lim.refillPerSecond * (now - from)) / 1000 + 1e-6);
          }
        };
        for (const op of ops) {
          if (op.kind === 'wait') {
            let at = pacer.nextAvailableAt(now, op.n);
            if (at === undefined) {
              pacer.release(inFlight);
              inFlight = 0;
              at = pacer.nextAvailableAt(now, op.n);
            }
            expect(at).toBeDefined();
            now = at ?? now;
            expect(pacer.tryTake(now, op.n)).toBe(true); // waits, never drops
            grant(op.n);
            continue;
          }
          now += op.dt;
          if (op.kind === 'take' && pacer.tryTake(now, op.n)) grant(op.n);
          if (op.kind === 'close') {
            pacer.closeUntil(now + op.forMs);
            closedUntil = Math.max(closedUntil, now + op.forMs);
          }
          if (op.kind === 'release' && inFlight > 0) {
            pacer.release();
            inFlight -= 1;
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('core/push/pacer nextMiddayUtc', () => {
  it('is the next 12:00 UTC strictly after now', () => {
    expect(nextMiddayUtc(Date.UTC(2026, 10, 26, 9, 30))).toBe(Date.UTC(2026, 10, 26, 12));
    expect(nextMiddayUtc(Date.UTC(2026, 10, 26, 12))).toBe(Date.UTC(2026, 10, 27, 12));
    expect(nextMiddayUtc(Date.UTC(2026, 10, 26, 11, 59, 59, 999))).toBe(Date.UTC(2026, 10, 26, 12));
    expect(nextMiddayUtc(Date.UTC(2026, 11, 31, 13))).toBe(Date.UTC(2027, 0, 1, 12));
  });

  it('always falls within the next 24 hours, at 12:00:00.000 UTC', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), (now) => {
        const reset = nextMiddayUtc(now);
        expect(reset).toBeGreaterThan(now);
        expect(reset - now).toBeLessThanOrEqual(86_400_000);
        expect(new Date(reset).toISOString().slice(11)).toBe('12:00:00.000Z');
      }),
    );
  });
});
