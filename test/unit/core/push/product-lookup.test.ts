import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot, Product } from '../../../../src/core/catalog/catalog.js';
import { deriveUpdates } from '../../../../src/core/push/derive-updates.js';
import { prepareProductLookup, productByCode, productById } from '../../../../src/core/push/product-lookup.js';
import { shoptetPayloads } from '../../../../src/core/push/target-payloads.js';
import { product, snapshot } from '../../services/push/push-fixtures.js';

/** `base`'s products behind a proxy that counts reads by position: an index built anew reads every one. */
function counted(base: CatalogSnapshot, products: readonly Product[]): { snapshot: CatalogSnapshot; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy([...products], {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
      return Reflect.get(target, key, receiver);
    },
  });
  return { snapshot: { ...base, products: proxy }, reads: () => reads };
}

const ITEMS = Array.from({ length: 200 }, (_, index) => ({ id: String(index), price: 10, plu: 1000 + index }));
const FEED = { storeCodes: {}, unitNames: new Map([['A', 'Unit A']]) };

describe('product lookup', () => {
  it('finds products by id and code, also in a stock-only version of the same family', () => {
    const v1 = snapshot('v1', ITEMS);
    expect(productById(v1, '7')?.plu).toBe(1007);
    expect(productByCode(v1, '1007')?.id).toBe('7');
    expect(productById(v1, 'nope')).toBeUndefined();
    // A sale: same units array, every product in its place, product 7 a new object with a new stock.
    const sold = product({ id: '7', price: 10, plu: 1007, stock: { A: 0 } });
    const v2: CatalogSnapshot = { ...v1, version: 'v2', products: v1.products.map((item) => (item.id === '7' ? sold : item)) };
    expect(productById(v2, '7')).toBe(sold);
    expect(productByCode(v2, '1007')).toBe(sold);
  });

  it('a version sharing units and count but not the products is indexed anew (the position is checked)', () => {
    const v1 = snapshot('v1', ITEMS);
    expect(productById(v1, '3')?.id).toBe('3');
    const reversed: CatalogSnapshot = { ...v1, version: 'v2', products: [...v1.products].reverse() };
    expect(productById(reversed, '3')?.id).toBe('3');
    expect(productByCode(reversed, '1003')?.id).toBe('3');
  });

  it('a sale does not re-index the catalog: the deriver and the payloads read only what they look up', () => {
    const v1 = snapshot('v1', ITEMS);
    const config = { shoptet: { unit: 'A' }, meta: true as const };
    const shoptet = shoptetPayloads('A', 'realStock', FEED);
    const first = counted(v1, v1.products);
    const change = [{ id: '5', change: 'changed' as const, fields: ['stock' as const] }];
    deriveUpdates({ config, changes: new Map([['A', change]]), snapshot: first.snapshot, atMs: 0 });
    shoptet({ target: 's:1007', mask: 0 }, first.snapshot);
    const v2 = counted({ ...first.snapshot, version: 'v2' }, v1.products);
    const sale = [{ id: '7', change: 'changed' as const, fields: ['stock' as const] }];
    const updates = deriveUpdates({ config, changes: new Map([['A', sale]]), snapshot: v2.snapshot, atMs: 0 });
    expect(updates).toEqual([{ channel: 'shoptet', target: 's:1007', mask: expect.any(Number), atMs: 0 }]);
    expect(shoptet({ target: 's:1007', mask: 0 }, v2.snapshot).kind).toBe('send');
    // Without the family index each call read all 200 products (a 100k map per version in production).
    expect(v2.reads()).toBeLessThan(10);
  });

  it('prepareProductLookup builds the family index ahead, so a later lookup reads no more than it finds', async () => {
    const base = snapshot('v1', ITEMS);
    const family = counted(base, base.products);
    await prepareProductLookup(family.snapshot);
    const before = family.reads();
    expect(before).toBeGreaterThanOrEqual(ITEMS.length * 2);
    expect(productById(family.snapshot, '150')?.id).toBe('150');
    expect(productByCode(family.snapshot, '1150')?.id).toBe('150');
    expect(family.reads() - before).toBe(2);
  });
});
