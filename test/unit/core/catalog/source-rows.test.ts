import { describe, expect, it } from 'vitest';
import { type MergeOptions, mergeCatalog } from '../../../../src/core/catalog/merge-catalog.js';
import { createSourceRowsRegistry, productSourceRows } from '../../../../src/core/catalog/source-rows.js';
import { article, NOW, priceRow, stockRow, unit } from './catalog-fixtures.js';

const OPTIONS: MergeOptions = {
  version: 'v-test',
  currency: 'CZK',
  unknownStockAvailability: 'out_of_stock',
  priceListKey: 'auto',
  stockKey: 'auto',
};

/** Three articles; U1's price list names two of them (by internal identifier and by PLU), its export one. */
function merged() {
  return mergeCatalog(
    {
      units: [unit('U1'), unit('U2')],
      articles: [
        article('a-1', { internalIdentifier: 'KAV-1', salesPrice: 10 }),
        article('a-2', { plu: 2, salesPrice: 20 }),
        article('a-3', { internalIdentifier: 'KAV-3', salesPrice: 30 }),
      ],
      priceLists: new Map([
        [
          'U1',
          [
            priceRow('nobody', { position: 1, priceVat: 1 }),
            priceRow('KAV-1', { position: 2, priceVat: 11 }),
            // No gross price in the row: the article's own sales price stays.
            priceRow('2', { position: 3 }),
          ],
        ],
      ]),
      stock: new Map([['U1', [stockRow({ code: 'KAV-3' }, 4, 7)]]]),
    },
    OPTIONS,
    NOW,
  );
}

describe('core/catalog/source-rows', () => {
  it("records each product's matched price-list item, stock line, keys and where its price came from", () => {
    const { sourceRows } = merged();
    const [u1, u2] = sourceRows.units;
    if (u1 === undefined || u2 === undefined) throw new Error('no units');

    expect(productSourceRows(u1, 0)).toEqual({ priceList: { row: 2, key: 'internalIdentifier' }, price: 'price-list' });
    expect(productSourceRows(u1, 1)).toEqual({ priceList: { row: 3, key: 'plu' }, price: 'article' });
    expect(productSourceRows(u1, 2)).toEqual({ price: 'article', stock: { line: 7, key: 'internalIdentifier' } });
    // U2 has no documents: every price is the article's, no row named anything.
    expect(productSourceRows(u2, 0)).toEqual({ price: 'article' });
  });

  it('keeps the rows per catalog family: versions sharing the units array, with as many products', () => {
    const { snapshot, sourceRows } = merged();
    const registry = createSourceRowsRegistry();
    registry.set(snapshot, { rows: sourceRows, readAt: NOW.toISOString() });

    expect(registry.get({ ...snapshot, version: 'v-derived' })?.rows).toBe(sourceRows);
    expect(registry.get({ ...snapshot, units: [...snapshot.units] })).toBeUndefined();
    expect(registry.get({ ...snapshot, products: snapshot.products.slice(1) })).toBeUndefined();
  });
});
