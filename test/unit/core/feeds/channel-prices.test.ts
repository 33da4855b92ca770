import { describe, expect, it } from 'vitest';
import { collectFeed } from '../../../../src/core/feeds/collect-feed.js';
import type { CompiledFeed } from '../../../../src/core/feeds/compiled-feed.js';
import type { FeedItem } from '../../../../src/core/feeds/feed-item.js';
import { loadTemplates } from '../../../../src/core/feeds/load-templates.js';
import { FIXTURE_CONTEXT, readTemplateFiles } from './feed-fixture.js';
import { exactXmlParser } from './xml-test-helpers.js';

/**
 * Prices as the channels must see them (docs/channels.md, prices): Heureka's and Zboží's `PRICE_VAT` is what
 * a buyer pays (the sale price when one applies), and an item priced 0 (a POS placeholder) is left out of
 * every channel feed with the price reported missing, never advertised for nothing.
 */

const feeds = loadTemplates(readTemplateFiles());

function feed(name: string): CompiledFeed {
  const found = feeds.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no feed ${name}`);
  return found;
}

function item(id: string, price: number, salePrice?: number): FeedItem {
  return {
    id,
    name: `Zboží ${id}`,
    price,
    ...(salePrice === undefined ? {} : { salePrice }),
    stock: 3,
    availability: 'in_stock',
    isStockItem: true,
    link: `https://shop.example.cz/p/${id}`,
    imageLink: `https://shop.example.cz/i/${id}.jpg`,
    offers: [
      {
        unit: 'PRG',
        storeCode: 'PRG-1',
        unitName: 'Praha',
        price,
        ...(salePrice === undefined ? {} : { salePrice }),
        stock: 3,
        availability: 'in_stock',
      },
    ],
  };
}

const ITEMS = [item('on-sale', 129, 99), item('regular', 50), item('placeholder', 0), item('sale-not-lower', 80, 80)];

describe('feeds: channel prices', () => {
  it.each(['heureka', 'zbozi'])('%s: PRICE_VAT is the price a buyer pays, and an item priced 0 is left out', (name) => {
    const { body, report } = collectFeed(feed(name).render(FIXTURE_CONTEXT, ITEMS));
    const items = exactXmlParser.parse(body.toString()).SHOP.SHOPITEM as Record<string, unknown>[];
    expect(Object.fromEntries(items.map((entry) => [entry['ITEM_ID'], entry['PRICE_VAT']]))).toEqual({
      'on-sale': '99.00',
      regular: '50.00',
      'sale-not-lower': '80.00',
    });
    expect(report.dropped).toBe(1);
    expect(report.warnings.examples[0]).toMatchObject({ itemId: 'placeholder', attribute: 'PRICE_VAT', code: 'missing' });
  });

  it.each(['google', 'meta'])('%s leaves out an item priced 0 and keeps the sale price apart', (name) => {
    // Meta wants a brand or a GTIN.
    const { body, report } = collectFeed(feed(name).render({ ...FIXTURE_CONTEXT, brand: 'Pražírna' }, ITEMS));
    const text = body.toString();
    expect(text).not.toContain('placeholder');
    expect(text).toContain('129.00 CZK');
    expect(text).toContain('99.00 CZK');
    expect(report.dropped).toBe(1);
    expect(report.warnings.examples[0]).toMatchObject({ itemId: 'placeholder', code: 'missing' });
  });
});
