import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Offer, Product } from '../../../../src/core/catalog/catalog.js';
import { createSharedValues } from '../../../../src/core/catalog/share-values.js';

function offer(unit: string, inStock?: string, outOfStock?: string): Offer {
  const texts = { ...(inStock === undefined ? {} : { inStock }), ...(outOfStock === undefined ? {} : { outOfStock }) };
  return { unit, availability: 'in_stock', price: 10, stock: 1, availabilityTexts: texts };
}

function product(id: string, offers: Offer[]): Product {
  return { id, name: id, isStockItem: true, offers, aggregate: { ...offers[0], unit: 'all' } as Offer };
}

describe('core/catalog/share-values', () => {
  it('gives parsed products one shared object per distinct pair of labels, values unchanged', () => {
    const serialized = JSON.stringify([
      product('a', [offer('U1', 'Skladem na prodejně', 'Na dotaz'), offer('U2', 'Skladem', '')]),
      product('b', [offer('U1', 'Skladem na prodejně', 'Na dotaz'), offer('U2', 'Skladem')]),
    ]);
    const parsed = JSON.parse(serialized) as Product[];
    const values = createSharedValues();

    values.share(parsed.slice(0, 1));
    values.share(parsed.slice(1));

    expect(JSON.stringify(parsed)).toBe(serialized);
    const [a, b] = parsed as [Product, Product];
    expect(b.offers[0]?.availabilityTexts).toBe(a.offers[0]?.availabilityTexts);
    expect(a.aggregate.availabilityTexts).toBe(a.offers[0]?.availabilityTexts);
    // An empty label and no label are different values.
    expect(b.offers[1]?.availabilityTexts).not.toBe(a.offers[1]?.availabilityTexts);
    expect(b.offers[1]?.availabilityTexts).toEqual({ inStock: 'Skladem' });
  });

  it('keeps prices and stocks as they were, fractions included, and absent ones absent', () => {
    const priced = (unit: string, stock: number, extra: Partial<Offer>): Offer => ({
      ...offer(unit, 'Skladem'),
      stock,
      ...extra,
    });
    const serialized = JSON.stringify([
      product('a', [priced('U1', 2.5, { price: 129.9, salePrice: 99.9 }), priced('U2', 3, { price: 129.9, standardPrice: 150 })]),
      product('b', [priced('U1', 0, { price: 0.1 }), priced('U2', -1.25, { price: 1e21 })]),
    ]);
    const parsed = JSON.parse(serialized) as Product[];

    createSharedValues().share(parsed);

    expect(JSON.stringify(parsed)).toBe(serialized);
    expect(Object.keys(parsed[1]?.offers[0] ?? {})).toEqual(Object.keys(JSON.parse(serialized)[1].offers[0]));
  });

  it('shares labels and numbers asked from the offer or place before, whatever the order of units and values', () => {
    const priced = (unit: string, inStock: string, price: number, extra: Partial<Offer> = {}): Offer => ({
      ...offer(unit, inStock, 'Na dotaz'),
      price,
      ...extra,
    });
    // Units in another order from product to product, and prices and stocks that differ between units.
    const serialized = JSON.stringify([
      product('a', [priced('U1', 'Skladem U1', 129.9), priced('U2', 'Skladem U2', 129.9, { salePrice: 99.9 })]),
      product('b', [priced('U2', 'Skladem U2', 139.9), priced('U1', 'Skladem U1', 129.9, { stock: 2.5 })]),
      product('c', [priced('U1', 'Skladem U1', 129.9, { stock: 2.5 }), priced('U2', 'Skladem U1', 0.1)]),
    ]);
    const parsed = JSON.parse(serialized) as Product[];

    createSharedValues().share(parsed);

    expect(JSON.stringify(parsed)).toBe(serialized);
    const [a, b, c] = parsed as [Product, Product, Product];
    // The same pair of labels is one object wherever it stood.
    expect(b.offers[1]?.availabilityTexts).toBe(a.offers[0]?.availabilityTexts);
    expect(b.offers[0]?.availabilityTexts).toBe(a.offers[1]?.availabilityTexts);
    expect(c.offers[1]?.availabilityTexts).toBe(a.offers[0]?.availabilityTexts);
    expect(c.offers[1]?.availabilityTexts).toEqual({ inStock: 'Skladem U1', outOfStock: 'Na dotaz' });
    expect(b.offers.map((each) => each.price)).toEqual([139.9, 129.9]);
    expect(c.offers.map((each) => [each.price, each.stock])).toEqual([
      [129.9, 2.5],
      [0.1, 1],
    ]);
  });

  it('holds parsed products in less memory: numbers no longer boxed one per offer', () => {
    // A child with --expose-gc: the heap after parsing the same products, kept as parsed, then shared.
    const module = fileURLToPath(new URL('../../../../src/core/catalog/share-values.ts', import.meta.url));
    const script = `
      const { createSharedValues } = await import(${JSON.stringify(module)});
      const offer = (unit, n) => ({ unit, availability: 'in_stock', price: 100 + (n % 50) + 0.9, stock: n % 7 === 0 ? 1.5 : n % 20 });
      // Chunks of 100 products, parsed one after another as a version is.
      const texts = Array.from({ length: 200 }, (_, chunk) => JSON.stringify(Array.from({ length: 100 }, (_, i) => {
        const n = chunk * 100 + i;
        return { id: 'a-' + n, name: 'p', isStockItem: true, offers: ['U1', 'U2', 'U3', 'U4', 'U5'].map((unit) => offer(unit, n)), aggregate: offer('all', n) };
      })));
      const heapOf = (share) => {
        gc();
        const before = process.memoryUsage().heapUsed;
        const values = createSharedValues();
        const products = texts.map((text) => { const parsed = JSON.parse(text); if (share) values.share(parsed); return parsed; });
        gc();
        return [process.memoryUsage().heapUsed - before, products.length];
      };
      const [plain] = heapOf(false);
      const [shared] = heapOf(true);
      console.log(JSON.stringify({ plain, shared }));`;
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });

    expect(run.stderr).toBe('');
    const { plain, shared } = JSON.parse(run.stdout) as { plain: number; shared: number };
    // 12 boxes of 16 bytes (six prices, six stocks) of ~700 bytes a product: ~27 % less.
    expect(shared).toBeLessThan(plain * 0.8);
  });
});
