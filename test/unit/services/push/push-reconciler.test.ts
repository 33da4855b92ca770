import { describe, expect, it } from 'vitest';
import { createMemoryPushOutbox } from '../../../../src/adapters/push/memory-push-outbox.js';
import { PUSH_MASK, type PushOutbox } from '../../../../src/core/push/outbox.js';
import { createPushReconciler, RECONCILE_LEAD_MS } from '../../../../src/services/push/push-reconciler.js';
import { snapshot } from './push-fixtures.js';

/** The reconciliation on demand (docs/decisions/0013-channel-push.md, section 5; src/services/push/push-reconciler.ts). */

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const NOW = 1_000_000;
const items = Array.from({ length: 7 }, (_, index) => ({ id: `i${index}`, price: 10, stock: { A: 1 } }));

function reconcilerOn(outbox: PushOutbox, extra: { chunkSize?: number; leader?: boolean } = {}) {
  const enqueued: number[] = [];
  const counting: PushOutbox = {
    ...outbox,
    enqueue: (expected, next, updates, fence) => {
      enqueued.push(updates.length);
      return outbox.enqueue(expected, next, updates, fence);
    },
  };
  const reconciler = createPushReconciler({
    catalog: { current: () => snapshot('v2', items) },
    outbox: counting,
    config: { meta: true, shoptet: { unit: 'all' } },
    pace: { meta: 2, shoptet: 100 },
    now: () => NOW,
    isLeader: () => extra.leader ?? true,
    logger: quiet,
    ...(extra.chunkSize === undefined ? {} : { chunkSize: extra.chunkSize }),
  });
  return { reconciler, enqueued };
}

describe('push reconciler', () => {
  it('enqueues FULL for every target of the chosen channels in chunks, keeping the cursor', async () => {
    const outbox = createMemoryPushOutbox();
    await outbox.enqueue(undefined, 'v1', []);
    const { reconciler, enqueued } = reconcilerOn(outbox, { chunkSize: 4 });
    const outcome = await reconciler.reconcile(['meta'], 'test');
    expect(outcome).toEqual({ ok: true, version: 'v2', targets: { meta: 7 } });
    // 4 targets a call at most (one per product for Meta alone).
    expect(enqueued).toEqual([4, 3]);
    expect(await outbox.cursor()).toBe('v1');
    expect((await outbox.stats('meta')).pending).toBe(7);
    expect((await outbox.stats('shoptet')).pending).toBe(0);
    expect((await outbox.state('meta')).lastReconcile).toBe(new Date(NOW).toISOString());
    expect((await outbox.state('shoptet')).lastReconcile).toBeUndefined();
  });

  it('spreads the due times at the channel pace after a lead, so a live change comes first', async () => {
    const outbox = createMemoryPushOutbox();
    await outbox.enqueue(undefined, 'v1', []);
    const { reconciler } = reconcilerOn(outbox);
    await reconciler.reconcile(['meta', 'shoptet'], 'test');
    // Meta at 2 targets a second: one due every 500 ms from the lead on; nothing is due before the lead.
    expect(await outbox.claim('meta', NOW + RECONCILE_LEAD_MS - 1, 100, 1e9)).toHaveLength(0);
    expect(await outbox.claim('meta', NOW + RECONCILE_LEAD_MS, 100, 1e9)).toHaveLength(1);
    expect(await outbox.claim('meta', NOW + RECONCILE_LEAD_MS + 1_000, 100, 1e9)).toHaveLength(2);
    expect(await outbox.claim('meta', NOW + RECONCILE_LEAD_MS + 3_000, 100, 1e9)).toHaveLength(4);
    // A live change derived now is due now: claimed before the reconciliation's rows.
    await outbox.enqueue('v1', 'v3', [{ channel: 'shoptet', target: 's:live', mask: PUSH_MASK.STOCK, atMs: NOW }]);
    const [first] = await outbox.claim('shoptet', NOW + 10 * RECONCILE_LEAD_MS, 1, 1);
    expect(first?.target).toBe('s:live');
  });

  it('refuses without a cursor, a catalog or the leadership, enqueuing nothing', async () => {
    const outbox = createMemoryPushOutbox();
    expect(await reconcilerOn(outbox).reconciler.reconcile(['meta'], 'test')).toEqual({ ok: false, reason: 'no-cursor' });
    await outbox.enqueue(undefined, 'v1', []);
    expect(await reconcilerOn(outbox, { leader: false }).reconciler.reconcile(['meta'], 'test')).toEqual({
      ok: false,
      reason: 'not-leader',
    });
    expect((await outbox.stats('meta')).pending).toBe(0);
  });

  it('re-reads the cursor when the deriver moved it between slices', async () => {
    const outbox = createMemoryPushOutbox();
    await outbox.enqueue(undefined, 'v1', []);
    let moved = false;
    const moving: PushOutbox = {
      ...outbox,
      enqueue: async (expected, next, updates, fence) => {
        if (!moved) {
          moved = true;
          await outbox.enqueue('v1', 'v2', []);
        }
        return outbox.enqueue(expected, next, updates, fence);
      },
    };
    const { reconciler } = reconcilerOn(moving, { chunkSize: 4 });
    expect(await reconciler.reconcile(['meta'], 'test')).toMatchObject({ ok: true, targets: { meta: 7 } });
    expect(await outbox.cursor()).toBe('v2');
    expect((await outbox.stats('meta')).pending).toBe(7);
  });
});

describe('push reconciler with a budget (Google: a share of the quota left)', () => {
  function budgeted(outbox: PushOutbox, budget: () => number, chunkSize = 100) {
    return createPushReconciler({
      catalog: { current: () => snapshot('v2', items) },
      outbox,
      config: { meta: true, google: { localUnits: [] } },
      pace: { meta: 100, google: 100 },
      now: () => NOW,
      isLeader: () => true,
      logger: quiet,
      chunkSize,
      budget: { google: budget },
    });
  }
  /** The Google rows enqueued since the last call (claimed and acknowledged: the outbox is empty after). */
  const pendingTargets = async (outbox: PushOutbox) => {
    const rows = await outbox.claim('google', NOW + 1e9, 100, 1e9);
    for (const row of rows) await outbox.ack('google', row.target, row.gen);
    return rows.map((row) => row.target).sort();
  };

  it('enqueues at most the budget per run, continuing where the last run stopped and wrapping at the end', async () => {
    const outbox = createMemoryPushOutbox();
    await outbox.enqueue(undefined, 'v1', []);
    const reconciler = budgeted(outbox, () => 3, 2);
    // Meta, without a budget, gets every target each run.
    expect(await reconciler.reconcile(['meta', 'google'], 'test')).toEqual({
      ok: true,
      version: 'v2',
      targets: { meta: 7, google: 3 },
    });
    expect(await pendingTargets(outbox)).toEqual(['p:i0', 'p:i1', 'p:i2']);
    let state = await outbox.state('google');
    expect(state.reconcileFrom).toBe(3);
    expect(state.reconcileProgress).toBe('products 1-3 of 7 this run (3 targets, budget 3); next from product 4');
    expect(state.lastFullReconcile).toBeUndefined();

    await reconciler.reconcile(['google'], 'test');
    expect(await pendingTargets(outbox)).toEqual(['p:i3', 'p:i4', 'p:i5']);
    await reconciler.reconcile(['google'], 'test');
    // i6, then from the start again: a full pass completed.
    expect(await pendingTargets(outbox)).toEqual(['p:i0', 'p:i1', 'p:i6']);
    state = await outbox.state('google');
    expect(state.reconcileFrom).toBe(2);
    expect(state.lastFullReconcile).toBe(new Date(NOW).toISOString());
    expect(state.reconcileProgress).toBe('products 7-2 of 7 this run (3 targets, budget 3); next from product 3');
  });

  it('a budget of nothing enqueues nothing and keeps the position; a budget over the catalog takes it once', async () => {
    const outbox = createMemoryPushOutbox();
    await outbox.enqueue(undefined, 'v1', []);
    await outbox.patchState('google', { reconcileFrom: 5 });
    expect(await budgeted(outbox, () => 0).reconcile(['google'], 'test')).toEqual({ ok: true, version: 'v2', targets: {} });
    expect((await outbox.state('google')).reconcileFrom).toBe(5);
    expect(await budgeted(outbox, () => 1_000).reconcile(['google'], 'test')).toEqual({
      ok: true,
      version: 'v2',
      targets: { google: 7 },
    });
    const state = await outbox.state('google');
    expect(state.reconcileFrom).toBe(5);
    expect(state.lastFullReconcile).toBeDefined();
  });
});
