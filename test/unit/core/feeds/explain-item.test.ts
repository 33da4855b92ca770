import { describe, expect, it } from 'vitest';
import { collectFeed } from '../../../../src/core/feeds/collect-feed.js';
import type { CompiledFeed } from '../../../../src/core/feeds/compiled-feed.js';
import { csvItemText, explainTemplateItem, notOffered } from '../../../../src/core/feeds/explain-item.js';
import type { FeedItem } from '../../../../src/core/feeds/feed-item.js';
import { loadTemplates } from '../../../../src/core/feeds/load-templates.js';
import { renderCsvFeed } from '../../../../src/core/feeds/render-csv-feed.js';
import { FIXTURE_CONTEXT, FIXTURE_ITEMS, readTemplateFiles } from './feed-fixture.js';

const shipped = loadTemplates(readTemplateFiles());

function feed(name: string): CompiledFeed {
  const found = shipped.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no feed ${name}`);
  return found;
}

function inlineFeed(template: Record<string, unknown>): CompiledFeed {
  const [compiled] = loadTemplates([
    { name: 'inline.json', text: JSON.stringify({ name: 'inline', title: 'Inline', ...template }) },
  ]);
  if (compiled === undefined) throw new Error('no feed');
  return compiled;
}

const ITEM: FeedItem = {
  id: 'x-1',
  name: 'Káva zrnková 1 kg',
  ean: '8594000000013',
  price: 100,
  stock: 5,
  availability: 'in_stock',
  isStockItem: true,
  link: 'https://shop.cz/x-1',
  imageLink: 'https://shop.cz/x-1.jpg',
  offers: [
    { unit: 'A', storeCode: 'S-A', unitName: 'A', price: 100, stock: 5, availability: 'in_stock' },
    { unit: 'B', storeCode: 'S-B', unitName: 'B', price: 100, stock: 0, availability: 'out_of_stock' },
  ],
};

/** A small XML feed: an id of at most 8 characters, a required EAN as a GTIN, a required link. */
const XML_TEMPLATE = {
  file: 'inline.xml',
  kind: 'xml',
  document: {
    name: 'SHOP',
    children: [
      {
        items: {
          name: 'ITEM',
          children: [
            { name: 'ID', value: '{id}', required: true, maxLength: 8, overflow: 'drop' },
            { name: 'CODE', value: '{id}', required: true, pattern: '^x-[0-9]+$' },
            { name: 'EAN', value: '{ean|gtin}', required: true },
            { name: 'URL', value: '{link|url}', required: true },
          ],
        },
      },
    ],
  },
};

describe('explainTemplateItem', () => {
  it('gives an included item the exact text the full feed carries for it', () => {
    for (const name of ['google', 'heureka', 'zbozi', 'meta', 'shoptet', 'google-local-inventory']) {
      const compiled = feed(name);
      const full = collectFeed(compiled.render(FIXTURE_CONTEXT, FIXTURE_ITEMS)).body.toString('utf8');
      let included = 0;
      for (const item of FIXTURE_ITEMS) {
        const verdict = explainTemplateItem(compiled, FIXTURE_CONTEXT, item);
        if (!verdict.included) continue;
        included += 1;
        expect(verdict.text, `${name} ${item.id}`).toBeDefined();
        expect(full.split(verdict.text ?? '').length - 1, `${name} ${item.id}`).toBe(1);
      }
      expect(included, name).toBeGreaterThan(0);
    }
  });

  it('cuts the item out between the frame, so the frame and the items make the whole body', () => {
    const compiled = feed('heureka');
    const { head, tail } = compiled.frame(FIXTURE_CONTEXT);
    const texts = FIXTURE_ITEMS.flatMap((item) => {
      const verdict = explainTemplateItem(compiled, FIXTURE_CONTEXT, item);
      return verdict.included ? [verdict.text ?? ''] : [];
    });
    const full = collectFeed(compiled.render(FIXTURE_CONTEXT, FIXTURE_ITEMS)).body.toString('utf8');

    expect(head + texts.join('') + tail).toBe(full);
  });

  it("says the enrichment sheet's exclude column left it out", () => {
    const item: FeedItem = { ...ITEM, enrichment: { exclude: ['inline'] } };
    expect(explainTemplateItem(inlineFeed(XML_TEMPLATE), FIXTURE_CONTEXT, item)).toMatchObject({
      included: false,
      reason: { code: 'excluded', rule: 'exclude' },
    });
  });

  it("says the template's filter left it out", () => {
    const template = { ...XML_TEMPLATE, filter: { availability: 'in_stock' } };
    const soldOut: FeedItem = { ...ITEM, stock: 0, availability: 'out_of_stock' };
    expect(explainTemplateItem(inlineFeed(template), FIXTURE_CONTEXT, soldOut)).toMatchObject({
      included: false,
      reason: { code: 'filtered', rule: 'filter' },
    });
  });

  it('says the stock policy left a sold-out item out', () => {
    const soldOut: FeedItem = { ...ITEM, stock: 0, availability: 'out_of_stock' };
    expect(explainTemplateItem(feed('heureka'), FIXTURE_CONTEXT, soldOut)).toMatchObject({
      included: false,
      reason: { code: 'out-of-stock', rule: 'stockPolicy' },
    });
  });

  it('names a missing required value', () => {
    const { link: _link, ...noLink } = ITEM;
    expect(explainTemplateItem(inlineFeed(XML_TEMPLATE), FIXTURE_CONTEXT, noLink)).toMatchObject({
      included: false,
      reason: { code: 'missing', rule: 'required', attribute: 'URL' },
    });
  });

  it('names a bad EAN as a missing GTIN, and a failed require check by its name', () => {
    const badEan: FeedItem = { ...ITEM, ean: '8594000000014' };
    expect(explainTemplateItem(inlineFeed(XML_TEMPLATE), FIXTURE_CONTEXT, badEan)).toMatchObject({
      included: false,
      reason: { code: 'missing', attribute: 'EAN' },
    });
    expect(explainTemplateItem(feed('meta'), FIXTURE_CONTEXT, badEan)).toMatchObject({
      included: false,
      reason: { code: 'missing', rule: 'required', attribute: 'brand|gtin' },
    });
  });

  it('names a value too long, with its limit', () => {
    const long: FeedItem = { ...ITEM, id: 'x-123456789' };
    expect(explainTemplateItem(inlineFeed(XML_TEMPLATE), FIXTURE_CONTEXT, long)).toMatchObject({
      included: false,
      reason: { code: 'too-long', attribute: 'ID', limit: 8 },
    });
  });

  it('names a value that does not match its pattern, with the pattern', () => {
    const odd: FeedItem = { ...ITEM, id: 'y-1' };
    expect(explainTemplateItem(inlineFeed(XML_TEMPLATE), FIXTURE_CONTEXT, odd)).toMatchObject({
      included: false,
      reason: { code: 'no-match', attribute: 'CODE', pattern: '^x-[0-9]+$' },
    });
  });

  it('keeps an item whose single unit records were left out, and names those records', () => {
    const verdict = explainTemplateItem(feed('google-local-inventory'), FIXTURE_CONTEXT, {
      ...ITEM,
      offers: [
        ITEM.offers[0],
        { ...(ITEM.offers[0] as FeedItem['offers'][number]), unit: 'C', storeCode: '' },
      ] as FeedItem['offers'],
    });
    expect(verdict.included).toBe(true);
    expect(verdict.included && verdict.leftOutRecords?.[0]).toMatchObject({ unit: 'C', code: 'missing' });
  });
});

describe('built-in feeds', () => {
  it('gives the CSV row exactly as the full CSV has it', () => {
    const options = { unitColumns: ['A', 'B'] };
    const full = collectFeed(renderCsvFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS, options)).body.toString('utf8');
    const rows = FIXTURE_ITEMS.map((item) => csvItemText(FIXTURE_CONTEXT, item, options));
    const head = collectFeed(renderCsvFeed(FIXTURE_CONTEXT, [], options)).body.toString('utf8');

    expect(head + rows.join('')).toBe(full);
  });

  it('says a view without an offer does not offer it', () => {
    expect(notOffered('U9')).toMatchObject({ included: false, reason: { code: 'not-offered', rule: 'view' } });
  });
});
