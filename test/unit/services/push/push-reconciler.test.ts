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
