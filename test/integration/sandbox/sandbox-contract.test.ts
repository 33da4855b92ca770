import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidEan13 } from '../../../src/sandbox/ean13.js';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import {
  API_KEY,
  ArticleListResponseSchema,
  ArticleSchema,
  ClientGetSchema,
  call,
  MovementListSchema,
  postJson,
  readAllArticles,
  startTestSandbox,
  UnitListSchema,
} from './sandbox-test-kit.js';

const ARTICLES = 300;
let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({ articles: ARTICLES, units: 3 });
});
afterAll(async () => {
  await sandbox.stop();
});

/** Every endpoint of interface part 4, in every path form the sandbox serves. */
function everyEndpoint(): { method: 'GET' | 'POST'; path: string; body?: string }[] {
  const list = [
    { method: 'POST' as const, path: '/ext/assortment/article/list', body: '{}' },
    { method: 'POST' as const, path: '/ext/stockholding/movement/list', body: '{}' },
    { method: 'POST' as const, path: '/ext/address-book/client/get', body: '{"externalId":"KLI-0001"}' },
    { method: 'POST' as const, path: '/ext/unit/list', body: '{}' },
  ];
  const exportPaths = [
    { method: 'GET' as const, path: '/unit/U1/price-list/export/eshop-update' },
    { method: 'GET' as const, path: '/warehouse/stock/export/csv/U1' },
    { method: 'GET' as const, path: '/warehouse/stock/export/csv' },
    { method: 'POST' as const, path: '/address-book/client/import', body: '[{"email":"a@example.cz"}]' },
    { method: 'POST' as const, path: '/assortment/import', body: '[{"localId":"a-100001"}]' },
  ];
  return [...list, ...exportPaths, ...exportPaths.map((endpoint) => ({ ...endpoint, path: `/ext${endpoint.path}` }))];
}

describe('sandbox/auth (interface part 5)', () => {
  it.each(everyEndpoint())('$method $path answers 401 with an envelope without or with a wrong key', async (endpoint) => {
    for (const headers of [
      { 'content-type': 'application/json' },
      { 'content-type': 'application/json', 'x-api-key': 'wrong' },
    ]) {
      const result = await call(`${sandbox.url}${endpoint.path}`, {
        method: endpoint.method,
        headers,
        ...(endpoint.body !== undefined ? { body: endpoint.body } : {}),
      });

      expect(result.status).toBe(401);
      expect(JSON.parse(result.text)).toMatchObject({ isValid: false, errors: [expect.stringContaining('x-api-key')] });
    }
  });

  it.each(everyEndpoint())('$method $path answers 200 with the right key', async (endpoint) => {
    const result = await call(`${sandbox.url}${endpoint.path}`, {
      method: endpoint.method,
      headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
      ...(endpoint.body !== undefined ? { body: endpoint.body } : {}),
    });

    expect(result.status).toBe(200);
  });

  it('accepts the key as ?key= on the price list only', async () => {
    const priceList = await call(`${sandbox.url}/ext/unit/U1/price-list/export/eshop-update?key=${API_KEY}`, { headers: {} });
    const wrongKey = await call(`${sandbox.url}/unit/U1/price-list/export/eshop-update?key=nope`, { headers: {} });
    const stock = await call(`${sandbox.url}/warehouse/stock/export/csv/U1?key=${API_KEY}`, { headers: {} });

    expect(priceList.status).toBe(200);
    expect(priceList.headers['content-type']).toMatch(/^application\/xml/);
    expect(wrongKey.status).toBe(401);
    expect(stock.status).toBe(401);
  });

  it('serves the description page without a key and 404s unknown paths', async () => {
    const root = await call(`${sandbox.url}/`, { headers: {} });
    const unknown = await call(`${sandbox.url}/ext/nothing/here`, { headers: {} });
    const listWithoutExt = await call(`${sandbox.url}/assortment/article/list`, { method: 'POST', body: '{}' });

    expect(root.status).toBe(200);
    expect(root.text).toContain('/ext/assortment/article/list');
    expect(unknown.status).toBe(404);
    expect(listWithoutExt.status).toBe(404);
  });
});

describe('sandbox/article list (4.1)', () => {
  it('answers the documented envelope: data.items only, no total, no isValid', async () => {
    const { status, headers, json } = await postJson(`${sandbox.url}/ext/assortment/article/list`, { limit: 10, skip: 0 });

    expect(status).toBe(200);
    expect(headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(json as object)).toEqual(['data']);
    expect(Object.keys((json as { data: object }).data)).toEqual(['items']);
    expect(ArticleListResponseSchema.parse(json).data.items).toHaveLength(10);
  });

  it('caps pages at 200 and defaults to limit 50, skip 0', async () => {
    const capped = await postJson(`${sandbox.url}/ext/assortment/article/list`, { limit: 500, skip: 0 });
    const defaults = await postJson(`${sandbox.url}/ext/assortment/article/list`, {});
    const empty = await call(`${sandbox.url}/ext/assortment/article/list`, { method: 'POST', headers: { 'x-api-key': API_KEY } });

    expect(ArticleListResponseSchema.parse(capped.json).data.items).toHaveLength(200);
    const defaultItems = ArticleListResponseSchema.parse(defaults.json).data.items;
    expect(defaultItems).toHaveLength(50);
    expect(defaultItems[0]?.localId).toBe('a-100001');
    expect(ArticleListResponseSchema.parse(JSON.parse(empty.text)).data.items).toHaveLength(50);
  });

  it('reads to the end with skip += received: exactly `articles` distinct ids, every item valid', async () => {
    const articles = await readAllArticles(sandbox.url, 500);

    expect(articles).toHaveLength(ARTICLES);
    expect(new Set(articles.map((article) => article.localId)).size).toBe(ARTICLES);
    for (const article of articles) ArticleSchema.parse(article);
  });

  it('leaves optional fields absent (not null, not empty) on a share of items, with realistic content', async () => {
    const articles = await readAllArticles(sandbox.url);

    for (const field of ['localGroupId', 'ean', 'plu', 'internalIdentifier', 'isSalesItem', 'isStockItem'] as const) {
      const absent = articles.filter((article) => !(field in article)).length;
      expect(absent, `${field} absent on some items`).toBeGreaterThan(0);
      expect(absent, `${field} present on most items`).toBeLessThan(ARTICLES / 2);
    }
    expect(articles.some((article) => article.isSalesItem === false)).toBe(true);
    expect(articles.some((article) => article.isStockItem === false)).toBe(true);
    expect(new Set(articles.map((article) => article.measureUnit))).toEqual(new Set(['piece', 'ks', 'kg']));
    // Valid EAN-13s, but for the few mistyped at the till (every 97th article from the 12th): a wrong check digit.
    const mistyped = articles.filter((article) => article.ean !== undefined && !isValidEan13(article.ean));
    expect(mistyped.length).toBeGreaterThan(0);
    expect(mistyped.length).toBeLessThanOrEqual(Math.ceil(ARTICLES / 97));
    for (const article of mistyped) expect(article.ean, article.localId).toMatch(/^\d{13}$/);
    expect(articles.some((article) => /[áčďéěíňóřšťúůýž]/i.test(article.name))).toBe(true);
    expect(articles.some((article) => /[&<>"']/.test(article.name))).toBe(true);
    expect(articles.some((article) => !Number.isInteger(article.avgPurchasePrice * 100))).toBe(true);
    // Every article has a key the price-list CODE can use.
    expect(articles.every((article) => article.internalIdentifier !== undefined || article.plu !== undefined)).toBe(true);
  });

  it('has a few EANs shared by two articles, as real data has', async () => {
    const many = await startTestSandbox({ articles: 600 });
    try {
      const articles = await readAllArticles(many.url);
      const byEan = new Map<string, number>();
      for (const article of articles) if (article.ean !== undefined) byEan.set(article.ean, (byEan.get(article.ean) ?? 0) + 1);
      const duplicated = [...byEan.values()].filter((count) => count > 1);

      expect(duplicated.length).toBeGreaterThan(0);
      expect(duplicated.length).toBeLessThan(10);
      expect(Math.max(...duplicated)).toBe(2);
    } finally {
      await many.stop();
    }
  });

  it('outputs gross prices with_vat (the default) and net prices without_vat', async () => {
    const gross = await postJson(`${sandbox.url}/ext/assortment/article/list`, {
      limit: 100,
      options: { priceOutput: 'with_vat' },
    });
    const byDefault = await postJson(`${sandbox.url}/ext/assortment/article/list`, { limit: 100 });
    const net = await postJson(`${sandbox.url}/ext/assortment/article/list`, {
      limit: 100,
      options: { priceOutput: 'without_vat' },
    });
    const grossItems = ArticleListResponseSchema.parse(gross.json).data.items;
    const netItems = ArticleListResponseSchema.parse(net.json).data.items;

    expect(ArticleListResponseSchema.parse(byDefault.json).data.items).toEqual(grossItems);
    grossItems.forEach((item, index) => {
      const netPrice = netItems[index]?.salesPrice;
      // net = gross / (1 + rate), 2 decimals, for one of the Czech VAT rates 0, 12, 21 %.
      const matchesARate = [0, 12, 21].some((rate) => Math.round((item.salesPrice / (1 + rate / 100)) * 100) / 100 === netPrice);
      expect(matchesARate, `${item.localId}: ${item.salesPrice} -> ${netPrice}`).toBe(true);
    });
    expect(netItems.some((item, index) => item.salesPrice < (grossItems[index]?.salesPrice ?? 0))).toBe(true);
  });

  it.each([
    ['non-JSON body', 'not json'],
    ['array body', '[1,2]'],
    ['string limit', '{"limit":"10"}'],
    ['zero limit', '{"limit":0}'],
    ['fractional limit', '{"limit":2.5}'],
    ['negative skip', '{"skip":-1}'],
    ['unknown priceOutput', '{"options":{"priceOutput":"gross"}}'],
    ['options not an object', '{"options":"with_vat"}'],
  ])('answers 200 with isValid:false for a %s', async (_name, body) => {
    const { status, json } = await postJson(`${sandbox.url}/ext/assortment/article/list`, body);

    expect(status).toBe(200);
    expect(json).toMatchObject({ isValid: false, errors: [expect.any(String)] });
  });

  it('answers an empty page past the end', async () => {
    const { json } = await postJson(`${sandbox.url}/ext/assortment/article/list`, { limit: 100, skip: ARTICLES });

    expect(ArticleListResponseSchema.parse(json).data.items).toEqual([]);
  });
});

describe('sandbox/unit list (4.4)', () => {
  it('answers all five envelope fields with total and valid units', async () => {
    const { json } = await postJson(`${sandbox.url}/ext/unit/list`, { limit: 10, skip: 0 });
    const parsed = UnitListSchema.parse(json);

    expect(parsed.isValid).toBe(true);
    expect(parsed.data.total).toBe(3);
    expect(parsed.data.items.map((unit) => unit.code)).toEqual(['U1', 'U2', 'U3']);
    expect(parsed.data.items[0]?.name).toBe('Prodejna Praha – Vinohrady');
    expect(parsed.data.items.some((unit) => unit.priceLists.length > 1)).toBe(true);
  });

  it('pages with limit/skip and projects with select', async () => {
    const page = UnitListSchema.parse((await postJson(`${sandbox.url}/ext/unit/list`, { limit: 1, skip: 1 })).json);
    const selected = await postJson(`${sandbox.url}/ext/unit/list`, { select: ['code', 'name', 'bogus'] });

    expect(page.data.total).toBe(3);
    expect(page.data.items.map((unit) => unit.code)).toEqual(['U2']);
    expect(selected.json).toMatchObject({ isValid: true, warnings: [expect.stringContaining('bogus')] });
    expect((selected.json as { data: { items: object[] } }).data.items[0]).toEqual({
      code: 'U1',
      name: 'Prodejna Praha – Vinohrady',
    });
  });

  it('rejects a bad select or paging with isValid:false', async () => {
    const badSelect = await postJson(`${sandbox.url}/ext/unit/list`, { select: 'code' });
    const badLimit = await postJson(`${sandbox.url}/ext/unit/list`, { limit: -5 });

    expect(badSelect.json).toMatchObject({ isValid: false });
    expect(badLimit.json).toMatchObject({ isValid: false });
  });
});

describe('sandbox/movement list (4.2)', () => {
  it('is seeded with stock receipts and answers all five envelope fields', async () => {
    const { json } = await postJson(`${sandbox.url}/ext/stockholding/movement/list`, {});
    const parsed = MovementListSchema.parse(json);

    expect(parsed.isValid).toBe(true);
    expect(parsed.data.total).toBeGreaterThanOrEqual(3);
    expect(parsed.data.items.every((movement) => movement.count > 0 && movement.warehouseOperation.supplier !== undefined)).toBe(
      true,
    );
  });

  it.each([
    ['bad dateFrom', { filter: { dateFrom: 'yesterday' } }],
    ['impossible dateTo', { filter: { dateTo: '2026-13-45T00:00:00Z' } }],
    ['numeric unit', { filter: { unit: 5 } }],
    ['filter not an object', { filter: 'U1' }],
    ['limit not a number', { limit: 'all' }],
  ])('rejects a %s with isValid:false', async (_name, body) => {
    const { status, json } = await postJson(`${sandbox.url}/ext/stockholding/movement/list`, body);

    expect(status).toBe(200);
    expect(json).toMatchObject({ isValid: false, errors: [expect.any(String)] });
  });
});

describe('sandbox/client get (4.3)', () => {
  it('finds a client by any documented field, with isValid, errors and data', async () => {
    const byExternalId = await postJson(`${sandbox.url}/ext/address-book/client/get`, { externalId: 'KLI-0002' });
    const client = ClientGetSchema.parse(byExternalId.json).data;
    const byEmail = await postJson(`${sandbox.url}/ext/address-book/client/get`, { email: client?.email?.toUpperCase() });
    const byTin = await postJson(`${sandbox.url}/ext/address-book/client/get`, { company: { TIN: client?.company?.TIN } });

    expect(Object.keys(byExternalId.json as object).sort()).toEqual(['data', 'errors', 'isValid']);
    expect(client?.company?.VATID).toMatch(/^CZ\d{8}$/);
    expect(ClientGetSchema.parse(byEmail.json).data?._id).toBe(client?._id);
    expect(ClientGetSchema.parse(byTin.json).data?._id).toBe(client?._id);
  });

  it('answers isValid:false with an error text when nothing matches or nothing is asked', async () => {
    const none = await postJson(`${sandbox.url}/ext/address-book/client/get`, { email: 'nobody@example.cz' });
    const empty = await postJson(`${sandbox.url}/ext/address-book/client/get`, {});

    expect(none.status).toBe(200);
    expect(none.json).toMatchObject({ isValid: false, errors: ['Client not found'], data: null });
    expect(empty.json).toMatchObject({ isValid: false, errors: [expect.stringContaining('at least one')] });
  });

  it('leaves optional client fields absent on some clients', async () => {
    const clients = [];
    for (let index = 1; index <= 12; index++) {
      const { json } = await postJson(`${sandbox.url}/ext/address-book/client/get`, {
        externalId: `KLI-${String(index).padStart(4, '0')}`,
      });
      clients.push(ClientGetSchema.parse(json).data);
    }

    for (const field of ['phone', 'company', 'dateOfBirth', 'note'] as const) {
      expect(clients.some((client) => client !== null && !(field in client))).toBe(true);
      expect(clients.some((client) => client !== null && field in client)).toBe(true);
    }
  });
});

describe('sandbox/imports (4.8, 4.9)', () => {
  it('imports clients that client get then finds, and reports bad items', async () => {
    const result = await postJson(`${sandbox.url}/ext/address-book/client/import`, {
      items: [{ externalId: 'WEB-7', email: 'nova@example.cz', phone: '+420 777 000 111', clientPoints: 5 }, { note: 'no id' }],
    });
    const found = await postJson(`${sandbox.url}/ext/address-book/client/get`, { phone: '+420777000111' });

    expect(result.status).toBe(200);
    expect(result.headers['content-type']).toMatch(/^application\/json/);
    expect(result.json).toMatchObject({ isValid: false, errors: [expect.stringContaining('items[1]')], data: { imported: 1 } });
    expect(ClientGetSchema.parse(found.json).data).toMatchObject({
      externalId: 'WEB-7',
      email: 'nova@example.cz',
      clientPoints: 5,
    });
  });

  it('updates an existing client by externalId instead of duplicating it', async () => {
    await postJson(`${sandbox.url}/address-book/client/import`, [{ externalId: 'WEB-8', email: 'first@example.cz' }]);
    await postJson(`${sandbox.url}/address-book/client/import`, [{ externalId: 'WEB-8', email: 'second@example.cz' }]);
    const first = await postJson(`${sandbox.url}/ext/address-book/client/get`, { email: 'first@example.cz' });
    const second = await postJson(`${sandbox.url}/ext/address-book/client/get`, { externalId: 'WEB-8' });

    expect(first.json).toMatchObject({ isValid: false });
    expect(second.json).toMatchObject({ isValid: true, data: { email: 'second@example.cz' } });
  });

  it('imports assortment names and prices onto existing articles and warns about unknown ones', async () => {
    const result = await postJson(`${sandbox.url}/assortment/import`, {
      items: [{ localId: 'a-100003', name: 'Přejmenováno & zlevněno', salesPrice: 11.5 }, { localId: 'a-999999' }],
    });
    const page = await postJson(`${sandbox.url}/ext/assortment/article/list`, { limit: 1, skip: 2 });

    expect(result.json).toMatchObject({ isValid: true, warnings: [expect.stringContaining('a-999999')], data: { imported: 1 } });
    expect(ArticleListResponseSchema.parse(page.json).data.items[0]).toMatchObject({
      name: 'Přejmenováno & zlevněno',
      salesPrice: 11.5,
    });
  });

  it('answers isValid:false for bodies that are not JSON or not items', async () => {
    const notJson = await postJson(`${sandbox.url}/assortment/import`, '<xml/>');
    const wrongItem = await postJson(`${sandbox.url}/assortment/import`, [{ localId: 5 }]);
    const empty = await postJson(`${sandbox.url}/address-book/client/import`, []);

    expect(notJson.json).toMatchObject({ isValid: false });
    expect(wrongItem.json).toMatchObject({ isValid: false, data: { imported: 0 } });
    expect(empty.json).toMatchObject({ isValid: false });
  });
});
