import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { request } from 'undici';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGoogleMerchantClient, type GoogleMerchantClient } from '../../../src/adapters/push/google-merchant-client.js';
import { parseServiceAccountKey, type ServiceAccountKey, signAssertion } from '../../../src/adapters/push/google-token.js';
import type { FeedItem } from '../../../src/core/feeds/feed-item.js';
import type { PushAction, PushBatchItem, PushTargetOutcome } from '../../../src/core/push/channel-client.js';
import {
  buildGoogleLocalInventory,
  buildGoogleProductRequest,
  type GooglePayloadOptions,
  productInputName,
} from '../../../src/core/push/payloads/google.js';
import type { GooglePayload } from '../../../src/core/push/target-payloads.js';
import { type GoogleServer, startGoogleServer } from '../../fakes/channels/google-server.js';
import { CASES, feedItem } from '../../unit/core/push/payloads/push-fixtures.js';

const ACCOUNT = '123456';
const DATA_SOURCE = '789';
const EMAIL = 'push@bridge-test.iam.gserviceaccount.com';
const NOW = Date.UTC(2026, 10, 26, 10, 0, 0);
const OPTIONS: GooglePayloadOptions = { account: ACCOUNT, contentLanguage: 'cs', feedLabel: 'CZ', currency: 'CZK' };
const ID = 'a-1/2';
const KEY_OF_ID = `cs~CZ~${ID}`;

// Throwaway keys made per run: never a committed key.
let privatePem: string;
let publicKey: KeyObject;
let otherPrivatePem: string;
let server: GoogleServer;
let client: GoogleMerchantClient;
let clock: number;

function keyFile(pem = privatePem, tokenUri?: string): ServiceAccountKey {
  return parseServiceAccountKey(
    JSON.stringify({ type: 'service_account', client_email: EMAIL, private_key: pem, token_uri: tokenUri }),
  );
}

function clientFor(overrides: Partial<Parameters<typeof createGoogleMerchantClient>[0]> = {}): GoogleMerchantClient {
  return createGoogleMerchantClient({
    rootUrl: server.baseUrl,
    account: ACCOUNT,
    dataSourceId: DATA_SOURCE,
    contentLanguage: 'cs',
    feedLabel: 'CZ',
    key: keyFile(privatePem, server.tokenUrl),
    timeoutMs: 5000,
    now: () => clock,
    ...overrides,
  });
}

function product(item: FeedItem | undefined, action: PushAction, gen = 1): PushBatchItem<GooglePayload> {
  const result = buildGoogleProductRequest(ID, item, action, OPTIONS);
  if (result.kind !== 'send') throw new Error(`skipped: ${result.reason}`);
  return { target: `p:${ID}`, gen, payload: { kind: 'product', request: result.payload } };
}

function local(unit: string): PushBatchItem<GooglePayload> {
  const offer = feedItem({}, unit).offers[0];
  if (offer === undefined) throw new Error('no offer');
  return {
    target: `l:${ID}:${unit}`,
    gen: 1,
    payload: { kind: 'local', offerId: ID, inventory: buildGoogleLocalInventory(offer, 'CZK') },
  };
}

function only(outcomes: readonly PushTargetOutcome[]) {
  expect(outcomes).toHaveLength(1);
  return outcomes[0]?.outcome;
}

/** Calls of the Merchant API (not the token endpoint). */
function apiCalls() {
  return server.requests.filter((recorded) => !recorded.url.startsWith('/token'));
}

async function insertNew(): Promise<void> {
  expect(only(await client.send([product(CASES.newItem(), { kind: 'create' })]))).toEqual({ kind: 'ok' });
}

beforeAll(() => {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  privatePem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  publicKey = pair.publicKey;
  otherPrivatePem = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
});

beforeEach(async () => {
  clock = NOW;
  server = await startGoogleServer({
    account: ACCOUNT,
    dataSourceId: DATA_SOURCE,
    clientEmail: EMAIL,
    publicKey,
    now: () => Math.floor(clock / 1000),
  });
  client = clientFor();
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe('Google Merchant client against the fake Merchant API', () => {
  it('inserts a new item into the data source with exact micros for 15.99', async () => {
    await insertNew();
    expect(server.products.get(KEY_OF_ID)).toEqual({
      priceMicros: '15990000',
      salePriceMicros: undefined,
      availability: 'IN_STOCK',
    });
    const [insert] = apiCalls();
    expect(insert?.method).toBe('POST');
    expect(insert?.url).toBe(
      `/products/v1/accounts/${ACCOUNT}/productInputs:insert?dataSource=accounts%2F${ACCOUNT}%2FdataSources%2F${DATA_SOURCE}`,
    );
    expect(JSON.parse(insert?.body ?? '')).toMatchObject({
      offerId: ID,
      productAttributes: { price: { amountMicros: '15990000', currencyCode: 'CZK' } },
    });
  });

  it('patches a sale (availability only) under the base64url name with a one-path mask', async () => {
    await insertNew();
    const outcome = only(await client.send([product(CASES.sale(), { kind: 'update', fields: ['availability'] })]));
    expect(outcome).toEqual({ kind: 'ok' });
    expect(server.products.get(KEY_OF_ID)).toMatchObject({ priceMicros: '15990000', availability: 'OUT_OF_STOCK' });
    const patch = apiCalls()[1];
    const url = new URL(patch?.url ?? '', 'http://x');
    expect(patch?.method).toBe('PATCH');
    expect(url.pathname).toBe(`/products/v1/${productInputName(OPTIONS, ID)}`);
    expect(url.searchParams.get('updateMask')).toBe('productAttributes.availability');
  });

  it('patches a price change with exact micros for 0.10 and a sale price, then ends the sale by mask only', async () => {
    await insertNew();
    const fields: PushAction = { kind: 'update', fields: ['price', 'salePrice'] };
    expect(only(await client.send([product(CASES.priceChange(), fields)]))).toEqual({ kind: 'ok' });
    expect(server.products.get(KEY_OF_ID)).toMatchObject({ priceMicros: '100000', salePriceMicros: '90000' });
    expect(
      only(
        await client.send([
          product(feedItem({ aggregate: { unit: 'all', price: 0.1, stock: 3, availability: 'in_stock' } }), fields, 2),
        ]),
      ),
    ).toEqual({ kind: 'ok' });
    expect(server.products.get(KEY_OF_ID)).toMatchObject({ priceMicros: '100000', salePriceMicros: undefined });
  });

  it('deletes a removed item from the data source', async () => {
    await insertNew();
    expect(only(await client.send([product(undefined, { kind: 'remove' }, 2)]))).toEqual({ kind: 'ok' });
    expect(server.products.has(KEY_OF_ID)).toBe(false);
    expect(apiCalls()[1]?.method).toBe('DELETE');
  });

  it('inserts the local inventory of each unit under its store code', async () => {
    await insertNew();
    const outcomes = await client.send([local('U1')]);
    expect(only(outcomes)).toEqual({ kind: 'ok' });
    expect(server.localInventories.get(KEY_OF_ID)?.get('praha-1')).toEqual({
      availability: 'IN_STOCK',
      quantity: '3',
      price: { amountMicros: '15990000', currencyCode: 'CZK' },
    });
    expect(apiCalls()[1]?.url).toBe(
      `/inventories/v1/accounts/${ACCOUNT}/products/${Buffer.from(KEY_OF_ID).toString('base64url')}/localInventories:insert`,
    );
  });

  it('a patch of a product the source does not hold is rejected (NOT_FOUND), not retried forever', async () => {
    const outcome = only(await client.send([product(CASES.sale(), { kind: 'update', fields: ['availability'] })]));
    expect(outcome).toMatchObject({ kind: 'rejected', message: expect.stringContaining('NOT_FOUND'), cause: 'invalid' });
  });
});

describe('retries', () => {
  // A fault takes the next request, the token's too: each test first has its token issued.
  beforeEach(insertNew);

  it('429 RESOURCE_EXHAUSTED is retried after its Retry-After seconds, then goes through', async () => {
    server.faults.failNext(1, { status: 429, retryAfter: '120' });
    const first = only(await client.send([product(CASES.newItem(), { kind: 'create' })]));
    expect(first).toMatchObject({
      kind: 'retry',
      afterMs: 120_000,
      message: expect.stringContaining('RESOURCE_EXHAUSTED'),
      cause: 'rate-limit',
    });
    expect(server.products.get(KEY_OF_ID)?.priceMicros).toBe('15990000');
    server.products.clear();
    await insertNew();
    expect(server.products.get(KEY_OF_ID)?.priceMicros).toBe('15990000');
  });

  it('503 is retried after its Retry-After (an HTTP-date, read against the injected clock)', async () => {
    server.faults.failNext(1, { status: 503, retryAfter: new Date(NOW + 7000).toUTCString() });
    expect(only(await client.send([local('U1')]))).toMatchObject({ kind: 'retry', afterMs: 7000, cause: 'server' });
  });

  it('a daily quota 429 is a quota retry without a fixed wait (the gate of the channel closes until the reset)', async () => {
    server.faults.failNext(1, {
      status: 429,
      body: { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'quota/daily_limit_exceeded' } },
    });
    const outcome = only(await client.send([local('U1')]));
    expect(outcome).toMatchObject({ kind: 'retry', cause: 'quota' });
    expect(outcome).not.toHaveProperty('afterMs');
  });

  it('408, 409 and 425 are retried; INVALID_ARGUMENT is rejected', async () => {
    for (const status of [408, 409, 425]) server.faults.failNext(1, { status });
    server.faults.failNext(1, { status: 400, body: { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'bad' } } });

    const outcomes = [];
    for (let call = 0; call < 4; call += 1) outcomes.push(only(await client.send([local('U1')])));

    expect(outcomes).toEqual([
      expect.objectContaining({ kind: 'retry', message: expect.stringMatching(/^HTTP 408/), cause: 'network' }),
      expect.objectContaining({ kind: 'retry', message: expect.stringMatching(/^HTTP 409/), cause: 'server' }),
      expect.objectContaining({ kind: 'retry', message: expect.stringMatching(/^HTTP 425/), cause: 'server' }),
      { kind: 'rejected', message: 'HTTP 400 INVALID_ARGUMENT: bad', cause: 'invalid' },
    ]);
  });

  it('a 5xx without Retry-After is retried with no delay of its own (the worker backs off)', async () => {
    server.faults.failNext(1, { status: 500 });
    const outcome = only(await client.send([local('U1')]));
    expect(outcome?.kind).toBe('retry');
    expect(outcome).not.toHaveProperty('afterMs');
  });
});

describe('bounded requests', () => {
  it('a channel that does not answer within timeoutMs gives retry, not a hang', async () => {
    await client.close();
    client = clientFor({ timeoutMs: 100 });
    await insertNew();
    const held = server.faults.hold();
    const outcomes = await client.send([local('U1')]);
    held.release();
    expect(only(outcomes)).toMatchObject({ kind: 'retry', message: expect.stringContaining('network error'), cause: 'network' });
  });

  it('sends one call per target with at most `concurrency` connections', async () => {
    await client.close();
    client = clientFor({ concurrency: 3 });
    await insertNew(); // has the token issued before the server holds its answers
    const held = server.faults.hold();
    const units = Array.from({ length: 8 }, (_, index) => ({ ...local('U1'), target: `l:${ID}:U${index}` }));
    const sending = client.send(units);
    await new Promise<void>((resolve) => {
      // Waits for the first calls to arrive (an event, not a time): the held server answers none yet.
      const check = () => (apiCalls().length >= 4 ? resolve() : setImmediate(check));
      check();
    });
    expect(apiCalls()).toHaveLength(4); // the insert and 3 in flight
    held.release();
    expect((await sending).map(({ outcome }) => outcome.kind)).toEqual(Array(8).fill('ok'));
    expect(server.maxConnections()).toBeLessThanOrEqual(3);
    expect(apiCalls()).toHaveLength(9);
  });
});

describe('invalid requests', () => {
  it('the fake refuses a request that breaks the schema (sent by hand) with INVALID_ARGUMENT', async () => {
    await client.send([local('U1')]); // gets a token issued
    const token = await (async () => {
      const form = new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: signAssertion(keyFile(), server.tokenUrl, clock),
      });
      const answer = await request(server.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      });
      return ((await answer.body.json()) as { access_token: string }).access_token;
    })();
    const response = await request(
      `${server.baseUrl}/products/v1/accounts/${ACCOUNT}/productInputs:insert?dataSource=accounts/${ACCOUNT}/dataSources/${DATA_SOURCE}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          offerId: ID,
          contentLanguage: 'cs',
          feedLabel: 'CZ',
          productAttributes: { price: { amountMicros: '15.99', currencyCode: 'CZK' } },
        }),
      },
    );
    expect(response.statusCode).toBe(400);
    expect(await response.body.json()).toMatchObject({
      error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('amountMicros') },
    });
  });

  it('the client maps INVALID_ARGUMENT to rejected with Google message', async () => {
    const bad: PushBatchItem<GooglePayload> = {
      target: `l:${ID}:U1`,
      gen: 1,
      payload: {
        kind: 'local',
        offerId: ID,
        inventory: { storeCode: 'praha-1', localInventoryAttributes: { availability: 'IN_STOCK', quantity: '-1' } },
      },
    };
    expect(only(await client.send([bad]))).toMatchObject({
      kind: 'rejected',
      message: expect.stringContaining('INVALID_ARGUMENT'),
    });
  });

  it('a call without a token issued by the endpoint is refused 401', async () => {
    const response = await request(`${server.baseUrl}/inventories/v1/accounts/${ACCOUNT}/products/x/localInventories:insert`, {
      method: 'POST',
      headers: { authorization: 'Bearer made-up', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.statusCode).toBe(401);
    await response.body.dump();
  });
});

describe('the access token', () => {
  it('is fetched once and reused by every call of several concurrent batches', async () => {
    await insertNew();
    const batch = ['U1', 'U2'].map(local);
    await Promise.all([client.send(batch), client.send([product(CASES.sale(), { kind: 'update', fields: ['availability'] })])]);
    expect(server.tokensIssued()).toBe(1);
    expect(server.requests.filter((recorded) => recorded.url === '/token')).toHaveLength(1);
    expect(new Set(apiCalls().map((recorded) => recorded.headers.authorization)).size).toBe(1);
  });

  it('is fetched anew after the API refuses it (401), and the refusal is retried', async () => {
    await insertNew();
    server.faults.failNext(1, { status: 401 });
    expect(only(await client.send([local('U1')]))).toMatchObject({
      kind: 'retry',
      message: expect.stringContaining('UNAUTHENTICATED'),
      cause: 'auth',
    });
    expect(only(await client.send([local('U1')]))).toEqual({ kind: 'ok' });
    expect(server.tokensIssued()).toBe(2);
  });

  it('is fetched again once it expires (by the injected clock)', async () => {
    await insertNew();
    clock += 3600 * 1000;
    await client.send([local('U1')]);
    expect(server.tokensIssued()).toBe(2);
  });

  it('comes from GOOGLE_OAUTH_TOKEN_URL when set, over the key file token_uri', async () => {
    await client.close();
    client = clientFor({ key: keyFile(privatePem, 'http://127.0.0.1:9/unused'), tokenUrl: server.tokenUrl });
    await insertNew();
    expect(server.tokensIssued()).toBe(1);
  });

  it('an assertion signed by another key is refused; the outcome names no secret', async () => {
    await client.close();
    client = clientFor({ key: keyFile(otherPrivatePem, server.tokenUrl) });
    const outcome = only(await client.send([local('U1')]));
    expect(outcome).toMatchObject({ kind: 'retry', message: expect.stringContaining('invalid_grant'), cause: 'auth' });
    expect(server.tokensIssued()).toBe(0);
    expect(apiCalls()).toHaveLength(0);
    expectNoSecret([outcome], otherPrivatePem);
  });
});

function expectNoSecret(outcomes: readonly unknown[], pem = privatePem): void {
  const text = JSON.stringify(outcomes);
  const keyBody = pem.split('\n')[1] ?? '';
  expect(keyBody.length).toBeGreaterThan(20);
  expect(text).not.toContain(keyBody);
  expect(text).not.toContain('ya29.');
  expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/); // no assertion
}

describe('no secret in any outcome message', () => {
  it('retries, rejections and auth failures carry neither the key, the token nor the assertion', async () => {
    await insertNew();
    const authorization = apiCalls()[0]?.headers.authorization ?? '';
    // A channel echoing the request's credentials back in its error message.
    const echoed = { error: { code: 500, status: 'INTERNAL', message: `echo ${authorization} ${privatePem}` } };
    server.faults.failNext(1, { status: 500, body: echoed });
    server.faults.failNext(1, {
      status: 400,
      body: { error: { code: 400, status: 'INVALID_ARGUMENT', message: `bad ${authorization}` } },
    });
    server.faults.failNext(1, { status: 401 });
    const outcomes = [
      ...(await client.send([local('U1')])),
      ...(await client.send([local('U1')])),
      ...(await client.send([local('U1')])),
    ];
    expect(outcomes.map(({ outcome }) => outcome.kind)).toEqual(['retry', 'rejected', 'retry']);
    expectNoSecret(outcomes);
  });
});
