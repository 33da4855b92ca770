import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot } from '../../../../src/core/catalog/catalog.js';
import { createAsyncFamilyCache, createFamilyCache } from '../../../../src/core/catalog/catalog-family.js';

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

  it('builds an async value once per family, shared by the callers that ask while it is built', async () => {
    const units = [{ code: 'U1', localId: 'u1', name: 'One' }];
    let builds = 0;
    const cache = createAsyncFamilyCache(async () => ++builds);

    const [first, second] = await Promise.all([cache.get(snapshot(units, 3)), cache.get(snapshot(units, 3))]);

    expect([first, second]).toEqual([1, 1]);
    expect(cache.peek(snapshot(units, 3))).toBe(1);
    expect(cache.peek(snapshot([...units], 3))).toBeUndefined();
    expect(await cache.get(snapshot([...units], 3))).toBe(2);
  });

  it('forgets a build that failed, so that the next call tries again', async () => {
    const units = [{ code: 'U1', localId: 'u1', name: 'One' }];
    let calls = 0;
    const cache = createAsyncFamilyCache(async () => {
      calls += 1;
      if (calls === 1) throw new Error('first build fails');
      return calls;
    });

    await expect(cache.get(snapshot(units, 1))).rejects.toThrow('first build fails');
    expect(cache.peek(snapshot(units, 1))).toBeUndefined();
    expect(await cache.get(snapshot(units, 1))).toBe(2);
  });
});
