import { XMLValidator } from 'fast-xml-parser';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import {
  API_KEY,
  ArticleListResponseSchema,
  call,
  JSON_HEADERS,
  pollUntil,
  postJson,
  sendJson,
  startTestSandbox,
} from './sandbox-test-kit.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterEach(async () => {
  await sendJson(`${sandbox.url}/sandbox/faults`, 'DELETE');
});
afterAll(async () => {
  await sandbox.stop();
});

function setFaults(rules: unknown) {
  return sendJson(`${sandbox.url}/sandbox/faults`, 'PUT', rules);
}

function articleList() {
  return call(`${sandbox.url}/ext/assortment/article/list`, { method: 'POST', headers: JSON_HEADERS, body: '{"limit":5}' });
}

async function lastRequest(path: string) {
  const { json } = await sendJson(`${sandbox.url}/sandbox/requests`, 'GET');
  const requests = (json as { requests: { path: string; status: number; fault?: string }[] }).requests;
  return requests.filter((entry) => entry.path === path).at(-1);
}

describe('sandbox/faults API', () => {
  it('sets, lists and clears rules', async () => {
    const put = await setFaults([
      { endpoint: 'unit-list', mode: 'error', times: 2 },
      { endpoint: '*', mode: 'latency', latencyMs: 5 },
    ]);
    const added = await sendJson(`${sandbox.url}/sandbox/faults`, 'POST', { endpoint: 'price-list', mode: 'empty' });
    const listed = await sendJson(`${sandbox.url}/sandbox/faults`, 'GET');
    const cleared = await sendJson(`${sandbox.url}/sandbox/faults`, 'DELETE');

    expect(put.status).toBe(200);
    expect(added.json).toMatchObject({ faults: [{ endpoint: 'unit-list' }, { endpoint: '*' }, { endpoint: 'price-list' }] });
    expect(listed.json).toMatchObject({
      faults: [
        { endpoint: 'unit-list', mode: 'error', status: 500, rate: 1, remaining: 2 },
        { endpoint: '*', mode: 'latency', latencyMs: 5 },
        { endpoint: 'price-list', mode: 'empty' },
      ],
    });
    expect(cleared.json).toEqual({ faults: [] });
  });

  it.each([
    ['an unknown endpoint', { endpoint: 'everything', mode: 'error' }, 'endpoint'],
    ['an unknown mode', { endpoint: 'unit-list', mode: 'explode' }, 'mode'],
    ['a rate above 1', { endpoint: 'unit-list', mode: 'error', rate: 2 }, 'rate'],
    ['a status below 400', { endpoint: 'unit-list', mode: 'error', status: 200 }, 'status'],
    ['an unknown field', { endpoint: 'unit-list', mode: 'error', color: 'red' }, 'color'],
    ['zero times', { endpoint: 'unit-list', mode: 'error', times: 0 }, 'times'],
  ])('answers 400 with a clear message for %s', async (_name, rule, field) => {
    const { status, json } = await setFaults(rule);

    expect(status).toBe(400);
    expect(json).toMatchObject({ error: { code: 'INVALID_FAULT', message: expect.stringContaining(field) } });
  });

  it('needs the API key', async () => {
    const result = await call(`${sandbox.url}/sandbox/faults`, { headers: {} });

    expect(result.status).toBe(401);
  });
});

describe('sandbox/fault modes', () => {
  it('latency: answers normally, later', async () => {
    await setFaults({ endpoint: 'article-list', mode: 'latency', latencyMs: 400 });
    const started = Date.now();

    const result = await articleList();

    // A lower bound only: the answer cannot come before the injected delay.
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(ArticleListResponseSchema.parse(JSON.parse(result.text)).data.items).toHaveLength(5);
    expect(await lastRequest('/ext/assortment/article/list')).toMatchObject({ status: 200, fault: 'latency' });
  });

  it('error: answers the status, 500 by default, as an envelope on JSON endpoints', async () => {
    await setFaults({ endpoint: 'article-list', mode: 'error' });

    const result = await articleList();

    expect(result.status).toBe(500);
    expect(JSON.parse(result.text)).toMatchObject({ isValid: false });
  });

  it('error: 429 carries Retry-After, on JSON and text endpoints', async () => {
    await setFaults([
      { endpoint: 'unit-list', mode: 'error', status: 429, retryAfterSeconds: 7 },
      { endpoint: 'stock-export', mode: 'error', status: 429 },
    ]);

    const list = await call(`${sandbox.url}/ext/unit/list`, { method: 'POST', headers: JSON_HEADERS, body: '{}' });
    const stock = await call(`${sandbox.url}/warehouse/stock/export/csv/U1`);

    expect(list.status).toBe(429);
    expect(list.headers['retry-after']).toBe('7');
    expect(stock.status).toBe(429);
    expect(stock.headers['retry-after']).toBe('1');
  });

  it('malformed: broken JSON, broken XML and garbage text under the right media types', async () => {
    await setFaults([
      { endpoint: 'article-list', mode: 'malformed' },
      { endpoint: 'price-list', mode: 'malformed' },
      { endpoint: 'stock-export', mode: 'malformed' },
    ]);

    const json = await articleList();
    const xml = await call(`${sandbox.url}/unit/U1/price-list/export/eshop-update`);
    const text = await call(`${sandbox.url}/warehouse/stock/export/csv/U1`);

    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(() => JSON.parse(json.text)).toThrow();
    expect(xml.headers['content-type']).toMatch(/^application\/xml/);
    expect(XMLValidator.validate(xml.text)).not.toBe(true);
    expect(text.headers['content-type']).toMatch(/^text\/plain/);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(text.bytes)).toThrow();
  });

  it.each([
    ['article list', 'article-list', '/ext/assortment/article/list', 'POST'],
    ['price list', 'price-list', '/unit/U1/price-list/export/eshop-update', 'GET'],
    ['stock export', 'stock-export-all', '/warehouse/stock/export/txt', 'GET'],
  ] as const)('truncated: the %s body ends early and the client sees an error', async (_name, endpoint, path, method) => {
    await setFaults({ endpoint, mode: 'truncated' });

    const response = await request(`${sandbox.url}${path}`, {
      method,
      headers: JSON_HEADERS,
      ...(method === 'POST' ? { body: '{"limit":200}' } : {}),
    });
    const declared = Number(response.headers['content-length']);

    expect(response.statusCode).toBe(200);
    expect(declared).toBeGreaterThan(0);
    await expect(response.body.arrayBuffer()).rejects.toThrow();
  });

  it('hang: never answers; the client gives up after its own timeout', async () => {
    await setFaults({ endpoint: 'movement-list', mode: 'hang' });

    const pending = call(`${sandbox.url}/ext/stockholding/movement/list`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: '{}',
      signal: AbortSignal.timeout(300),
    });

    await expect(pending).rejects.toThrow();
    expect(await lastRequest('/ext/stockholding/movement/list')).toMatchObject({ status: 0, fault: 'hang' });
  });

  it('invalid: 200 with isValid:false and errors, also where XML is expected', async () => {
    await setFaults([
      { endpoint: 'client-get', mode: 'invalid' },
      { endpoint: 'price-list', mode: 'invalid' },
    ]);

    const client = await postJson(`${sandbox.url}/ext/address-book/client/get`, { externalId: 'KLI-0001' });
    const priceList = await call(`${sandbox.url}/unit/U1/price-list/export/eshop-update`);

    expect(client.status).toBe(200);
    expect(client.json).toMatchObject({ isValid: false, errors: [expect.any(String)] });
    expect(priceList.status).toBe(200);
    expect(JSON.parse(priceList.text)).toMatchObject({ isValid: false });
  });

  it('empty: an empty catalog in every format', async () => {
    await setFaults({ endpoint: '*', mode: 'empty' });

    const articles = await articleList();
    const units = await postJson(`${sandbox.url}/ext/unit/list`, {});
    const movements = await postJson(`${sandbox.url}/ext/stockholding/movement/list`, {});
    const xml = await call(`${sandbox.url}/unit/U1/price-list/export/eshop-update`);
    const csv = await call(`${sandbox.url}/warehouse/stock/export/csv/U1`);
    const all = await call(`${sandbox.url}/warehouse/stock/export/txt`);

    expect(JSON.parse(articles.text)).toEqual({ data: { items: [] } });
    expect(units.json).toMatchObject({ isValid: true, data: { total: 0, items: [] } });
    expect(movements.json).toMatchObject({ isValid: true, data: { total: 0, items: [] } });
    expect(xml.text).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<root/>\n');
    expect(csv.text).toBe('\uFEFFKód;PLU;EAN;Název;Množství;MJ\r\n');
    expect(all.text).toBe('unit_code\tcode\tplu\tean\tname\tquantity\tunit\n');
  });

  it('times: applies to the next N matching requests only', async () => {
    await setFaults({ endpoint: 'article-list', mode: 'error', status: 503, times: 2 });

    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await articleList()).status);
    const { json } = await sendJson(`${sandbox.url}/sandbox/faults`, 'GET');

    expect(statuses).toEqual([503, 503, 200, 200]);
    expect(json).toEqual({ faults: [] });
  });

  it('leaves other endpoints alone', async () => {
    await setFaults({ endpoint: 'price-list', mode: 'error' });

    expect((await articleList()).status).toBe(200);
    expect((await call(`${sandbox.url}/warehouse/stock/export/csv/U1`)).status).toBe(200);
  });
});

describe('sandbox/fault rate', () => {
  async function hitPattern(target: RunningSandbox): Promise<number[]> {
    await sendJson(`${target.url}/sandbox/faults`, 'PUT', { endpoint: 'unit-list', mode: 'error', rate: 0.5 });
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      statuses.push((await call(`${target.url}/ext/unit/list`, { method: 'POST', headers: JSON_HEADERS, body: '{}' })).status);
    }
    return statuses;
  }

  it('hits a share of requests, in the same sequence for the same seed', async () => {
    const twin = await startTestSandbox();
    try {
      const first = await hitPattern(twin);
      const again = await startTestSandbox();
      const second = await hitPattern(again).finally(() => again.stop());

      expect(first).toEqual(second);
      expect(first.filter((status) => status === 500).length).toBeGreaterThan(5);
      expect(first.filter((status) => status === 200).length).toBeGreaterThan(5);
    } finally {
      await twin.stop();
    }
  });
});

describe('sandbox/stop', () => {
  it('returns promptly with a hung request and a keep-alive connection open', async () => {
    const target = await startTestSandbox();
    await sendJson(`${target.url}/sandbox/faults`, 'PUT', { endpoint: 'article-list', mode: 'hang' });
    await call(`${target.url}/ext/unit/list`, { method: 'POST', headers: JSON_HEADERS, body: '{}' });
    const hung = call(`${target.url}/ext/assortment/article/list`, { method: 'POST', headers: JSON_HEADERS, body: '{}' });
    const outcome = hung.then(
      () => 'answered',
      () => 'cut',
    );
    await pollUntil(async () => {
      const { json } = await sendJson(`${target.url}/sandbox/requests`, 'GET');
      const requests = (json as { requests: { path: string; fault?: string }[] }).requests;
      return requests.some((entry) => entry.fault === 'hang') ? true : undefined;
    });

    await target.stop();

    expect(await outcome).toBe('cut');
    await expect(call(`${target.url}/`, { headers: { 'x-api-key': API_KEY } })).rejects.toThrow();
  });
});
