import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALL_UNITS } from '../../../../src/core/catalog/catalog.js';
import { countInViews } from '../../../../src/services/feeds/feed-builder.js';

const UNITS = ['U1', 'U2', 'U3'];

/** The plain reading of a view's count, one pass per view: what the one-pass count must agree with. */
function countInView(products: readonly { offers: readonly { unit: string }[] }[], view: string): number {
  if (view === ALL_UNITS) return products.length;
  return products.filter((item) => item.offers.some((offer) => offer.unit === view)).length;
}
const product = fc.record({ offers: fc.array(fc.record({ unit: fc.constantFrom(...UNITS) }), { maxLength: 4 }) });

describe('countInViews', () => {
  it('counts each view as countInView does, in one pass (a product with two offers of a unit counts once)', () => {
    fc.assert(
      fc.property(fc.array(product, { maxLength: 50 }), fc.subarray([ALL_UNITS, ...UNITS, 'GONE']), (products, views) => {
        const counts = countInViews(products, views);
        expect(Object.keys(counts).sort()).toEqual([...views].sort());
        for (const view of views) expect(counts[view]).toBe(countInView(products, view));
      }),
    );
  });
});
