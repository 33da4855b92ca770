import { describe, expect, it } from 'vitest';
import { type MergeOptions, mergeCatalog } from '../../../../src/core/catalog/merge-catalog.js';
import type { SyncReport } from '../../../../src/services/catalog/catalog-types.js';
import { createLastStockChanges } from '../../../../src/services/products/last-stock-changes.js';
import { sourcesOf } from '../../../../src/services/products/product-sources.js';
import { article, NOW, priceRow, stockRow, unit } from '../../core/catalog/catalog-fixtures.js';

const OPTIONS: MergeOptions = {
  version: 'v-1',
  currency: 'CZK',
  unknownStockAvailability: 'out_of_stock',
  priceListKey: 'auto',
  stockKey: 'auto',
};

const { snapshot, report, sourceRows } = mergeCatalog(
  {
    units: [unit('U1')],
    articles: [article('a-1', { internalIdentifier: 'KAV-1', plu: 1 }), article('a-2', { plu: 2, salesPrice: 5 })],
    priceLists: new Map([['U1', [priceRow('KAV-1', { position: 4, priceVat: 10, stock: 3 })]]]),
    stock: new Map([['U1', [stockRow({ code: '2' }, 7, 9)]]]),
  },
  OPTIONS,
  NOW,
);

function syncReport(outcome: SyncReport['outcome'], finishedAt = '2026-11-22T10:00:05.000Z'): SyncReport {
  return { job: 'sync-catalog', outcome, startedAt: NOW.toISOString(), finishedAt, durationMs: 5, merge: report };
}

const changes = createLastStockChanges();
const rows = (position: number) => ({ family: { rows: sourceRows, readAt: '2026-11-22T10:00:05.000Z' }, position });

describe('services/product-sources', () => {
  it("names the full sync's rows, and where the price and stock came from when not from them", () => {
    const [first] = sourcesOf(snapshot, snapshot.products[0] as never, {
      reports: { catalog: syncReport('published'), stock: undefined },
      rows: rows(0),
      changes,
    });
    expect(first).toMatchObject({
      unit: 'U1',
      priceList: { present: true, row: { row: 4, key: 'internalIdentifier', code: 'KAV-1' } },
      priceFrom: 'price-list',
      stock: { present: true, row: null },
      // No export row: the stock is the price list's STOCK value.
      stockFrom: 'price-list',
      lastSale: null,
    });

    const [second] = sourcesOf(snapshot, snapshot.products[1] as never, {
      reports: {
        catalog: syncReport('published'),
        stock: { ...syncReport('published', '2026-11-22T11:00:00.000Z'), job: 'sync-stock' },
      },
      rows: rows(1),
      changes,
    });
    expect(second).toMatchObject({
      priceList: { row: null },
      priceFrom: 'article',
      stock: { row: { row: 9, key: 'plu', code: '2' } },
      stockFrom: 'stock-export',
      stockRereadAt: '2026-11-22T11:00:00.000Z',
    });
  });

  it("without this instance's rows, gives the keys and codes, and ignores a run whose catalog is not served", () => {
    const [known] = sourcesOf(snapshot, snapshot.products[0] as never, {
      reports: { catalog: syncReport('published'), stock: undefined },
      rows: { family: undefined, position: 0 },
      changes,
    });
    expect(known?.priceList).toEqual({
      document: 'price-list',
      present: true,
      readAt: '2026-11-22T10:00:05.000Z',
      keyOrder: ['internalIdentifier'],
      codes: [{ key: 'internalIdentifier', code: 'KAV-1' }],
    });
    expect(known?.priceFrom).toBeUndefined();

    const [refused] = sourcesOf(snapshot, snapshot.products[0] as never, {
      reports: { catalog: syncReport('refused'), stock: undefined },
      rows: { family: undefined, position: 0 },
      changes,
    });
    expect(refused?.priceList).toMatchObject({ present: null, keyOrder: [], codes: [] });
  });
});
