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
});
