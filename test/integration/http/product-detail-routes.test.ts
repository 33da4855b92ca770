import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProductDetailRoutes } from '../../../src/http/console/product-detail-routes.js';
import type { ProductLookup, ProductLookupResult, ProductView } from '../../../src/services/products/product-lookup.js';

/** The product routes' answers around the lookup: the token guard, 400 for bad queries, 404, 503. */

const VIEW: ProductView = {
  version: 'v1',
  generatedAt: '2026-11-26T10:00:00.000Z',
  currency: 'CZK',
  product: { id: 'a-1', name: 'Čokoláda <hořká>', isStockItem: true },
  enrichment: null,
  offers: [{ unit: 'all', unitName: 'All units', price: 39.9, stock: 3, availability: 'in_stock' }],
  sources: [],
  feeds: [
    {
      feed: 'heureka',
      title: 'Heureka.cz',
      file: 'heureka.xml',
      view: 'all',
      path: '/feeds/all/heureka.xml',
      included: true,
      text: '<SHOPITEM><ID>a-1</ID></SHOPITEM>\n',
    },
    {
      feed: 'google',
      title: 'Google',
      file: 'google.xml',
      view: 'all',
      path: '/feeds/all/google.xml',
      included: false,
      reason: {
        code: 'too-long',
        rule: 'required',
        attribute: 'g:title',
        limit: 150,
        message: 'g:title: longer than 150 characters',
      },
    },
  ],
};

let state: 'ready' | 'not-ready' = 'ready';
const asked: { id: string; unit: string | undefined }[] = [];
const lookup: ProductLookup = {
  async find(id, unit): Promise<ProductLookupResult> {
    asked.push({ id, unit });
    if (state === 'not-ready') return { ok: false, reason: 'not-ready' };
    if (unit !== undefined && !['all', 'U1'].includes(unit)) return { ok: false, reason: 'unknown-unit' };
    return id === 'a-1' ? { ok: true, view: VIEW } : { ok: false, reason: 'unknown-product' };
  },
};

let server: Server;
let base = '';

beforeAll(async () => {
  const app = express();
  app.use(createProductDetailRoutes({ lookup, token: 's3cret', publicBaseUrl: 'https://bridge.example.cz' }));
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server?.close());

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await request(`${base}${path}`, { headers });
  const text = await response.body.text();
  return { status: response.statusCode, text, headers: response.headers };
}

describe('GET /api/products/{id}', () => {
  it('needs the feed token, as a query parameter or a bearer header', async () => {
    expect((await get('/api/products/a-1')).status).toBe(401);
    expect((await get('/api/products/a-1?token=wrong')).status).toBe(401);
    expect((await get('/products/a-1')).status).toBe(401);
    expect((await get('/api/products/a-1?token=s3cret')).status).toBe(200);
    expect((await get('/api/products/a-1', { authorization: 'Bearer s3cret' })).status).toBe(200);
  });

  it('answers the view with absolute feed URLs', async () => {
    const { status, text } = await get('/api/products/a-1?token=s3cret');
    const body = JSON.parse(text) as { feeds: { url: string; path?: string }[] };

    expect(status).toBe(200);
    expect(body.feeds[0]?.url).toBe('https://bridge.example.cz/feeds/all/heureka.xml');
    expect(body.feeds[0]?.path).toBeUndefined();
  });

  it('answers 400 with the error shape for a malformed or unknown unit, before any lookup of it', async () => {
    for (const query of ['unit=a%2Fb', 'unit=U1&unit=U2', 'unit=', 'unit=U9', 'lang=de']) {
      const { status, text } = await get(`/api/products/a-1?token=s3cret&${query}`);
      expect(status, query).toBe(400);
      expect(JSON.parse(text), query).toMatchObject({ error: { code: 'BAD_QUERY', message: expect.any(String) } });
    }
  });

  it('answers a bad query of the page with a 400 page in the console, naming the parameter, not with JSON', async () => {
    const { status, text } = await get('/products/a-1?token=s3cret&unit=%3Cx%3E&lang=cs');
    expect(status).toBe(400);
    expect(text).toContain('<html lang="cs">');
    expect(text).toContain('id="query-problem"');
    expect(text).toMatch(/unit: /);
    expect(text).not.toContain('<x>');
  });

  it('answers 404 for an unknown id and 503 before the first catalog', async () => {
    const unknown = await get('/api/products/nope?token=s3cret');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toMatchObject({ error: { code: 'UNKNOWN_PRODUCT' } });

    state = 'not-ready';
    try {
      const waiting = await get('/api/products/a-1?token=s3cret');
      expect(waiting.status).toBe(503);
      expect(waiting.headers['retry-after']).toBe('10');
      expect((await get('/products/a-1?token=s3cret')).status).toBe(503);
    } finally {
      state = 'ready';
    }
  });
});

describe('GET /products/{id}', () => {
  it('escapes values, keeps the token in links, and words a reason in Czech with its plural', async () => {
    const { status, text } = await get('/products/a-1?token=s3cret&lang=cs');

    expect(status).toBe(200);
    expect(text).toContain('Čokoláda &lt;hořká&gt;');
    expect(text).not.toContain('<hořká>');
    expect(text).toContain('href="/feeds/all/heureka.xml?token=s3cret"');
    expect(text).toMatch(/<li id="feed-heureka.xml-all" class="included">(?:(?!<\/li>)[\s\S])*<pre>&lt;SHOPITEM&gt;/);
    expect(text).toMatch(/<li id="feed-google.xml-all" class="left-out">(?:(?!<\/li>)[\s\S])*g:title je delší než 150 znaků/);
    expect(text).toContain('href="/docs/report-codes#too-long"');
    expect(text).toContain('39,90');
  });

  it('answers an unknown id with a 404 page linking back to the search', async () => {
    const { status, text } = await get('/products/nope?token=s3cret');

    expect(status).toBe(404);
    expect(text).toContain('No product has the id “nope”.');
    expect(text).toContain('href="/products?token=s3cret"');
  });
});
