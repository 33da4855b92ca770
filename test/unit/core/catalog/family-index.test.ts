import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot, Offer, Product } from '../../../../src/core/catalog/catalog.js';
import { buildFamilyIndex, createFamilyIndexes } from '../../../../src/core/catalog/family-index.js';
import { findIdentityCode, identityIdAt, identityPositions, SHARED_CODE } from '../../../../src/core/catalog/identity-index.js';
import { productIdentityIndex } from '../../../helpers/product-identity-index.js';

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

  it("reads the family's own identity index when it is given one of the snapshot's size, and builds one otherwise", async () => {
    const given = productIdentityIndex(SNAPSHOT.products);
    const other = productIdentityIndex(SNAPSHOT.products.slice(1));

    for (const index of [await buildFamilyIndex(SNAPSHOT, given), await buildFamilyIndex(SNAPSHOT, other)]) {
      expect(index.positions.get('a-1')).toBe(0);
      expect(index.positions.get('a-3')).toBe(2);
      expect(index.byInternal.get('KAV-1')).toBe('a-1');
    }
    const wired = createFamilyIndexes(() => other);
    expect((await wired.get(SNAPSHOT)).positions.get('a-1')).toBe(0);
  });

  it('finds products by exact id, and by codes compared as identity resolution compares them', async () => {
    const snapshot: CatalogSnapshot = {
      ...SNAPSHOT,
      products: [
        product(' a', { ean: '0012345678905', internalIdentifier: ' X ' }, ['U1']),
        product('a', { plu: 7 }, ['U1']),
        product('b', { ean: '12345678905' }, ['U2']),
      ],
    };
    const index = await buildFamilyIndex(snapshot);

    expect(index.positions.get(' a')).toBe(0);
    expect(index.positions.get('a')).toBe(1);
    expect(index.positions.has('a ')).toBe(false);
    expect(index.byInternal.get('X')).toBe(' a');
    expect(index.byPlu.get(7)).toBe('a');
    expect(index.byPlu.get(7.5)).toBeUndefined();
    // One EAN with and without its leading zeros: two products share it, so it names neither.
    expect(index.byEan.get('12345678905')).toBeNull();
    expect(index.byEan.get('8594000000017')).toBeUndefined();
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

describe('core/catalog/product-identity', () => {
  it("indexes a family's products by position, in shared memory", () => {
    const index = productIdentityIndex(SNAPSHOT.products);

    expect(index.size).toBe(3);
    expect([0, 1, 2].map((position) => identityIdAt(index, position))).toEqual(['a-1', 'a-2', 'a-3']);
    expect(findIdentityCode(index, 'internalIdentifier', 'KAV-1')).toBe(0);
    expect(findIdentityCode(index, 'plu', '2')).toBe(1);
    expect(findIdentityCode(index, 'ean', '8594000000024')).toBe(SHARED_CODE);
    expect(identityPositions(index, 'ean', '8594000000024')).toEqual([1, 2]);
    expect(index.tables.ean.chars.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(index.idStarts.buffer).toBeInstanceOf(SharedArrayBuffer);
  });
});
