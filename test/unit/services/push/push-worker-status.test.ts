import { describe, expect, it } from 'vitest';
import { createMemoryPushOutbox } from '../../../../src/adapters/push/memory-push-outbox.js';
import type { ChannelClient, PushOutcome, PushTargetOutcome } from '../../../../src/core/push/channel-client.js';
import { PUSH_MASK, type PushOutbox } from '../../../../src/core/push/outbox.js';
import { createPacer } from '../../../../src/core/push/pacer.js';
import { createPushWorker, type PushWorker } from '../../../../src/services/push/push-worker.js';
import { snapshot } from './push-fixtures.js';

/**
 * The worker's status as the status page reads it (docs/decisions/0013-channel-push.md, section 6): last
 * success and error with the error's kind, kept in the outbox state (at most one write a second), the same
 * for a second worker on the same outbox (another instance, or after a restart), and each delivered item's lag.
 */

const silent = { info() {}, warn() {}, error() {} };
const SERVED = snapshot('v1', [{ id: '1', price: 10 }]);

/** An outbox that counts `patchState` calls. */
function countingOutbox(): { outbox: PushOutbox; writes: () => number } {
  const inner = createMemoryPushOutbox();
  let writes = 0;
  const outbox: PushOutbox = {
    ...inner,
    enqueue: inner.enqueue.bind(inner),
    patchState: async (channel, patch) => {
      writes += 1;
      await inner.patchState(channel, patch);
    },
  };
  return { outbox, writes: () => writes };
}

function setup(outbox: PushOutbox, answers: PushOutcome[]) {
  const clock = { now: 1_000_000 };
  const lags: number[][] = [];
  const client: ChannelClient<string> = {
    channel: 'meta',
    async send(batch) {
      const outcome = answers.shift() ?? { kind: 'ok' };
      return batch.map((item): PushTargetOutcome => ({ target: item.target, gen: item.gen, outcome }));
    },
  };
  const worker: PushWorker = createPushWorker<string>({
    channel: 'meta',
    outbox,
    client,
    buildPayload: (row) => ({ kind: 'send', payload: row.target }),
    // A version is served (the worker claims nothing without one); these payloads do not read it.
    current: () => SERVED,
    // Plenty of tokens: the tests are about the status, not the pacing.
    pacer: createPacer({ capacity: 100, refillPerSecond: 100, maxConcurrent: 1 }, 0),
    batchSize: 10,
    leaseMs: 60_000,
    maxBackoffMs: 1_000,
    idleMs: 1_000,
    now: () => clock.now,
    random: () => 0,
    sleep: (_ms, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
    logger: silent,
    onDelivered: (lag) => lags.push([...lag]),
  });
  const enqueue = async (target: string) => {
    const cursor = await outbox.cursor();
    await outbox.enqueue(cursor, `${cursor ?? ''}+`, [{ channel: 'meta', target, mask: PUSH_MASK.PRICE, atMs: clock.now }]);
  };
  return { clock, worker, enqueue, lags };
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('push worker status', () => {
  it('keeps the last error, its kind and message in the outbox state, for any worker on the same outbox', async () => {
    const { outbox } = countingOutbox();
    const { clock, worker, enqueue } = setup(outbox, [
      { kind: 'retry', afterMs: 30_000, message: 'HTTP 401 code 190: Invalid OAuth access token.', cause: 'auth' },
    ]);
    await enqueue('m:1');
    await worker.step();
    const failedAt = clock.now;
    await worker.stop();

    // Another instance (or the next start) reads the same from the store.
    const other = setup(outbox, []).worker;
    const status = await other.status();
    expect(status.state).toMatchObject({
      lastErrorAt: iso(failedAt),
      lastError: 'HTTP 401 code 190: Invalid OAuth access token.',
      lastErrorKind: 'auth',
      failingSince: iso(failedAt),
    });
    expect(status.lastErrorAt).toBe(failedAt);
    expect(status.lastSuccessAt).toBeUndefined();
    expect(status.pending).toBe(1);
  });

  it('writes the state at most once a second, while the status shows every batch at once', async () => {
    const { outbox, writes } = countingOutbox();
    const { clock, worker, enqueue } = setup(outbox, [
      { kind: 'retry', message: 'HTTP 503', cause: 'server' },
      { kind: 'retry', message: 'HTTP 429', cause: 'rate-limit' },
    ]);
    await enqueue('m:1');
    await worker.step();
    expect(writes()).toBe(1);
    const firstFailure = clock.now;

    // The retry is due after the backoff (random 0: at once); the second failure comes 0.5 s later.
    clock.now += 500;
    await worker.step();
    expect(writes()).toBe(1);
    const status = await worker.status();
    expect(status.state).toMatchObject({ lastError: 'HTTP 429', lastErrorKind: 'rate-limit', failingSince: iso(firstFailure) });
    expect((await outbox.state('meta')).lastErrorKind).toBe('server');

    // A second later the next round writes what was noted.
    clock.now += 600;
    await worker.step();
    expect(writes()).toBe(2);
    expect(await outbox.state('meta')).toMatchObject({ lastErrorKind: 'rate-limit', failingSince: iso(firstFailure) });
  });

  it('a success clears failingSince and keeps the last error as history; a cause-less error drops the old kind', async () => {
    const { outbox } = countingOutbox();
    const { clock, worker, enqueue } = setup(outbox, [
      { kind: 'retry', message: 'HTTP 401', cause: 'auth' },
      { kind: 'ok' },
      { kind: 'retry', message: 'something odd' },
    ]);
    await enqueue('m:1');
    await worker.step();
    clock.now += 2_000;
    await worker.step();
    let state = (await worker.status()).state;
    expect(state.failingSince).toBeUndefined();
    expect(state.lastSuccessAt).toBe(iso(clock.now));
    expect(state.lastErrorKind).toBe('auth');

    await enqueue('m:2');
    clock.now += 2_000;
    await worker.step();
    state = (await worker.status()).state;
    expect(state).toMatchObject({ lastError: 'something odd', failingSince: iso(clock.now) });
    expect(state.lastErrorKind).toBeUndefined();
  });

  it('keeps a refused item (its message and time) apart from the last error, and counts it', async () => {
    const { outbox } = countingOutbox();
    const { clock, worker, enqueue } = setup(outbox, [
      { kind: 'rejected', message: 'unknown-product: Product with code "X" not found.', cause: 'invalid' },
    ]);
    await enqueue('s:X');
    await worker.step();
    const status = await worker.status();
    expect(status.rejected).toBe(1);
    expect(status.state).toMatchObject({
      lastRejectedAt: iso(clock.now),
      lastRejected: 'unknown-product: Product with code "X" not found.',
      lastErrorKind: 'invalid',
    });
    // A refusal is not a failing channel: nothing is retried.
    expect(status.state.failingSince).toBeUndefined();
  });

  it('reports the lag of each accepted item from its oldest change to the answer', async () => {
    const { outbox } = countingOutbox();
    const { clock, worker, enqueue, lags } = setup(outbox, [{ kind: 'retry', message: 'HTTP 500', cause: 'server' }]);
    await enqueue('m:1');
    clock.now += 100;
    await enqueue('m:2');
    await worker.step();
    expect(lags).toEqual([]);
    clock.now += 2_400;
    await worker.step();
    expect(lags).toEqual([[2_500, 2_400]]);
  });
});
