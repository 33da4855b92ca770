import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot } from '../../../../src/core/catalog/catalog.js';
import { createFamilyCache } from '../../../../src/core/catalog/catalog-family.js';

function snapshot(units: CatalogSnapshot['units'], products: number): CatalogSnapshot {
  const product = (id: number) => ({
    id: `a-${id}`,
    name: 'x',
    isStockItem: true,
    offers: [],
    aggregate: { unit: 'all', availability: 'in_stock' as const },
  });
  return {
    version: 'v',
    generatedAt: '',
    currency: 'CZK',
    primaryUnit: 'U1',
    units,
    products: Array.from({ length: products }, (_, i) => product(i)),
  };
}

describe('core/catalog/catalog-family', () => {
  it('builds once per units array and product count, and anew when asked', () => {
    const cache = createFamilyCache<number>();
    const units = [{ code: 'U1', localId: 'u1', name: 'One' }];
    let builds = 0;
    const build = () => ++builds;

    expect(cache.get(snapshot(units, 3), build)).toBe(1);
    // A later version of the same family (a stock change): the same value.
    expect(cache.get(snapshot(units, 3), build)).toBe(1);
    // Another family (a full sync: new units array), or a snapshot that is plainly not of the family.
    expect(cache.get(snapshot([...units], 3), build)).toBe(2);
    expect(cache.get(snapshot(units, 4), build)).toBe(3);
    expect(cache.rebuild(snapshot(units, 4), build)).toBe(4);
    expect(cache.get(snapshot(units, 4), build)).toBe(4);
  });
});
