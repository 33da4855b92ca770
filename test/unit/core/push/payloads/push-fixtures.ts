import type { Product } from '../../../../../src/core/catalog/catalog.js';
import type { FeedItem } from '../../../../../src/core/feeds/feed-item.js';
import { toFeedItem } from '../../../../../src/core/feeds/to-feed-item.js';

/** Feed items made as the feeds make them (`toFeedItem`), for the payload builders' tests. */
const OPTIONS = {
  productUrl: 'https://shop.example/p/{id}',
  imageUrl: 'https://img.example/{code}.jpg',
  storeCodes: { U1: 'praha-1' },
  unitNames: new Map([
    ['U1', 'Praha'],
    ['U2', 'Brno'],
  ]),
};

export function product(overrides: Partial<Product> = {}): Product {
  return {
    id: 'a-1/2',
    name: 'Káva',
    ean: '8594000000013',
    plu: 1001,
    isStockItem: true,
    offers: [
      { unit: 'U1', price: 15.99, stock: 3, availability: 'in_stock' },
      { unit: 'U2', price: 15.99, stock: 0, availability: 'out_of_stock' },
    ],
    aggregate: { unit: 'all', price: 15.99, stock: 3, availability: 'in_stock' },
    ...overrides,
  };
}

export function feedItem(overrides: Partial<Product> = {}, view = 'all'): FeedItem {
  const item = toFeedItem(product(overrides), view, OPTIONS);
  if (item === undefined) throw new Error(`no offer in ${view}`);
  return item;
}

/** The four cases the issue names, as served after the change. */
export const CASES = {
  /** The last piece sold: stock 0, out of stock. */
  sale: () =>
    feedItem({
      offers: [{ unit: 'U1', price: 15.99, stock: 0, availability: 'out_of_stock' }],
      aggregate: { unit: 'all', price: 15.99, stock: 0, availability: 'out_of_stock' },
    }),
  /** A new price and a sale price below it. */
  priceChange: () =>
    feedItem({
      offers: [{ unit: 'U1', price: 0.1, salePrice: 0.09, stock: 3, availability: 'in_stock' }],
      aggregate: { unit: 'all', price: 0.1, salePrice: 0.09, stock: 3, availability: 'in_stock' },
    }),
  newItem: () => feedItem(),
} as const;
