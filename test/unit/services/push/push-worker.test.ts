import { describe, expect, it } from 'vitest';
import { createDryRunClient } from '../../../../src/adapters/push/dry-run-client.js';
import { createMemoryPushOutbox } from '../../../../src/adapters/push/memory-push-outbox.js';
import type { CatalogSnapshot } from '../../../../src/core/catalog/catalog.js';
import type {
  ChannelClient,
  PayloadResult,
  PushAction,
  PushBatchItem,
  PushOutcome,
  PushTargetOutcome,
} from '../../../../src/core/push/channel-client.js';
import { actionOf } from '../../../../src/core/push/derive-updates.js';
import { type ClaimedRow, PUSH_MASK, type PushOutbox } from '../../../../src/core/push/outbox.js';
import { createPacer, type Pacer } from '../../../../src/core/push/pacer.js';
import { createPushWorker, type PushWorkerDeps } from '../../../../src/services/push/push-worker.js';
import { type ItemSpec, snapshot } from './push-fixtures.js';

/** What the fake channel receives: the target, the action and the price served at send time. */
interface Sent {
  readonly target: string;
  readonly action: PushAction;
  readonly price?: number;
}

const silent = { info() {}, warn() {}, error() {} };

function buildPayload(row: ClaimedRow, served: CatalogSnapshot | undefined): PayloadResult<Sent> {
  const id = row.target.slice(2);
  const product = served?.products.find((candidate) => candidate.id === id);
  const price = product?.aggregate.price;
  return {
    kind: 'send',
    payload: { target: row.target, action: actionOf(row.mask, product !== undefined), ...(price === undefined ? {} : { price }) },
  };
}

/** A fake channel: records every batch; answers with `answer` (ok by default). */
function fakeClient(answer: (item: PushBatchItem<Sent>) => PushOutcome = () => ({ kind: 'ok' })) {
  const batches: Sent[][] = [];
  const client: ChannelClient<Sent> = {
    channel: 'meta',
    async send(batch) {
      batches.push(batch.map((item) => item.payload));
      return batch.map((item): PushTargetOutcome => ({ target: item.target, gen: item.gen, outcome: answer(item) }));
    },
  };
  return { client, batches, sent: () => batches.flat() };
}

function setup(options: { client?: ChannelClient<Sent>; outbox?: PushOutbox; items?: ItemSpec[]; batchSize?: number } = {}) {
  const clock = { now: 0 };
  let served = snapshot('v1', options.items ?? [{ id: '1', price: 10 }]);
  const outbox = options.outbox ?? createMemoryPushOutbox();
  const pacer: Pacer = createPacer({ capacity: 5, refillPerSecond: 5, maxConcurrent: 1 }, 0);
  const fake = fakeClient();
  const deps: PushWorkerDeps<Sent> = {
    channel: 'meta',
    outbox,
    client: options.client ?? fake.client,
    buildPayload,
    current: () => served,
    pacer,
    batchSize: options.batchSize ?? 10,
    leaseMs: 60_000,
    maxBackoffMs: 300_000,
    idleMs: 1_000,
    now: () => clock.now,
    random: () => 0.5,
    // Only an abort ends a wait: no test waits for real time.
    sleep: (_ms, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
    logger: silent,
  };
  const enqueue = async (target: string, mask: number) => {
    const cursor = await outbox.cursor();
    await outbox.enqueue(cursor, `${cursor ?? ''}+`, [{ channel: 'meta', target, mask, atMs: clock.now }]);
  };
  return {
    clock,
    outbox,
    pacer,
    deps,
    worker: createPushWorker(deps),
    fake,
    enqueue,
    serve: (items: ItemSpec[]) => (served = snapshot('v2', items)),
  };
}

describe('push worker', () => {
  it('sends 100 sales of one item as one update with the last state', async () => {
    const s = setup();
    for (let sale = 0; sale < 100; sale += 1) await s.enqueue('m:1', PUSH_MASK.AVAIL);
    s.serve([{ id: '1', price: 11 }]);
    expect(await s.worker.step()).toBe(0);
    expect(s.fake.batches).toEqual([[{ target: 'm:1', action: { kind: 'update', fields: ['availability'] }, price: 11 }]]);
    expect(await s.worker.step()).toBe(1_000);
    expect(s.fake.batches).toHaveLength(1);
    expect((await s.outbox.stats('meta')).pending).toBe(0);
  });

  it('sends a price change as an update, a new item as create and a removed item as remove', async () => {
    const s = setup({
      items: [
        { id: '1', price: 12 },
        { id: '3', price: 30 },
      ],
    });
    await s.enqueue('m:1', PUSH_MASK.PRICE);
    await s.enqueue('m:2', PUSH_MASK.REMOVED);
    await s.enqueue('m:3', PUSH_MASK.ADDED);
    await s.worker.step();
    expect(s.fake.sent().sort((a, b) => a.target.localeCompare(b.target))).toEqual([
      { target: 'm:1', action: { kind: 'update', fields: ['price'] }, price: 12 },
      { target: 'm:2', action: { kind: 'remove' } },
      { target: 'm:3', action: { kind: 'create' }, price: 30 },
    ]);
    const status = await s.worker.status();
    expect(status).toMatchObject({ pending: 0, requests: { ok: 1, failed: 0 }, items: { ok: 3 }, lastSuccessAt: 0 });
  });

  it('retries after Retry-After and not before', async () => {
    let calls = 0;
    const fake = fakeClient(() => (++calls === 1 ? { kind: 'retry', afterMs: 30_000, message: 'HTTP 429' } : { kind: 'ok' }));
    const s = setup({ client: fake.client });
    await s.enqueue('m:1', PUSH_MASK.PRICE);
    await s.worker.step();
    expect(fake.batches).toHaveLength(1);
    s.clock.now = 29_999;
    expect(await s.worker.step()).toBe(1);
    expect((await s.worker.status()).oldestPendingAgeS).toBeCloseTo(29.999);
    expect(fake.batches).toHaveLength(1);
    const status = await s.worker.status();
    expect(status).toMatchObject({ pending: 1, lastError: 'HTTP 429', lastErrorAt: 0, requests: { failed: 1 } });
    expect((await s.outbox.state('meta')).lastError).toBe('HTTP 429');
    s.clock.now = 30_000;
    await s.worker.step();
    expect(fake.batches).toHaveLength(2);
    expect((await s.outbox.stats('meta')).pending).toBe(0);
  });

  it('waits while the quota is exhausted (pacer closed) and never drops the update', async () => {
    const s = setup();
    await s.enqueue('m:1', PUSH_MASK.PRICE);
    s.pacer.closeUntil(3_600_000);
    expect(await s.worker.step()).toBe(3_600_000);
    s.clock.now = 3_599_999;
    expect(await s.worker.step()).toBe(1);
    expect(s.fake.batches).toEqual([]);
    expect((await s.outbox.stats('meta')).pending).toBe(1);
    s.clock.now = 3_600_000;
    await s.worker.step();
    expect(s.fake.sent().map((sent) => sent.target)).toEqual(['m:1']);
  });

  it('sends nothing while paused and the net state once resumed', async () => {
    const s = setup();
    await s.outbox.setPaused('meta', true);
    await s.enqueue('m:1', PUSH_MASK.PRICE);
    s.serve([{ id: '1', price: 11 }]);
    await s.worker.step();
    await s.enqueue('m:1', PUSH_MASK.AVAIL);
    s.serve([{ id: '1', price: 12 }]);
    expect(await s.worker.step()).toBe(1_000);
    expect(s.fake.batches).toEqual([]);
    expect((await s.worker.status()).paused).toBe(true);
    await s.outbox.setPaused('meta', false);
    await s.worker.step();
    expect(s.fake.batches).toEqual([
      [{ target: 'm:1', action: { kind: 'update', fields: ['price', 'availability'] }, price: 12 }],
    ]);
  });

  it('drops a rejected target, keeps the channel message and counts it', async () => {
    const fake = fakeClient(() => ({ kind: 'rejected', message: `unknown-product ${'x'.repeat(400)}` }));
    const s = setup({ client: fake.client });
    await s.enqueue('m:1', PUSH_MASK.PRICE);
    await s.worker.step();
    const status = await s.worker.status();
    expect(status.pending).toBe(0);
    expect(status.items.rejected).toBe(1);
    expect(status.lastError?.startsWith('unknown-product')).toBe(true);
    expect(status.lastError).toHaveLength(300);
    expect((await s.outbox.stats('meta')).rejected).toBe(1);
  });

  it('acks a target whose payload is skipped without sending it', async () => {
    const s = setup();
    const deps = { ...s.deps, buildPayload: (): PayloadResult<Sent> => ({ kind: 'skip', reason: 'id too long' }) };
    const worker = createPushWorker(deps);
    await s.enqueue('m:1', PUSH_MASK.PRICE);
    await worker.step();
    expect(s.fake.batches).toEqual([]);
    expect((await worker.status()).items.skipped).toBe(1);
    expect((await s.outbox.stats('meta')).pending).toBe(0);
  });

  it('claims nothing while no version is served, so no row becomes a DELETE or is skipped and lost', async () => {
    const s = setup();
    let served: CatalogSnapshot | undefined;
    const worker = createPushWorker({ ...s.deps, current: () => served });
    await s.enqueue('m:1', PUSH_MASK.PRICE);
    await s.enqueue('m:2', PUSH_MASK.ADDED);
    expect(await worker.step()).toBe(1_000);
    expect(s.fake.batches).toEqual([]);
    expect((await worker.status()).items).toEqual({ ok: 0, retry: 0, rejected: 0, skipped: 0 });
    // Nothing was claimed: both rows are due at once when a version is served (no lease to wait out).
    served = snapshot('v1', [
      { id: '1', price: 12 },
      { id: '2', price: 20 },
    ]);
    expect(await worker.step()).toBe(0);
    expect(s.fake.sent().sort((a, b) => a.target.localeCompare(b.target))).toEqual([
      { target: 'm:1', action: { kind: 'update', fields: ['price'] }, price: 12 },
      { target: 'm:2', action: { kind: 'create' }, price: 20 },
    ]);
    expect((await s.outbox.stats('meta')).pending).toBe(0);
  });

  it('rejects a row whose payload throws alone and sends the rest of the batch', async () => {
    const s = setup({
      items: [
        { id: '1', price: 11 },
        { id: '2', price: 22 },
        { id: '3', price: 33 },
      ],
    });
    const throwing = (row: ClaimedRow, served: CatalogSnapshot | undefined): PayloadResult<Sent> => {
      if (row.target === 'm:2') throw new RangeError('price 1e300 is out of range');
      return buildPayload(row, served);
    };
    const worker = createPushWorker({ ...s.deps, buildPayload: throwing });
    for (const target of ['m:1', 'm:2', 'm:3']) await s.enqueue(target, PUSH_MASK.PRICE);
    s.clock.now = 7_000;
    expect(await worker.step()).toBe(0);
    expect(
      s.fake
        .sent()
        .map((sent) => sent.target)
        .sort(),
    ).toEqual(['m:1', 'm:3']);
    const status = await worker.status();
    expect(status.items).toMatchObject({ ok: 2, rejected: 1 });
    expect(status.lastError).toBe('payload not built: price 1e300 is out of range');
    expect(status.lastErrorAt).toBe(7_000);
    expect(status.state.lastRejected).toBe('payload not built: price 1e300 is out of range');
    expect(await s.outbox.stats('meta')).toMatchObject({ pending: 0, rejected: 1 });
    // The channel is not blocked: the next round finds nothing left.
    expect(await worker.step()).toBe(1_000);
    expect(s.fake.batches).toHaveLength(1);
  });

  it('rejects every row of a batch whose payloads all throw, without a request', async () => {
    const s = setup();
    const worker = createPushWorker({
      ...s.deps,
      buildPayload: () => {
        throw new Error('name not valid');
      },
    });
    await s.enqueue('m:1', PUSH_MASK.PRICE);
    expect(await worker.step()).toBe(0);
    expect(s.fake.batches).toEqual([]);
    const status = await worker.status();
    expect(status.requests).toEqual({ ok: 0, failed: 0 });
    expect(status.items.rejected).toBe(1);
    expect(await s.outbox.stats('meta')).toMatchObject({ pending: 0, rejected: 1 });
  });

  it('does not send when not the leader', async () => {
    const s = setup();
    const worker = createPushWorker({ ...s.deps, isLeader: () => false });
    await s.enqueue('m:1', PUSH_MASK.PRICE);
    expect(await worker.step()).toBe(1_000);
    expect(s.fake.batches).toEqual([]);
  });

  it('a restart with pending rows sends each once: stop lets the request in flight finish', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sent: string[] = [];
    const client: ChannelClient<Sent> = {
      channel: 'meta',
      async send(batch) {
        sent.push(...batch.map((item) => item.target));
        await gate;
        return batch.map((item) => ({ target: item.target, gen: item.gen, outcome: { kind: 'ok' } }));
      },
    };
    const outbox = createMemoryPushOutbox();
    const first = setup({ client, outbox, batchSize: 2 });
    for (const target of ['m:1', 'm:2', 'm:3']) await first.enqueue(target, PUSH_MASK.PRICE);
    first.worker.start();
    while (sent.length === 0) await Promise.resolve();
    const stopped = first.worker.stop();
    release();
    await stopped;
    expect(sent).toEqual(['m:1', 'm:2']);
    expect((await outbox.stats('meta')).pending).toBe(1);
    const second = setup({ client, outbox, batchSize: 2 });
    await second.worker.step();
    expect(await second.worker.step()).toBe(1_000);
    expect(sent.sort()).toEqual(['m:1', 'm:2', 'm:3']);
    expect((await outbox.stats('meta')).pending).toBe(0);
  });

  it('dry run logs what would be sent and acks it', async () => {
    const lines: { meta: object; message: string }[] = [];
    const client = createDryRunClient<Sent>(
      'meta',
      { method: 'POST', path: '/items_batch' },
      { info: (meta, message) => lines.push({ meta, message }) },
    );
    const s = setup({ client });
    for (const target of ['m:1', 'm:2', 'm:3', 'm:4']) await s.enqueue(target, PUSH_MASK.PRICE);
    await s.worker.step();
    expect(lines).toHaveLength(1);
    expect(lines[0]?.meta).toMatchObject({ channel: 'meta', method: 'POST', path: '/items_batch', items: 4 });
    expect(lines[0]?.meta).toHaveProperty('sample', [expect.anything(), expect.anything(), expect.anything()]);
    expect((await s.outbox.stats('meta')).pending).toBe(0);
  });

  it('wake ends an idle wait at once, so an enqueued change does not wait for the next poll', async () => {
    const s = setup();
    let naps = 0;
    const worker = createPushWorker({
      ...s.deps,
      sleep: (_ms, signal) => {
        naps += 1;
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      },
    });
    worker.start();
    while (naps === 0) await Promise.resolve();
    await s.enqueue('m:1', PUSH_MASK.PRICE);
    worker.wake();
    while (naps < 2) await Promise.resolve();
    expect(s.fake.sent().map((sent) => sent.target)).toEqual(['m:1']);
    await worker.stop();
  });

  it('shows an error noted outside a send (a Meta batch check) as the last error and rejection', async () => {
    const s = setup();
    const worker = createPushWorker(s.deps);
    s.clock.now = 5_000;
    worker.noteError('Meta found item 7 invalid again: x'.padEnd(400, '.'), true);

    const status = await worker.status();
    expect(status.state.lastRejected).toMatch(/^Meta found item 7 invalid again/);
    expect(status.lastErrorAt).toBe(5_000);
    expect(status.lastError).toHaveLength(300);
    expect(status.lastError).toMatch(/^Meta found item 7 invalid again/);
  });
});
