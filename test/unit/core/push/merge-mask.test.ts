import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeMask, PUSH_MASK, PUSH_MASK_ALL_FIELDS } from '../../../../src/core/push/outbox.js';

const { PRICE, SALE, AVAIL, STOCK, ADDED, REMOVED, FULL } = PUSH_MASK;
const everything = PUSH_MASK_ALL_FIELDS | FULL;
const mask = fc.integer({ min: 0, max: 127 }).filter((value) => (value & (ADDED | REMOVED)) !== (ADDED | REMOVED));

describe('mergeMask (decision 0013, section 1)', () => {
  it('ORs the field bits', () => {
    expect(mergeMask(PRICE, AVAIL)).toBe(PRICE | AVAIL);
    expect(mergeMask(STOCK, STOCK)).toBe(STOCK);
    expect(mergeMask(ADDED, PRICE | SALE)).toBe(ADDED | PRICE | SALE);
    expect(mergeMask(PRICE, REMOVED)).toBe(PRICE | REMOVED);
    expect(mergeMask(FULL, STOCK)).toBe(FULL | STOCK);
  });

  it('cancels ADDED and REMOVED to "changed everything", in either order', () => {
    expect(mergeMask(ADDED, REMOVED)).toBe(everything);
    expect(mergeMask(REMOVED, ADDED)).toBe(everything);
    expect(mergeMask(REMOVED | PRICE, ADDED | STOCK)).toBe(everything);
  });

  it('is commutative and idempotent, keeps every field bit, never holds both ADDED and REMOVED', () => {
    fc.assert(
      fc.property(mask, mask, (a, b) => {
        const merged = mergeMask(a, b);
        expect(merged).toBe(mergeMask(b, a));
        expect(mergeMask(merged, merged)).toBe(merged);
        expect(merged & (ADDED | REMOVED)).not.toBe(ADDED | REMOVED);
        expect(merged & (a | b) & ~(ADDED | REMOVED)).toBe((a | b) & ~(ADDED | REMOVED));
      }),
    );
  });

  it('any sequence of merges keeps every field bit seen and never both ADDED and REMOVED', () => {
    fc.assert(
      fc.property(fc.array(mask, { minLength: 1, maxLength: 30 }), (masks) => {
        const merged = masks.reduce(mergeMask, 0);
        const seen = masks.reduce((a, b) => a | b, 0) & ~(ADDED | REMOVED);
        expect(merged & seen).toBe(seen);
        expect(merged & (ADDED | REMOVED)).not.toBe(ADDED | REMOVED);
      }),
    );
  });
});
