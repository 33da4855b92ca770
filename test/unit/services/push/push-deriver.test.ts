import { describe, expect, it } from 'vitest';
import { createMemoryPushOutbox } from '../../../../src/adapters/push/memory-push-outbox.js';
import type { CatalogSnapshot } from '../../../../src/core/catalog/catalog.js';
import { createChangeLog } from '../../../../src/core/catalog/change-log.js';
import { fullReconciliation, type PushTargetsConfig } from '../../../../src/core/push/derive-updates.js';
import { type PendingUpdate, PUSH_MASK, type PushOutbox } from '../../../../src/core/push/outbox.js';
import { createPushDeriver, PUSH_CURSOR_RECONCILING, PUSH_RECONCILE_SLICE } from '../../../../src/services/push/push-deriver.js';
import { type ItemSpec, snapshot } from './push-fixtures.js';

const CONFIG: PushTargetsConfig = { google: { localUnits: ['A'] }, shoptet: { unit: 'A' }, meta: true };
const silent = { info() {}, warn() {}, error() {} };

/** A served catalog that publishes by hand, recording each transition in a real change log first (as the app does). */
function harness(
  options: {
    leader?: () => boolean;
    outbox?: PushOutbox;
    chunkSize?: number;
    onEnqueued?: () => void;
    recordLast?: boolean;
    fence?: () => string | undefined;
  } = {},
) {
  const changeLog = createChangeLog({ maxTransitions: 100 });
  const listeners: ((snapshot: CatalogSnapshot) => void)[] = [];
  let current: CatalogSnapshot | undefined;
  const outbox = options.outbox ?? createMemoryPushOutbox();
  const calls: { expected: string | undefined; next: string; updates: readonly PendingUpdate[] }[] = [];
  const spied: PushOutbox = {
    ...outbox,
    cursor: () => outbox.cursor(),
    async enqueue(expected, next, updates, fence) {
      calls.push({ expected, next, updates });
      return outbox.enqueue(expected, next, updates, fence);
    },
  };
  const deriver = createPushDeriver({
    catalog: { current: () => current, onChange: (listener) => listeners.push(listener) },
    changeLog,
    outbox: spied,
    config: CONFIG,
    isLeader: options.leader ?? (() => true),
    now: () => 5_000,
    logger: silent,
    ...(options.chunkSize === undefined ? {} : { chunkSize: options.chunkSize }),
    ...(options.onEnqueued === undefined ? {} : { onEnqueued: options.onEnqueued }),
    ...(options.fence === undefined ? {} : { fence: options.fence }),
  });
  // As in the app, the change log may be recorded by a listener registered after the deriver's (feed-prewarm.ts).
  let previous: CatalogSnapshot | undefined;
  const recordLater = (next: CatalogSnapshot): void => {
    changeLog.record(previous, next);
    previous = next;
  };
  const publish = (version: string, items: readonly ItemSpec[]): void => {
    const next = snapshot(version, items);
    if (!options.recordLast) changeLog.record(current, next);
    current = next;
    for (const listener of listeners) listener(next);
    if (options.recordLast) recordLater(next);
  };
  return { deriver, publish, outbox, calls, serve: (s: CatalogSnapshot) => (current = s) };
}

async function rows(outbox: PushOutbox, channel: 'google' | 'shoptet' | 'meta') {
  return outbox.claim(channel, Number.MAX_SAFE_INTEGER, 1_000, 1);
}

/** Acks every pending row: the channels hold the state so far. */
async function drain(outbox: PushOutbox): Promise<void> {
  for (const channel of ['google', 'shoptet', 'meta'] as const) {
    for (const row of await rows(outbox, channel)) await outbox.ack(channel, row.target, row.gen);
  }
}

describe('push deriver', () => {
  it('does nothing while this instance is not the leader', async () => {
    const { deriver, publish, outbox, calls } = harness({ leader: () => false });
    deriver.start();
    publish('v1', [{ id: '1', price: 10 }]);
    await deriver.catchUp();
    expect(calls).toEqual([]);
    expect(await outbox.cursor()).toBeUndefined();
  });

  it('reconciles every target when there is no cursor yet, and stores the served version as cursor', async () => {
    const { deriver, publish, outbox } = harness();
    publish('v1', [{ id: '1', price: 10, stock: { A: 2 } }]);
    await deriver.catchUp();
    expect(await outbox.cursor()).toBe('v1');
    const google = await rows(outbox, 'google');
    expect(google.map((row) => [row.target, row.mask])).toEqual([
      ['l:1:A', PUSH_MASK.FULL],
      ['p:1', PUSH_MASK.FULL],
    ]);
  });

  it('coalesces 100 sales of one item into one row per target', async () => {
    const h = harness();
    h.publish('v0', [{ id: '1', price: 10, stock: { A: 200 } }]);
    await h.deriver.catchUp();
    h.deriver.start();
    await drain(h.outbox);
    for (let sale = 1; sale <= 100; sale += 1) h.publish(`v${sale}`, [{ id: '1', price: 10, stock: { A: 200 - sale } }]);
    await h.deriver.catchUp();
    expect(await h.outbox.cursor()).toBe('v100');
    const shoptet = await h.outbox.stats('shoptet');
    expect(shoptet.pending).toBe(1);
    const [row] = await rows(h.outbox, 'shoptet');
    expect(row?.target).toBe('s:1');
    expect(row?.mask).toBe(PUSH_MASK.STOCK);
    expect((await rows(h.outbox, 'google')).map((google) => [google.target, google.mask])).toEqual([['l:1:A', PUSH_MASK.STOCK]]);
    // A stock change alone is not relevant to Meta (it carries no quantity; availability stayed in stock).
    expect((await h.outbox.stats('meta')).pending).toBe(0);
  });

  it('enqueues a price change, a new item and a removed item with their bits', async () => {
    const h = harness();
    h.publish('v1', [
      { id: '1', price: 10 },
      { id: '2', price: 20 },
    ]);
    await h.deriver.catchUp();
    await drain(h.outbox);
    h.publish('v2', [
      { id: '1', price: 12 },
      { id: '3', price: 30 },
    ]);
    await h.deriver.catchUp();
    const meta = await rows(h.outbox, 'meta');
    expect(meta.map((row) => [row.target, row.mask]).sort()).toEqual([
      ['m:1', PUSH_MASK.PRICE],
      ['m:2', PUSH_MASK.REMOVED],
      ['m:3', PUSH_MASK.ADDED],
    ]);
  });

  it('reconciles when the change log does not know the cursor', async () => {
    const outbox = createMemoryPushOutbox();
    await outbox.enqueue(undefined, 'ancient', []);
    const h = harness({ outbox });
    h.publish('v1', [{ id: '1', price: 10 }]);
    await h.deriver.catchUp();
    expect(h.calls.at(-1)?.expected).toBe('ancient');
    expect(h.calls.at(-1)?.next).toBe('v1');
    expect((await rows(outbox, 'meta')).map((row) => row.mask)).toEqual([PUSH_MASK.FULL]);
  });

  it('enqueues a large reconciliation in chunks, the new cursor only with the last', async () => {
    const h = harness({ chunkSize: 5 });
    const items = Array.from({ length: 6 }, (_, index) => ({ id: String(index), price: 1, stock: { A: 1 } }));
    h.publish('v1', items);
    await h.deriver.catchUp();
    // 6 items × (google p + google l + meta m + shoptet s) = 24 targets → 5 calls of ≤ 5.
    expect(h.calls.map((call) => call.updates.length)).toEqual([5, 5, 5, 5, 4]);
    expect(h.calls.map((call) => call.next)).toEqual([
      PUSH_CURSOR_RECONCILING,
      PUSH_CURSOR_RECONCILING,
      PUSH_CURSOR_RECONCILING,
      PUSH_CURSOR_RECONCILING,
      'v1',
    ]);
    expect(h.calls.every((call) => call.updates.length <= 5)).toBe(true);
    expect(await h.outbox.cursor()).toBe('v1');
  });

  it('a reconciliation built in slices enqueues every target of fullReconciliation, in its order', async () => {
    const h = harness();
    const items = Array.from({ length: PUSH_RECONCILE_SLICE * 2 + 1 }, (_, index) => ({ id: String(index), price: 1 }));
    h.publish('v1', items);
    await h.deriver.catchUp();
    const expected = fullReconciliation(CONFIG, snapshot('v1', items), 5_000);
    expect(h.calls.flatMap((call) => call.updates)).toEqual(expected);
    expect(expected).toHaveLength(items.length * 4);
  });

  it('an unknown-stock update publishes nothing as sold out', async () => {
    const h = harness();
    h.publish('v1', [{ id: '1', price: 10, stock: { A: 3 } }]);
    await h.deriver.catchUp();
    await drain(h.outbox);
    h.publish('v2', [{ id: '1', price: 10, stock: { A: undefined } }]);
    await h.deriver.catchUp();
    expect(await h.outbox.cursor()).toBe('v2');
    for (const channel of ['google', 'shoptet', 'meta'] as const) expect((await h.outbox.stats(channel)).pending).toBe(0);
  });

  it('sees a transition recorded by a listener that runs after its own, and wakes the workers', async () => {
    let wakes = 0;
    const h = harness({ recordLast: true, onEnqueued: () => (wakes += 1) });
    h.deriver.start();
    h.publish('v1', [{ id: '1', price: 10 }]);
    await h.deriver.catchUp();
    await drain(h.outbox);
    h.publish('v2', [{ id: '1', price: 11 }]);
    await h.deriver.catchUp();
    expect(await h.outbox.cursor()).toBe('v2');
    expect((await rows(h.outbox, 'meta')).map((row) => [row.target, row.mask])).toEqual([['m:1', PUSH_MASK.PRICE]]);
    expect(wakes).toBe(2);
  });

  it('derives again from the stored cursor when another writer moved it meanwhile', async () => {
    const outbox = createMemoryPushOutbox();
    let raced = false;
    const racing: PushOutbox = {
      ...outbox,
      cursor: () => outbox.cursor(),
      async enqueue(expected, next, updates, fence) {
        if (!raced) {
          raced = true;
          // Another deriver stores v0 just before this one writes: this write is refused as stale.
          await outbox.enqueue(expected, 'v0', []);
        }
        return outbox.enqueue(expected, next, updates, fence);
      },
    };
    const h = harness({ outbox: racing });
    h.publish('v0', [{ id: '1', price: 10 }]);
    h.publish('v1', [{ id: '1', price: 11 }]);
    await h.deriver.catchUp();
    expect(await outbox.cursor()).toBe('v1');
    expect((await rows(outbox, 'meta')).map((row) => [row.target, row.mask])).toEqual([['m:1', PUSH_MASK.PRICE]]);
  });

  it('stops deriving after a fenced refusal (the lease was lost) until it holds a new lease', async () => {
    const outbox = createMemoryPushOutbox();
    // The group lease as Redis holds it: an enqueue fenced with another value is refused.
    let lease = 'b|2';
    const fenced: PushOutbox = {
      ...outbox,
      cursor: () => outbox.cursor(),
      async enqueue(expected, next, updates, fence) {
        return fence === lease ? outbox.enqueue(expected, next, updates, fence) : { ok: false, reason: 'fenced' };
      },
    };
    let held = 'a|1';
    const h = harness({ outbox: fenced, fence: () => held });
    h.publish('v1', [{ id: '1', price: 10 }]);
    await h.deriver.catchUp();
    expect(h.calls).toHaveLength(1);
    expect(await outbox.cursor()).toBeUndefined();
    // Still the same (lost) lease: nothing is tried again, however often the catalog changes.
    h.publish('v2', [{ id: '1', price: 11 }]);
    await h.deriver.catchUp();
    expect(h.calls).toHaveLength(1);
    // Leading again under a new token: it catches up from the stored cursor.
    lease = 'a|3';
    held = 'a|3';
    await h.deriver.catchUp();
    expect(h.calls).toHaveLength(2);
    expect(await outbox.cursor()).toBe('v2');
  });
});
