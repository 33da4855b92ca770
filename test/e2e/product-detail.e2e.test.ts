import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { createTestConfig } from '../helpers/test-config.js';

/**
 * A product's page and API against the real app and the sandbox POS: products without an internal
 * identifier get no link (FEED_PRODUCT_URL names `{internalIdentifier}`) and are left out of the feeds that
 * require one; products sold out in a unit are left out of Heureka's feed of that unit; products with
 * neither EAN nor brand are left out of Meta's; and an included item's text is found, exactly, in the
 * feed the bridge serves.
 */

const logger = pino({ level: 'silent' });

interface ApiFeed {
  readonly feed: string;
  readonly file: string;
  readonly view: string;
  readonly url: string;
  readonly included: boolean;
  readonly text?: string;
  readonly reason?: { readonly code: string; readonly rule: string; readonly attribute?: string; readonly message: string };
}

interface MatchedRow {
  readonly row: number;
  readonly key: string;
  readonly code: string;
}

interface ApiProduct {
  readonly product: { readonly id: string; readonly internalIdentifier?: string; readonly ean?: string };
  readonly offers: readonly { readonly unit: string; readonly availability: string; readonly storeCode?: string }[];
  readonly sources: readonly {
    readonly unit: string;
    readonly priceList: { readonly present: boolean | null; readonly row?: MatchedRow | null };
    readonly stock: { readonly present: boolean | null; readonly row?: MatchedRow | null };
    readonly priceFrom?: string;
    readonly lastSale: { readonly receipt?: string; readonly how: string; readonly delta?: number } | null;
  }[];
  readonly feeds: readonly ApiFeed[];
}

interface FeedItem {
  readonly id: string;
  readonly ean?: string;
  readonly internalIdentifier?: string;
  readonly isStockItem?: boolean;
  readonly offers: readonly { readonly unit: string; readonly availability: string; readonly stock?: number }[];
}

async function get(url: string): Promise<{ status: number; text: string; type: string }> {
  const response = await request(url);
  const text = await response.body.text();
  return { status: response.statusCode, text, type: String(response.headers['content-type'] ?? '') };
}

function feedOf(product: ApiProduct, file: string, view: string): ApiFeed {
  const found = product.feeds.find((feed) => feed.file === file && feed.view === view);
  if (found === undefined) throw new Error(`no ${file} in view ${view}`);
  return found;
}

/** How many times `part` occurs in `text`. */
function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('the product detail against the sandbox', () => {
  let app: RunningApp;
  let items: FeedItem[] = [];

  async function product(id: string, query = ''): Promise<ApiProduct> {
    const { status, text } = await get(`${app.url}/api/products/${encodeURIComponent(id)}${query}`);
    expect(status).toBe(200);
    return JSON.parse(text) as ApiProduct;
  }

  beforeAll(async () => {
    app = await startApp(
      createTestConfig({
        SANDBOX_ARTICLES: '120',
        SANDBOX_SALES_PER_MINUTE: '0',
        FEED_PRODUCT_URL: 'https://shop.example.cz/p/{internalIdentifier}',
      }),
      { logger },
    );
    await app.initialSync;
    items = (JSON.parse((await get(`${app.url}/feeds/all/products.json`)).text) as { items: FeedItem[] }).items;
  });
  afterAll(() => app?.stop());

  it('says a product without an internal identifier has no link, so Heureka and Google leave it out', async () => {
    const noLink = items.find((item) => item.internalIdentifier === undefined);
    expect(noLink).toBeDefined();
    const view = await product(noLink?.id ?? '');

    expect(feedOf(view, 'heureka.xml', 'all')).toMatchObject({
      included: false,
      reason: { code: 'missing', rule: 'required', attribute: 'URL' },
    });
    expect(feedOf(view, 'google.xml', 'all')).toMatchObject({ included: false, reason: { code: 'missing', attribute: 'link' } });
    // The built-in feeds carry every product of the view.
    expect(feedOf(view, 'products.json', 'all').included).toBe(true);
  });

  it('says a product sold out in a unit is left out of that unit’s Heureka feed by its stock policy', async () => {
    const soldOut = items.find(
      (item) =>
        item.isStockItem !== false && item.offers.some((offer) => offer.unit === 'U1' && offer.availability === 'out_of_stock'),
    );
    expect(soldOut).toBeDefined();
    const view = await product(soldOut?.id ?? '', '?unit=U1');

    expect(view.feeds.every((feed) => feed.view === 'U1')).toBe(true);
    expect(feedOf(view, 'heureka.xml', 'U1')).toMatchObject({
      included: false,
      reason: { code: 'out-of-stock', rule: 'stockPolicy' },
    });
  });

  it('says a product with neither a GTIN nor a brand is left out of Meta’s feed by its require check', async () => {
    const noEan = items.find((item) => item.ean === undefined && item.internalIdentifier !== undefined);
    expect(noEan).toBeDefined();
    const view = await product(noEan?.id ?? '');

    expect(feedOf(view, 'meta.csv', 'all')).toMatchObject({
      included: false,
      reason: { code: 'missing', rule: 'required', attribute: 'brand|gtin' },
    });
  });

  it('shows an included item exactly as the served feed carries it', async () => {
    const inStock = items.find(
      (item) => item.internalIdentifier !== undefined && item.offers.every((offer) => offer.availability === 'in_stock'),
    );
    expect(inStock).toBeDefined();
    const view = await product(inStock?.id ?? '');
    const checked = ['heureka.xml', 'google.xml', 'zbozi.xml', 'products.csv', 'products.json', 'shoptet.xml'];
    for (const file of checked) {
      const verdict = feedOf(view, file, 'all');
      expect(verdict.included, file).toBe(true);
      const body = (await get(verdict.url)).text;
      expect(verdict.text?.length, file).toBeGreaterThan(20);
      expect(occurrences(body, verdict.text ?? ''), file).toBe(1);
    }
  });

  it('gives values per unit, store codes and sources named by key, and never a purchase price', async () => {
    const first = items[0] as FeedItem;
    const { text } = await get(`${app.url}/api/products/${first.id}`);
    const view = JSON.parse(text) as ApiProduct;

    expect(view.offers.map((offer) => offer.unit)).toEqual(['all', ...first.offers.map((offer) => offer.unit)]);
    expect(view.offers.find((offer) => offer.unit === 'U1')?.storeCode).toBe('U1');
    expect(view.sources.every((source) => source.priceList.present === true)).toBe(true);
    // The sandbox's price lists key on the internal identifier, else the PLU; its exports have a header line.
    const codes = [view.product.internalIdentifier, String((view.product as { plu?: number }).plu)];
    for (const source of view.sources) {
      expect(source.priceList.row?.row, source.unit).toBeGreaterThan(0);
      expect(codes, source.unit).toContain(source.priceList.row?.code);
      expect(source.priceFrom, source.unit).toBe('price-list');
      expect(source.stock.row?.row, source.unit).toBeGreaterThan(1);
    }
    expect(text).not.toMatch(/purchase/i);
  });

  it('renders the page with the reasons in Czech, and a 404 page for an unknown id', async () => {
    const noLink = items.find((item) => item.internalIdentifier === undefined) as FeedItem;
    const page = await get(`${app.url}/products/${noLink.id}?lang=cs`);

    expect(page.status).toBe(200);
    expect(page.type).toContain('text/html');
    expect(page.text).toMatch(
      /<li id="feed-heureka.xml-all" class="left-out">(?:(?!<\/li>)[\s\S])*?Chybí URL(?:(?!<\/li>)[\s\S])*?href="\/docs\/report-codes#missing"/,
    );
    expect(page.text).toContain('<table id="offers">');

    const missing = await get(`${app.url}/products/no-such-product`);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('id="back-to-search"');
  });

  it('names the sale webhook that changed the stock last, with its receipt, unit and movement', async () => {
    const sold = items.find((item) =>
      item.offers.some((offer) => offer.unit === 'U2' && Number.isInteger(offer.stock) && (offer.stock ?? 0) >= 3),
    );
    expect(sold).toBeDefined();
    const sale = await app.sandbox?.makeSale({ unitCode: 'U2', lines: [{ localId: sold?.id ?? '', count: 1 }] });
    if (sale === undefined) throw new Error('no sandbox');
    const event = { timestamp: sale.createdAt, event: 'accounting.receipt.sale', data: sale.receipt };
    const posted = await fetch(`${app.url}/webhooks/pos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sandbox-key' },
      body: JSON.stringify(event),
    });
    expect(posted.status).toBe(200);
    await app.webhooks.idle();

    const view = await product(sold?.id ?? '');
    expect(view.sources.find((source) => source.unit === 'U2')?.lastSale).toMatchObject({
      receipt: sale.receipt.localId,
      how: 'movements',
      delta: -1,
    });
    expect(view.sources.find((source) => source.unit === 'U1')?.lastSale).toBeNull();
  });

  it('answers 404 for an unknown id and 400 for a bad or unknown unit', async () => {
    const unknown = await get(`${app.url}/api/products/no-such-product`);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toMatchObject({ error: { code: 'UNKNOWN_PRODUCT' } });

    const id = (items[0] as FeedItem).id;
    for (const query of ['?unit=NOPE', '?unit=a/b', '?unit=U1&unit=U2']) {
      const bad = await get(`${app.url}/api/products/${id}${query}`);
      expect(bad.status, query).toBe(400);
      expect(JSON.parse(bad.text)).toMatchObject({ error: { code: 'BAD_QUERY' } });
    }
  });
});
