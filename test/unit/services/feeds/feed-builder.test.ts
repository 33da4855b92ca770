import { describe, expect, it } from 'vitest';
import { ALL_UNITS, type Offer, type Product } from '../../../../src/core/catalog/catalog.js';
import { collectFeed } from '../../../../src/core/feeds/collect-feed.js';
import type { FeedChunks } from '../../../../src/core/feeds/feed-report.js';
import { loadTemplates } from '../../../../src/core/feeds/load-templates.js';
import {
  type CatalogHead,
  createFeedBuilder,
  createFeedItemMemo,
  type FeedItemMemo,
  type FeedSource,
} from '../../../../src/services/feeds/feed-builder.js';
import { readTemplateFiles } from '../../core/feeds/feed-fixture.js';

const HEAD: CatalogHead = {
  version: 'v-1',
  generatedAt: '2026-11-29T10:00:00Z',
  currency: 'CZK',
  primaryUnit: 'PRG',
  units: [
    { code: 'PRG', localId: 'u-1', name: 'Praha' },
    { code: 'BRN', localId: 'u-2', name: 'Brno' },
  ],
};

function offer(unit: string, stock: number): Offer {
  return { unit, price: 120, stock, availability: stock > 0 ? 'in_stock' : 'out_of_stock' };
}

/** Three products; the last has an offer in Praha only. */
const PRODUCTS: readonly Product[] = ['a-1', 'a-2', 'a-3'].map((id, index) => {
  const offers = index === 2 ? [offer('PRG', 2)] : [offer('PRG', 3), offer('BRN', index)];
  return { id, name: `Zboží ${id}`, ean: '8594000000013', isStockItem: true, offers, aggregate: offer(ALL_UNITS, 5) };
});

function source(items?: FeedItemMemo): FeedSource {
  return {
    head: HEAD,
    products: () => PRODUCTS,
    countInView: (view) => PRODUCTS.filter((product) => view === ALL_UNITS || product.offers.some((o) => o.unit === view)).length,
    ...(items === undefined ? {} : { items }),
  };
}

const builder = createFeedBuilder(loadTemplates(readTemplateFiles()), {
  currency: 'CZK',
  brand: undefined,
  baseUrl: 'https://feeds.example.cz/',
  links: { storeCodes: {}, productUrl: 'https://shop.example.cz/p/{id}' },
});

function text(chunks: FeedChunks | undefined): string {
  if (chunks === undefined) throw new Error('not a text feed');
  return collectFeed(chunks).body.toString('utf8');
}

describe('createFeedBuilder: feed items shared by the feeds of a pass', () => {
  it('renders every feed with a shared memo byte for byte as without one, each item made once per view', () => {
    const memo = createFeedItemMemo();
    const made: string[] = [];
    const counting: FeedItemMemo = {
      itemOf: (product, view, make) =>
        memo.itemOf(product, view, () => {
          made.push(`${product.id} ${view}`);
          return make();
        }),
    };
    for (const view of [ALL_UNITS, 'BRN']) {
      for (const file of ['products.json', 'products.csv', 'google.xml', 'heureka.xml', 'meta.csv']) {
        const request = { file, view, variant: {} };
        expect(text(builder.stream(source(counting), request)), `${file} ${view}`).toBe(text(builder.stream(source(), request)));
      }
    }
    // Each product's item made once per view, whichever feeds read it.
    expect(made).toEqual(['a-1 all', 'a-2 all', 'a-3 all', 'a-1 BRN', 'a-2 BRN', 'a-3 BRN']);
    const first = PRODUCTS[0] as Product;
    const again = memo.itemOf(first, 'BRN', () => {
      throw new Error('made again');
    });
    expect(again?.offers.map((o) => o.unit)).toEqual(['BRN']);
    // No offer in Brno: remembered as none.
    expect(memo.itemOf(PRODUCTS[2] as Product, 'BRN', () => ({ id: 'wrong' }) as never)).toBeUndefined();
  });

  it('forgets the oldest products past its capacity', () => {
    const memo = createFeedItemMemo(2);
    let made = 0;
    const make = () => {
      made++;
      return undefined;
    };
    for (const product of PRODUCTS) memo.itemOf(product, ALL_UNITS, make);
    memo.itemOf(PRODUCTS[2] as Product, ALL_UNITS, make);
    expect(made).toBe(3);
    memo.itemOf(PRODUCTS[0] as Product, ALL_UNITS, make);
    expect(made).toBe(4);
  });
});
