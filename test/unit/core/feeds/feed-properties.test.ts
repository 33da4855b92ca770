import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { cleanText } from '../../../../src/core/feeds/clean-text.js';
import { collectFeed } from '../../../../src/core/feeds/collect-feed.js';
import type { CompiledFeed } from '../../../../src/core/feeds/compiled-feed.js';
import { encodeUrl } from '../../../../src/core/feeds/encode-url.js';
import type { FeedContext, FeedItem } from '../../../../src/core/feeds/feed-item.js';
import { formatMoney, formatPlainNumber } from '../../../../src/core/feeds/format-number.js';
import { ProductsFeedSchema } from '../../../../src/core/feeds/json-feed-schema.js';
import { loadTemplates } from '../../../../src/core/feeds/load-templates.js';
import { PRODUCT_COLUMNS } from '../../../../src/core/feeds/product-columns.js';
import { type CsvProfile, renderCsvFeed } from '../../../../src/core/feeds/render-csv-feed.js';
import { renderJsonFeed } from '../../../../src/core/feeds/render-json-feed.js';
import { countCodePoints, truncateText } from '../../../../src/core/feeds/truncate-text.js';
import { catalog, hostileContext } from './feed-arbitraries.js';
import { readTemplateFiles } from './feed-fixture.js';
import { exactXmlParser, strictXmlErrors } from './xml-test-helpers.js';

const feeds = loadTemplates(readTemplateFiles());
const XML_FEEDS = feeds.filter((feed) => feed.kind === 'xml');

function feed(name: string): CompiledFeed {
  const found = feeds.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no feed ${name}`);
  return found;
}

// Characters cleanText must have removed: if any survives, a strict parser would reject the document.
const FORBIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point.
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A channel value on one line: cleaned, whitespace runs as one space, ends trimmed. */
function oneLine(raw: string): string {
  return cleanText(raw).replace(/\s+/g, ' ').trim();
}

/**
 * The documented text pipeline: clean, one line (whitespace runs, tabs and line breaks become one space;
 * ends trimmed), then cut to `max` characters at the last word boundary, unless that keeps under 60 % of
 * `max` (one very long word): then at `max`.
 */
function expectedText(raw: string, max?: number): string {
  const clean = oneLine(raw);
  if (max === undefined || countCodePoints(clean) <= max) return clean;
  const cut = truncateText(clean, max);
  if (clean.charAt(cut.length) === ' ') return cut.trimEnd();
  const space = cut.lastIndexOf(' ');
  return space > 0 && countCodePoints(cut.slice(0, space)) >= max * 0.6 ? cut.slice(0, space).trimEnd() : cut;
}

/** The documented URL pipeline: `url` filter, then a `drop` length rule. */
function expectedUrl(raw: string | undefined, max: number): string | undefined {
  const encoded = raw === undefined ? undefined : encodeUrl(raw);
  return encoded === undefined || encoded === '' || countCodePoints(encoded) > max ? undefined : encoded;
}

/** What `{title}` gives: the enrichment sheet's title, else the POS name. */
function titleOf(item: FeedItem): string {
  return item.enrichment?.title ?? item.name;
}

/** What `{description|or:title}` gives. */
function describedBy(item: FeedItem): string {
  const description = item.enrichment?.description;
  return description === undefined || description === '' ? titleOf(item) : description;
}

/** Whether the sheet's `exclude` column leaves the item out of `feedName`. */
function excludedFrom(item: FeedItem, feedName: string): boolean {
  return item.enrichment?.exclude?.some((name) => name === '*' || name === feedName) === true;
}

function asArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function render(compiled: CompiledFeed, context: FeedContext, items: readonly FeedItem[]) {
  return collectFeed(compiled.render(context, items));
}

// FEED_PROPERTY_RUNS=5000 for a deeper search before a release.
const RUNS = { numRuns: Number(process.env['FEED_PROPERTY_RUNS'] ?? 150) };

// A generous per-test limit: the run count is configurable, and a slow CI machine must not fail a property.
describe('feeds: properties on hostile catalogs', { timeout: 600_000 }, () => {
  it('every XML feed is well-formed (strict parsers) whatever the POS sends, ids included', () => {
    fc.assert(
      fc.property(hostileContext, catalog(false), (context, items) => {
        for (const compiled of XML_FEEDS) {
          const { body, report } = render(compiled, context, items);
          const xml = body.toString('utf8');
          expect(XMLValidator.validate(xml)).toBe(true);
          expect(strictXmlErrors(xml)).toEqual([]);
          expect(FORBIDDEN.test(xml)).toBe(false);
          expect(report.items + report.filtered + report.outOfStock + report.dropped + report.excluded).toBe(items.length);
        }
      }),
      RUNS,
    );
  });

  it('google.xml gives back every text value (after cleaning and truncation) and keeps exactly the valid items', () => {
    fc.assert(
      fc.property(hostileContext, catalog(true), (context, items) => {
        const parsed = exactXmlParser.parse(render(feed('google'), context, items).body.toString('utf8'));
        const channel = parsed.rss.channel;
        expect(channel.title).toBe(expectedText(context.unitName));
        const rendered = asArray<Record<string, string>>(channel.item);
        const expectedIds = items
          .filter(
            (item) =>
              !excludedFrom(item, 'google') &&
              oneLine(titleOf(item)) !== '' &&
              oneLine(describedBy(item)) !== '' &&
              item.price !== undefined &&
              item.price > 0 &&
              expectedUrl(item.link, 2000) !== undefined &&
              expectedUrl(item.imageLink, 2000) !== undefined,
          )
          .map((item) => item.id);
        expect(rendered.map((entry) => entry['g:id'])).toEqual(expectedIds);
        for (const entry of rendered) {
          const item = items.find((candidate) => candidate.id === entry['g:id']) as FeedItem;
          expect(entry['title']).toBe(expectedText(titleOf(item), 150));
          expect(entry['description']).toBe(expectedText(describedBy(item), 5000));
          expect(entry['link']).toBe(expectedUrl(item.link, 2000));
          expect(entry['g:image_link']).toBe(expectedUrl(item.imageLink, 2000));
          expect(entry['g:price']).toBe(`${formatMoney(item.price as number)} ${context.currency}`);
          const sale = item.salePrice !== undefined && item.salePrice < (item.price as number) ? item.salePrice : undefined;
          expect(entry['g:sale_price']).toBe(sale === undefined ? undefined : `${formatMoney(sale)} ${context.currency}`);
          expect(entry['g:availability']).toBe(item.availability);
          const category = item.enrichment?.category;
          const productType = category === undefined ? '' : expectedText(category, 750);
          expect(entry['g:product_type']).toBe(productType === '' ? undefined : productType);
          const brandOf = item.enrichment?.brand ?? context.brand;
          const brand = brandOf === undefined ? '' : expectedText(brandOf, 70);
          expect(entry['g:brand']).toBe(brand === '' ? undefined : brand);
          const images = (item.enrichment?.additionalImageLinks ?? []).flatMap((link) => expectedUrl(link, 2000) ?? []);
          expect(asArray(entry['g:additional_image_link'])).toEqual(images);
        }
      }),
      RUNS,
    );
  });

  it('heureka, its availability feed and zbozi give back names, depot ids and quantities', () => {
    fc.assert(
      fc.property(hostileContext, catalog(true), (context, items) => {
        const heureka = asArray<Record<string, string>>(
          exactXmlParser.parse(render(feed('heureka'), context, items).body.toString()).SHOP?.SHOPITEM,
        );
        for (const entry of heureka) {
          const item = items.find((candidate) => candidate.id === entry['ITEM_ID']) as FeedItem;
          expect(item.availability).toBe('in_stock');
          expect(excludedFrom(item, 'heureka')).toBe(false);
          expect(entry['PRODUCTNAME']).toBe(expectedText(titleOf(item), 200));
          expect(entry['PRICE_VAT']).toBe(formatMoney(finalPrice(item)));
        }
        const zbozi = asArray<Record<string, unknown>>(
          exactXmlParser.parse(render(feed('zbozi'), context, items).body.toString()).SHOP?.SHOPITEM,
        );
        for (const entry of zbozi) {
          const item = items.find((candidate) => candidate.id === entry['ITEM_ID']) as FeedItem;
          expect(entry['PRODUCTNAME']).toBe(expectedText(titleOf(item), 255));
          const depots = item.offers
            .filter((offer) => offer.availability === 'in_stock')
            .map((offer) => oneLine(offer.storeCode))
            .filter((code) => code !== '');
          expect(asArray(entry['SHOP_DEPOTS'] as string | string[] | undefined)).toEqual(depots);
        }
        const availability = exactXmlParser.parse(render(feed('heureka-availability'), context, items).body.toString());
        for (const entry of asArray<Record<string, unknown>>(availability.item_list?.item)) {
          const item = items.find((candidate) => candidate.id === entry['@id']) as FeedItem;
          expect(item.isStockItem).toBe(true);
          const depots = asArray(entry['depot'] as Record<string, string>[] | undefined);
          // A depot without a known stock has nothing to say and is left out (optional); one without a store code is warned about.
          const expected = item.offers.filter((offer) => offer.stock !== undefined && oneLine(offer.storeCode) !== '');
          expect(depots.map((depot) => depot['@id'])).toEqual(expected.map((offer) => oneLine(offer.storeCode)));
          for (const [index, depot] of depots.entries()) {
            const quantity = expected[index]?.stock;
            const whole = quantity === undefined ? undefined : quantity <= 0 ? 0 : Math.max(1, Math.floor(quantity));
            expect(depot['stock_quantity']).toBe(whole === undefined ? undefined : String(whole));
          }
        }
      }),
      RUNS,
    );
  });

  it('products.csv round-trips through csv-parse in both profiles (after the documented Excel neutralisation)', () => {
    fc.assert(
      fc.property(hostileContext, catalog(false), fc.constantFrom<CsvProfile>('rfc4180', 'excel'), (context, items, profile) => {
        const units = ['PRG', 'BRN'];
        const { body } = collectFeed(renderCsvFeed(context, items, { profile, unitColumns: units }));
        const excel = profile === 'excel';
        const rows: string[][] = parse(body, { bom: true, delimiter: excel ? ';' : ',' });
        expect(rows).toHaveLength(items.length + 1);
        expect(rows[0]).toEqual([...PRODUCT_COLUMNS.map((column) => column.header), 'stock:PRG', 'stock:BRN']);
        const separator = excel ? ',' : '.';
        // The documented Excel rules, written out independently of the implementation.
        const text = (value: string | undefined): string => {
          const clean = value === undefined ? '' : cleanText(value);
          return excel && /^[=+\-@\t\r]/.test(clean) ? `'${clean}` : clean;
        };
        const code = (value: string | undefined): string => {
          const clean = value === undefined ? '' : cleanText(value);
          return excel && /^[0-9][0-9.,:/ eE+-]*$/.test(clean) ? `="${clean}"` : text(clean);
        };
        const number = (value: number | undefined) => (value === undefined ? '' : (formatPlainNumber(value, separator) ?? ''));
        const amount = (value: number | undefined) => (value === undefined ? '' : (formatMoney(value, separator) ?? ''));
        items.forEach((item, index) => {
          expect(rows[index + 1]).toEqual([
            code(item.id),
            text(item.name),
            code(item.ean),
            number(item.plu),
            code(item.internalIdentifier),
            code(item.groupId),
            text(item.measureUnit),
            amount(item.price),
            amount(item.salePrice),
            amount(item.standardPrice),
            text(context.currency),
            number(item.stock),
            item.availability,
            text(item.link),
            text(item.imageLink),
            text(item.enrichment?.title),
            text(item.enrichment?.description),
            text(item.enrichment?.brand),
            text(item.enrichment?.category),
            text(item.enrichment?.googleProductCategory),
            text(item.enrichment?.heurekaCategory),
            text(item.enrichment?.zboziCategory),
            text(item.enrichment?.additionalImageLinks?.join(' ')),
            text(item.enrichment?.customLabel0),
            text(item.enrichment?.customLabel1),
            text(item.enrichment?.customLabel2),
            text(item.enrichment?.customLabel3),
            text(item.enrichment?.customLabel4),
            text(item.enrichment?.exclude?.join(',')),
            ...units.map((unit) => number(item.offers.find((offer) => offer.unit === unit)?.stock)),
          ]);
        });
      }),
      RUNS,
    );
  });

  it('meta.csv round-trips titles and descriptions; local-inventory.tsv keeps one record per line', () => {
    fc.assert(
      fc.property(hostileContext, catalog(true), (context, items) => {
        const rows: string[][] = parse(render(feed('meta'), context, items).body, { columns: false });
        const [header, ...records] = rows;
        expect(header?.[1]).toBe('title');
        for (const record of records) {
          const item = items.find((candidate) => candidate.id === record[0]) as FeedItem;
          expect(record[1]).toBe(expectedText(titleOf(item), 200));
          expect(record[2]).toBe(expectedText(describedBy(item), 9999));
        }
        const tsv = render(feed('google-local-inventory'), context, items);
        const lines = tsv.body.toString('utf8').split('\n');
        expect(lines.pop()).toBe('');
        expect(lines).toHaveLength(tsv.report.records + 1);
        for (const line of lines) expect(line.split('\t')).toHaveLength(6);
        const flat = oneLine;
        const listed = items.filter((item) => !excludedFrom(item, 'google-local-inventory'));
        const expectedRows = listed.flatMap((item) =>
          item.offers.filter((offer) => oneLine(offer.storeCode) !== '').map((offer) => [flat(offer.storeCode), item.id]),
        );
        expect(lines.slice(1).map((line) => line.split('\t').slice(0, 2))).toEqual(expectedRows);
      }),
      RUNS,
    );
  });

  it('products.json parses back to the exact catalog text, lone surrogates included', () => {
    fc.assert(
      fc.property(hostileContext, catalog(false), (context, items) => {
        const parsed = JSON.parse(collectFeed(renderJsonFeed(context, items)).body.toString('utf8'));
        // The published shape (its JSON Schema is served at /schemas/products.schema.json).
        expect(ProductsFeedSchema.safeParse(parsed).error).toBeUndefined();
        expect(parsed.count).toBe(items.length);
        expect(parsed.version).toBe(context.version);
        parsed.items.forEach((entry: Record<string, unknown>, index: number) => {
          const item = items[index] as FeedItem;
          expect(entry['id']).toBe(item.id);
          expect(entry['name']).toBe(item.name);
          expect(entry['ean']).toBe(item.ean);
          expect(entry['price']).toBe(item.price);
          // JSON has no negative zero.
          expect(entry['stock']).toBe(item.stock === undefined ? undefined : item.stock + 0);
          expect((entry['offers'] as unknown[]).length).toBe(item.offers.length);
        });
      }),
      RUNS,
    );
  });
});

/** What a buyer pays: the sale price when below the price, else the price. */
function finalPrice(item: FeedItem): number {
  const price = item.price as number;
  return item.salePrice !== undefined && item.salePrice < price ? item.salePrice : price;
}
