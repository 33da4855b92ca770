import { describe, expect, it } from 'vitest';
import { createMemoryPushOutbox } from '../../../../src/adapters/push/memory-push-outbox.js';
import type { ChannelClient, PushOutcome, PushTargetOutcome } from '../../../../src/core/push/channel-client.js';
import { PUSH_MASK } from '../../../../src/core/push/outbox.js';
import { createPacer } from '../../../../src/core/push/pacer.js';
import { createPushWorker } from '../../../../src/services/push/push-worker.js';
import { snapshot } from './push-fixtures.js';

/**
 * The worker's handling of one refused request: a log line (a refused token must show in the log), and one
 * backoff for all its rows, so they are retried together rather than scattered over many requests.
 */

function run(answer: (target: string) => PushOutcome, random: () => number = () => 0.5) {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const logger = {
    info: (fields: Record<string, unknown>, msg: string) => void lines.push({ level: 'info', fields, msg }),
    warn: (fields: Record<string, unknown>, msg: string) => void lines.push({ level: 'warn', fields, msg }),
    error: (fields: Record<string, unknown>, msg: string) => void lines.push({ level: 'error', fields, msg }),
  };
  const outbox = createMemoryPushOutbox();
  const client: ChannelClient<string> = {
    channel: 'meta',
    send: async (batch) =>
      batch.map((item): PushTargetOutcome => ({ target: item.target, gen: item.gen, outcome: answer(item.target) })),
  };
  const worker = createPushWorker<string>({
    channel: 'meta',
    outbox,
    client,
    buildPayload: (row) => ({ kind: 'send', payload: row.target }),
    current: () => snapshot('v1', [{ id: '1', price: 10 }]),
    pacer: createPacer({ capacity: 5, refillPerSecond: 5, maxConcurrent: 1 }, 0),
    batchSize: 10,
    leaseMs: 60_000,
    maxBackoffMs: 300_000,
    idleMs: 1_000,
    now: () => 0,
    random,
    sleep: async () => {},
    logger,
  });
  return {
    lines,
    outbox,
    async round() {
      const updates = ['m:1', 'm:2'].map((target) => ({ channel: 'meta' as const, target, mask: PUSH_MASK.PRICE, atMs: 0 }));
      await outbox.enqueue(undefined, 'v1', updates);
      await worker.step();
    },
  };
}

describe('push worker, a refused request', () => {
  it('logs one warning per request the channel refused, with its (redacted) message and counts', async () => {
    const refused = run(() => ({
      kind: 'retry',
      message: 'HTTP 401 code 190: Invalid OAuth access token. (check META_ACCESS_TOKEN)',
    }));
    await refused.round();
    expect(refused.lines).toEqual([
      {
        level: 'warn',
        fields: {
          channel: 'meta',
          items: 2,
          failed: 2,
          outcome: 'retry',
          error: 'HTTP 401 code 190: Invalid OAuth access token. (check META_ACCESS_TOKEN)',
        },
        msg: 'push: the channel did not take every update',
      },
    ]);
  });

  it('logs nothing when every update was taken', async () => {
    const taken = run(() => ({ kind: 'ok' }));
    await taken.round();
    expect(taken.lines).toEqual([]);
  });

  it('retries the rows of one refused request at one time (one jitter draw per answer, not per row)', async () => {
    let calls = 0;
    // Each draw differs: drawn per row, the two rows would come due at different times.
    const refused = run(
      () => ({ kind: 'retry', message: 'HTTP 503' }),
      () => [0.1, 0.9][calls++ % 2] ?? 0.5,
    );
    await refused.round();
    // The first draw (0.1) puts the retry at 100 ms of the 1 s range; the second (0.9) would put a row at 900 ms.
    const rows = await refused.outbox.claim('meta', 500, 10, 60_000);
    expect(rows.map((row) => row.target).sort()).toEqual(['m:1', 'm:2']);
    expect(calls).toBe(1);
  });
});
