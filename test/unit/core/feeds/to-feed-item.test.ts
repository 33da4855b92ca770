import { describe, expect, it } from 'vitest';
import type { Product } from '../../../../src/core/catalog/catalog.js';
import { FEED_FIELDS, type RenderScope } from '../../../../src/core/feeds/feed-fields.js';
import type { FeedItem } from '../../../../src/core/feeds/feed-item.js';
import { createStockState, DEFAULT_STOCK_POLICY } from '../../../../src/core/feeds/stock-policy.js';
import { fillLinkTemplate, productCode, toFeedItem } from '../../../../src/core/feeds/to-feed-item.js';

const product: Product = {
  id: 'a-1/2',
  name: 'Káva',
  ean: '8594000000017',
  plu: 1001,
  isStockItem: true,
  offers: [
    { unit: 'U1', price: 129, salePrice: 99, stock: 7, availability: 'in_stock' },
    { unit: 'U2', price: 135, stock: 0, availability: 'out_of_stock' },
  ],
  aggregate: { unit: 'all', price: 129, salePrice: 99, stock: 7, availability: 'in_stock' },
};
const options = {
  productUrl: 'https://shop.example/p/{id}?ean={ean}',
  imageUrl: 'https://img.example/{code}.jpg',
  storeCodes: { U1: 'praha-1' },
  unitNames: new Map([
    ['U1', 'Praha'],
    ['U2', 'Brno'],
  ]),
};

const FIXTURE = { version: 'v', generatedAt: '', unit: 'all', unitName: 'All', currency: 'CZK', baseUrl: '' };

describe('core/feeds/to-feed-item', () => {
  it.each([
    ['https://shop.example/p/{id}', 'https://shop.example/p/a-1%2F2'],
    ['https://shop.example/p/{plu}-{ean}', 'https://shop.example/p/1001-8594000000017'],
    ['https://shop.example/p/{code}', 'https://shop.example/p/1001'],
    ['https://shop.example/p/{internalIdentifier}', undefined],
    ['https://shop.example/{unknown}', 'https://shop.example/{unknown}'],
  ])('fills %s', (template, expected) => {
    expect(fillLinkTemplate(template, product)).toBe(expected);
  });

  it('builds the all view with every offer and store codes', () => {
    const item = toFeedItem(product, 'all', options);

    expect(item).toEqual({
      id: 'a-1/2',
      name: 'Káva',
      ean: '8594000000017',
      plu: 1001,
      price: 129,
      salePrice: 99,
      stock: 7,
      availability: 'in_stock',
      isStockItem: true,
      link: 'https://shop.example/p/a-1%2F2?ean=8594000000017',
      imageLink: 'https://img.example/1001.jpg',
      offers: [
        { unit: 'U1', storeCode: 'praha-1', unitName: 'Praha', price: 129, salePrice: 99, stock: 7, availability: 'in_stock' },
        { unit: 'U2', storeCode: 'U2', unitName: 'Brno', price: 135, stock: 0, availability: 'out_of_stock' },
      ],
    });
  });

  it('builds a unit view from that unit offer alone', () => {
    const item = toFeedItem(product, 'U2', options);

    expect(item).toMatchObject({ price: 135, stock: 0, availability: 'out_of_stock' });
    expect(item?.salePrice).toBeUndefined();
    expect(item?.offers).toHaveLength(1);
    expect(toFeedItem(product, 'U9', options)).toBeUndefined();
  });

  it("carries each offer's availability labels, the primary unit's for all, shared with the catalog", () => {
    const texts = { inStock: 'Skladem', outOfStock: 'Na dotaz' };
    const withTexts: Product = {
      ...product,
      offers: [
        { ...(product.offers[0] as Product['offers'][number]), availabilityTexts: texts },
        product.offers[1] as Product['offers'][number],
      ],
      aggregate: { ...product.aggregate, availabilityTexts: texts },
    };
    const all = toFeedItem(withTexts, 'all', options);
    expect(all?.availabilityTexts).toBe(texts);
    expect(all?.offers[0]?.availabilityTexts).toBe(texts);
    expect(all?.offers[1]?.availabilityTexts).toBeUndefined();
    expect(toFeedItem(product, 'all', options)).not.toHaveProperty('availabilityTexts');

    const scope = (item: FeedItem | undefined): RenderScope => ({
      context: FIXTURE,
      item,
      offer: item?.offers[0],
      stock: createStockState(DEFAULT_STOCK_POLICY, 'all'),
    });
    const field = (name: string, item: FeedItem | undefined) => FEED_FIELDS[name]?.get(scope(item));
    expect(field('availabilityInStockText', all)).toBe('Skladem');
    expect(field('availabilityOutOfStockText', all)).toBe('Na dotaz');
    expect(field('offer.availabilityInStockText', all)).toBe('Skladem');
    expect(field('offer.availabilityOutOfStockText', toFeedItem(product, 'all', options))).toBeUndefined();
  });

  it('gives the code e-shops pair on: internal identifier, else PLU, else id, as {code} of links does', () => {
    expect(productCode({ id: 'a-1', plu: 7, internalIdentifier: 'KAV-1' })).toBe('KAV-1');
    expect(productCode({ id: 'a-1', plu: 7 })).toBe('7');
    expect(productCode({ id: 'a-1' })).toBe('a-1');
    const item = toFeedItem({ ...product, internalIdentifier: 'KAV-1' }, 'all', options);
    const stock = createStockState(DEFAULT_STOCK_POLICY, 'all');
    expect(FEED_FIELDS['code']?.get({ context: FIXTURE, item, offer: undefined, stock })).toBe('KAV-1');
    expect(fillLinkTemplate('https://shop.example/p/{code}', { ...product, internalIdentifier: 'KAV-1' })).toBe(
      'https://shop.example/p/KAV-1',
    );
  });
});
