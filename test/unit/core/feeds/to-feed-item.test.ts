import { describe, expect, it } from 'vitest';
import type { Product } from '../../../../src/core/catalog/catalog.js';
import { fillLinkTemplate, toFeedItem } from '../../../../src/core/feeds/to-feed-item.js';

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
});
