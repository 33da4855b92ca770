import type { Express } from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot, Offer, Product } from '../../../src/core/catalog/catalog.js';
import { buildFamilyIndex } from '../../../src/core/catalog/family-index.js';
import { createProductSearchIndexes, type ProductSearchIndex } from '../../../src/core/catalog/product-search.js';
import { createProductSearchRoutes } from '../../../src/http/console/product-search-routes.js';
import { createHttpApp } from '../../../src/http/create-http-app.js';

const offer = (unit: string, fields: Partial<Offer> = {}): Offer => ({
  unit,
  price: 50,
  stock: 3,
  availability: 'in_stock',
  ...fields,
});

function product(id: string, name: string, fields: Partial<Product> = {}): Product {
  return { id, name, isStockItem: true, offers: [offer('U1'), offer('U2')], aggregate: offer('all', { stock: 6 }), ...fields };
}

const SNAPSHOT: CatalogSnapshot = {
  version: 'v-20261122T100000000Z-abcdef12',
  generatedAt: '2026-11-22T10:00:00.000Z',
  currency: 'CZK',
  primaryUnit: 'U1',
  units: [
    { code: 'U1', localId: 'u1', name: 'Praha' },
    { code: 'U2', localId: 'u2', name: 'Brno' },
  ],
  products: [
    product('a-1', 'Káva zrnková 1 kg', {
      ean: '0012345678905',
      plu: 1001,
      internalIdentifier: 'KAV-1',
      offers: [
        offer('U1', { price: 129, salePrice: 99, stock: 7 }),
        offer('U2', { price: 135, stock: 0, availability: 'out_of_stock' }),
      ],
      aggregate: offer('all', { price: 129, salePrice: 99, stock: 7 }),
    }),
    product('a-2', 'Káva mletá 250 g'),
    product('a-3', 'Ledová káva <ice> & "led"'),
    product('a-4', 'Čokoláda hořká'),
    // Teas of unknown stock in U2.
    ...[1, 2, 3, 4, 5].map((i) =>
      product(`a-${4 + i}`, `Čaj zelený ${i}`, { offers: [offer('U1'), { unit: 'U2', price: 50, availability: 'in_stock' }] }),
    ),
  ],
};

const logger = pino({ level: 'silent' });

function appWith(current: () => CatalogSnapshot | undefined, token?: string): Express {
  return createHttpApp({
    logger,
    health: { readiness: () => ({ ready: true }) },
    routers: [
      createProductSearchRoutes({
        current,
        familyIndex: buildFamilyIndex,
        token,
        waiting: () => 'the first sync from the sandbox is running',
      }),
    ],
  });
}

const app = appWith(() => SNAPSHOT);

describe('GET /api/products', () => {
  it('answers the products found with codes, how each was found, and the price and stock of the `all` view', async () => {
    const res = await request(app).get('/api/products?q=kava%20zrn');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['x-catalog-version']).toBe(SNAPSHOT.version);
    expect(res.body).toEqual({
      query: 'kava zrn',
      unit: 'all',
      version: SNAPSHOT.version,
      count: 1,
      total: 1,
      complete: true,
      items: [
        {
          id: 'a-1',
          name: 'Káva zrnková 1 kg',
          ean: '0012345678905',
          plu: 1001,
          internalIdentifier: 'KAV-1',
          matchedBy: 'name',
          price: 129,
          salePrice: 99,
          stock: 7,
          availability: 'in_stock',
          url: '/api/products/a-1',
        },
      ],
    });
  });

  it("shows a unit's own offer with `unit`, and omits what the product does not have", async () => {
    const u2 = await request(app).get('/api/products?q=KAV-1&unit=U2');
    const tea = await request(app).get('/api/products?q=caj%205&unit=U2');

    expect(u2.body.items).toEqual([
      expect.objectContaining({ id: 'a-1', matchedBy: 'internalIdentifier', price: 135, stock: 0, availability: 'out_of_stock' }),
    ]);
    expect(u2.body.items[0]).not.toHaveProperty('salePrice');
    expect(tea.body.items).toEqual([
      { id: 'a-9', name: 'Čaj zelený 5', matchedBy: 'name', price: 50, availability: 'in_stock', url: '/api/products/a-9' },
    ]);
  });

  it('finds by exact codes first (EAN with or without leading zeros), then by name', async () => {
    const ean = await request(app).get('/api/products?q=12345678905');
    const plu = await request(app).get('/api/products?q=1001');

    expect(ean.body.items.map((item: { id: string; matchedBy: string }) => [item.id, item.matchedBy])).toEqual([['a-1', 'ean']]);
    expect(plu.body.items.map((item: { id: string; matchedBy: string }) => [item.id, item.matchedBy])).toEqual([['a-1', 'plu']]);
  });

  it('honours `limit` and counts every match in `total`', async () => {
    const limited = await request(app).get('/api/products?q=caj&limit=2');
    const byDefault = await request(app).get('/api/products?q=a');

    expect(limited.body).toMatchObject({ count: 2, total: 5 });
    expect(limited.body.items.map((item: { id: string }) => item.id)).toEqual(['a-5', 'a-6']);
    expect(byDefault.body).toMatchObject({ count: 9, total: 9 });
  });

  it('trims `q` and takes up to 100 characters', async () => {
    const trimmed = await request(app).get(`/api/products?q=${encodeURIComponent('  čokoláda ')}`);
    const longest = await request(app).get(`/api/products?q=${'x'.repeat(100)}`);

    expect(trimmed.body).toMatchObject({ query: 'čokoláda', total: 1 });
    expect(longest.status).toBe(200);
    expect(longest.body).toMatchObject({ count: 0, total: 0, items: [] });
  });

  it.each([
    ['', 'q'],
    ['?q=', 'q'],
    ['?q=%20%20', 'q'],
    [`?q=${'x'.repeat(101)}`, 'q'],
    ['?q=a&q=b', 'q'],
    ['?q=kava&limit=0', 'limit'],
    ['?q=kava&limit=101', 'limit'],
    ['?q=kava&limit=ten', 'limit'],
    ['?q=kava&limit=1.5', 'limit'],
    ['?q=kava&limit=', 'limit'],
    ['?q=kava&unit=U9', 'unit'],
    ['?q=kava&unit=a%2Fb', 'unit'],
  ])('answers 400 naming the parameter for %s', async (query, param) => {
    const res = await request(app).get(`/api/products${query}`);

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_QUERY');
    expect(res.body.error.message).toMatch(new RegExp(`^${param}: `));
  });

  it('lists the known units when `unit` names none', async () => {
    const res = await request(app).get('/api/products?q=kava&unit=U9');

    expect(res.body.error.message).toBe('unit: no unit "U9"; known units: all, U1, U2');
  });

  it('answers 304 to a client that has this version of the same search', async () => {
    const first = await request(app).get('/api/products?q=kava');
    const again = await request(app)
      .get('/api/products?q=kava')
      .set('if-none-match', first.headers['etag'] ?? '');
    const other = await request(app)
      .get('/api/products?q=kava&limit=1')
      .set('if-none-match', first.headers['etag'] ?? '');

    expect(first.headers['etag']).toMatch(new RegExp(`^"${SNAPSHOT.version}-`));
    expect(again.status).toBe(304);
    expect(other.status).toBe(200);
  });

  it('answers 503 with Retry-After before the first catalog, after checking the parameters', async () => {
    const waiting = appWith(() => undefined);

    const res = await request(waiting).get('/api/products?q=kava');
    const bad = await request(waiting).get('/api/products');

    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('10');
    expect(res.body.error).toEqual({
      code: 'CATALOG_NOT_READY',
      message: 'No catalog yet: the first sync from the sandbox is running; try again shortly',
    });
    expect(bad.status).toBe(400);
  });

  it('needs FEED_TOKEN when it is set, as the feeds do', async () => {
    const guarded = appWith(() => SNAPSHOT, 'secret-token');

    const without = await request(guarded).get('/api/products?q=kava');
    const wrong = await request(guarded).get('/api/products?q=kava&token=nope');
    const byQuery = await request(guarded).get('/api/products?q=kava&token=secret-token');
    const byHeader = await request(guarded).get('/api/products?q=kava').set('authorization', 'Bearer secret-token');

    expect(without.status).toBe(401);
    expect(without.body.error.code).toBe('UNAUTHORIZED');
    expect(wrong.status).toBe(401);
    expect(byQuery.status).toBe(200);
    expect(byHeader.status).toBe(200);
    expect(byHeader.headers['cache-control']).toBe('private, no-cache');
  });
});

describe('GET /products (console page)', () => {
  it('shows a labelled search form that works without JavaScript', async () => {
    const res = await request(app).get('/products').set('accept-language', 'en');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<form class="search" method="get" action="/products" role="search">');
    expect(res.text).toContain('<label for="q">Search products</label>');
    expect(res.text).toMatch(/<input type="search" id="q" name="q" value=""[^>]*>/);
    expect(res.text).toContain('<button type="submit" class="primary">Search</button>');
    expect(res.text).toContain('<a href="/products" aria-current="page">Products</a>');
    expect(res.text).not.toContain('<table');
  });

  it('lists the products found, each linked to its page, with prices in the reader’s format', async () => {
    const res = await request(app).get('/products?q=kava&lang=cs');

    expect(res.status).toBe(200);
    expect(res.text).toContain('<p role="status">Nalezeny 3 produkty.</p>');
    expect(res.text).toContain('<a href="/products/a-1">Káva zrnková 1 kg</a>');
    expect(res.text).toContain('<a href="/products/a-3">Ledová káva &lt;ice&gt; &amp; &quot;led&quot;</a>');
    expect(res.text).toContain('<td>0012345678905</td><td class="num">1001</td><td>KAV-1</td>');
    expect(res.text).toContain('99,00\u00a0Kč (akce; běžně 129,00\u00a0Kč)');
    expect(res.text).toContain('Skladem');
    expect(res.text).toMatch(/<input type="search" id="q" name="q" value="kava"/);
  });

  it.each([
    ['cokolada', 'cs', 'Nalezen 1 produkt.'],
    ['kava', 'cs', 'Nalezeny 3 produkty.'],
    ['caj', 'cs', 'Nalezeno 5 produktů.'],
    ['cokolada', 'en', '1 product found.'],
    ['caj', 'en', '5 products found.'],
  ])('counts the products found for %s in %s: %s', async (q, lang, text) => {
    const res = await request(app).get(`/products?q=${q}&lang=${lang}`);

    expect(res.text).toContain(`<p role="status">${text}`);
  });

  it('says how many it shows when it shows fewer than it found, and offers more', async () => {
    const res = await request(app).get('/products?q=caj&limit=2&lang=en');

    expect(res.text).toContain('5 products found. Showing the first 2.');
    expect(res.text).toContain('<a href="/products?q=caj&amp;unit=all&amp;limit=100">Show up to 100</a>');
  });

  it('has a friendly empty state', async () => {
    const res = await request(app).get('/products?q=xyzzy&lang=en');

    expect(res.status).toBe(200);
    expect(res.text).toContain('No product matches “xyzzy”.');
    expect(res.text).toContain('search by EAN, PLU, code or id');
  });

  it('answers a bad search with a 400 page that keeps the form and says what to fix', async () => {
    const empty = await request(app).get('/products?q=%20&lang=en');
    const long = await request(app).get(`/products?q=${'x'.repeat(101)}&lang=cs`);
    const unit = await request(app).get('/products?q=kava&unit=U9&lang=en');

    expect(empty.status).toBe(400);
    expect(empty.headers['content-type']).toMatch(/^text\/html/);
    expect(empty.text).toMatch(/<input type="search" id="q"[^>]* aria-describedby="q-error q-hint" aria-invalid="true">/);
    expect(empty.text).toContain('<p id="q-error" class="bad">Type what to search for: a name, id, EAN, PLU or code.</p>');
    expect(long.status).toBe(400);
    expect(long.text).toContain('Hledaný text může mít nejvýše 100 znaků.');
    expect(unit.status).toBe(400);
    expect(unit.text).toContain('There is no such unit.');
  });

  it('answers 503 before the first catalog, and reloads itself', async () => {
    const waiting = appWith(() => undefined);

    const search = await request(waiting).get('/products?q=kava&lang=en');
    const form = await request(waiting).get('/products?lang=en');

    expect(search.status).toBe(503);
    expect(search.headers['retry-after']).toBe('10');
    expect(search.text).toContain('<meta http-equiv="refresh" content="10">');
    expect(search.text).toContain('No catalog yet, so nothing can be found.');
    expect(form.status).toBe(200);
    expect(form.text).toContain('No catalog yet, so nothing can be found.');
    expect(form.text).not.toContain('http-equiv="refresh"');
  });

  it('needs FEED_TOKEN when it is set, and keeps it in its links and its form', async () => {
    const guarded = appWith(() => SNAPSHOT, 'secret-token');

    const without = await request(guarded).get('/products?q=kava');
    const res = await request(guarded).get('/products?q=kava&token=secret-token');

    expect(without.status).toBe(401);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<input type="hidden" name="token" value="secret-token">');
    expect(res.text).toContain('<a href="/products/a-1?token=secret-token">');
  });

  it('runs searches one at a time: with 16 waiting, another is answered 503 SEARCH_BUSY at once', async () => {
    // The first search waits for its index, holding its turn: the next ones queue behind it.
    const real = createProductSearchIndexes(buildFamilyIndex);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let first = true;
    const indexes = {
      peek: real.peek,
      async get(snapshot: CatalogSnapshot): Promise<ProductSearchIndex> {
        if (first) {
          first = false;
          await held;
        }
        return real.get(snapshot);
      },
    };
    const busyApp = createHttpApp({
      logger,
      health: { readiness: () => ({ ready: true }) },
      routers: [createProductSearchRoutes({ current: () => SNAPSHOT, familyIndex: buildFamilyIndex, token: undefined, indexes })],
    });
    const server = busyApp.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as { port: number };
      const ask = (q: string) => fetch(`http://127.0.0.1:${port}/api/products?q=${q}`);
      const waiting = [ask('kava')];
      // The first holds the turn; 16 wait behind it.
      for (let i = 0; i < 16; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        waiting.push(ask(`kava-${i}`));
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      const refused = await ask('caj');
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('SEARCH_BUSY');
      expect(refused.headers.get('etag')).toBeNull();
      // The console's page says so, not that there is no catalog.
      const page = await fetch(`http://127.0.0.1:${port}/products?q=caj&lang=en`);
      const html = await page.text();
      expect(page.status).toBe(503);
      expect(html).toContain('Too many searches are running at once');
      expect(html).not.toContain('No catalog yet');
      release();
      const answers = await Promise.all(waiting);
      expect(answers.map((answer) => answer.status)).toEqual(Array(17).fill(200));
      expect((await ask('caj')).status).toBe(200);
    } finally {
      server.close();
    }
  });
});
