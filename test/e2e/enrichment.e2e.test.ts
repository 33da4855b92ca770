import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'csv-parse/sync';
import { XMLParser } from 'fast-xml-parser';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { ProductsFeedSchema } from '../../src/core/feeds/json-feed-schema.js';
import { createSandboxCatalog, type SandboxArticle } from '../../src/sandbox/sandbox-catalog.js';
import { createTestConfig } from '../helpers/test-config.js';

/**
 * The bridge with the sandbox POS and a marketer's sheet served over real HTTP (Excel's dialect: `;`, BOM):
 * every channel feed carries the sheet's values (Google's categories, Heureka's and Zboží's CATEGORYTEXT,
 * Meta's brands), a changed sheet publishes a new version (ETag and changes feed), and a broken one leaves
 * the last good sheet in use with the problem reported.
 */

const logger = pino({ level: 'silent' });
const ARTICLES = 300;
const sandbox = createSandboxCatalog({ seed: 42, units: 3, articles: ARTICLES });
const articles: SandboxArticle[] = Array.from({ length: ARTICLES }, (_, index) => sandbox.articleAt(index));
const groups = [...new Set(articles.flatMap((article) => (article.localGroupId === undefined ? [] : [article.localGroupId])))];
const grouped = articles.filter((article) => article.localGroupId !== undefined);
const ungrouped = articles.filter((article) => article.localGroupId === undefined);
const first = grouped[0] as SandboxArticle;
const second = grouped[1] as SandboxArticle;
const third = grouped[2] as SandboxArticle;

const HEADER =
  'id;title;description;brand;category;google_product_category;heureka_category;zbozi_category;additional_image_link;custom_label_0;link;exclude';

/**
 * One row per article group (categories and a brand for all), rows for three products (the first with a
 * brand of its own over its group's), and a brand for each article outside any group.
 */
function sheet(firstTitle: string): string {
  const groupRows = groups.map(
    (group, n) =>
      `group:${group};;;Značka ${n};Potraviny > Skupina ${n};${412 + n};Heureka.cz | Jídlo a nápoje | Skupina ${n};Jídlo | Skupina ${n};;;;`,
  );
  const rows = [
    `${first.localId};${firstTitle};"Popis; s novým
řádkem";Vlastní značka;;;;;https://shop.example.cz/img/a.jpg https://shop.example.cz/img/b.jpg;bestseller;;`,
    `${second.localId};;;;;;;;;;;heureka`,
    // A bad URL: this cell is ignored and reported, the row's other cells apply.
    `${third.localId};Třetí produkt;;;;;;;;;not a url;`,
    ...ungrouped.map((article) => `${article.localId};;;Značka bez skupiny;;;;;;;;`),
  ];
  return `\uFEFF${[HEADER, ...groupRows, ...rows].join('\r\n')}\r\n`;
}

let served = { status: 200, body: sheet('Káva z listu'), etag: '"s1"' };
let server: Server;
let sheetUrl = '';

function handle(req: IncomingMessage, res: ServerResponse): void {
  if (served.status === 200 && req.headers['if-none-match'] === served.etag) {
    res.writeHead(304, { etag: served.etag }).end();
    return;
  }
  res.writeHead(served.status, { 'content-type': 'text/csv; charset=utf-8', etag: served.etag });
  res.end(served.status === 200 ? served.body : 'error');
}

async function get(url: string): Promise<{ status: number; etag: string | undefined; text: string }> {
  const response = await request(url);
  const etag = response.headers['etag'];
  return { status: response.statusCode, etag: Array.isArray(etag) ? etag[0] : etag, text: await response.body.text() };
}

const xml = new XMLParser({
  ignoreAttributes: false,
  parseTagValue: false,
  isArray: (name) => name === 'item' || name === 'SHOPITEM' || name === 'g:additional_image_link',
});

describe('enrichment sheet end to end (sandbox POS, sheet over HTTP)', () => {
  let app: RunningApp;

  beforeAll(async () => {
    server = createServer(handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    sheetUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sheet.csv`;
    app = await startApp(
      createTestConfig({
        SANDBOX_ARTICLES: String(ARTICLES),
        SANDBOX_SALES_PER_MINUTE: '0',
        ENRICHMENT_SOURCE: sheetUrl,
      }),
      { logger },
    );
    await app.initialSync;
  });

  afterAll(async () => {
    await app?.stop();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('Google: product_type and google_product_category where mapped, the sheet title, description and extra images', async () => {
    const { text } = await get(`${app.url}/feeds/all/google.xml`);
    const items = xml.parse(text).rss.channel.item as Record<string, unknown>[];
    const byId = new Map(items.map((item) => [String(item['g:id']), item]));
    const mapped = items.filter((item) => articles.find((a) => a.localId === String(item['g:id']))?.localGroupId !== undefined);
    expect(mapped.length).toBeGreaterThan(0);
    for (const item of mapped) {
      expect(String(item['g:product_type'])).toMatch(/^Potraviny > Skupina \d+$/);
      expect(String(item['g:google_product_category'])).toMatch(/^\d+$/);
      expect(String(item['g:brand'])).toMatch(/^(Značka \d+|Vlastní značka)$/);
    }
    const enriched = byId.get(first.localId);
    expect(enriched?.['title']).toBe('Káva z listu');
    // The product's own row overrides its group's brand; its group's categories stay.
    expect(enriched?.['g:brand']).toBe('Vlastní značka');
    expect(String(enriched?.['g:product_type'])).toMatch(/^Potraviny > Skupina \d+$/);
    expect(enriched?.['description']).toBe('Popis; s novým řádkem');
    expect(enriched?.['g:additional_image_link']).toEqual([
      'https://shop.example.cz/img/a.jpg',
      'https://shop.example.cz/img/b.jpg',
    ]);
    expect(enriched?.['g:custom_label_0']).toBe('bestseller');
    // The bad link was ignored: the item keeps the link the sandbox's template gives it.
    expect(String(byId.get(third.localId)?.['link'])).toContain('/sandbox/products/');
    expect(byId.get(third.localId)?.['title']).toBe('Třetí produkt');
  });

  it('Heureka and Zboží: CATEGORYTEXT and MANUFACTURER; the excluded product is left out of Heureka only', async () => {
    const heureka = xml.parse((await get(`${app.url}/feeds/all/heureka.xml`)).text).SHOP.SHOPITEM as Record<string, unknown>[];
    const zbozi = xml.parse((await get(`${app.url}/feeds/all/zbozi.xml`)).text).SHOP.SHOPITEM as Record<string, unknown>[];
    expect(heureka.length).toBeGreaterThan(0);
    const inGroup = (item: Record<string, unknown>) => grouped.some((article) => article.localId === item['ITEM_ID']);
    for (const item of heureka.filter(inGroup)) {
      expect(String(item['CATEGORYTEXT'])).toMatch(/^Heureka\.cz \| Jídlo a nápoje \| Skupina \d+$/);
      expect(String(item['MANUFACTURER'])).toMatch(/^(Značka \d+|Vlastní značka)$/);
    }
    for (const item of zbozi.filter(inGroup)) expect(String(item['CATEGORYTEXT'])).toMatch(/^Jídlo \| Skupina \d+$/);
    expect(heureka.some((item) => item['ITEM_ID'] === second.localId)).toBe(false);
    const googleText = (await get(`${app.url}/feeds/all/google.xml`)).text;
    expect(googleText).toContain(`<g:id>${second.localId}</g:id>`);
  });

  it('Meta: no item is left out for a missing brand when every group has one', async () => {
    const rows: string[][] = parse((await get(`${app.url}/feeds/all/meta.csv`)).text);
    expect(rows.length).toBeGreaterThan(1);
    const feeds = JSON.parse((await get(`${app.url}/feeds`)).text) as {
      feeds: { feed: string; unit: string; warnings?: { byAttribute: Record<string, number> } }[];
    };
    const meta = feeds.feeds.find((entry) => entry.feed === 'meta' && entry.unit === 'all');
    expect(meta?.warnings?.byAttribute['brand|gtin'] ?? 0).toBe(0);
  });

  it('products.json carries every enriched field and matches its published schema', async () => {
    const parsed = JSON.parse((await get(`${app.url}/feeds/all/products.json`)).text);
    expect(ProductsFeedSchema.safeParse(parsed).error).toBeUndefined();
    const item = (parsed.items as Record<string, unknown>[]).find((entry) => entry['id'] === first.localId);
    expect(item).toMatchObject({
      title: 'Káva z listu',
      description: 'Popis; s novým\nřádkem',
      category: expect.stringMatching(/^Potraviny > Skupina/),
      additionalImageLinks: ['https://shop.example.cz/img/a.jpg', 'https://shop.example.cz/img/b.jpg'],
      customLabel0: 'bestseller',
    });
  });

  it('reports the sheet in use with its ignored cell, and each feed readiness', async () => {
    const feeds = JSON.parse((await get(`${app.url}/feeds`)).text);
    expect(feeds.enrichment.current.check).toMatchObject({
      ok: true,
      keyColumn: 'id',
      rows: 3 + ungrouped.length,
      groups: groups.length,
    });
    expect(feeds.enrichment.current.check.problems).toEqual([
      expect.objectContaining({ column: 'link', line: groups.length + 5, code: 'invalid-value' }),
    ]);
    const google = feeds.feeds.find((entry: { feed: string; unit: string }) => entry.feed === 'google' && entry.unit === 'all');
    expect(google.readiness.complete).toBe(1);
    expect(google.readiness.missing.description).toBeGreaterThan(0);
    const report = app.catalog.lastReport('sync-catalog');
    // A row naming an article that is not for sale (so no product) is unmatched, never guessed.
    const products = new Set(app.catalog.current()?.products.map((product) => product.id));
    const named = [first, second, third, ...ungrouped].map((article) => article.localId);
    const matched = named.filter((id) => products.has(id)).length;
    expect(report?.sources?.enrichment).toMatchObject({ matched, unmatched: named.length - matched, groupsUnmatched: 0 });
  });

  it('a changed sheet publishes a new version: the feed ETag moves and changes.json names the item', async () => {
    const before = app.catalog.current()?.version as string;
    const feedBefore = await get(`${app.url}/feeds/all/google.xml`);
    served = { status: 200, body: sheet('Káva, nový název'), etag: '"s2"' };
    await app.jobs.runNow('sync-enrichment');
    await expect.poll(() => app.catalog.current()?.version, { timeout: 30_000 }).not.toBe(before);

    const feedAfter = await get(`${app.url}/feeds/all/google.xml`);
    expect(feedAfter.etag).not.toBe(feedBefore.etag);
    expect(feedAfter.text).toContain('<title>Káva, nový název</title>');
    const changes = JSON.parse((await get(`${app.url}/feeds/all/changes.json?since=${encodeURIComponent(before)}`)).text);
    expect(changes.changes).toEqual([expect.objectContaining({ id: first.localId, change: 'changed', fields: ['details'] })]);
  });

  it('a sale keeps the sheet values of the item it changes, in the feeds and in changes.json', async () => {
    type Item = { id: string; stock?: number; category?: string; brand?: string };
    const unitItems = async (): Promise<Item[]> => JSON.parse((await get(`${app.url}/feeds/U1/products.json`)).text).items;
    const item = (await unitItems()).find((entry) => Number.isInteger(entry.stock) && (entry.stock ?? 0) >= 1 && entry.category);
    if (item === undefined) throw new Error('no enriched item with stock in U1');
    const before = app.catalog.current()?.version as string;
    await app.sandbox?.makeSale({ unitCode: 'U1', lines: [{ localId: item.id, count: 1 }] });
    await expect
      .poll(async () => (await unitItems()).find((entry) => entry.id === item.id)?.stock, { timeout: 10_000 })
      .toBe((item.stock ?? 0) - 1);

    const after = (await unitItems()).find((entry) => entry.id === item.id);
    expect(after).toMatchObject({ category: item.category, brand: item.brand });
    const changes = JSON.parse((await get(`${app.url}/feeds/U1/changes.json?since=${encodeURIComponent(before)}`)).text);
    const change = changes.changes.find((entry: { id: string }) => entry.id === item.id);
    expect(change).toMatchObject({ change: 'changed', item: { category: item.category, brand: item.brand } });
    expect(change.fields).not.toContain('details');
    // The served products hold the values only in the version's chunks (docs/decisions/0011-enrichment-sheet.md#memory).
    expect(app.catalog.current()?.products.find((product) => product.id === item.id)?.enrichment).toBeUndefined();
  });

  it('a sheet that fails keeps the last good one in use and says so in /readyz and on the status page', async () => {
    const version = app.catalog.current()?.version;
    served = { status: 500, body: '', etag: '"broken"' };
    await app.jobs.runNow('sync-enrichment');
    const readyz = JSON.parse((await get(`${app.url}/readyz`)).text);
    expect(readyz.warnings).toContainEqual(expect.stringContaining('ENRICHMENT_HTTP_STATUS'));
    expect(readyz.enrichment.problem.code).toBe('ENRICHMENT_HTTP_STATUS');
    // No token guards /readyz: it names the problem, never the sheet's cells.
    expect(readyz.enrichment.current).not.toHaveProperty('check');
    const page = (await get(`${app.url}/`)).text;
    expect(page).toContain('Last read failed (ENRICHMENT_HTTP_STATUS)');
    expect(page).toMatch(/Last full sync: \d+ of \d+ product rows matched/);
    expect(app.catalog.current()?.version).toBe(version);
    expect((await get(`${app.url}/feeds/all/google.xml`)).text).toContain('<title>Káva, nový název</title>');
  });
});
