import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot } from '../../../../src/core/catalog/catalog.js';
import { createCatalogVersion, fingerprintCatalog, hashText } from '../../../../src/core/catalog/catalog-version.js';
import { NOW } from './catalog-fixtures.js';

const SNAPSHOT: CatalogSnapshot = {
  version: 'v-1',
  generatedAt: NOW.toISOString(),
  currency: 'CZK',
  primaryUnit: 'U1',
  units: [{ code: 'U1', localId: 'l-1', name: 'Praha' }],
  products: [
    {
      id: 'a-1',
      name: 'A',
      isStockItem: true,
      offers: [{ unit: 'U1', price: 10, stock: 1, availability: 'in_stock' }],
      aggregate: { unit: 'all', price: 10, stock: 1, availability: 'in_stock' },
    },
  ],
};

describe('core/catalog/catalog-version', () => {
  it('builds a sortable, ETag-safe id from now and a seed', () => {
    const version = createCatalogVersion(NOW, 1);

    expect(version).toMatch(/^v-20261122T100000000Z-[0-9a-f]{8}$/);
    expect(createCatalogVersion(NOW, 1)).toBe(version);
    expect(createCatalogVersion(NOW, 2)).not.toBe(version);
    expect(createCatalogVersion(new Date('2026-11-22T10:00:00.001Z'), 1) > version).toBe(true);
  });

  it('fingerprints content regardless of version and generatedAt', () => {
    const later = { ...SNAPSHOT, version: 'v-2', generatedAt: '2026-11-23T00:00:00.000Z' };
    const product = SNAPSHOT.products[0];
    const changed = { ...SNAPSHOT, products: product === undefined ? [] : [{ ...product, name: 'B' }] };

    expect(fingerprintCatalog(later)).toBe(fingerprintCatalog(SNAPSHOT));
    expect(fingerprintCatalog(changed)).not.toBe(fingerprintCatalog(SNAPSHOT));
    expect(fingerprintCatalog(SNAPSHOT)).toMatch(/^[0-9a-f]{32}$/);
  });

  it.each([
    ['', 'a'],
    ['ab', 'ba'],
    ['catalog', 'catalof'],
  ])('hashes %j and %j differently', (a, b) => {
    expect(hashText(a)).not.toBe(hashText(b));
  });
});
