import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyResolvedStock,
  applyStockRows,
  changedStockEntries,
  identitiesOf,
  resolveStockExport,
} from '../../../../src/core/catalog/apply-resolved-stock.js';
import { applyStock, type StockUpdate } from '../../../../src/core/catalog/apply-stock.js';
import type { Availability, CatalogSnapshot, Product } from '../../../../src/core/catalog/catalog.js';
import { fingerprintCatalog } from '../../../../src/core/catalog/catalog-version.js';
import { createIdentityIndex } from '../../../../src/core/catalog/identity-index.js';
import { mergeCatalog } from '../../../../src/core/catalog/merge-catalog.js';
import type { StockRow } from '../../../../src/core/catalog/source.js';
import { article, MERGE_OPTIONS, NOW, priceRow, stockedSnapshot, stockRow, unit } from './catalog-fixtures.js';

const LATER = new Date('2026-11-22T10:05:00.000Z');
const OPTIONS = { version: 'v-2', unknownStockAvailability: 'out_of_stock' } as const;

function baseSnapshot(): CatalogSnapshot {
  const articles = [
    article('a-1', { plu: 1001, ean: '8594000000017' }),
    article('a-2', { isStockItem: false, plu: 1002 }),
    article('a-3', { plu: 1003 }),
  ];
  const stock = new Map([
    ['U1', [stockRow({ code: 'a-1' }, 3), stockRow({ code: 'a-2' }, 0)]],
    ['U2', [stockRow({ code: 'a-1' }, 4)]],
  ]);
  return stockedSnapshot(articles, stock);
}

function productOf(snapshot: CatalogSnapshot, id: string): Product {
  const product = snapshot.products.find((candidate) => candidate.id === id);
  if (product === undefined) throw new Error(`no product ${id}`);
  return product;
}

type Stocks = [stock: number | undefined, availability: Availability][];

function stocksOf(product: Product): Stocks {
  return [...product.offers, product.aggregate].map((offer) => [offer.stock, offer.availability]);
}

describe('core/catalog/apply-stock', () => {
  type Case = [name: string, updates: StockUpdate[], id: string, expected: Stocks, reasons: string[]];
  it.each<Case>([
    [
      'a sale lowers the unit stock and the aggregate',
      [{ unitCode: 'U1', articleId: 'a-1', delta: -2 }],
      'a-1',
      [
        [1, 'in_stock'],
        [4, 'in_stock'],
        [5, 'in_stock'],
      ],
      [],
    ],
    [
      'a sale that sells the unit out',
      [{ unitCode: 'U1', articleId: 'a-1', delta: -3 }],
      'a-1',
      [
        [0, 'out_of_stock'],
        [4, 'in_stock'],
        [4, 'in_stock'],
      ],
      [],
    ],
    [
      'an absolute stock',
      [{ unitCode: 'U2', articleId: 'a-1', quantity: 0 }],
      'a-1',
      [
        [3, 'in_stock'],
        [0, 'out_of_stock'],
        [3, 'in_stock'],
      ],
      [],
    ],
    [
      'updates apply in order',
      [
        { unitCode: 'U1', articleId: 'a-1', quantity: 10 },
        { unitCode: 'U1', articleId: 'a-1', delta: -1 },
        { unitCode: 'U1', articleId: 'a-1', delta: -1 },
      ],
      'a-1',
      [
        [8, 'in_stock'],
        [4, 'in_stock'],
        [12, 'in_stock'],
      ],
      [],
    ],
    [
      'fractional deltas without float noise',
      [
        { unitCode: 'U1', articleId: 'a-1', quantity: 0.3 },
        { unitCode: 'U1', articleId: 'a-1', delta: -0.1 },
      ],
      'a-1',
      [
        [0.2, 'in_stock'],
        [4, 'in_stock'],
        [4.2, 'in_stock'],
      ],
      [],
    ],
    [
      'a delta on an unknown stock leaves it unknown',
      [{ unitCode: 'U1', articleId: 'a-3', delta: -1 }],
      'a-3',
      [
        [undefined, 'out_of_stock'],
        [undefined, 'out_of_stock'],
        [undefined, 'out_of_stock'],
      ],
      ['delta-on-unknown-stock'],
    ],
    [
      'an absolute stock makes an unknown stock known',
      [{ unitCode: 'U2', articleId: 'a-3', quantity: 2 }],
      'a-3',
      [
        [undefined, 'out_of_stock'],
        [2, 'in_stock'],
        [2, 'in_stock'],
      ],
      [],
    ],
    [
      'a service below zero stays in stock',
      [{ unitCode: 'U1', articleId: 'a-2', delta: -1 }],
      'a-2',
      [
        [-1, 'in_stock'],
        [undefined, 'in_stock'],
        // The `all` sum floors each unit's stock at 0.
        [0, 'in_stock'],
      ],
      [],
    ],
    [
      'an unknown article is reported and ignored',
      [{ unitCode: 'U1', articleId: 'zzz', delta: -1 }],
      'a-1',
      [
        [3, 'in_stock'],
        [4, 'in_stock'],
        [7, 'in_stock'],
      ],
      ['unknown-article'],
    ],
    [
      'an unknown unit is reported and ignored',
      [{ unitCode: 'U9', articleId: 'a-1', delta: -1 }],
      'a-1',
      [
        [3, 'in_stock'],
        [4, 'in_stock'],
        [7, 'in_stock'],
      ],
      ['unknown-unit'],
    ],
    [
      'a non-finite quantity is reported and ignored',
      [{ unitCode: 'U1', articleId: 'a-1', quantity: Number.NaN }],
      'a-1',
      [
        [3, 'in_stock'],
        [4, 'in_stock'],
        [7, 'in_stock'],
      ],
      ['invalid-stock'],
    ],
  ])('%s', (_name, updates, id, expected, reasons) => {
    const snapshot = baseSnapshot();

    const { snapshot: next, report } = applyStock(snapshot, updates, OPTIONS, LATER);

    expect(stocksOf(productOf(next, id))).toEqual(expected);
    expect(report.issues.map((issue) => issue.reason)).toEqual(reasons);
  });

  it('makes offers that serialize as a full sync of the same stock would (an unchanged POS is no new version)', () => {
    const articles = [article('a-1', { salesPrice: 100 }), article('a-2', { salesPrice: 50 }), article('a-3')];
    const texts = { availabilityInStock: 'Skladem', availabilityOutOfStock: 'Do týdne' };
    const priceLists = new Map([
      ['U1', [priceRow('a-1', { priceVat: 129, actionPrice: 99, ...texts }), priceRow('a-2', { position: 2, ...texts })]],
      ['U2', [priceRow('a-1', { priceVat: 119, stock: 2, ...texts }), priceRow('a-3', { position: 2, ...texts })]],
    ]);
    const mergeWith = (stock: Map<string, StockRow[]>) =>
      mergeCatalog({ units: [unit('U1'), unit('U2')], articles, priceLists, stock }, MERGE_OPTIONS, NOW).snapshot;
    const before = mergeWith(new Map([['U1', [stockRow({ code: 'a-1' }, 3)]]]));
    const updates: StockUpdate[] = [
      { unitCode: 'U1', articleId: 'a-1', delta: -1 },
      { unitCode: 'U1', articleId: 'a-2', quantity: 4 },
      { unitCode: 'U2', articleId: 'a-3', quantity: 0 },
    ];

    const { snapshot: sold } = applyStock(before, updates, OPTIONS, LATER);
    const after = mergeWith(
      new Map([
        ['U1', [stockRow({ code: 'a-1' }, 2), stockRow({ code: 'a-2' }, 4, 3)]],
        ['U2', [stockRow({ code: 'a-3' }, 0)]],
      ]),
    );

    expect(JSON.stringify(sold.products)).toBe(JSON.stringify(after.products));
    expect(fingerprintCatalog(sold)).toBe(fingerprintCatalog(after));
  });

  it('finds products in a snapshot that shares `units` with another but orders its products differently', () => {
    const base = baseSnapshot();
    applyStock(base, [{ unitCode: 'U1', articleId: 'a-1', delta: -1 }], OPTIONS, LATER);
    const reordered: CatalogSnapshot = { ...base, products: [...base.products].reverse() };

    const { snapshot, report } = applyStock(reordered, [{ unitCode: 'U1', articleId: 'a-3', quantity: 7 }], OPTIONS, LATER);

    expect(report.applied).toBe(1);
    expect(productOf(snapshot, 'a-3').offers[0]?.stock).toBe(7);
    expect(productOf(snapshot, 'a-1').offers[0]?.stock).toBe(3);
    expect(snapshot.products.map((product) => product.id)).toEqual(['a-3', 'a-2', 'a-1']);
  });

  it('publishes a new version, shares untouched products and leaves the old snapshot as it was', () => {
    const snapshot = baseSnapshot();
    const before = JSON.stringify(snapshot);

    const { snapshot: next, report } = applyStock(snapshot, [{ unitCode: 'U1', articleId: 'a-1', delta: -1 }], OPTIONS, LATER);

    expect(next).toMatchObject({
      version: 'v-2',
      generatedAt: '2026-11-22T10:05:00.000Z',
      units: snapshot.units,
      primaryUnit: 'U1',
    });
    expect(productOf(next, 'a-2')).toBe(productOf(snapshot, 'a-2'));
    expect(productOf(next, 'a-1')).not.toBe(productOf(snapshot, 'a-1'));
    expect(JSON.stringify(snapshot)).toBe(before);
    expect(report).toMatchObject({ version: 'v-2', updates: 1, applied: 1, changedProducts: 1 });
  });

  it('reports no changed product when the stock is already what the update says', () => {
    const { report } = applyStock(baseSnapshot(), [{ unitCode: 'U1', articleId: 'a-1', quantity: 3 }], OPTIONS, LATER);

    expect(report).toMatchObject({ applied: 1, changedProducts: 0 });
  });

  it('keeps availability labels and prices while the stock changes', () => {
    const priceRow = {
      code: 'a-1',
      position: 1,
      priceVat: 129,
      stock: 1,
      availabilityInStock: 'Skladem',
      availabilityOutOfStock: 'Vyprodáno',
    };
    const input = {
      units: [unit('U1')],
      articles: [article('a-1')],
      priceLists: new Map([['U1', [priceRow]]]),
      stock: new Map(),
    };
    const { snapshot } = mergeCatalog(input, MERGE_OPTIONS, NOW);

    const { snapshot: next } = applyStock(snapshot, [{ unitCode: 'U1', articleId: 'a-1', delta: -1 }], OPTIONS, LATER);

    expect(productOf(next, 'a-1').offers).toEqual([
      {
        unit: 'U1',
        price: 129,
        stock: 0,
        availability: 'out_of_stock',
        availabilityTexts: { inStock: 'Skladem', outOfStock: 'Vyprodáno' },
      },
    ]);
  });

  describe('applyStockRows', () => {
    it('resolves export rows on the snapshot products and sets their stock; silent products keep theirs', () => {
      const rows = new Map([
        [
          'U2',
          [
            stockRow({ plu: '1001' }, 9, 2),
            stockRow({ plu: '1003' }, 1, 3),
            stockRow({ plu: '1003' }, 5, 4),
            stockRow({ plu: '4242' }, 1, 5),
          ],
        ],
      ]);

      const { snapshot, report } = applyStockRows(baseSnapshot(), rows, { ...OPTIONS, stockKey: 'auto' }, LATER);

      expect(stocksOf(productOf(snapshot, 'a-1'))).toEqual([
        [3, 'in_stock'],
        [9, 'in_stock'],
        [12, 'in_stock'],
      ]);
      expect(stocksOf(productOf(snapshot, 'a-3'))).toEqual([
        [undefined, 'out_of_stock'],
        [1, 'in_stock'],
        [1, 'in_stock'],
      ]);
      expect(report.units).toEqual([
        {
          unit: 'U2',
          rows: 4,
          matched: 2,
          unmatched: 1,
          ambiguous: 0,
          duplicates: 1,
          keyOrder: ['plu', 'localId', 'internalIdentifier', 'ean'],
        },
      ]);
      expect(report.issues).toEqual([
        { reason: 'row-unmatched', source: 'stock', unit: 'U2', code: '4242', row: 5 },
        { reason: 'row-duplicate', source: 'stock', unit: 'U2', code: '1003', row: 4, articleId: 'a-3' },
      ]);
    });

    it('ignores the export of an unknown unit with one report entry', () => {
      const rows = new Map([['U9', [stockRow({ code: 'a-1' }, 1), stockRow({ code: 'a-2' }, 1)]]]);

      const { report } = applyStockRows(baseSnapshot(), rows, { ...OPTIONS, stockKey: 'auto' }, LATER);

      expect(report.issues).toEqual([{ reason: 'unknown-unit', source: 'stock', unit: 'U9', detail: '2 rows ignored' }]);
      expect(report.applied).toBe(0);
    });

    it('uses the operator-fixed key', () => {
      const rows = new Map([['U1', [stockRow({ code: '8594000000017' }, 7), stockRow({ code: 'a-3' }, 7)]]]);

      const { snapshot, report } = applyStockRows(baseSnapshot(), rows, { ...OPTIONS, stockKey: 'ean' }, LATER);

      expect(productOf(snapshot, 'a-1').offers[0]?.stock).toBe(7);
      expect(productOf(snapshot, 'a-3').offers[0]?.stock).toBeUndefined();
      expect(report.issueCounts).toEqual({ 'row-unmatched': 1 });
    });
  });

  describe('resolving an export apart from applying it (the worker-thread split)', () => {
    const quantity = fc.oneof(fc.integer({ min: -5, max: 20 }), fc.constantFrom(0.5, 2.25, Number.NaN));
    const rowsOf = fc.array(fc.tuple(fc.constantFrom('a-1', 'a-2', 'a-3', 'a-9', '1001', '8594000000017'), quantity), {
      maxLength: 8,
    });

    it('applies the same stocks, changes and report as applyStockRows, whichever entries it skips as unchanged', () => {
      fc.assert(
        fc.property(rowsOf, rowsOf, (u1, u2) => {
          const snapshot = baseSnapshot();
          const rows = new Map([
            ['U1', u1.map(([code, qty], i) => stockRow({ code }, qty, i + 2))],
            ['U2', u2.map(([code, qty], i) => stockRow({ code }, qty, i + 2))],
          ]);
          const whole = applyStockRows(snapshot, rows, { ...OPTIONS, stockKey: 'auto' }, LATER);

          const index = createIdentityIndex(identitiesOf(snapshot.products));
          const resolved = [...rows].map(([code, unitRows]) => resolveStockExport(index, code, unitRows, 'auto'));
          const changed = resolved.map((entry) => changedStockEntries(snapshot, entry, 0, entry.positions.length));
          const split = applyResolvedStock(snapshot, resolved, OPTIONS, LATER, undefined, changed);

          expect(split.snapshot).toEqual(whole.snapshot);
          expect(split.report).toEqual(whole.report);
          expect([...split.changedPositions].sort()).toEqual([...whole.changedPositions].sort());
        }),
        { numRuns: 200 },
      );
    });

    it('lists the positions of the products it replaced, and shares every other one', () => {
      const snapshot = baseSnapshot();

      const result = applyStock(
        snapshot,
        [
          { unitCode: 'U2', articleId: 'a-3', delta: 1 },
          { unitCode: 'U1', articleId: 'a-1', delta: -1 },
        ],
        OPTIONS,
        LATER,
      );

      const positions = [...result.changedPositions].sort();
      expect(positions.map((position) => result.snapshot.products[position]?.id)).toEqual(['a-1']);
      for (const [position, product] of result.snapshot.products.entries()) {
        expect(product === snapshot.products[position]).toBe(!positions.includes(position));
      }
    });
  });
});
