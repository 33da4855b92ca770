import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { XMLValidator } from 'fast-xml-parser';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { ChangesFeedSchema, ProductsFeedSchema } from '../../src/core/feeds/json-feed-schema.js';
import { createTestConfig } from '../helpers/test-config.js';

const logger = pino({ level: 'silent' });

/** Raw HTTP (no automatic decoding), so the encoded bytes on the wire are what is checked. */
async function get(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  const response = await request(url, { method, headers });
  const body = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, headers: response.headers, body };
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

describe('feeds over HTTP from the sandbox', () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp(createTestConfig({ SANDBOX_ARTICLES: '200', SANDBOX_SALES_PER_MINUTE: '0' }), { logger });
    await app.initialSync;
  });
  afterAll(() => app?.stop());

  const FEEDS = [
    '/feeds/all/products.json',
    '/feeds/U1/products.json',
    '/feeds/all/products.csv',
    '/feeds/U2/products.csv?profile=excel',
    '/feeds/all/google.xml',
    '/feeds/U1/google.xml',
    '/feeds/local-inventory.tsv',
    '/feeds/all/heureka.xml',
    '/feeds/all/heureka-availability.xml',
    '/feeds/U3/zbozi.xml',
    '/feeds/all/meta.csv',
    '/feeds/all/shoptet.xml',
    '/feeds/U1/woocommerce.csv',
    '/feeds/U2/prestashop.csv',
    '/feeds/all/shopify-inventory.csv',
    '/feeds/all/changes.json',
  ];

  it.each(FEEDS)('%s: identity, gzip and br bodies are the same bytes, with validators', async (path) => {
    const plain = await get(`${app.url}${path}`, { 'accept-encoding': 'identity' });
    const gzip = await get(`${app.url}${path}`, { 'accept-encoding': 'gzip' });
    const br = await get(`${app.url}${path}`, { 'accept-encoding': 'br' });

    expect(plain.status).toBe(200);
    expect(Number(header(plain.headers, 'content-length'))).toBe(plain.body.length);
    expect(header(gzip.headers, 'content-encoding')).toBe('gzip');
    expect(header(br.headers, 'content-encoding')).toBe('br');
    // Buffer#equals, not toEqual: vitest walks a Buffer as an iterable, key by key (10 s of CPU over these feeds).
    expect(gunzipSync(gzip.body).equals(plain.body), 'gzip inflates to the identity body').toBe(true);
    expect(brotliDecompressSync(br.body).equals(plain.body), 'br decompresses to the identity body').toBe(true);
    for (const response of [plain, gzip, br]) {
      expect(header(response.headers, 'etag')).toMatch(/^"v-[^"]+"$/);
      expect(header(response.headers, 'last-modified')).toBeDefined();
      expect(header(response.headers, 'x-catalog-version')).toBe(app.catalog.current()?.version);
      expect(header(response.headers, 'vary')).toBe('Accept-Encoding');
    }
    expect(new Set([plain, gzip, br].map((r) => header(r.headers, 'etag'))).size).toBe(3);
  });

  it.each(FEEDS.filter((path) => path.endsWith('.xml')))('%s is well-formed XML', async (path) => {
    const { body } = await get(`${app.url}${path}`);

    expect(XMLValidator.validate(body.toString('utf8'))).toBe(true);
  });

  it('gives google.xml its channel link (RSS 2.0 requires one) even without PUBLIC_BASE_URL', async () => {
    const { body } = await get(`${app.url}/feeds/all/google.xml`);
    // The documented default, http://localhost:PORT (this test's configured PORT is 0: any free port).
    expect(body.toString('utf8')).toMatch(/<channel>[\s\S]*?<link>http:\/\/localhost:0<\/link>/);
  });

  it('serves the JSON Schemas of products.json and changes.json, and 404 for another name', async () => {
    for (const name of ['products.schema.json', 'changes.schema.json']) {
      const answer = await get(`${app.url}/schemas/${name}`);
      expect(answer.status).toBe(200);
      expect(header(answer.headers, 'content-type')).toMatch(/^application\/schema\+json/);
      const schema = JSON.parse(answer.body.toString()) as { $schema?: string; type?: string; required?: string[] };
      expect(schema.$schema).toMatch(/json-schema\.org/);
      expect(schema.required).toContain(name.startsWith('products') ? 'items' : 'changes');
    }
    const unknown = await get(`${app.url}/schemas/nope.json`);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body.toString()).error.code).toBe('UNKNOWN_SCHEMA');
  });

  it('answers 304 for If-None-Match and for If-Modified-Since', async () => {
    const first = await get(`${app.url}/feeds/all/google.xml`, { 'accept-encoding': 'gzip' });
    const etag = header(first.headers, 'etag') ?? '';
    const lastModified = header(first.headers, 'last-modified') ?? '';

    const byEtag = await get(`${app.url}/feeds/all/google.xml`, { 'accept-encoding': 'gzip', 'if-none-match': etag });
    const byDate = await get(`${app.url}/feeds/all/google.xml`, { 'if-modified-since': lastModified });
    const stale = await get(`${app.url}/feeds/all/google.xml`, { 'if-none-match': '"v-old"' });

    expect(byEtag.status).toBe(304);
    expect(byEtag.body.length).toBe(0);
    expect(header(byEtag.headers, 'etag')).toBe(etag);
    expect(byDate.status).toBe(304);
    expect(stale.status).toBe(200);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const got = await get(`${app.url}/feeds/all/products.csv`, { 'accept-encoding': 'br' });
    const head = await get(`${app.url}/feeds/all/products.csv`, { 'accept-encoding': 'br' }, 'HEAD');

    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(header(head.headers, 'content-length')).toBe(header(got.headers, 'content-length'));
    expect(header(head.headers, 'etag')).toBe(header(got.headers, 'etag'));
  });

  it.each([
    ['/feeds/X9/products.json', 'UNKNOWN_UNIT'],
    ['/feeds/all/nothing.xml', 'UNKNOWN_FEED'],
    ['/feeds/U1/local-inventory.tsv', 'FEED_NOT_IN_VIEW'],
    ['/feeds/U1/shopify-inventory.csv', 'FEED_NOT_IN_VIEW'],
  ])('%s is a 404 with a JSON error', async (path, code) => {
    const response = await get(`${app.url}${path}`);

    expect(response.status).toBe(404);
    expect(JSON.parse(response.body.toString()).error.code).toBe(code);
  });

  it('rejects a bad query parameter with 400', async () => {
    const response = await get(`${app.url}/feeds/all/products.csv?profile=lotus`);

    expect(response.status).toBe(400);
    expect(JSON.parse(response.body.toString()).error.message).toContain('profile');
  });

  it('lists every feed URL with format, item count and version', async () => {
    const response = await get(`${app.url}/feeds`);
    const index = JSON.parse(response.body.toString()) as {
      version: string;
      feeds: { url: string; format: string; items: number | null; viewProducts: number; unit: string }[];
    };

    expect(index.version).toBe(app.catalog.current()?.version);
    expect(index.feeds.length).toBeGreaterThan(20);
    for (const feed of index.feeds) {
      const answer = await get(feed.url);
      expect(answer.status, feed.url).toBe(200);
      // Unknown until rendered (a channel's rules leave products out), never the view's count passed off as it.
      if (feed.items === null) expect(feed.viewProducts).toBeGreaterThan(0);
    }
    // Every feed has been rendered now: their true counts.
    const after = JSON.parse((await get(`${app.url}/feeds`)).body.toString()) as typeof index;
    for (const feed of after.feeds) {
      expect(feed.items, feed.url).not.toBeNull();
      expect(feed.items ?? 0).toBeLessThanOrEqual(feed.viewProducts);
    }
  });

  it('serves the changes since a cursor, and 410 for an unknown cursor', async () => {
    const before = app.catalog.current()?.version ?? '';
    // The stock sync is what this shows: the sale's webhook must not have applied it first.
    app.sandbox?.setWebhookUrl(undefined);
    await app.sandbox?.makeSale({ unitCode: 'U1' });
    const run = await app.catalog.syncStock();
    expect(run.outcome).toBe('published');

    const changes = await get(`${app.url}/feeds/U1/changes.json?since=${before}`);
    // Both documents have the published shape (their JSON Schemas are served at /schemas/…).
    expect(ChangesFeedSchema.safeParse(JSON.parse(changes.body.toString())).error).toBeUndefined();
    const full = await get(`${app.url}/feeds/U1/changes.json`);
    expect(ChangesFeedSchema.safeParse(JSON.parse(full.body.toString())).error).toBeUndefined();
    for (const view of ['all', 'U1']) {
      const products = await get(`${app.url}/feeds/${view}/products.json`);
      expect(ProductsFeedSchema.safeParse(JSON.parse(products.body.toString())).error).toBeUndefined();
    }
    const body = JSON.parse(changes.body.toString()) as {
      since: string;
      next: string;
      changes: { id: string; change: string; fields?: string[] }[];
    };
    const unknown = await get(`${app.url}/feeds/U1/changes.json?since=v-nope`);
    const upToDate = await get(`${app.url}/feeds/U1/changes.json?since=${body.next}`);

    expect(changes.status).toBe(200);
    expect(body.since).toBe(before);
    expect(body.next).toBe(run.version);
    expect(body.changes.length).toBeGreaterThan(0);
    expect(body.changes.every((change) => change.change === 'changed' && change.fields?.includes('stock'))).toBe(true);
    expect(unknown.status).toBe(410);
    expect(JSON.parse(unknown.body.toString()).error.next).toBe(run.version);
    expect(JSON.parse(upToDate.body.toString()).changes).toEqual([]);
  });
});

describe('feeds with FEED_TOKEN', () => {
  let app: RunningApp;
  const token = 'feed-token-0123456789';

  beforeAll(async () => {
    app = await startApp(createTestConfig({ SANDBOX_ARTICLES: '50', SANDBOX_SALES_PER_MINUTE: '0', FEED_TOKEN: token }), {
      logger,
    });
    await app.initialSync;
  });
  afterAll(() => app?.stop());

  it.each(['/feeds/all/google.xml', '/feeds', '/', '/feeds/all/changes.json'])('%s needs the token', async (path) => {
    const without = await get(`${app.url}${path}`);
    const wrong = await get(`${app.url}${path}`, { authorization: 'Bearer wrong' });
    const byQuery = await get(`${app.url}${path}${path.includes('?') ? '&' : '?'}token=${token}`);
    const byBearer = await get(`${app.url}${path}`, { authorization: `Bearer ${token}` });

    expect(without.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(byQuery.status).toBe(200);
    expect(byBearer.status).toBe(200);
    expect(header(byBearer.headers, 'cache-control') ?? '').not.toContain('public');
  });

  it('keeps health and readiness open', async () => {
    expect((await get(`${app.url}/healthz`)).status).toBe(200);
    expect((await get(`${app.url}/readyz`)).status).toBe(200);
  });
});

describe('feeds before the first catalog', () => {
  it('answer 503 with Retry-After', async () => {
    const app = await startApp(
      createTestConfig({ POS_BASE_URL: 'http://127.0.0.1:9', POS_API_KEY: 'key-of-a-pos-that-is-down', POS_MAX_RETRIES: '0' }),
      {
        logger,
      },
    );
    try {
      await app.initialSync;
      for (const path of [
        '/feeds/all/products.json',
        '/feeds/all/google.xml',
        '/feeds/local-inventory.tsv',
        '/feeds/all/changes.json',
      ]) {
        const response = await get(`${app.url}${path}`);
        expect(response.status, path).toBe(503);
        expect(header(response.headers, 'retry-after')).toBe('10');
        const { error } = JSON.parse(response.body.toString()) as { error: { code: string; message: string } };
        expect(error.code).toBe('CATALOG_NOT_READY');
        expect(error.message).toMatch(
          /^No catalog yet: the first sync from the POS at http:\/\/127\.0\.0\.1:9 failed at \S+; next try at \S+; try again shortly$/,
        );
      }
      const page = (await get(`${app.url}/`)).body.toString();
      // Not "being built" under a red failure: when it failed, and when it is tried again.
      expect(page).not.toContain('being built');
      expect(page).toMatch(/The first sync from the POS at http:\/\/127\.0\.0\.1:9 failed at [^;]+; next try at [^.]+\./);
    } finally {
      await app.stop();
    }
  });
});
