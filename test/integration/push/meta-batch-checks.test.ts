import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryPushOutbox } from '../../../src/adapters/push/memory-push-outbox.js';
import { createMetaClient, type MetaClient } from '../../../src/adapters/push/meta-client.js';
import { PUSH_MASK, type PushOutbox } from '../../../src/core/push/outbox.js';
import { createMetaBatchChecks, type MetaBatchChecks } from '../../../src/services/push/meta-batch-checks.js';
import { type MetaServer, startMetaServer } from '../../fakes/channels/meta-server.js';
import { metaBatchItem } from './meta-batch-items.js';

/**
 * Meta's batch handles checked against the fake Graph API (decision 0013, "Meta items_batch", "Status"): what
 * Meta found invalid while ingesting comes back through the outbox once, then is rejected; a batch that ended
 * `error`/`canceled` is sent again whole; a pending one is asked again later.
 */

const TOKEN = 'EAAmeta-check-token';
const CATALOG = '987654321';
const SILENT = { info: () => undefined, warn: () => undefined, error: () => undefined };

let server: MetaServer;
let client: MetaClient;
let outbox: PushOutbox;
let checks: MetaBatchChecks;
let clock: number;
let errors: string[];
let woken: number;

async function pendingRows() {
  const rows = await outbox.claim('meta', clock + 1_000_000, 100, 1);
  return Object.fromEntries(rows.map((row) => [row.target, row.mask]));
}

beforeEach(async () => {
  server = await startMetaServer({
    token: TOKEN,
    catalogId: CATALOG,
    items: { a: { id: 'a', price: '1.00 CZK' }, b: { id: 'b', price: '2.00 CZK' } },
  });
  outbox = createMemoryPushOutbox();
  await outbox.enqueue(undefined, 'v1', []);
  clock = 1_000_000;
  errors = [];
  woken = 0;
  checks = createMetaBatchChecks({
    outbox,
    check: (handle) => client.checkBatchStatus(handle),
    now: () => clock,
    intervalMs: 30_000,
    onEnqueued: () => {
      woken += 1;
    },
    onError: (message, rejected) => errors.push(`${rejected ? 'rejected' : 'again'}: ${message}`),
    logger: SILENT,
  });
  client = createMetaClient({
    graphUrl: server.graphUrl,
    catalogId: CATALOG,
    token: TOKEN,
    timeoutMs: 5000,
    onHandle: (handle, targets) => checks.track(handle, targets),
  });
});

afterEach(async () => {
  await client.close();
  await server.close();
  await outbox.close();
});

describe('Meta batch handle checks', () => {
  it('asks a handle only after the interval; an id invalid at ingestion is re-enqueued FULL once, then rejected', async () => {
    server.ingestInvalidIds.add('b');
    await client.send([metaBatchItem('a', 'availability'), metaBatchItem('b', 'availability')]);
    expect(checks.open()).toBe(1);

    await checks.checkDue();
    expect(server.requests.filter((recorded) => recorded.method === 'GET')).toHaveLength(0);

    clock += 30_000;
    await checks.checkDue();
    expect(checks.open()).toBe(0);
    expect(await pendingRows()).toEqual({ 'm:b': PUSH_MASK.FULL });
    expect(woken).toBe(1);
    expect((await outbox.stats('meta')).rejected).toBe(0);

    // The worker sends it again (acked); Meta finds it invalid once more: now it is rejected with Meta's message.
    await outbox.ack('meta', 'm:b', 1);
    server.ingestInvalidIds.add('b');
    await client.send([metaBatchItem('b', 'availability')]);
    clock += 30_000;
    await checks.checkDue();

    expect(await pendingRows()).toEqual({});
    expect((await outbox.stats('meta')).rejected).toBe(1);
    expect(errors).toEqual(['rejected: Meta found item b invalid again: Invalid request']);
    const check = new URL(server.requests.at(-1)?.url ?? '', 'http://x');
    expect(check.searchParams.get('load_ids_of_invalid_requests')).toBe('true');
  });

  it('a batch that ended error or canceled re-enqueues all its targets; a pending one is asked again', async () => {
    server.setNextBatchStatus('started');
    await client.send([metaBatchItem('a', 'availability'), metaBatchItem('b', 'availability')]);
    clock += 30_000;
    await checks.checkDue();
    expect(checks.open()).toBe(1);
    expect(await pendingRows()).toEqual({});

    const [handle = ''] = [...server.batches.keys()];
    server.batches.set(handle, { status: 'error' });
    clock += 29_000;
    await checks.checkDue();
    expect(checks.open()).toBe(1);
    clock += 1_000;
    await checks.checkDue();

    expect(checks.open()).toBe(0);
    expect(await pendingRows()).toEqual({ 'm:a': PUSH_MASK.FULL, 'm:b': PUSH_MASK.FULL });
    expect(errors[0]).toMatch(/^again: Meta batch .* ended error: 2 items sent again/);
  });

  it('a failed check keeps the handle for later (429 with Retry-After longer than the interval)', async () => {
    await client.send([metaBatchItem('a', 'availability')]);
    server.faults.failNext(1, { status: 429, retryAfter: '120' });
    clock += 30_000;
    await checks.checkDue();
    expect(checks.open()).toBe(1);
    clock += 60_000;
    await checks.checkDue();
    expect(checks.open()).toBe(1);
    clock += 60_000;
    await checks.checkDue();
    expect(checks.open()).toBe(0);
    expect(await pendingRows()).toEqual({});
  });

  it("re-enqueues with the group's fence, and keeps the handle when the outbox refuses (a lost lease)", async () => {
    const fences: (string | undefined)[] = [];
    const fenced = createMetaBatchChecks({
      outbox: {
        cursor: () => outbox.cursor(),
        reject: (...args) => outbox.reject(...args),
        enqueue: async (_expected, _cursor, _updates, fence) => {
          fences.push(fence);
          return { ok: false, reason: 'fenced' };
        },
      },
      check: (handle) => client.checkBatchStatus(handle),
      now: () => clock,
      fence: () => 'push-a|7',
      logger: SILENT,
    });
    server.setNextBatchStatus('canceled');
    await client.send([metaBatchItem('a', 'availability')]);
    const [handle = ''] = [...server.batches.keys()];
    fenced.track(handle, ['m:a']);
    clock += 30_000;
    await fenced.checkDue();

    expect(fences).toEqual(['push-a|7']);
    expect(fenced.open()).toBe(1);
    expect(await pendingRows()).toEqual({});
  });
});
