import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot, Offer, Product } from '../../../../src/core/catalog/catalog.js';
import {
  createEnrichedProducts,
  createFamilyEnrichmentCollector,
  enrichmentTagAt,
  setFamilyEnrichment,
  slotEnrichment,
  withSlotEnrichment,
} from '../../../../src/core/catalog/family-enrichment.js';

const OFFER: Offer = { unit: 'U1', availability: 'in_stock', price: 10, stock: 2 };

function product(id: string, title?: string): Product {
  return {
    id,
    name: id,
    isStockItem: true,
    offers: [OFFER],
    aggregate: { ...OFFER, unit: 'all' },
    ...(title ? { enrichment: { title } } : {}),
  };
}

/** Products as the main thread gets them: parsed from their serialized form. */
function parsed(products: Product[]): Product[] {
  return JSON.parse(JSON.stringify(products)) as Product[];
}

function snapshotOf(products: Product[]): CatalogSnapshot {
  return { version: 'v1', generatedAt: '2026-11-26T08:00:00.000Z', currency: 'CZK', primaryUnit: 'U1', units: [], products };
}

describe('core/catalog/family-enrichment', () => {
  it('takes the values off parsed products slot by slot and gives them back per slot and per product', () => {
    const original = [product('a', 'Čokoláda'), product('b'), product('c'), product('d', 'Káva')];
    const slots = [parsed(original.slice(0, 2)), parsed(original.slice(2, 3)), parsed(original.slice(3))];
    const collector = createFamilyEnrichmentCollector();
    for (const slot of slots) collector.take(slot);
    const family = collector.finish();
    if (family === undefined) throw new Error('values were taken');

    const products = slots.flat();
    expect(products.every((item) => item.enrichment === undefined)).toBe(true);
    expect(family.slots[1]).toBeUndefined();
    expect(slotEnrichment(family, 0)).toEqual([{ title: 'Čokoláda' }, undefined]);
    expect(withSlotEnrichment(products.slice(0, 2), slotEnrichment(family, 0))).toEqual(original.slice(0, 2));

    const snapshot = snapshotOf(products);
    setFamilyEnrichment(snapshot, family);
    const enriched = createEnrichedProducts(snapshot);
    expect([0, 1, 2, 3].map((position) => enriched.at(position))).toEqual(original);
    expect(enrichmentTagAt(snapshot, 1)).toBe(0);
    // The same values give the same tag whether kept off the products or on them.
    expect(enrichmentTagAt(snapshot, 3)).toBe(enrichmentTagAt(snapshotOf(original), 3));
    expect(enrichmentTagAt(snapshot, 3)).not.toBe(enrichmentTagAt(snapshot, 0));
  });

  it('keeps nothing for a family without values', () => {
    const collector = createFamilyEnrichmentCollector();
    collector.take(parsed([product('a')]));
    expect(collector.finish()).toBeUndefined();
  });
});
