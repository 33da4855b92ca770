import { setImmediate as nextTurn } from 'node:timers/promises';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { StoredWebhookEvent } from '../../../../src/services/webhooks/webhook-events.js';
import { createWebhookQueue, freshEntry, type QueuedEntry } from '../../../../src/services/webhooks/webhook-queue.js';

function entry(id: string): QueuedEntry {
  const event: StoredWebhookEvent = {
    kind: 'sale',
    timestamp: '2026-11-30T10:00:00.000Z',
    event: 'accounting.receipt.sale',
    data: { localId: id, number: `N-${id}` },
  };
  return freshEntry({ id, dedupeKey: id, receivedAt: '2026-11-30T10:00:00.000Z', event });
}

function setup(batchGapMs: number) {
  const batches: string[][] = [];
  const queue = createWebhookQueue({
    inbox: { complete: async () => {} },
    logger: pino({ level: 'silent' }),
    maxAttempts: 3,
    retryDelayMs: 10,
    batchSize: 500,
    batchGapMs,
    processBatch: async (batch) => {
      batches.push(batch.map((queued) => queued.entry.id));
      queue.complete(batch);
    },
    onDropped: () => {},
  });
  const settled = async () => {
    while (queue.busy().length > 0) await Promise.allSettled(queue.busy());
  };
  return { queue, batches, settled };
}

describe('webhook queue: batches', () => {
  it('events that come one by one within the gap after a batch started wait and make one batch', async () => {
    const { queue, batches, settled } = setup(60_000);
    queue.enqueue(entry('e1'));
    await nextTurn();
    await nextTurn();
    // e1's batch has started; these come one turn apart, each of them alone would be a batch without the gap.
    queue.enqueue(entry('e2'));
    await nextTurn();
    queue.enqueue(entry('e3'));
    await nextTurn();
    queue.enqueue(entry('e4'));
    expect(batches).toEqual([['e1']]);
    queue.stop();
    await settled();
    // Stopped during the gap: the waiting events stay in the inbox for the next start.
    expect(batches).toEqual([['e1']]);
  });

  it('the next batch takes what gathered during the gap', async () => {
    // Long enough that no pause of a loaded machine between these turns outlasts it.
    const { queue, batches, settled } = setup(500);
    queue.enqueue(entry('e1'));
    await nextTurn();
    await nextTurn();
    queue.enqueue(entry('e2'));
    await nextTurn();
    queue.enqueue(entry('e3'));
    await settled();
    expect(batches).toEqual([['e1'], ['e2', 'e3']]);
  });

  it('without a gap each turn makes its own batch', async () => {
    const { queue, batches, settled } = setup(0);
    queue.enqueue(entry('e1'));
    await nextTurn();
    await nextTurn();
    queue.enqueue(entry('e2'));
    await nextTurn();
    await nextTurn();
    queue.enqueue(entry('e3'));
    await settled();
    expect(batches).toEqual([['e1'], ['e2'], ['e3']]);
  });
});
