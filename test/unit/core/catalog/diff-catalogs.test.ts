import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot } from '../../../../src/core/catalog/catalog.js';
import { type ChangedField, diffCatalogs } from '../../../../src/core/catalog/diff-catalogs.js';
import { mergeCatalog } from '../../../../src/core/catalog/merge-catalog.js';
import type { SourceArticle } from '../../../../src/core/catalog/source.js';
import { article, NOW, priceRow, stockRow, unit } from './catalog-fixtures.js';

interface State {
  readonly articles?: readonly SourceArticle[];
  /** unit → article id → [PRICE_VAT, stock] */
  readonly offers?: Readonly<Record<string, Readonly<Record<string, readonly [number, number]>>>>;
  readonly units?: readonly string[];
}

const BASE_ARTICLES = [article('a-1'), article('a-2')];
const BASE_OFFERS = { U1: { 'a-1': [129, 3], 'a-2': [50, 0] }, U2: { 'a-1': [119, 4], 'a-2': [50, 1] } } as const;

function snapshotOf(version: string, state: State = {}): CatalogSnapshot {
  const offers = state.offers ?? BASE_OFFERS;
  const priceLists = new Map(
    Object.entries(offers).map(([code, byId]) => [
      code,
      Object.entries(byId).map(([id, [priceVat]]) => priceRow(id, { priceVat })),
    ]),
  );
  const stock = new Map(
    Object.entries(offers).map(([code, byId]) => [
      code,
      Object.entries(byId).map(([id, [, quantity]]) => stockRow({ code: id }, quantity)),
    ]),
  );
  const units = (state.units ?? ['U1', 'U2']).map((code) => unit(code));
  const input = { units, articles: state.articles ?? BASE_ARTICLES, priceLists, stock };
  const options = {
    version,
    currency: 'CZK',
    unknownStockAvailability: 'out_of_stock',
    priceListKey: 'auto',
    stockKey: 'auto',
  } as const;
  return mergeCatalog(input, options, NOW).snapshot;
}

function summary(previous: CatalogSnapshot | undefined, next: CatalogSnapshot, unitCode: string) {
  const diff = diffCatalogs(previous, next, unitCode);
  return {
    added: diff.added.map((item) => item.id),
    removed: diff.removed,
    changed: diff.changed.map((item) => [item.id, ...item.fields]),
  };
}

type DiffCase = [
  name: string,
  next: State,
  unit: string,
  expected: { added: string[]; removed: string[]; changed: (string | ChangedField)[][] },
];

describe('core/catalog/diff-catalogs', () => {
  it.each<DiffCase>([
    ['nothing changed', {}, 'all', { added: [], removed: [], changed: [] }],
    [
      'a price in the viewed unit',
      { offers: { ...BASE_OFFERS, U1: { ...BASE_OFFERS.U1, 'a-1': [99, 3] } } },
      'U1',
      { added: [], removed: [], changed: [['a-1', 'price']] },
    ],
    [
      'a price in another unit does not touch this unit',
      { offers: { ...BASE_OFFERS, U2: { ...BASE_OFFERS.U2, 'a-1': [99, 4] } } },
      'U1',
      { added: [], removed: [], changed: [] },
    ],
    [
      'a price in another unit shows in "all" through its offer',
      { offers: { ...BASE_OFFERS, U2: { ...BASE_OFFERS.U2, 'a-1': [99, 4] } } },
      'all',
      { added: [], removed: [], changed: [['a-1', 'price']] },
    ],
    [
      'stock that stays positive',
      { offers: { ...BASE_OFFERS, U1: { ...BASE_OFFERS.U1, 'a-1': [129, 2] } } },
      'U1',
      { added: [], removed: [], changed: [['a-1', 'stock']] },
    ],
    [
      'stock that sells out changes availability',
      { offers: { ...BASE_OFFERS, U1: { ...BASE_OFFERS.U1, 'a-1': [129, 0] } } },
      'U1',
      { added: [], removed: [], changed: [['a-1', 'stock', 'availability']] },
    ],
    [
      'a renamed product',
      { articles: [article('a-1', { name: 'New' }), article('a-2')] },
      'all',
      { added: [], removed: [], changed: [['a-1', 'details']] },
    ],
    ['a removed product', { articles: [article('a-2')] }, 'all', { added: [], removed: ['a-1'], changed: [] }],
    ['an added product', { articles: [...BASE_ARTICLES, article('a-3')] }, 'U2', { added: ['a-3'], removed: [], changed: [] }],
    ['a unit that vanished', { units: ['U1'] }, 'U2', { added: [], removed: ['a-1', 'a-2'], changed: [] }],
  ])('%s', (_name, next, unitCode, expected) => {
    const previous = snapshotOf('v-1');

    const result = summary(previous, snapshotOf('v-2', next), unitCode);

    expect(result).toEqual(expected);
  });

  it('adds everything when there is no previous catalog, and names both versions otherwise', () => {
    const next = snapshotOf('v-2');

    const first = diffCatalogs(undefined, next, 'all');
    const second = diffCatalogs(snapshotOf('v-1'), next, 'all');

    expect(first).toMatchObject({ unit: 'all', toVersion: 'v-2', removed: [], changed: [] });
    expect(first.fromVersion).toBeUndefined();
    expect(first.added.map((item) => item.id)).toEqual(['a-1', 'a-2']);
    expect(second).toMatchObject({ fromVersion: 'v-1', toVersion: 'v-2' });
  });

  it('carries the new item of a changed product', () => {
    const next = snapshotOf('v-2', { offers: { ...BASE_OFFERS, U1: { ...BASE_OFFERS.U1, 'a-1': [99, 3] } } });

    const diff = diffCatalogs(snapshotOf('v-1'), next, 'U1');

    expect(diff.changed[0]?.item).toMatchObject({ id: 'a-1', price: 99, stock: 3, offers: [{ unit: 'U1', price: 99 }] });
  });
});
