import { describe, expect, it } from 'vitest';
import type { Availability, Offer, Product } from '../../../../src/core/catalog/catalog.js';
import {
  createCatalogMerger,
  type MergeInput,
  type MergeOptions,
  mergeCatalog,
  withProductList,
} from '../../../../src/core/catalog/merge-catalog.js';
import { createPriceListRowCollector } from '../../../../src/core/catalog/price-list-rows.js';
import type { PriceListRow, SourceArticle } from '../../../../src/core/catalog/source.js';
import { article, NOW, priceRow, stockRow, unit } from './catalog-fixtures.js';

const OPTIONS: MergeOptions = {
  version: 'v-test',
  currency: 'CZK',
  unknownStockAvailability: 'out_of_stock',
  priceListKey: 'auto',
  stockKey: 'auto',
};

function merge(input: Partial<MergeInput>, options: Partial<MergeOptions> = {}) {
  return mergeCatalog(
    { units: [unit('U1')], articles: [], priceLists: new Map(), stock: new Map(), ...input },
    { ...OPTIONS, ...options },
    NOW,
  );
}

function onlyProduct(products: readonly Product[]): Product {
  const [product] = products;
  if (product === undefined || products.length !== 1) throw new Error(`expected one product, got ${products.length}`);
  return product;
}

function offerOf(product: Product, unitCode = 'U1'): Offer {
  const offer = product.offers.find((candidate) => candidate.unit === unitCode);
  if (offer === undefined) throw new Error(`no offer in ${unitCode}`);
  return offer;
}

describe('core/catalog/merge-catalog', () => {
  it('builds a snapshot with the version, the fixed now, the currency, the units and the primary unit', () => {
    const input = { units: [unit('U1', { localId: 'u-1', name: 'Praha' }), unit('U2')], articles: [article('a-1')] };

    const { snapshot } = merge(input);

    expect(snapshot).toMatchObject({
      version: 'v-test',
      generatedAt: '2026-11-22T10:00:00.000Z',
      currency: 'CZK',
      primaryUnit: 'U1',
      units: [
        { code: 'U1', localId: 'u-1', name: 'Praha' },
        { code: 'U2', localId: 'l-U2', name: 'Unit U2' },
      ],
    });
    expect(snapshot.products.map((product) => product.offers.map((offer) => offer.unit))).toEqual([['U1', 'U2']]);
  });

  describe('rule 2: articles', () => {
    it.each<[string, boolean | undefined, string[]]>([
      ['isSalesItem true', true, ['a-1']],
      ['isSalesItem absent counts as true', undefined, ['a-1']],
      ['isSalesItem false is excluded', false, []],
    ])('%s', (_name, isSalesItem, expectedIds) => {
      const articles = [isSalesItem === undefined ? article('a-1') : article('a-1', { isSalesItem })];

      const { snapshot, report } = merge({ articles });

      expect(snapshot.products.map((product) => product.id)).toEqual(expectedIds);
      expect(report.articles.notForSale).toBe(isSalesItem === false ? 1 : 0);
    });

    it('keeps the first of two articles with one localId and reports the second', () => {
      const articles = [article('a-1', { name: 'first' }), article('a-2'), article('a-1', { name: 'second' })];

      const { snapshot, report } = merge({ articles });

      expect(snapshot.products.map((product) => [product.id, product.name])).toEqual([
        ['a-1', 'first'],
        ['a-2', 'Article a-2'],
      ]);
      expect(report.articles).toMatchObject({ received: 3, duplicates: 1, products: 2 });
      expect(report.issues).toContainEqual(expect.objectContaining({ reason: 'duplicate-article', articleId: 'a-1' }));
    });

    it('drops an article with an empty localId and reports it', () => {
      const { snapshot, report } = merge({ articles: [article('  '), article('a-1')] });

      expect(snapshot.products.map((product) => product.id)).toEqual(['a-1']);
      expect(report.articles.invalid).toBe(1);
      expect(report.issueCounts['invalid-article']).toBe(1);
    });

    it('copies the public fields and omits absent or empty ones', () => {
      const articles: SourceArticle[] = [
        article('a-1', { groupId: 'g-7', ean: '8594000000017', plu: 1001, internalIdentifier: 'KAV-1', measureUnit: 'ks' }),
        article('a-2', { ean: '', internalIdentifier: '  ' }),
      ];

      const { snapshot } = merge({ articles });

      expect(snapshot.products.map(({ offers: _offers, aggregate: _aggregate, ...rest }) => rest)).toEqual([
        {
          id: 'a-1',
          name: 'Article a-1',
          groupId: 'g-7',
          ean: '8594000000017',
          plu: 1001,
          internalIdentifier: 'KAV-1',
          measureUnit: 'ks',
          isStockItem: true,
        },
        { id: 'a-2', name: 'Article a-2', isStockItem: true },
      ]);
    });
  });

  describe('rules 3 and 6: prices', () => {
    type PriceCase = [
      name: string,
      salesPrice: number | undefined,
      row: Partial<PriceListRow> | undefined,
      expected: Pick<Offer, 'price' | 'salePrice' | 'standardPrice'>,
      reasons: string[],
    ];
    it.each<PriceCase>([
      ['no price-list row: the article salesPrice', 100, undefined, { price: 100 }, []],
      ['PRICE_VAT wins over salesPrice', 100, { priceVat: 129 }, { price: 129 }, []],
      ['PRICE_VAT equal to PRICE is still the gross price', 100, { priceVat: 121, priceNet: 100 }, { price: 121 }, []],
      [
        'net PRICE without PRICE_VAT keeps salesPrice and is reported',
        100,
        { priceNet: 82.64 },
        { price: 100 },
        ['net-price-only'],
      ],
      [
        'net PRICE: its ACTION_PRICE is not trusted either',
        100,
        { priceNet: 82.64, actionPrice: 70 },
        { price: 100 },
        ['net-price-only'],
      ],
      [
        'ACTION_PRICE below the price is the sale price',
        100,
        { priceVat: 129, actionPrice: 99 },
        { price: 129, salePrice: 99 },
        [],
      ],
      [
        'ACTION_PRICE equal to the price is ignored',
        100,
        { priceVat: 129, actionPrice: 129 },
        { price: 129 },
        ['action-price-not-below'],
      ],
      [
        'ACTION_PRICE above the price is ignored',
        100,
        { priceVat: 129, actionPrice: 139 },
        { price: 129 },
        ['action-price-not-below'],
      ],
      ['ACTION_PRICE of 0 is not a sale', 100, { priceVat: 129, actionPrice: 0 }, { price: 129 }, ['invalid-price']],
      [
        'STANDARD_PRICE above the price is the "was" price',
        100,
        { priceVat: 129, standardPrice: 149 },
        { price: 129, standardPrice: 149 },
        [],
      ],
      [
        'STANDARD_PRICE equal to the price is omitted',
        100,
        { priceVat: 129, standardPrice: 129 },
        { price: 129 },
        ['standard-price-not-above'],
      ],
      [
        'STANDARD_PRICE below the price is omitted',
        100,
        { priceVat: 129, standardPrice: 119 },
        { price: 129 },
        ['standard-price-not-above'],
      ],
      [
        'sale and "was" price together',
        100,
        { priceVat: 129, actionPrice: 99, standardPrice: 149 },
        { price: 129, salePrice: 99, standardPrice: 149 },
        [],
      ],
      ['a row with only ACTION_PRICE compares with salesPrice', 100, { actionPrice: 80 }, { price: 100, salePrice: 80 }, []],
      [
        'a row in another currency gives no money',
        100,
        { priceVat: 5, actionPrice: 4, currency: 'EUR' },
        { price: 100 },
        ['currency-mismatch'],
      ],
      ['the feed currency in lower case is the same currency', 100, { priceVat: 129, currency: 'czk' }, { price: 129 }, []],
      ['a negative PRICE_VAT is ignored', 100, { priceVat: -1 }, { price: 100 }, ['invalid-price']],
      ['no salesPrice, PRICE_VAT only', undefined, { priceVat: 129 }, { price: 129 }, []],
      ['no salesPrice and no PRICE_VAT: kept without price', undefined, { stock: 3 }, {}, ['no-price']],
      ['no salesPrice and no row: kept without price', undefined, undefined, {}, ['no-price']],
      [
        'money is rounded to 2 decimals, never recomputed',
        100,
        { priceVat: 129.005, actionPrice: 0.1 + 0.2 },
        { price: 129.01, salePrice: 0.3 },
        [],
      ],
    ])('%s', (_name, salesPrice, row, expected, reasons) => {
      const articles = [salesPrice === undefined ? { localId: 'a-1', name: 'A' } : article('a-1', { salesPrice })];
      const priceLists = new Map(row === undefined ? [] : [['U1', [priceRow('a-1', row)]]]);

      const { snapshot, report } = merge({ articles, priceLists });

      const { price, salePrice, standardPrice } = offerOf(onlyProduct(snapshot.products));
      expect({ price, salePrice, standardPrice }).toEqual({
        price: undefined,
        salePrice: undefined,
        standardPrice: undefined,
        ...expected,
      });
      expect(report.issues.map((issue) => issue.reason)).toEqual(reasons);
    });

    it('reports a price-list row problem with its unit, code, position and article', () => {
      const priceLists = new Map([['U1', [priceRow('KAV-1', { priceNet: 90, position: 7 })]]]);

      const { report } = merge({ articles: [article('a-1', { internalIdentifier: 'KAV-1' })], priceLists });

      expect(report.issues).toEqual([
        { reason: 'net-price-only', source: 'price-list', unit: 'U1', code: 'KAV-1', articleId: 'a-1', row: 7 },
      ]);
    });

    it('drops a negative salesPrice and reports it', () => {
      const { snapshot, report } = merge({ articles: [article('a-1', { salesPrice: -5 })] });

      expect(offerOf(onlyProduct(snapshot.products)).price).toBeUndefined();
      expect(report.issueCounts).toEqual({ 'invalid-sales-price': 1, 'no-price': 1 });
      expect(report.articles.withoutPrice).toBe(1);
    });

    it('keeps prices per unit: each unit its own price list, the article price elsewhere', () => {
      const priceLists = new Map([
        ['U1', [priceRow('a-1', { priceVat: 129 })]],
        ['U2', [priceRow('a-1', { priceVat: 119, actionPrice: 99 })]],
      ]);

      const { snapshot } = merge({ units: [unit('U1'), unit('U2'), unit('U3')], articles: [article('a-1')], priceLists });

      const product = onlyProduct(snapshot.products);
      expect(product.offers.map((offer) => [offer.unit, offer.price, offer.salePrice])).toEqual([
        ['U1', 129, undefined],
        ['U2', 119, 99],
        ['U3', 100, undefined],
      ]);
    });
  });

  describe('rules 4 and 7: stock and availability', () => {
    type StockCase = [
      name: string,
      isStockItem: boolean | undefined,
      exported: number | undefined,
      xml: number | undefined,
      unknownPolicy: Availability,
      expected: Pick<Offer, 'stock' | 'availability'>,
    ];
    it.each<StockCase>([
      ['the stock export beats STOCK/AMOUNT', undefined, 3, 10, 'out_of_stock', { stock: 3, availability: 'in_stock' }],
      ['an export of 0 beats STOCK/AMOUNT', undefined, 0, 10, 'out_of_stock', { stock: 0, availability: 'out_of_stock' }],
      [
        'STOCK/AMOUNT when there is no export row',
        undefined,
        undefined,
        10,
        'out_of_stock',
        { stock: 10, availability: 'in_stock' },
      ],
      [
        'neither: unknown, default out of stock',
        undefined,
        undefined,
        undefined,
        'out_of_stock',
        { availability: 'out_of_stock' },
      ],
      ['neither: unknown, configured in stock', undefined, undefined, undefined, 'in_stock', { availability: 'in_stock' }],
      [
        'negative stock is kept and out of stock',
        undefined,
        -2,
        undefined,
        'out_of_stock',
        { stock: -2, availability: 'out_of_stock' },
      ],
      ['fractional stock is kept', undefined, 0.25, undefined, 'out_of_stock', { stock: 0.25, availability: 'in_stock' }],
      ['fractional stock from the XML', undefined, undefined, 1.5, 'out_of_stock', { stock: 1.5, availability: 'in_stock' }],
      ['isStockItem true with 0', true, 0, undefined, 'in_stock', { stock: 0, availability: 'out_of_stock' }],
      ['a service is in stock with 0', false, 0, undefined, 'out_of_stock', { stock: 0, availability: 'in_stock' }],
      [
        'a service is in stock with negative stock',
        false,
        -3,
        undefined,
        'out_of_stock',
        { stock: -3, availability: 'in_stock' },
      ],
      ['a service is in stock when stock is unknown', false, undefined, undefined, 'out_of_stock', { availability: 'in_stock' }],
    ])('%s', (_name, isStockItem, exported, xml, unknownPolicy, expected) => {
      const articles = [article('a-1', isStockItem === undefined ? {} : { isStockItem })];
      const priceLists = new Map([['U1', [priceRow('a-1', xml === undefined ? {} : { stock: xml })]]]);
      const stock = new Map(exported === undefined ? [] : [['U1', [stockRow({ code: 'a-1' }, exported)]]]);

      const { snapshot } = merge({ articles, priceLists, stock }, { unknownStockAvailability: unknownPolicy });

      const { stock: quantity, availability } = offerOf(onlyProduct(snapshot.products));
      expect({ stock: quantity, availability }).toEqual({ stock: undefined, ...expected });
    });

    it('takes the first of two stock rows for one article (no summing) and reports the second', () => {
      const stock = new Map([['U1', [stockRow({ code: 'a-1' }, 5, 2), stockRow({ code: 'a-1' }, 7, 3)]]]);

      const { snapshot, report } = merge({ articles: [article('a-1')], stock });

      expect(offerOf(onlyProduct(snapshot.products)).stock).toBe(5);
      expect(report.issues).toEqual([
        {
          reason: 'row-duplicate',
          source: 'stock',
          unit: 'U1',
          code: 'a-1',
          row: 3,
          articleId: 'a-1',
          detail: 'article already taken by row 2; the first row wins',
        },
      ]);
    });

    it('ignores a non-finite exported quantity, reports it and falls back to STOCK/AMOUNT', () => {
      const stock = new Map([['U1', [stockRow({ code: 'a-1' }, Number.NaN, 4)]]]);
      const priceLists = new Map([['U1', [priceRow('a-1', { stock: 6 })]]]);

      const { snapshot, report } = merge({ articles: [article('a-1')], stock, priceLists });

      expect(offerOf(onlyProduct(snapshot.products)).stock).toBe(6);
      expect(report.issueCounts).toEqual({ 'invalid-stock': 1 });
    });

    it('keeps the availability labels of the price list and picks the one that applies', () => {
      const priceLists = new Map([
        ['U1', [priceRow('a-1', { stock: 0, availabilityInStock: 'Skladem', availabilityOutOfStock: ' Na dotaz ' })]],
      ]);

      const { snapshot } = merge({ articles: [article('a-1')], priceLists });

      expect(offerOf(onlyProduct(snapshot.products)).availabilityTexts).toEqual({ inStock: 'Skladem', outOfStock: 'Na dotaz' });
    });
  });

  describe('rule 5: identity', () => {
    const articles = [
      article('a-1', { internalIdentifier: 'KAV-1', plu: 1001, ean: '8594000000017' }),
      article('a-2', { plu: 12, ean: '8594000000024' }),
      article('a-3', { internalIdentifier: 'CAJ-3', plu: 1003, ean: '8594000000099' }),
      article('a-4', { internalIdentifier: 'MLK-4', plu: 1004, ean: '8594000000099' }),
    ];

    type IdentityCase = [
      name: string,
      rows: PriceListRow[],
      key: MergeOptions['priceListKey'],
      expectedPrices: (number | undefined)[],
      reasons: string[],
    ];
    it.each<IdentityCase>([
      [
        'keyed by internalIdentifier',
        [priceRow('KAV-1', { priceVat: 1 }), priceRow('CAJ-3', { priceVat: 3 })],
        'auto',
        [1, 100, 3, 100],
        [],
      ],
      ['keyed by plu', [priceRow('1001', { priceVat: 1 }), priceRow('0012', { priceVat: 2 })], 'auto', [1, 2, 100, 100], []],
      [
        'mixed keys in one document',
        [priceRow('KAV-1', { priceVat: 1 }), priceRow('12', { priceVat: 2 }), priceRow('MLK-4', { priceVat: 4 })],
        'auto',
        [1, 2, 100, 4],
        [],
      ],
      [
        'duplicate EAN: matched to neither article',
        [priceRow('8594000000099', { priceVat: 9, position: 3 })],
        'auto',
        [100, 100, 100, 100],
        ['row-ambiguous'],
      ],
      [
        'operator-fixed key: other keys are not tried',
        [priceRow('KAV-1', { priceVat: 1 }), priceRow('1003', { priceVat: 3 })],
        'plu',
        [100, 100, 3, 100],
        ['row-unmatched'],
      ],
      [
        'an item of the XML that is not an article',
        [priceRow('NOPE', { priceVat: 1 })],
        'auto',
        [100, 100, 100, 100],
        ['row-unmatched'],
      ],
    ])('%s', (_name, rows, key, expectedPrices, reasons) => {
      const priceLists = new Map([['U1', rows]]);

      const { snapshot, report } = merge({ articles, priceLists }, { priceListKey: key });

      expect(snapshot.products.map((product) => offerOf(product).price)).toEqual(expectedPrices);
      expect(report.issues.map((issue) => issue.reason)).toEqual(reasons);
    });

    it('reports an ambiguous row with every article it names', () => {
      const priceLists = new Map([['U1', [priceRow('8594000000099', { priceVat: 9, position: 3 })]]]);

      const { report } = merge({ articles, priceLists });

      expect(report.issues).toEqual([
        {
          reason: 'row-ambiguous',
          source: 'price-list',
          unit: 'U1',
          code: '8594000000099',
          row: 3,
          articleIds: ['a-3', 'a-4'],
          detail: 'ean names several articles',
        },
      ]);
    });

    it('resolves stock rows by their own key, independently of the price list', () => {
      const priceLists = new Map([['U1', [priceRow('KAV-1', { priceVat: 1 })]]]);
      const stock = new Map([['U1', [stockRow({ plu: '1001' }, 4), stockRow({ ean: '8594000000024' }, 5)]]]);

      const { snapshot, report } = merge({ articles, priceLists, stock }, { stockKey: 'auto' });

      expect(snapshot.products.map((product) => offerOf(product).stock)).toEqual([4, 5, undefined, undefined]);
      expect(report.units[0]?.stock).toMatchObject({ rows: 2, matched: 2, keyCounts: { plu: 1, ean: 1 } });
      expect(report.units[0]?.priceList.keyOrder[0]).toBe('internalIdentifier');
    });

    it('reports stock rows for unknown codes with their line', () => {
      const stock = new Map([['U1', [stockRow({ code: 'GONE' }, 4, 9)]]]);

      const { report } = merge({ articles, stock });

      expect(report.issues).toEqual([{ reason: 'row-unmatched', source: 'stock', unit: 'U1', code: 'GONE', row: 9 }]);
      expect(report.units[0]?.stock).toMatchObject({ present: true, rows: 1, matched: 0, unmatched: 1 });
    });

    it('reports rows of not-for-sale articles apart from unknown ones', () => {
      const stock = new Map([['U1', [stockRow({ code: 'x-1' }, 4, 2)]]]);

      const { report } = merge({ articles: [article('a-1'), article('x-1', { isSalesItem: false })], stock });

      expect(report.issues).toEqual([
        { reason: 'row-not-for-sale', source: 'stock', unit: 'U1', code: 'x-1', row: 2, articleId: 'x-1' },
      ]);
      expect(report.units[0]?.stock).toMatchObject({ notForSale: 1, unmatched: 0 });
    });

    it('shows per-key sample counts when a fixed key matches nothing', () => {
      const priceLists = new Map([['U1', [priceRow('KAV-1', { priceVat: 1 }), priceRow('CAJ-3', { priceVat: 3 })]]]);

      const { report } = merge({ articles, priceLists }, { priceListKey: 'ean' });

      expect(report.units[0]?.priceList).toMatchObject({
        matched: 0,
        unmatched: 2,
        keyOrder: ['ean'],
        sampleKeyCounts: { localId: 0, internalIdentifier: 2, plu: 0, ean: 0 },
      });
    });
  });

  describe('the aggregate "all"', () => {
    const units = [unit('U1'), unit('U2'), unit('U3')];

    type AggregateCase = [
      name: string,
      stocks: (number | undefined)[],
      options: Partial<MergeOptions>,
      isStockItem: boolean,
      expected: Pick<Offer, 'stock' | 'availability'>,
    ];
    it.each<AggregateCase>([
      ['sums the unit stocks', [3, 4, 0], {}, true, { stock: 7, availability: 'in_stock' }],
      ['sums known stocks only', [3, undefined, 2], {}, true, { stock: 5, availability: 'in_stock' }],
      [
        'all unknown: unknown, default out of stock',
        [undefined, undefined, undefined],
        {},
        true,
        { availability: 'out_of_stock' },
      ],
      [
        'all unknown: configured in stock',
        [undefined, undefined, undefined],
        { unknownStockAvailability: 'in_stock' },
        true,
        { availability: 'in_stock' },
      ],
      // Oversold in one unit, on the shelf in another: the other's pieces are still there to buy.
      ['a negative unit stock counts as 0 in the sum', [-4, 1, 0], {}, true, { stock: 1, availability: 'in_stock' }],
      ['only negative unit stocks sum to 0', [-5, -1, undefined], {}, true, { stock: 0, availability: 'out_of_stock' }],
      [
        'sum 0 with an unknown unit follows the unknown policy',
        [0, undefined, 0],
        { unknownStockAvailability: 'in_stock' },
        true,
        { stock: 0, availability: 'in_stock' },
      ],
      ['fractional stocks sum without float noise', [0.1, 0.2, undefined], {}, true, { stock: 0.3, availability: 'in_stock' }],
      ['a service is in stock', [0, 0, 0], {}, false, { stock: 0, availability: 'in_stock' }],
    ])('%s', (_name, stocks, options, isStockItem, expected) => {
      const stock = new Map(
        stocks.flatMap((quantity, i) =>
          quantity === undefined ? [] : [[`U${i + 1}`, [stockRow({ code: 'a-1' }, quantity)]] as const],
        ),
      );

      const { snapshot } = merge({ units, articles: [article('a-1', { isStockItem })], stock }, options);

      const { stock: quantity, availability } = onlyProduct(snapshot.products).aggregate;
      expect({ stock: quantity, availability }).toEqual({ stock: undefined, ...expected });
    });

    it.each<[string, string | undefined, string, Pick<Offer, 'price' | 'salePrice' | 'standardPrice'>]>([
      ['the first unit by default', undefined, 'U1', { price: 129, standardPrice: 149 }],
      ['the configured primary unit', 'U2', 'U2', { price: 119, salePrice: 99 }],
      ['the first unit when the configured one does not exist', 'U9', 'U1', { price: 129, standardPrice: 149 }],
    ])('takes its prices from %s', (_name, primaryUnit, expectedPrimary, expected) => {
      const priceLists = new Map([
        ['U1', [priceRow('a-1', { priceVat: 129, standardPrice: 149, availabilityInStock: 'Skladem' })]],
        ['U2', [priceRow('a-1', { priceVat: 119, actionPrice: 99 })]],
      ]);

      const { snapshot } = merge(
        { units, articles: [article('a-1')], priceLists },
        primaryUnit === undefined ? {} : { primaryUnit },
      );

      const { price, salePrice, standardPrice } = onlyProduct(snapshot.products).aggregate;
      expect(snapshot.primaryUnit).toBe(expectedPrimary);
      expect({ price, salePrice, standardPrice }).toEqual({
        price: undefined,
        salePrice: undefined,
        standardPrice: undefined,
        ...expected,
      });
    });

    it('warns when the configured primary unit does not exist', () => {
      const { report } = merge({ units, articles: [article('a-1')] }, { primaryUnit: 'U9' });

      expect(report.warnings).toEqual(['primary unit "U9" does not exist; the aggregate shows the prices of "U1"']);
    });
  });

  describe('rule 6: purchase prices', () => {
    it('never puts purchase prices into the public snapshot but keeps them in the internal catalog', () => {
      const articles = [
        article('a-1', { purchasePrice: 61.17, avgPurchasePrice: 62.35 }),
        article('a-2', { purchasePrice: 13.57 }),
        article('a-3'),
      ];

      const { snapshot, internal } = merge({ articles, units: [unit('U1'), unit('U2')] });

      const json = JSON.stringify(snapshot);
      expect(json).not.toMatch(/purchase/i);
      for (const value of ['61.17', '62.35', '13.57']) expect(json).not.toContain(value);
      expect(internal).toEqual({
        version: 'v-test',
        products: [
          { id: 'a-1', purchasePrice: 61.17, avgPurchasePrice: 62.35 },
          { id: 'a-2', purchasePrice: 13.57 },
        ],
      });
    });
  });

  describe('units and the report', () => {
    it('keeps the first of two units with one code and warns about a unit named "all" and unknown documents', () => {
      const units = [unit('U1'), unit('U1', { localId: 'other' }), unit('all')];
      const stock = new Map([['U7', [stockRow({ code: 'a-1' }, 1)]]]);

      const { snapshot, report } = merge({ units, articles: [article('a-1')], stock });

      expect(snapshot.units.map((entry) => [entry.code, entry.localId])).toEqual([
        ['U1', 'l-U1'],
        ['all', 'l-all'],
      ]);
      expect(report.warnings).toEqual([
        'unit code "U1" appears twice; the first unit is kept',
        'unit code "all" clashes with the aggregate view, which takes precedence',
        'document for unknown unit "U7" ignored',
      ]);
    });

    it('merges articles without units into products without offers, with a warning', () => {
      const { snapshot, report } = merge({ units: [], articles: [article('a-1')] });

      expect(snapshot.primaryUnit).toBe('');
      expect(onlyProduct(snapshot.products)).toMatchObject({
        offers: [],
        aggregate: { unit: 'all', availability: 'out_of_stock' },
      });
      expect(report.warnings).toEqual(['the POS returned no units: products have no offers']);
    });

    it('counts everything per unit and source', () => {
      const articles = [article('a-1'), { localId: 'a-2', name: 'No price' }, article('a-3', { isSalesItem: false })];
      const priceLists = new Map([['U1', [priceRow('a-1', { priceVat: 129, actionPrice: 99 }), priceRow('zzz')]]]);
      const stock = new Map([['U1', [stockRow({ code: 'a-1' }, 2), stockRow({ code: 'a-1' }, 3)]]]);

      const { report } = merge({ articles, priceLists, stock });

      expect(report.articles).toEqual({ received: 3, invalid: 0, duplicates: 0, notForSale: 1, products: 2, withoutPrice: 1 });
      expect(report.units).toEqual([
        {
          unit: 'U1',
          priceList: {
            present: true,
            rows: 2,
            matched: 1,
            unmatched: 1,
            ambiguous: 0,
            duplicates: 0,
            notForSale: 0,
            conflicts: 0,
            keyOrder: ['localId', 'internalIdentifier', 'plu', 'ean'],
            keyCounts: { localId: 1, internalIdentifier: 0, plu: 0, ean: 0 },
            sampleKeyCounts: { localId: 1, internalIdentifier: 0, plu: 0, ean: 0 },
          },
          stock: expect.objectContaining({ present: true, rows: 2, matched: 1, duplicates: 1 }),
          offers: {
            withPrice: 1,
            withoutPrice: 1,
            priceFromPriceList: 1,
            priceFromArticle: 0,
            onSale: 1,
            stockFromExport: 1,
            stockFromPriceList: 0,
            stockUnknown: 1,
            inStock: 1,
            outOfStock: 1,
          },
        },
      ]);
    });

    it('marks a unit without a price list or stock export as such', () => {
      const { report } = merge({ articles: [article('a-1')] });

      expect(report.units[0]?.priceList).toMatchObject({ present: false, rows: 0 });
      expect(report.units[0]?.stock).toMatchObject({ present: false, rows: 0 });
    });

    it('counts every issue but keeps only the first examples of each reason', () => {
      const rows = Array.from({ length: 5 }, (_, i) => priceRow(`x-${i}`, { position: i + 1 }));

      const { report } = merge({ articles: [article('a-1')], priceLists: new Map([['U1', rows]]) }, { maxExamples: 2 });

      expect(report.issueCounts).toEqual({ 'row-unmatched': 5 });
      expect(report.issues.map((issue) => issue.row)).toEqual([1, 2]);
    });
  });

  describe('one unit document at a time (createCatalogMerger)', () => {
    const units = [unit('U1'), unit('U2')];
    const articles = [article('a-1'), article('a-2', { salesPrice: -1 }), article('a-3', { isStockItem: false })];
    const priceLists = new Map([
      ['U1', [priceRow('a-1', { priceVat: 129, actionPrice: 130 }), priceRow('zzz', { position: 2 })]],
      ['U2', [priceRow('a-2', { priceVat: 99, stock: Number.POSITIVE_INFINITY })]],
    ]);
    const stock = new Map([['U2', [stockRow({ code: 'a-1' }, 4), stockRow({ code: 'a-1' }, 5, 3)]]]);

    it('gives what mergeCatalog gives, whatever the order of the units, with rows as arrays or collected', () => {
      const expected = merge({ units, articles, priceLists, stock }, { maxExamples: 1 });
      const merger = createCatalogMerger({ units, articles }, { ...OPTIONS, maxExamples: 1 }, NOW);
      merger.addStock('U2', stock.get('U2') ?? []);
      const collected = createPriceListRowCollector();
      for (const row of priceLists.get('U2') ?? []) collected.push(row);
      merger.addPriceList('U2', collected);
      merger.addPriceList('U1', priceLists.get('U1') ?? []);

      expect(withProductList(merger.finish())).toStrictEqual(expected);
    });

    it('makes each product when asked, a new object each time, beside its article fields; no product past the list', () => {
      const merger = createCatalogMerger({ units, articles }, OPTIONS, NOW);
      merger.addPriceList('U1', priceLists.get('U1') ?? []);
      const merged = merger.finish();
      const { products } = merged;
      const expected = withProductList(merged).snapshot.products;

      expect(products.length).toBe(3);
      expect(products.at(0)).not.toBe(products.at(0));
      expect([0, 1, 2].map((position) => products.at(position))).toStrictEqual(expected);
      expect(Array.from({ length: products.described.length }, (_, position) => products.described.idAt(position))).toEqual([
        'a-1',
        'a-2',
        'a-3',
      ]);
      expect(expected[2]?.id).toBe('a-3');
      for (const position of [-1, 3, 0.5]) expect(() => products.at(position)).toThrow(RangeError);
    });

    it('serializes a product with its fields in one order (the text the store keeps and the fingerprint covers)', () => {
      const labelled = priceRow('a-1', {
        priceVat: 129,
        actionPrice: 99,
        standardPrice: 150,
        stock: 2,
        availabilityInStock: 'Skladem',
        availabilityOutOfStock: 'Do týdne',
      });
      const { snapshot } = merge({
        units: [unit('U1')],
        articles: [article('a-1', { plu: 1001, ean: '8594000000017', groupId: 'G', measureUnit: 'ks' })],
        priceLists: new Map([['U1', [labelled]]]),
        stock: new Map(),
      });

      expect(JSON.stringify(snapshot.products[0])).toBe(
        '{"id":"a-1","name":"Article a-1","groupId":"G","ean":"8594000000017","plu":1001,"measureUnit":"ks","isStockItem":true,' +
          '"offers":[{"unit":"U1","availability":"in_stock","price":129,"salePrice":99,"standardPrice":150,"stock":2,' +
          '"availabilityTexts":{"inStock":"Skladem","outOfStock":"Do týdne"}}],' +
          '"aggregate":{"unit":"all","availability":"in_stock","price":129,"salePrice":99,"standardPrice":150,"stock":2,' +
          '"availabilityTexts":{"inStock":"Skladem","outOfStock":"Do týdne"}}}',
      );
    });

    it('warns about documents of unknown units, price lists first, and refuses misuse', () => {
      const merger = createCatalogMerger({ units, articles }, OPTIONS, NOW);
      merger.addStock('U9', []);
      merger.addPriceList('U8', []);
      merger.addPriceList('U1', []);

      expect(() => merger.addPriceList('U1', [])).toThrow('priceList of unit "U1" added twice');
      expect(() => merger.addStock('U1', [])).toThrow('stock of unit "U1" added after its price list');
      expect(merger.finish().report.warnings).toEqual([
        'document for unknown unit "U8" ignored',
        'document for unknown unit "U9" ignored',
      ]);
      expect(() => merger.finish()).toThrow('already finished');
      expect(() => merger.addStock('U2', [])).toThrow('already finished');
    });

    it('lists documents of units whose code is not usable in unit-list order, however they were added', () => {
      const listed = [unit(' U2 '), unit('U1'), unit('')];
      const merger = createCatalogMerger({ units: listed, articles }, OPTIONS, NOW);
      merger.addPriceList('', []);
      merger.addPriceList('U1', []);
      merger.addPriceList(' U2 ', []);

      expect(merger.finish().report.warnings).toEqual([
        'unit "l-" has no code and is ignored',
        'document for unknown unit " U2 " ignored',
        'document for unknown unit "" ignored',
      ]);
    });
  });
});
