import { inflateSync } from 'node:zlib';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxApp } from '../../../src/sandbox/create-sandbox-app.js';
import { createSandboxState } from '../../../src/sandbox/sandbox-state.js';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import { API_KEY, call, JSON_HEADERS, postJson, sendJson, startTestSandbox } from './sandbox-test-kit.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox.stop();
});

/** Minimal PNG reader: checks the chunk CRCs and returns size and the first pixel. */
function readPng(bytes: Buffer): { width: number; height: number; pixel: number[] } {
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let offset = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  for (let guard = 0; guard < 100 && offset < bytes.length; guard++) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.subarray(offset + 4, offset + 8).toString('ascii');
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      expect([data[8], data[9]]).toEqual([8, 2]);
    }
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
    if (type === 'IEND') break;
  }
  const raw = inflateSync(Buffer.concat(idat));
  expect(raw.length).toBe(height * (1 + width * 3));
  return { width, height, pixel: [raw[1] ?? -1, raw[2] ?? -1, raw[3] ?? -1] };
}

describe('sandbox/request log', () => {
  it('records method, path, time and status of recent calls, and clears', async () => {
    await sendJson(`${sandbox.url}/sandbox/requests`, 'DELETE');
    await postJson(`${sandbox.url}/ext/unit/list`, {});
    await call(`${sandbox.url}/unit/U1/price-list/export/eshop-update?key=${API_KEY}`, { headers: {} });
    await call(`${sandbox.url}/warehouse/stock/export/csv/U404`);

    const { json } = await sendJson(`${sandbox.url}/sandbox/requests`, 'GET');
    const requests = (json as { requests: { method: string; path: string; time: string; status: number }[] }).requests;

    expect(requests.map(({ method, path, status }) => ({ method, path, status }))).toEqual([
      { method: 'POST', path: '/ext/unit/list', status: 200 },
      { method: 'GET', path: '/unit/U1/price-list/export/eshop-update', status: 200 },
      { method: 'GET', path: '/warehouse/stock/export/csv/U404', status: 404 },
    ]);
    expect(requests.every((entry) => !Number.isNaN(Date.parse(entry.time)))).toBe(true);
    expect(JSON.stringify(requests)).not.toContain(API_KEY);
    await sendJson(`${sandbox.url}/sandbox/requests`, 'DELETE');
    expect((await sendJson(`${sandbox.url}/sandbox/requests`, 'GET')).json).toEqual({ requests: [] });
  });

  it('keeps only the most recent 500', async () => {
    await sendJson(`${sandbox.url}/sandbox/requests`, 'DELETE');
    for (let i = 0; i < 520; i++) await call(`${sandbox.url}/sandbox/products/a-100001`, { headers: {} });
    await call(`${sandbox.url}/`, { headers: {} });

    const { json } = await sendJson(`${sandbox.url}/sandbox/requests`, 'GET');
    const requests = (json as { requests: { path: string }[] }).requests;

    expect(requests).toHaveLength(500);
    expect(requests.at(-1)?.path).toBe('/');
  });
});

describe('sandbox/article listing', () => {
  async function listed(skip: number, limit: number): Promise<string[]> {
    const { json } = await postJson(`${sandbox.url}/ext/assortment/article/list`, { skip, limit });
    return (json as { data: { items: { localId: string }[] } }).data.items.map((item) => item.localId);
  }

  it('takes an article out of the list (pages count listed ones) and puts it back', async () => {
    const before = await listed(0, 6);
    expect(before).toHaveLength(6);
    const [a, b, c, d, e, f] = before;
    expect((await sendJson(`${sandbox.url}/sandbox/articles/${b}`, 'DELETE')).json).toEqual({ localId: b, listed: false });
    await sendJson(`${sandbox.url}/sandbox/articles/${d}`, 'DELETE');
    expect(await listed(0, 2)).toEqual([a, c]);
    expect(await listed(2, 2)).toEqual([e, f]);
    expect((await sendJson(`${sandbox.url}/sandbox/articles/${b}`, 'PUT')).json).toEqual({ localId: b, listed: true });
    await sendJson(`${sandbox.url}/sandbox/articles/${d}`, 'PUT');
    expect(await listed(0, 6)).toEqual(before);
    expect((await sendJson(`${sandbox.url}/sandbox/articles/no-such`, 'DELETE')).status).toBe(404);
  });
});

describe('sandbox/product pages and images', () => {
  it('serves a small HTML page with the name and price, without a key', async () => {
    const articles = (await postJson(`${sandbox.url}/ext/assortment/article/list`, { limit: 1 })).json as {
      data: { items: { name: string; salesPrice: number }[] };
    };
    const article = articles.data.items[0];

    const page = await call(`${sandbox.url}/sandbox/products/a-100001`, { headers: {} });

    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain(article?.name);
    expect(page.text).toContain(article?.salesPrice.toFixed(2).replace('.', ','));
    expect(page.text).toContain('/sandbox/images/a-100001.png');
    expect((await call(`${sandbox.url}/sandbox/products/a-999999`, { headers: {} })).status).toBe(404);
  });

  it('serves a valid solid-colour PNG per article, colour from the id', async () => {
    const first = await call(`${sandbox.url}/sandbox/images/a-100001.png`, { headers: {} });
    const again = await call(`${sandbox.url}/sandbox/images/a-100001.png`, { headers: {} });
    const second = await call(`${sandbox.url}/sandbox/images/a-100002.png`, { headers: {} });

    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('image/png');
    const image = readPng(first.bytes);
    expect(image).toMatchObject({ width: 32, height: 32 });
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(readPng(second.bytes).pixel).not.toEqual(image.pixel);
    expect((await call(`${sandbox.url}/sandbox/images/a-100001.gif`, { headers: {} })).status).toBe(404);
    expect((await call(`${sandbox.url}/sandbox/images/nope.png`, { headers: {} })).status).toBe(404);
  });
});

describe('sandbox/createSandboxApp (in-process, supertest)', () => {
  const state = createSandboxState({ units: 2, articles: 50, seed: 3, now: () => new Date('2026-11-22T00:00:00Z') });
  const app = createSandboxApp(state, { apiKey: API_KEY });

  it('serves the interface without a listening server', async () => {
    const response = await supertest(app).post('/ext/unit/list').set(JSON_HEADERS).send({ limit: 1 });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ isValid: true, data: { total: 2, items: [{ code: 'U1' }] } });
  });

  it('records sales through POST /sandbox/sales without a webhook sender', async () => {
    const response = await supertest(app).post('/sandbox/sales').set(JSON_HEADERS).send({ unitCode: 'U2' });
    const movements = await supertest(app)
      .post('/ext/stockholding/movement/list')
      .set(JSON_HEADERS)
      .send({ filter: { unit: 'U2' } });

    expect(response.status).toBe(201);
    expect(movements.body.data.items.some((movement: { count: number }) => movement.count < 0)).toBe(true);
  });

  it('answers 413 with an envelope for an oversized body and 404 for unknown paths', async () => {
    const big = await supertest(app)
      .post('/assortment/import')
      .set(JSON_HEADERS)
      .send(`[${'"x",'.repeat(3_000_000)}"x"]`);
    const unknown = await supertest(app).get('/sandbox/nothing').set(JSON_HEADERS);

    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ isValid: false });
    expect(unknown.status).toBe(404);
  });
});
