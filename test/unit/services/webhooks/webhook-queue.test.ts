import { setImmediate as nextTurn } from 'node:timers/promises';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { StoredWebhookEvent } from '../../../../src/services/webhooks/webhook-events.js';
import {
  createWebhookQueue,
  freshEntry,
  type QueuedEntry,
  type WebhookQueue,
} from '../../../../src/services/webhooks/webhook-queue.js';

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

/**
 * Queues the events one after another: the second two event-loop turns after the first (its batch has
 * started by then), each further one `turns` turns after the one before.
 */
async function enqueueApart(queue: WebhookQueue, ids: readonly string[], turns: number): Promise<void> {
  for (const [index, id] of ids.entries()) {
    const wait = index === 0 ? 0 : index === 1 ? 2 : turns;
    for (let turn = 0; turn < wait; turn += 1) await nextTurn();
    queue.enqueue(entry(id));
  }
}

describe('webhook queue: batches', () => {
  it('events that come one by one within the gap after a batch started wait and make one batch', async () => {
    const { queue, batches, settled } = setup(60_000);
    // e2 to e4 come after e1's batch started, one turn apart: each alone would be a batch without the gap.
    await enqueueApart(queue, ['e1', 'e2', 'e3', 'e4'], 1);
    expect(batches).toEqual([['e1']]);
    queue.stop();
    await settled();
    // Stopped during the gap: the waiting events stay in the inbox for the next start.
    expect(batches).toEqual([['e1']]);
  });

  it('the next batch takes what gathered during the gap', async () => {
    // Long enough that no pause of a loaded machine between these turns outlasts it.
    const { queue, batches, settled } = setup(500);
    await enqueueApart(queue, ['e1', 'e2', 'e3'], 1);
    await settled();
    expect(batches).toEqual([['e1'], ['e2', 'e3']]);
  });

  it('without a gap each turn makes its own batch', async () => {
    const { queue, batches, settled } = setup(0);
    await enqueueApart(queue, ['e1', 'e2', 'e3'], 2);
    await settled();
    expect(batches).toEqual([['e1'], ['e2'], ['e3']]);
  });
});
