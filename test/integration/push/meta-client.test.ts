import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMetaClient, type MetaClient } from '../../../src/adapters/push/meta-client.js';
import type { FeedItem } from '../../../src/core/feeds/feed-item.js';
import type { PushAction, PushBatchItem, PushTargetOutcome } from '../../../src/core/push/channel-client.js';
import { buildMetaFullRequest, buildMetaRequest, type MetaBatchRequest } from '../../../src/core/push/payloads/meta.js';
import { parseMetaBatchForm } from '../../fakes/channels/meta-schema.js';
import { type MetaServer, startMetaServer } from '../../fakes/channels/meta-server.js';
import { CASES, feedItem } from '../../unit/core/push/payloads/push-fixtures.js';

const TOKEN = 'EAAmeta-secret-token-77c1';
const CATALOG = '123456789';
const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const OPTIONS = { currency: 'CZK', brand: 'Pražírna' };
const HELD = { id: 'a-1/2', price: '15.99 CZK', availability: 'in stock', title: 'Káva' };

let server: MetaServer;
let client: MetaClient;

function clientFor(overrides: Partial<Parameters<typeof createMetaClient>[0]> = {}): MetaClient {
  return createMetaClient({
    graphUrl: server.graphUrl,
    catalogId: CATALOG,
    token: TOKEN,
    timeoutMs: 5000,
    now: () => NOW,
    ...overrides,
  });
}

/**
 * The batch item the worker would build for a target `m:{id}`, through the payload builder; the served item
 * carries the target's id (the Meta feed's `id` is the retailer id).
 */
function batchItem(id: string, item: FeedItem | undefined, action: PushAction, gen = 1): PushBatchItem<MetaBatchRequest> {
  const result = buildMetaRequest(id, item === undefined ? undefined : { ...item, id }, action, OPTIONS);
  if (result.kind !== 'send') throw new Error(`skipped: ${result.reason}`);
  return { target: `m:${id}`, gen, payload: result.payload };
}

const availability = (id = 'a-1/2') => batchItem(id, CASES.sale(), { kind: 'update', fields: ['availability'] });

function kinds(outcomes: readonly PushTargetOutcome[]): Record<string, string> {
  return Object.fromEntries(outcomes.map(({ target, outcome }) => [target, outcome.kind]));
}

/** Every request the client sent is valid for Meta, and no URL carries the token. */
function expectOnlyValidRequests(): void {
  for (const recorded of server.requests) {
    expect(parseMetaBatchForm(recorded.body).success).toBe(true);
    expect(recorded.url).toBe(`/v21.0/${CATALOG}/items_batch`);
    expect(recorded.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(recorded.headers['content-type']).toBe('application/x-www-form-urlencoded');
  }
}

beforeEach(async () => {
  server = await startMetaServer({
    token: TOKEN,
    catalogId: CATALOG,
    items: { 'a-1/2': HELD, 'b-9': { id: 'b-9', price: '1.00 CZK' } },
  });
  client = clientFor();
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe('meta-client against the fake Graph API', () => {
  it('a sale of the last piece: UPDATE to out of stock, form body, token only in Authorization', async () => {
    const outcomes = await client.send([{ ...availability(), gen: 5 }]);

    expect(outcomes).toEqual([{ target: 'm:a-1/2', gen: 5, outcome: { kind: 'ok' } }]);
    expect(server.items.get('a-1/2')).toEqual({ ...HELD, availability: 'out of stock' });
    const form = new URLSearchParams(server.requests[0]?.body);
    expect(Object.fromEntries(form)).toEqual({
      item_type: 'PRODUCT_ITEM',
      allow_upsert: 'false',
      requests: JSON.stringify([{ method: 'UPDATE', data: { id: 'a-1/2', availability: 'out of stock' } }]),
    });
    expectOnlyValidRequests();
  });

  it('a price change sets price and sale price; an ended sale clears sale_price', async () => {
    const all: PushAction = { kind: 'update', fields: ['price', 'salePrice', 'availability'] };
    await client.send([batchItem('a-1/2', CASES.priceChange(), all)]);
    const onSale = server.items.get('a-1/2');
    await client.send([batchItem('a-1/2', feedItem(), { kind: 'update', fields: ['salePrice'] })]);

    expect(onSale).toEqual({ ...HELD, price: '0.10 CZK', sale_price: '0.09 CZK' });
    expect(server.items.get('a-1/2')).toEqual({ ...HELD, price: '0.10 CZK' });
    expectOnlyValidRequests();
  });

  it('a new item is CREATEd with the template fields; a removed item is DELETEd', async () => {
    const outcomes = await client.send([
      batchItem('new-1', CASES.newItem(), { kind: 'create' }),
      batchItem('b-9', undefined, { kind: 'remove' }),
    ]);

    expect(kinds(outcomes)).toEqual({ 'm:new-1': 'ok', 'm:b-9': 'ok' });
    expect(server.items.get('new-1')).toMatchObject({
      id: 'new-1',
      title: 'Káva',
      price: '15.99 CZK',
      condition: 'new',
      availability: 'in stock',
    });
    expect(server.items.has('b-9')).toBe(false);
    expectOnlyValidRequests();
  });

  it('items refused in validation_status are rejected per target, the others ok', async () => {
    server.invalidIds.add('b-9');

    const outcomes = await client.send([availability(), availability('b-9'), availability('unknown-7')]);

    expect(outcomes.map(({ outcome }) => outcome)).toEqual([
      { kind: 'ok' },
      { kind: 'rejected', message: 'The item violates the commerce policies.', cause: 'invalid' },
      { kind: 'rejected', message: 'Item with retailer id unknown-7 does not exist.', cause: 'invalid' },
    ]);
    expect(server.items.has('unknown-7')).toBe(false);
  });

  it('429 with Retry-After seconds, 503 with an HTTP-date: retry after exactly that long', async () => {
    server.faults.failNext(1, { status: 429, retryAfter: '30' });
    server.faults.failNext(1, { status: 503, retryAfter: new Date(NOW + 45_000).toUTCString() });

    const first = await client.send([availability(), availability('b-9')]);
    const second = await client.send([availability()]);

    expect(first.map(({ outcome }) => outcome)).toEqual([
      { kind: 'retry', afterMs: 30_000, message: 'HTTP 429 code 80014: HTTP 429', cause: 'rate-limit' },
      { kind: 'retry', afterMs: 30_000, message: 'HTTP 429 code 80014: HTTP 429', cause: 'rate-limit' },
    ]);
    expect(second[0]?.outcome).toMatchObject({ kind: 'retry', afterMs: 45_000 });
    expect(server.items.get('a-1/2')).toEqual(HELD);
  });

  it('the batch rate limit (400, code 80014, no Retry-After) waits 60 s; another 400 is rejected', async () => {
    server.faults.failNext(1, { status: 400, body: { error: { message: 'rate limited', code: 80014 } } });
    server.faults.failNext(1, { status: 400, body: { error: { message: 'Invalid parameter', code: 100 } } });

    const limited = await client.send([availability()]);
    const invalid = await client.send([availability()]);

    expect(limited[0]?.outcome).toEqual({
      kind: 'retry',
      afterMs: 60_000,
      message: 'HTTP 400 code 80014: rate limited',
      cause: 'rate-limit',
    });
    expect(invalid[0]?.outcome).toEqual({ kind: 'rejected', message: 'HTTP 400 code 100: Invalid parameter', cause: 'invalid' });
  });

  it('temporary refusals are retried (408, 409, 425, a Graph error marked is_transient); 413 is rejected', async () => {
    server.faults.failNext(1, { status: 408, body: { error: { message: 'timeout', code: 1 } } });
    server.faults.failNext(1, { status: 409, body: { error: { message: 'conflict', code: 1 } } });
    server.faults.failNext(1, { status: 425, body: { error: { message: 'too early', code: 1 } } });
    server.faults.failNext(1, { status: 400, body: { error: { message: 'try again', code: 2, is_transient: true } } });
    server.faults.failNext(1, { status: 413, body: { error: { message: 'too large', code: 1 } } });

    const outcomes = [];
    for (let call = 0; call < 5; call += 1) outcomes.push((await client.send([availability()]))[0]?.outcome);

    expect(outcomes).toEqual([
      { kind: 'retry', message: 'HTTP 408 code 1: timeout', cause: 'network' },
      { kind: 'retry', message: 'HTTP 409 code 1: conflict', cause: 'server' },
      { kind: 'retry', message: 'HTTP 425 code 1: too early', cause: 'server' },
      { kind: 'retry', message: 'HTTP 400 code 2: try again', cause: 'server' },
      { kind: 'rejected', message: 'HTTP 413 code 1: too large', cause: 'invalid' },
    ]);
  });

  it('a malformed validation_status refuses nothing it cannot name', async () => {
    server.faults.failNext(1, { status: 200, body: { handles: ['h'], validation_status: [{ errors: 'x' }, 3, null] } });

    const outcomes = await client.send([availability()]);

    expect(outcomes[0]?.outcome).toEqual({ kind: 'ok' });
  });

  it('an answer with no handle ingested nothing: retry', async () => {
    server.faults.failNext(1, { status: 200, body: { handles: [], validation_status: [] } });

    const outcomes = await client.send([availability()]);

    expect(outcomes[0]?.outcome).toMatchObject({ kind: 'retry', message: expect.stringMatching(/nothing was ingested/) });
  });

  it('a 403 without a token code (missing permission) is a credentials problem too: retried, not dropped', async () => {
    server.faults.failNext(1, { status: 403, body: { error: { message: 'Permissions error', code: 200 } } });
    const outcomes = await client.send([availability()]);
    expect(outcomes[0]?.outcome).toMatchObject({ kind: 'retry', cause: 'auth', message: expect.stringContaining('Permissions') });
  });

  it('a refused token keeps the target pending (retry); no message names a token', async () => {
    const wrong = clientFor({ token: 'EAAwrong-token-0d3' });
    const outcomes = await wrong.send([availability()]);
    await wrong.close();
    server.faults.failNext(1, { status: 500, body: { error: { message: `token ${TOKEN} broke`, code: 2 } } });
    const echoed = await client.send([availability()]);

    expect(outcomes[0]?.outcome).toMatchObject({
      kind: 'retry',
      message: expect.stringMatching(/code 190.*META_ACCESS_TOKEN/),
      cause: 'auth',
    });
    expect(echoed[0]?.outcome).toEqual({ kind: 'retry', message: 'HTTP 500 code 2: token [redacted] broke', cause: 'server' });
    expect(JSON.stringify(outcomes)).not.toContain('EAAwrong-token-0d3');
    expect(JSON.stringify(echoed)).not.toContain(TOKEN);
    expect(server.requests.every((recorded) => !recorded.url.includes('token'))).toBe(true);
  });

  it('a channel that does not answer within the timeout is retry', async () => {
    const held = server.faults.hold();
    const slow = clientFor({ timeoutMs: 100 });

    const outcomes = await slow.send([availability()]);
    held.release();
    await slow.close();

    expect(outcomes[0]?.outcome).toMatchObject({
      kind: 'retry',
      message: expect.stringMatching(/UND_ERR_HEADERS_TIMEOUT/),
      cause: 'network',
    });
  });

  it('cuts a batch at META_BATCH_SIZE, in order, one call after another', async () => {
    const ids = ['a-1/2', 'b-9', 'c', 'd', 'e'];
    const small = clientFor({ batchSize: 2 });

    const outcomes = await small.send(ids.map((id) => availability(id)));
    await small.close();

    expect(outcomes.map(({ target }) => target)).toEqual(ids.map((id) => `m:${id}`));
    expect(
      server.requests.map((recorded) => JSON.parse(new URLSearchParams(recorded.body).get('requests') ?? '[]').length),
    ).toEqual([2, 2, 1]);
    expectOnlyValidRequests();
  });
});

describe('meta-client new items and full sends (allow_upsert)', () => {
  function fullItem(id: string, item: FeedItem, gen = 1): PushBatchItem<MetaBatchRequest> {
    const result = buildMetaFullRequest(id, { ...item, id }, OPTIONS);
    if (result.kind !== 'send') throw new Error(`skipped: ${result.reason}`);
    return { target: `m:${id}`, gen, payload: result.payload };
  }

  it('a field UPDATE of an item Meta lacks is refused (allow_upsert=false); a FULL send creates it', async () => {
    const refused = await client.send([availability('missing-1')]);
    const created = await client.send([fullItem('missing-1', CASES.newItem())]);

    expect(kinds(refused)).toEqual({ 'm:missing-1': 'rejected' });
    expect(kinds(created)).toEqual({ 'm:missing-1': 'ok' });
    expect(server.items.get('missing-1')).toMatchObject({ id: 'missing-1', condition: 'new', brand: 'Pražírna' });
    expect(server.items.get('missing-1')?.title).toBeDefined();
    expect(server.items.get('missing-1')?.image_link).toBeDefined();
    expectOnlyValidRequests();
  });

  it('a FULL send overwrites a held item and clears its ended sale', async () => {
    server.items.set('b-9', { id: 'b-9', price: '1.00 CZK', sale_price: '0.50 CZK' });
    await client.send([fullItem('b-9', feedItem())]);

    expect(server.items.get('b-9')?.sale_price).toBeUndefined();
    expect(server.items.get('b-9')?.link).toBeDefined();
  });

  it('field updates and whole items travel in separate calls: allow_upsert false, then true', async () => {
    const outcomes = await client.send([fullItem('new-2', CASES.newItem()), availability(), fullItem('b-9', feedItem())]);

    expect(kinds(outcomes)).toEqual({ 'm:new-2': 'ok', 'm:a-1/2': 'ok', 'm:b-9': 'ok' });
    const calls = server.requests.map((recorded) => new URLSearchParams(recorded.body));
    expect(calls.map((form) => form.get('allow_upsert'))).toEqual(['false', 'true']);
    const ids = calls.map((form) =>
      (JSON.parse(form.get('requests') ?? '[]') as { data: { id: string } }[]).map((r) => r.data.id),
    );
    expect(ids).toEqual([['a-1/2'], ['new-2', 'b-9']]);
    // The bridge's `upsert` mark never travels.
    expect(calls[1]?.get('requests')).not.toContain('upsert');
    expectOnlyValidRequests();
  });

  it('a FULL send of an item the Meta feed leaves out (no brand, no GTIN) is skipped, never half-created', () => {
    const { enrichment: _enrichment, ean: _ean, ...bare } = CASES.newItem();
    expect(buildMetaFullRequest('x-1', bare, { currency: 'CZK' })).toEqual({ kind: 'skip', reason: 'neither brand nor GTIN' });
    expect(buildMetaFullRequest('x-1', undefined, OPTIONS)).toEqual({
      kind: 'send',
      payload: { method: 'DELETE', data: { id: 'x-1' } },
    });
  });
});

describe('meta-client batch handles and their status', () => {
  it("hands each accepted call's handle with its acked targets to onHandle, and reads its status", async () => {
    const handles: [string, readonly string[]][] = [];
    const tracked = clientFor({ onHandle: (handle, targets) => handles.push([handle, targets]) });
    server.invalidIds.add('b-9');

    await tracked.send([availability(), availability('b-9')]);
    const [handle = ''] = handles[0] ?? [];
    const finished = await tracked.checkBatchStatus(handle);
    server.batches.set(handle, { status: 'finished', idsOfInvalidRequests: ['a-1/2'] });
    const invalid = await tracked.checkBatchStatus(handle);
    server.batches.set(handle, { status: 'started' });
    const pending = await tracked.checkBatchStatus(handle);
    server.batches.set(handle, { status: 'canceled' });
    const canceled = await tracked.checkBatchStatus(handle);
    // Meta's own sample: the refused item only in errors[], ids_of_invalid_requests empty.
    server.faults.failNext(1, {
      status: 200,
      body: {
        data: [
          {
            status: 'finished',
            errors_total_count: 1,
            errors: [{ line: 0, id: 'r-4', message: 'no Availability' }],
            warnings: [],
            ids_of_invalid_requests: [],
          },
        ],
      },
    });
    const sample = await tracked.checkBatchStatus(handle);
    await tracked.close();

    expect(handles).toEqual([[handle, ['m:a-1/2']]]);
    expect(finished).toEqual({ kind: 'finished', invalidIds: [] });
    expect(invalid).toEqual({ kind: 'finished', invalidIds: ['a-1/2'], messages: { 'a-1/2': 'Invalid request' } });
    expect(pending).toEqual({ kind: 'pending', status: 'started' });
    expect(canceled).toEqual({ kind: 'failed', status: 'canceled' });
    expect(sample).toEqual({ kind: 'finished', invalidIds: ['r-4'], messages: { 'r-4': 'no Availability' } });
    const check = new URL(server.requests[1]?.url ?? '', 'http://x');
    expect(check.pathname).toBe(`/v21.0/${CATALOG}/check_batch_request_status`);
    expect(Object.fromEntries(check.searchParams)).toEqual({ handle, load_ids_of_invalid_requests: 'true' });
    expect(server.requests[1]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('a failed status check is retry (429 with Retry-After), an unknown handle fails the batch', async () => {
    server.faults.failNext(1, { status: 429, retryAfter: '12' });

    const limited = await client.checkBatchStatus('fake-handle-x');
    const unknown = await client.checkBatchStatus('fake-handle-x');

    expect(limited).toMatchObject({ kind: 'retry', afterMs: 12_000 });
    expect(unknown).toEqual({ kind: 'failed', status: 'HTTP 400 code 100: Unknown handle fake-handle-x' });
  });
});

describe('the fake Graph API itself', () => {
  async function post(body: string, headers: Record<string, string>, query = ''): Promise<number> {
    const response = await request(`${server.graphUrl}/${CATALOG}/items_batch${query}`, { method: 'POST', body, headers });
    await response.body.dump();
    return response.statusCode;
  }

  it('rejects invalid requests sent by hand: no bearer, token in the URL, JSON body, bad price, no item_type', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${TOKEN}` };
    const body = (requests: unknown, extra: Record<string, string> = { item_type: 'PRODUCT_ITEM' }) =>
      new URLSearchParams({ ...extra, requests: JSON.stringify(requests) }).toString();
    const update = [{ method: 'UPDATE', data: { id: 'a-1/2', price: '15.99 CZK' } }];

    expect(await post(body(update), { 'content-type': form['content-type'] })).toBe(401);
    expect(await post(body(update), form, `?access_token=${TOKEN}`)).toBe(400);
    expect(
      await post(JSON.stringify({ item_type: 'PRODUCT_ITEM', requests: update }), {
        ...form,
        'content-type': 'application/json',
      }),
    ).toBe(400);
    expect(await post(body([{ method: 'UPDATE', data: { id: 'a-1/2', price: '15.9 Kč' } }]), form)).toBe(400);
    expect(await post(body(update, {}), form)).toBe(400);
    expect(server.items.get('a-1/2')).toEqual(HELD);
    expect(await post(body(update), form)).toBe(200);
  });
});
