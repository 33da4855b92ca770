import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { collectFeed } from '../../../../src/core/feeds/collect-feed.js';
import type { CompiledFeed } from '../../../../src/core/feeds/compiled-feed.js';
import type { FeedContext, FeedItem } from '../../../../src/core/feeds/feed-item.js';
import {
  FEED_CHUNK_SIZE,
  FEED_PART_ITEMS,
  type FeedChunks,
  MAX_WARNING_EXAMPLES,
} from '../../../../src/core/feeds/feed-report.js';
import { loadTemplates } from '../../../../src/core/feeds/load-templates.js';
import { renderCsvFeed } from '../../../../src/core/feeds/render-csv-feed.js';
import { renderJsonFeed } from '../../../../src/core/feeds/render-json-feed.js';
import { FIXTURE_CONTEXT, FIXTURE_ITEMS, readTemplateFiles } from './feed-fixture.js';
import { exactXmlParser } from './xml-test-helpers.js';

const feeds = loadTemplates(readTemplateFiles());

function feed(name: string): CompiledFeed {
  const found = feeds.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no feed ${name}`);
  return found;
}

function body(chunks: FeedChunks): string {
  return collectFeed(chunks).body.toString('utf8');
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
  name: 'Zboží',
  price: 100,
  stock: 5,
  availability: 'in_stock',
  isStockItem: true,
  link: 'https://shop.cz/x-1',
  imageLink: 'https://shop.cz/x-1.jpg',
  offers: [
    { unit: 'A', storeCode: 'S-A', unitName: 'A', price: 100, stock: 5, availability: 'in_stock' },
    { unit: 'B', storeCode: '', unitName: 'B', price: 100, stock: 0, availability: 'out_of_stock' },
  ],
};

describe('feeds: channel rules at render', () => {
  it('Google: with a brand there is g:brand and never identifier_exists', () => {
    const xml = body(feed('google').render({ ...FIXTURE_CONTEXT, brand: 'Pražírna & Co' }, FIXTURE_ITEMS));
    expect(xml).not.toContain('identifier_exists');
    // The enrichment sheet's brand wins over FEED_BRAND for the item that has one.
    expect(xml.match(/<g:brand>Pražírna &amp; Co<\/g:brand>/g)).toHaveLength(8);
    expect(xml.match(/<g:brand>Pražírna Brno<\/g:brand>/g)).toHaveLength(1);
  });

  it('Google: identifier_exists=no only for items with neither EAN nor brand', () => {
    const parsed = exactXmlParser.parse(body(feed('google').render(FIXTURE_CONTEXT, FIXTURE_ITEMS)));
    const items: Record<string, string>[] = parsed.rss.channel.item;
    const claimed = items.filter((item) => item['g:identifier_exists'] === 'no').map((item) => item['g:id']);
    expect(claimed).toEqual(['a-1003', 'a-1005', 'a-1008']);
    // An invalid EAN (a-1004) or a restricted one (a-1006) means an identifier exists: no gtin, no claim.
    expect(items.find((item) => item['g:id'] === 'a-1004')?.['g:gtin']).toBeUndefined();
  });

  it('Google keeps sold-out items as out_of_stock; Heureka and Zboží never list them', () => {
    const google = exactXmlParser.parse(body(feed('google').render(FIXTURE_CONTEXT, FIXTURE_ITEMS)));
    expect(google.rss.channel.item.find((item: Record<string, string>) => item['g:id'] === 'a-1006')['g:availability']).toBe(
      'out_of_stock',
    );
    for (const name of ['heureka', 'zbozi']) {
      const rendered = collectFeed(feed(name).render(FIXTURE_CONTEXT, FIXTURE_ITEMS));
      expect(rendered.body.toString()).not.toContain('a-1006');
      // Left out by the stock policy (outOfStock: omit), counted as such, not as filtered or as a warning.
      expect(rendered.report).toMatchObject({ filtered: 0, outOfStock: 1 });
    }
    for (const name of ['google', 'meta', 'heureka-availability', 'google-local-inventory']) {
      // With a brand, Meta's brand|gtin check keeps a-1006 (its EAN is an in-store number).
      const rendered = collectFeed(feed(name).render({ ...FIXTURE_CONTEXT, brand: 'Značka' }, FIXTURE_ITEMS));
      expect(rendered.body.toString(), name).toContain('a-1006');
      expect(rendered.report.outOfStock, name).toBe(0);
    }
  });

  it('Google local inventory: 1-2 pieces in a store are limited availability, sold-out rows stay', () => {
    const rows = body(feed('google-local-inventory').render(FIXTURE_CONTEXT, FIXTURE_ITEMS))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t'));
    const availability = (store: string, id: string) => rows.find((row) => row[0] === store && row[1] === id)?.[5];
    expect(availability('PRG-1', 'a-1002')).toBe('in stock'); // 3 pieces
    expect(availability('PRG-1', 'a-1003')).toBe('limited availability'); // 2 pieces
    expect(availability('PRG-1', 'a-1008')).toBe('limited availability'); // 0.5 kg: 1 piece
    expect(availability('BRNO-2', 'a-1002')).toBe('out of stock'); // 0 pieces
    expect(availability('PRG-1', 'a-1005')).toBe('in stock'); // a service
  });

  it('shipped feeds under a configured stock policy: buffers per unit and per feed, FEED_STOCK_POLICY per key', () => {
    const configured = loadTemplates(readTemplateFiles(), {
      unitBuffers: { PRG: 2, '*': 0 },
      feedPolicies: { 'heureka-availability': { buffer: 1 }, heureka: { outOfStock: 'list' }, google: { buffer: 1 } },
    });
    const shipped = (name: string) => configured.find((candidate) => candidate.name === name) as CompiledFeed;
    // a-1001: PRG 7 − 2 − 1 = 4, BRNO 5 − 1 = 4: 8 in all; a-1002: PRG 3 − 3 = 0, BRNO 0: sold out.
    const depots = exactXmlParser.parse(body(shipped('heureka-availability').render(FIXTURE_CONTEXT, FIXTURE_ITEMS)));
    const coffee = depots.item_list.item.find((entry: Record<string, unknown>) => entry['@id'] === 'a-1001');
    expect(coffee.stock_quantity).toBe('8');
    expect(coffee.depot.map((depot: Record<string, string>) => [depot['@id'], depot['stock_quantity']])).toEqual([
      ['PRG-1', '4'],
      ['BRNO-2', '4'],
    ]);
    const tea = depots.item_list.item.find((entry: Record<string, unknown>) => entry['@id'] === 'a-1002');
    expect(tea.stock_quantity).toBe('0');
    // Google: a-1002 sold out once PRG's buffer (2) and the feed's (1) are taken; listed as out_of_stock.
    const google = exactXmlParser.parse(body(shipped('google').render(FIXTURE_CONTEXT, FIXTURE_ITEMS)));
    const entry = google.rss.channel.item.find((item: Record<string, string>) => item['g:id'] === 'a-1002');
    expect(entry['g:availability']).toBe('out_of_stock');
    // Heureka lists as the configuration says: sold-out items come in (a-1003, a-1008, a-1009 once PRG keeps 2
    // back; a-1006), and their DELIVERY_DATE (mapped for in_stock only) is missing, so the channel rule leaves
    // them out with a warning instead.
    const heureka = collectFeed(shipped('heureka').render(FIXTURE_CONTEXT, FIXTURE_ITEMS));
    expect(heureka.report.outOfStock).toBe(0);
    expect(heureka.report.warnings.byAttribute['DELIVERY_DATE']).toBe(4);
  });

  it('never renders a sale price that is not below the price', () => {
    const item: FeedItem = {
      ...ITEM,
      salePrice: 100,
      offers: [{ ...(ITEM.offers[0] as FeedItem['offers'][0]), salePrice: 120 }],
    };
    expect(body(feed('google').render(FIXTURE_CONTEXT, [item]))).not.toContain('sale_price');
    expect(body(feed('google-local-inventory').render(FIXTURE_CONTEXT, [item]))).toContain('\t100.00 CZK\t\tin stock\n');
  });

  it('renders a unit view from that unit offer', () => {
    const context: FeedContext = { ...FIXTURE_CONTEXT, unit: 'A', unitName: 'Prodejna A' };
    const item: FeedItem = { ...ITEM, offers: [ITEM.offers[0] as FeedItem['offers'][0]] };
    const zbozi = body(feed('zbozi').render(context, [item]));
    expect(zbozi).toContain('<SHOP_DEPOTS>S-A</SHOP_DEPOTS>');
    expect(body(feed('heureka-availability').render(context, [item]))).toContain('<depot id="S-A">');
  });

  it('leaves out only the record of a unit whose required value is missing, warning with the unit', () => {
    const rendered = collectFeed(feed('google-local-inventory').render(FIXTURE_CONTEXT, [ITEM]));
    expect(rendered.body.toString().split('\n').filter(Boolean)).toHaveLength(2);
    expect(rendered.report).toMatchObject({ items: 1, records: 1, dropped: 0 });
    expect(rendered.report.warnings.examples).toEqual([
      { feed: 'google-local-inventory', itemId: 'x-1', attribute: 'store_code', code: 'missing', reason: 'missing', unit: 'B' },
    ]);
    const xml = collectFeed(feed('heureka-availability').render(FIXTURE_CONTEXT, [ITEM]));
    expect(xml.body.toString()).not.toContain('<depot id="">');
    expect(xml.report.warnings.examples).toEqual([
      { feed: 'heureka-availability', itemId: 'x-1', attribute: 'depot@id', code: 'missing', reason: 'missing', unit: 'B' },
    ]);
  });

  it('leaves out items whose id is too long for Google instead of cutting it', () => {
    const rendered = collectFeed(feed('google').render(FIXTURE_CONTEXT, [{ ...ITEM, id: 'x'.repeat(51) }, ITEM]));
    expect(rendered.report).toMatchObject({ items: 1, dropped: 1 });
    expect(rendered.report.warnings.examples[0]).toMatchObject({
      attribute: 'g:id',
      code: 'too-long',
      reason: 'longer than 50 characters',
    });
  });

  it("leaves out items whose id breaks Heureka's pattern, with the no-match code", () => {
    const rendered = collectFeed(feed('heureka').render(FIXTURE_CONTEXT, [{ ...ITEM, id: 'a.1' }, ITEM]));
    expect(rendered.report).toMatchObject({ items: 1, dropped: 1 });
    expect(rendered.report.warnings.byCode).toEqual({ 'no-match': 1 });
    expect(rendered.report.warnings.examples[0]).toMatchObject({ itemId: 'a.1', attribute: 'ITEM_ID', code: 'no-match' });
  });

  it('counts warnings per attribute and per code and keeps the first examples', () => {
    const items = Array.from(
      { length: 30 },
      (_, index) => ({ ...ITEM, id: `n-${index}`, price: undefined }) as unknown as FeedItem,
    );
    const report = collectFeed(feed('heureka').render(FIXTURE_CONTEXT, items)).report;
    expect(report.warnings.count).toBe(30);
    expect(report.warnings.byAttribute).toEqual({ PRICE_VAT: 30 });
    expect(report.warnings.byCode).toEqual({ missing: 30 });
    expect(report.warnings.examples).toHaveLength(MAX_WARNING_EXAMPLES);
    expect(report.warnings.examples[0]).toEqual({
      feed: 'heureka',
      itemId: 'n-0',
      attribute: 'PRICE_VAT',
      code: 'missing',
      reason: 'missing',
    });
  });

  it('applies when, unless, optional containers and literal braces', () => {
    const compiled = inlineFeed({
      file: 'x.xml',
      kind: 'xml',
      document: {
        name: 'R',
        attributes: { note: '{{{currency}}}' },
        children: [
          {
            items: {
              name: 'I',
              children: [
                { name: 'ON_SALE', value: 'yes', when: '{salePrice}' },
                { name: 'NO_EAN', value: 'yes', unless: ['{ean}', '{brand}'] },
                { name: 'WRAP', optional: true, children: [{ name: 'EAN', value: '{ean|gtin}', optional: true }] },
                { name: 'PRICE', value: '{price|moneyComma} {currency|lower}' },
                { name: 'EMPTY', value: '{ean}' },
              ],
            },
          },
        ],
      },
    });
    expect(body(compiled.render(FIXTURE_CONTEXT, [ITEM]))).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<R note="{CZK}">\n  <I>\n    <NO_EAN>yes</NO_EAN>\n' +
        '    <PRICE>100,00 czk</PRICE>\n    <EMPTY/>\n  </I>\n</R>\n',
    );
  });

  it('streams large feeds in chunks of about 64 KB', () => {
    const items = Array.from({ length: 3000 }, (_, index) => ({
      ...ITEM,
      id: `i-${index}`,
      name: `Název ${index} ${'ž'.repeat(200)}`,
    }));
    const chunks = [...feed('google').render(FIXTURE_CONTEXT, items)];
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.length).toBeGreaterThanOrEqual(FEED_CHUNK_SIZE);
      expect(chunk.length).toBeLessThan(FEED_CHUNK_SIZE + 4096);
    }
    expect(chunks.join('')).toBe(body(feed('google').render(FIXTURE_CONTEXT, items)));
  });

  // A render driving several feeds over one parse of each chunk steers them by how far they have read:
  // a feed that read the whole catalog before its first part made every other feed parse it again.
  it.each(['google', 'meta'])(
    '%s gives back a part every FEED_PART_ITEMS items read, even when it leaves them all out',
    (name) => {
      const total = 5 * FEED_PART_ITEMS + 10;
      let read = 0;
      const readAtParts: number[] = [];
      function* withoutLinks(): Generator<FeedItem> {
        for (let index = 0; index < total; index++) {
          read++;
          const { link: _link, ...item } = ITEM;
          yield { ...item, id: `i-${index}` };
        }
      }
      const chunks = feed(name).render(FIXTURE_CONTEXT, withoutLinks());
      for (let next = chunks.next(); next.done !== true; next = chunks.next()) readAtParts.push(read);
      expect(readAtParts.length).toBeGreaterThanOrEqual(6);
      for (const [index, at] of readAtParts.slice(0, -1).entries()) expect(at).toBe((index + 1) * FEED_PART_ITEMS + 1);
      expect(collectFeed(feed(name).render(FIXTURE_CONTEXT, withoutLinks())).report.dropped).toBe(total);
    },
  );
});

describe('feeds/render-json-feed', () => {
  it('puts count before items and accepts a lazy iterable with its count', () => {
    function* lazy(): Generator<FeedItem> {
      yield* FIXTURE_ITEMS;
    }
    const fromArray = body(renderJsonFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS));
    expect(body(renderJsonFeed(FIXTURE_CONTEXT, lazy(), { count: FIXTURE_ITEMS.length }))).toBe(fromArray);
    expect(body(renderJsonFeed(FIXTURE_CONTEXT, lazy()))).toBe(fromArray);
    const parsed = JSON.parse(fromArray);
    expect(Object.keys(parsed)).toEqual(['version', 'generatedAt', 'unit', 'currency', 'count', 'items']);
    expect(parsed.count).toBe(10);
  });

  it('keeps the documented key order, numbers as numbers, and omits absent fields', () => {
    const parsed = JSON.parse(body(renderJsonFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS)));
    expect(Object.keys(parsed.items[0])).toEqual([
      'id',
      'name',
      'groupId',
      'ean',
      'plu',
      'internalIdentifier',
      'measureUnit',
      'price',
      'salePrice',
      'standardPrice',
      'stock',
      'availability',
      'link',
      'imageLink',
      'title',
      'description',
      'brand',
      'category',
      'googleProductCategory',
      'heurekaCategory',
      'additionalImageLinks',
      'customLabel0',
      'offers',
    ]);
    expect(parsed.items[0].offers[0]).toEqual({
      unit: 'PRG',
      price: 129,
      salePrice: 99,
      standardPrice: 149,
      stock: 7,
      availability: 'in_stock',
    });
    expect(parsed.items[4]).not.toHaveProperty('stock');
    expect(JSON.stringify(parsed)).not.toContain('null');
    // Text is data: passed through exactly (JSON escapes what it must).
    expect(parsed.items[2].name).toBe((FIXTURE_ITEMS[2] as FeedItem).name);
  });

  it('renders an empty catalog and refuses a wrong count', () => {
    expect(JSON.parse(body(renderJsonFeed(FIXTURE_CONTEXT, [])))).toEqual({
      version: 'v-golden-1',
      generatedAt: '2026-11-22T10:00:00Z',
      unit: 'all',
      currency: 'CZK',
      count: 0,
      items: [],
    });
    expect(() => body(renderJsonFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS, { count: 3 }))).toThrow(/count was 3 but 10 items/);
  });
});

describe('feeds/render-csv-feed', () => {
  it('rfc4180: comma, CRLF, no BOM, values exact', () => {
    const text = body(renderCsvFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS));
    expect(
      text.startsWith(
        'id,name,ean,plu,internalIdentifier,groupId,measureUnit,price,salePrice,standardPrice,currency,stock,availability,link,imageLink,title,description,brand,category,googleProductCategory,heurekaCategory,zboziCategory,additionalImageLinks,customLabel0,customLabel1,customLabel2,customLabel3,customLabel4,exclude\r\n',
      ),
    ).toBe(true);
    const rows: string[][] = parse(text);
    expect(rows[2]).toEqual([
      'a-1002',
      `Čaj "Earl Grey" & <citron> 'bio'`,
      '0036000291452',
      '1002',
      '0042',
      '',
      '',
      '59.90',
      '',
      '',
      'CZK',
      '3',
      'in_stock',
      'https://shop.example.cz/p/a-1002?utm_source=feed&variant=1',
      'https://shop.example.cz/img/a-1002.jpg',
      ...Array<string>(14).fill(''),
    ]);
    // The enrichment sheet's columns, after the POS's.
    expect(rows[1]?.slice(15, 23)).toEqual([
      'Káva zrnková Arabica 1 kg',
      'Jemná arabika z Etiopie.\nPražená v Brně.',
      'Pražírna Brno',
      'Potraviny > Káva',
      '1868',
      'Heureka.cz | Jídlo a nápoje | Káva',
      '',
      'https://shop.example.cz/obrázky/káva-2.jpg https://shop.example.cz/img/kava-3.jpg',
    ]);
    expect(rows[9]?.[1]).toBe('=HYPERLINK("http://evil.example";"klik")');
  });

  it('excel: BOM, semicolon, decimal comma, neutralised formulas, codes kept as text', () => {
    const buffer = collectFeed(renderCsvFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS, { profile: 'excel' })).body;
    expect([...buffer.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows: string[][] = parse(buffer, { bom: true, delimiter: ';', relax_column_count: false });
    expect(rows[0]?.[0]).toBe('id');
    expect(rows[1]?.slice(0, 4)).toEqual(['a-1001', 'Káva zrnková 1 kg', '="8594000000013"', '1001']);
    expect(rows[1]?.slice(7, 10)).toEqual(['129,00', '99,00', '149,00']);
    expect(rows[2]?.[4]).toBe('="0042"');
    expect(rows[8]?.[11]).toBe('0,5');
    expect(rows[9]?.slice(0, 6)).toEqual(['a-1009', `'=HYPERLINK("http://evil.example";"klik")`, "'+420123", '', "'-5", "'@g"]);
    expect(buffer.toString('utf8').split('\r\n')).toHaveLength(12);
  });
});
