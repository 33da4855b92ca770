import { Agent, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createShoptetClient, parseBucketFilling, type ShoptetClient } from '../../../src/adapters/push/shoptet-client.js';
import type { FeedItem } from '../../../src/core/feeds/feed-item.js';
import type { PushAction, PushBatchItem, PushTargetOutcome } from '../../../src/core/push/channel-client.js';
import { createPacer } from '../../../src/core/push/pacer.js';
import { buildShoptetStockItem, type ShoptetStockItem } from '../../../src/core/push/payloads/shoptet.js';
import { createBucketSteering } from '../../../src/core/push/shoptet-bucket.js';
import { ShoptetRequestHeadersSchema, ShoptetStockMovementsRequestSchema } from '../../fakes/channels/shoptet-schema.js';
import { type ShoptetServer, startShoptetServer } from '../../fakes/channels/shoptet-server.js';
import { CASES } from '../../unit/core/push/payloads/push-fixtures.js';

const TOKEN = 'shoptet-secret-token-4f9a2c';
const STOCK_ID = 7;
const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const STOCK: PushAction = { kind: 'update', fields: ['stock'] };

let server: ShoptetServer;
let client: ShoptetClient;

function clientFor(overrides: Partial<Parameters<typeof createShoptetClient>[0]> = {}): ShoptetClient {
  return createShoptetClient({
    baseUrl: server.baseUrl,
    token: TOKEN,
    stockId: STOCK_ID,
    timeoutMs: 5000,
    now: () => NOW,
    ...overrides,
  });
}

/** The batch item the worker would build for a target `s:{code}`, through the payload builder. */
function batchItem(
  code: string,
  item: FeedItem | undefined,
  action: PushAction = STOCK,
  gen = 1,
): PushBatchItem<ShoptetStockItem> {
  const result = buildShoptetStockItem(code, item, action, 'realStock');
  if (result.kind !== 'send') throw new Error(`skipped: ${result.reason}`);
  return { target: `s:${code}`, gen, payload: result.payload };
}

function kinds(outcomes: readonly PushTargetOutcome[]): Record<string, string> {
  return Object.fromEntries(outcomes.map(({ target, outcome }) => [target, outcome.kind]));
}

/** Every request the client sent passes the channel's schemas (the client never sends an invalid one). */
function expectOnlyValidRequests(): void {
  for (const recorded of server.requests) {
    expect(ShoptetRequestHeadersSchema.safeParse(recorded.headers).success).toBe(true);
    expect(ShoptetStockMovementsRequestSchema.safeParse(JSON.parse(recorded.body)).success).toBe(true);
    expect(recorded.url).toBe(`/api/stocks/${STOCK_ID}/movements`);
    expect(recorded.url).not.toContain(TOKEN);
  }
}

beforeEach(async () => {
  server = await startShoptetServer({
    token: TOKEN,
    stockId: STOCK_ID,
    products: { A1: { realStock: 3 }, B2: { realStock: 5 }, C3: { realStock: 1 }, SET1: { realStock: 2 } },
    sets: ['SET1'],
    now: () => NOW,
  });
  client = clientFor();
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe('shoptet-client against the fake Shoptet API', () => {
  it('a sale of the last piece reaches the shop as realStock 0, token in its header', async () => {
    const outcomes = await client.send([batchItem('A1', CASES.sale(), STOCK, 4)]);

    expect(outcomes).toEqual([{ target: 's:A1', gen: 4, outcome: { kind: 'ok' } }]);
    expect(server.stock.get('A1')).toEqual({ realStock: 0 });
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({ data: [{ productCode: 'A1', realStock: 0 }] });
    expect(server.requests[0]?.headers['shoptet-private-api-token']).toBe(TOKEN);
    expect(server.requests[0]?.method).toBe('PATCH');
    expectOnlyValidRequests();
  });

  it('a price change carries only the stock (the endpoint has no price): the shop keeps the served stock', async () => {
    const outcomes = await client.send([batchItem('B2', CASES.priceChange(), { kind: 'update', fields: ['price'] })]);

    expect(kinds(outcomes)).toEqual({ 's:B2': 'ok' });
    expect(server.stock.get('B2')).toEqual({ realStock: 3 });
    expect(server.requests[0]?.body).not.toMatch(/price/i);
  });

  it('a new item is sent like any other; one the shop does not hold comes back rejected', async () => {
    const outcomes = await client.send([
      batchItem('C3', CASES.newItem(), { kind: 'create' }),
      batchItem('NEW', CASES.newItem(), { kind: 'create' }),
    ]);

    expect(server.stock.get('C3')).toEqual({ realStock: 3 });
    expect(outcomes[0]?.outcome).toEqual({ kind: 'ok' });
    expect(outcomes[1]?.outcome).toEqual({
      kind: 'rejected',
      message: 'unknown-product: Product with code "NEW" not found.',
      cause: 'invalid',
    });
    expectOnlyValidRequests();
  });

  it('a removed item sends nothing (Shoptet stock cannot delete a product)', async () => {
    const result = buildShoptetStockItem('A1', undefined, { kind: 'remove' }, 'realStock');

    expect(result.kind).toBe('skip');
    expect(await client.send([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
    expect(server.stock.get('A1')).toEqual({ realStock: 3 });
  });

  it('partial errors (200 + errors[]) become per-target outcomes; the rest is applied', async () => {
    const outcomes = await client.send([
      batchItem('A1', CASES.sale()),
      batchItem('NOPE', CASES.sale()),
      batchItem('SET1', CASES.sale()),
    ]);

    expect(server.requests[0]?.status).toBe(200);
    expect(kinds(outcomes)).toEqual({ 's:A1': 'ok', 's:NOPE': 'rejected', 's:SET1': 'rejected' });
    expect(outcomes[2]?.outcome).toMatchObject({ message: expect.stringMatching(/^stock-change-not-allowed: /) });
    expect(server.stock.get('A1')).toEqual({ realStock: 0 });
    expect(server.stock.get('SET1')).toEqual({ realStock: 2 });
  });

  it('every item failing is a 400 with the same body: each target rejected with its own error', async () => {
    const outcomes = await client.send([batchItem('X', CASES.sale()), batchItem('Y', CASES.sale())]);

    expect(server.requests[0]?.status).toBe(400);
    expect(outcomes.map(({ outcome }) => outcome)).toEqual([
      { kind: 'rejected', message: 'unknown-product: Product with code "X" not found.', cause: 'invalid' },
      { kind: 'rejected', message: 'unknown-product: Product with code "Y" not found.', cause: 'invalid' },
    ]);
  });

  it('a 400 refusing the request itself rejects every item; one naming other items retries the unnamed', async () => {
    const invalid = { data: null, errors: [{ errorCode: 'invalid-request', message: 'bad', instance: 'body' }] };
    const partial = { data: null, errors: [{ errorCode: 'unknown-product', message: 'gone', instance: 'A1' }] };
    server.faults.failNext(1, { status: 400, body: invalid });
    server.faults.failNext(1, { status: 400, body: partial });

    const whole = await client.send([batchItem('A1', CASES.sale()), batchItem('B2', CASES.sale())]);
    const named = await client.send([batchItem('A1', CASES.sale()), batchItem('B2', CASES.sale())]);

    expect(whole.map(({ outcome }) => outcome)).toEqual([
      { kind: 'rejected', message: 'invalid-request: bad', cause: 'invalid' },
      { kind: 'rejected', message: 'invalid-request: bad', cause: 'invalid' },
    ]);
    expect(named.map(({ outcome }) => outcome)).toEqual([
      { kind: 'rejected', message: 'unknown-product: gone', cause: 'invalid' },
      { kind: 'retry', message: 'HTTP 400 named no error for this item' },
    ]);
  });

  it('an answer whose errors are not a list is unreadable for items: 200 acks, 500 retries', async () => {
    server.faults.failNext(1, { status: 200, body: { data: null, errors: 7, metadata: { requestId: 'r' } } });
    server.faults.failNext(1, { status: 500, body: { errors: 'down' } });

    const ok = await client.send([batchItem('A1', CASES.sale())]);
    const down = await client.send([batchItem('A1', CASES.sale())]);

    expect(ok[0]?.outcome).toEqual({ kind: 'ok' });
    expect(down[0]?.outcome).toEqual({ kind: 'retry', message: 'HTTP 500', cause: 'server' });
  });

  it('429 with an HTTP-date Retry-After becomes retry after exactly that long (injected clock)', async () => {
    server.faults.failNext(1, { status: 429, retryAfter: new Date(NOW + 90_000).toUTCString() });

    const outcomes = await client.send([batchItem('A1', CASES.sale()), batchItem('B2', CASES.sale())]);

    expect(outcomes.map(({ outcome }) => outcome)).toEqual([
      { kind: 'retry', afterMs: 90_000, message: 'HTTP 429 too-many-requests: HTTP 429', cause: 'rate-limit' },
      { kind: 'retry', afterMs: 90_000, message: 'HTTP 429 too-many-requests: HTTP 429', cause: 'rate-limit' },
    ]);
    expect(server.stock.get('A1')).toEqual({ realStock: 3 });
  });

  it('503 with Retry-After seconds is retry(afterMs); 423 without one waits the documented 5 s', async () => {
    server.faults.failNext(1, { status: 503, retryAfter: '7' });
    server.faults.failNext(1, { status: 423 });

    const first = await client.send([batchItem('A1', CASES.sale())]);
    const second = await client.send([batchItem('A1', CASES.sale())]);
    const third = await client.send([batchItem('A1', CASES.sale())]);

    expect(first[0]?.outcome).toMatchObject({ kind: 'retry', afterMs: 7000 });
    expect(second[0]?.outcome).toMatchObject({ kind: 'retry', afterMs: 5000 });
    expect(third[0]?.outcome).toEqual({ kind: 'ok' });
    expect(server.stock.get('A1')).toEqual({ realStock: 0 });
  });

  it('408 and 409 are retried (the same absolute stock succeeds later); another 4xx is rejected', async () => {
    server.faults.failNext(1, { status: 408 });
    server.faults.failNext(1, { status: 409 });
    server.faults.failNext(1, { status: 404 });

    const outcomes = [];
    for (let call = 0; call < 3; call += 1) outcomes.push((await client.send([batchItem('A1', CASES.sale())]))[0]?.outcome);

    expect(outcomes).toEqual([
      { kind: 'retry', message: expect.stringMatching(/^HTTP 408/), cause: 'network' },
      { kind: 'retry', message: expect.stringMatching(/^HTTP 409/), cause: 'server' },
      { kind: 'rejected', message: expect.stringMatching(/^HTTP 404/), cause: 'invalid' },
    ]);
    expect(server.stock.get('A1')).toEqual({ realStock: 3 });
  });

  it('a refused token keeps the target pending (retry) and no message names the token', async () => {
    const wrong = clientFor({ token: 'not-the-shop-token-81b' });
    const outcomes = await wrong.send([batchItem('A1', CASES.sale())]);
    await wrong.close();
    server.faults.failNext(1, {
      status: 500,
      body: { data: null, errors: [{ errorCode: 'e', message: `bad ${TOKEN}`, instance: 'x' }] },
    });
    const echoed = await client.send([batchItem('A1', CASES.sale())]);

    expect(server.requests[0]?.status).toBe(401);
    expect(outcomes[0]?.outcome).toMatchObject({
      kind: 'retry',
      message: expect.stringMatching(/SHOPTET_API_TOKEN/),
      cause: 'auth',
    });
    expect(echoed[0]?.outcome).toMatchObject({ kind: 'retry', message: 'HTTP 500 e: bad [redacted]' });
    expect(JSON.stringify([outcomes, echoed])).not.toContain('not-the-shop-token-81b');
    expect(JSON.stringify(echoed)).not.toContain(TOKEN);
  });

  it('a channel that does not answer within the timeout, or a closed port, is retry', async () => {
    const held = server.faults.hold();
    const slow = clientFor({ timeoutMs: 100 });
    const timedOut = await slow.send([batchItem('A1', CASES.sale())]);
    held.release();
    await slow.close();
    const closed = createShoptetClient({ baseUrl: 'http://127.0.0.1:1', token: TOKEN, stockId: STOCK_ID, timeoutMs: 1000 });
    const refused = await closed.send([batchItem('A1', CASES.sale())]);
    await closed.close();

    expect(timedOut[0]?.outcome).toMatchObject({
      kind: 'retry',
      message: expect.stringMatching(/network error UND_ERR_HEADERS_TIMEOUT/),
    });
    expect(refused[0]?.outcome).toMatchObject({ kind: 'retry', message: expect.stringMatching(/network error ECONNREFUSED/) });
  });

  it('reports the leaky bucket filling of each answer for the pacer', async () => {
    const fillings: { used: number; size: number }[] = [];
    const paced = clientFor({ onBucketFilling: (filling) => fillings.push({ ...filling }) });
    server.setBucketFilling('170/200');

    await paced.send([batchItem('A1', CASES.sale())]);
    await paced.close();

    expect(fillings).toEqual([{ used: 170, size: 200 }]);
    expect(parseBucketFilling(' 3 / 200 ')).toEqual({ used: 3, size: 200 });
    expect(parseBucketFilling('full')).toBeUndefined();
    expect(parseBucketFilling('1/0')).toBeUndefined();
  });

  it('a bucket above 80 % slows the pacer to one call at a time until it leaked back; below, the normal pace returns', async () => {
    const normal = { capacity: 2, refillPerSecond: 2, maxConcurrent: 2 };
    const pacer = createPacer(normal, NOW);
    const steering = createBucketSteering(pacer, normal, () => NOW);
    const paced = clientFor({ onBucketFilling: steering.onFilling });

    server.setBucketFilling('190/200');
    await paced.send([batchItem('A1', CASES.sale())]);
    const hot = pacer.snapshot(NOW);
    const hotNext = pacer.nextAvailableAt(NOW);
    server.setBucketFilling('120/200');
    await paced.send([batchItem('A1', CASES.sale())]);
    await paced.close();

    expect(steering.slow()).toBe(false);
    expect(steering.last()).toEqual({ used: 120, max: 200 });
    // 190 − 160 drops leak at 10 a second: 3 s before the next call, then one at a time.
    expect(hot.closedUntil).toBe(NOW + 3000);
    expect(hotNext).toBe(NOW + 3000);
    // Back under 80 %: the normal pace (two in flight) once the wait is over.
    expect(pacer.tryTake(NOW + 2999)).toBe(false);
    expect(pacer.tryTake(NOW + 3000)).toBe(true);
    expect(pacer.tryTake(NOW + 3000)).toBe(true);
    pacer.release(2);
  });

  it('the slow pace holds while the bucket stays above 80 %: one call in flight at most', async () => {
    const normal = { capacity: 2, refillPerSecond: 2, maxConcurrent: 2 };
    const pacer = createPacer(normal, NOW);
    const steering = createBucketSteering(pacer, normal, () => NOW);
    const paced = clientFor({ onBucketFilling: steering.onFilling });
    server.setBucketFilling('161/200');

    await paced.send([batchItem('A1', CASES.sale())]);
    await paced.close();

    expect(steering.slow()).toBe(true);
    const at = NOW + 10_000;
    expect(pacer.tryTake(at)).toBe(true);
    // A second call while one is in flight waits for its answer (maxConcurrent 1), not for time.
    expect(pacer.nextAvailableAt(at)).toBeUndefined();
    pacer.release();
    // And the next waits ~2 s for a token (one call every 2 s).
    expect(pacer.nextAvailableAt(at)).toBe(at + 2000);
  });

  it('cuts 301 items into two calls of 300 and 1', async () => {
    const items = Array.from({ length: 301 }, (_, index) => batchItem(`N${index}`, CASES.sale()));

    const outcomes = await client.send(items);

    expect(outcomes).toHaveLength(301);
    expect(server.requests.map((recorded) => JSON.parse(recorded.body).data.length)).toEqual([300, 1]);
    expectOnlyValidRequests();
  });
});

describe('the fake Shoptet API itself', () => {
  async function patch(body: string, headers: Record<string, string>): Promise<number> {
    const response = await request(`${server.baseUrl}/api/stocks/${STOCK_ID}/movements`, { method: 'PATCH', body, headers });
    await response.body.dump();
    return response.statusCode;
  }

  it('rejects invalid requests sent by hand: two amounts, no token, wrong content type, over 300 items', async () => {
    const json = { 'content-type': 'application/json', 'shoptet-private-api-token': TOKEN };
    const tooMany = JSON.stringify({ data: Array.from({ length: 301 }, (_, i) => ({ productCode: `P${i}`, realStock: 1 })) });

    expect(await patch(JSON.stringify({ data: [{ productCode: 'A1', realStock: 1, quantity: 1 }] }), json)).toBe(400);
    expect(
      await patch(JSON.stringify({ data: [{ productCode: 'A1', realStock: 1 }] }), { 'content-type': 'application/json' }),
    ).toBe(401);
    expect(
      await patch(JSON.stringify({ data: [{ productCode: 'A1', realStock: 1 }] }), { ...json, 'content-type': 'text/plain' }),
    ).toBe(400);
    expect(await patch(tooMany, json)).toBe(400);
    expect(server.stock.get('A1')).toEqual({ realStock: 3 });
    expect(await patch(JSON.stringify({ data: [{ productCode: 'A1', realStock: 1 }] }), json)).toBe(200);
  });

  it('counts connections: a client with 10 connections gets 429s (so the 3-connection check can fail)', async () => {
    server.faults.setLatency(30);
    const greedy = clientFor({ dispatcher: new Agent({ connections: 10 }) });

    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => greedy.send([batchItem(`G${i}`, CASES.sale())])));

    expect(server.connectionViolations()).toBeGreaterThan(0);
    expect(results.flat().some(({ outcome }) => outcome.kind === 'retry')).toBe(true);
  });
});

describe('shoptet-client connections', () => {
  it('never holds more than 3 connections under 10 parallel sends', async () => {
    server.faults.setLatency(30);

    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        client.send([batchItem(i < 4 ? (['A1', 'B2', 'C3', 'SET1'][i] ?? '') : `Z${i}`, CASES.sale())]),
      ),
    );

    expect(server.requests).toHaveLength(10);
    expect(server.maxConnections()).toBe(3);
    expect(server.connectionViolations()).toBe(0);
    expect(results.flat().filter(({ outcome }) => outcome.kind === 'retry')).toEqual([]);
    expect(server.stock.get('A1')).toEqual({ realStock: 0 });
  });
});
