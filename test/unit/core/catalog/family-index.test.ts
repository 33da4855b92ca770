import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot, Offer, Product } from '../../../../src/core/catalog/catalog.js';
import { buildFamilyIndex, createFamilyIndexes } from '../../../../src/core/catalog/family-index.js';
import { identityRowsText, joinIdentityRows, parseIdentityTable } from '../../../../src/core/catalog/identity-table.js';

const offer = (unit: string): Offer => ({ unit, stock: 1, availability: 'in_stock' });

function product(id: string, fields: Partial<Product>, units: string[]): Product {
  return { id, name: id, isStockItem: true, offers: units.map(offer), aggregate: offer('all'), ...fields };
}

const SNAPSHOT: CatalogSnapshot = {
  version: 'v-1',
  generatedAt: '2026-11-22T10:00:00.000Z',
  currency: 'CZK',
  primaryUnit: 'U1',
  units: [
    { code: 'U1', localId: 'u1', name: 'One' },
    { code: 'U2', localId: 'u2', name: 'Two' },
  ],
  products: [
    product('a-1', { internalIdentifier: 'KAV-1', plu: 1, ean: '8594000000017' }, ['U1', 'U2']),
    product('a-2', { plu: 2, ean: '8594000000024' }, ['U1']),
    product('a-3', { ean: '8594000000024' }, ['U2']),
  ],
};

describe('core/catalog/family-index', () => {
  it('indexes positions, unique identifiers (null when shared) and products per unit', async () => {
    const index = await buildFamilyIndex(SNAPSHOT);

    expect(index.positions.get('a-3')).toBe(2);
    expect(index.byInternal.get('KAV-1')).toBe('a-1');
    expect(index.byPlu.get(2)).toBe('a-2');
    expect(index.byEan.get('8594000000024')).toBeNull();
    expect(Object.fromEntries(index.unitCounts)).toEqual({ U1: 2, U2: 2 });
  });

  it('builds once per family: a version made by stock changes shares its base index', async () => {
    const indexes = createFamilyIndexes();
    const derived: CatalogSnapshot = { ...SNAPSHOT, version: 'v-2', products: [...SNAPSHOT.products] };
    const other: CatalogSnapshot = { ...SNAPSHOT, version: 'v-3', units: [...SNAPSHOT.units] };

    const [first, second] = await Promise.all([indexes.get(SNAPSHOT), indexes.get(derived)]);

    expect(second).toBe(first);
    expect(indexes.peek(derived)).toBe(first);
    expect(indexes.peek(other)).toBeUndefined();
    expect(await indexes.get(other)).not.toBe(first);
  });
});

describe('core/catalog/identity-table', () => {
  it('carries every product identity, in order, through its text form', () => {
    const text = joinIdentityRows([identityRowsText(SNAPSHOT.products, 0, 2), identityRowsText(SNAPSHOT.products, 2, 3), '']);

    expect(parseIdentityTable(text)).toEqual([
      { localId: 'a-1', internalIdentifier: 'KAV-1', plu: 1, ean: '8594000000017' },
      { localId: 'a-2', plu: 2, ean: '8594000000024' },
      { localId: 'a-3', ean: '8594000000024' },
    ]);
    expect(parseIdentityTable(joinIdentityRows([]))).toEqual([]);
  });
});
