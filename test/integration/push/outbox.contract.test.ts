import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { GROUP_KEYS, type RedisClient } from '../../../src/adapters/group/redis-keys.js';
import { createMemoryPushOutbox } from '../../../src/adapters/push/memory-push-outbox.js';
import { createRedisPushOutbox } from '../../../src/adapters/push/redis-push-outbox.js';
import { openSqlitePushOutbox } from '../../../src/adapters/push/sqlite-push-outbox.js';
import { createRedisClient } from '../../../src/adapters/store/create-keyv.js';
import { mergeMask, PUSH_MASK, PUSH_MASK_ALL_FIELDS, type PushOutbox } from '../../../src/core/push/outbox.js';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.js';

// The outbox contract (docs/decisions/0013-channel-push.md, section 3) against each implementation.
// Time is the `now`/`atMs` values passed in: no clock, no sleeps.

const dir = mkdtempSync(join(tmpdir(), 'push-outbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;

const binary = inject('redisServerBinary');
let redis: RedisServer | undefined;
const clients: RedisClient[] = [];
beforeAll(async () => {
  if (binary !== null) redis = await startRedisServer(binary);
});
afterAll(async () => {
  for (const client of clients.splice(0)) await client.close();
  await redis?.stop();
});

/** A fresh Redis outbox: its own database number, emptied first (the tests do not share keys). */
async function openRedis(): Promise<PushOutbox> {
  const client = createRedisClient(`${redis?.url}/${++counter % 16}`);
  clients.push(client);
  await client.connect();
  await client.flushDb();
  return createRedisPushOutbox(client);
}

const backends: [string, () => Promise<PushOutbox>][] = [
  ['memory', async () => createMemoryPushOutbox()],
  ['sqlite', async () => openSqlitePushOutbox(join(dir, `outbox-${++counter}.sqlite`))],
  ['redis', openRedis],
];

const { PRICE, SALE, AVAIL, STOCK, ADDED, REMOVED, FULL } = PUSH_MASK;
const LEASE = 30_000;

/** Enqueues `masks` as one version each (cursor v1, v2, …), starting after `from`. */
async function enqueueChain(
  outbox: PushOutbox,
  target: string,
  masks: readonly number[],
  atMs = 1_000,
  from = 0,
): Promise<string | undefined> {
  let cursor = from === 0 ? undefined : `v${from}`;
  for (const [index, mask] of masks.entries()) {
    const next = `v${from + index + 1}`;
    expect(await outbox.enqueue(cursor, next, [{ channel: 'google', target, mask, atMs: atMs + index }])).toEqual({ ok: true });
    cursor = next;
  }
  return cursor;
}

describe.each(backends)('push outbox contract (%s)', (name, open) => {
  beforeEach((context) => {
    if (name === 'redis' && binary === null) context.skip('no redis-server on this machine');
  });

  it('coalesces 100 enqueues of one target into one row: mask OR-ed, gen counted, oldest since kept', async () => {
    const outbox = await open();
    const masks = Array.from({ length: 100 }, (_, index) => [STOCK, AVAIL, PRICE, STOCK][index % 4] ?? STOCK);
    await enqueueChain(outbox, 'p:42', masks, 1_000);

    const claimed = await outbox.claim('google', 10_000, 10, LEASE);
    expect(claimed).toEqual([
      {
        channel: 'google',
        target: 'p:42',
        mask: STOCK | AVAIL | PRICE,
        gen: 100,
        sinceMs: 1_000,
        dueMs: 10_000 + LEASE,
        attempts: 0,
      },
    ]);
    expect(await outbox.stats('google')).toEqual({ pending: 1, oldestSinceMs: 1_000, rejected: 0 });
    expect(await outbox.stats('meta')).toEqual({ pending: 0, rejected: 0 });
    await outbox.close();
  });

  it('merges the same target twice in one enqueue, and keeps channels apart', async () => {
    const outbox = await open();
    await outbox.enqueue(undefined, 'v1', [
      { channel: 'meta', target: 'm:1', mask: PRICE, atMs: 5 },
      { channel: 'meta', target: 'm:1', mask: SALE, atMs: 6 },
      { channel: 'shoptet', target: 'm:1', mask: STOCK, atMs: 7 },
    ]);
    const [meta] = await outbox.claim('meta', 100, 10, LEASE);
    expect(meta).toMatchObject({ target: 'm:1', mask: PRICE | SALE, gen: 2, sinceMs: 5 });
    expect(await outbox.claim('shoptet', 100, 10, LEASE)).toMatchObject([{ target: 'm:1', mask: STOCK, gen: 1 }]);
    await outbox.close();
  });

  it('nets ADDED and REMOVED to "changed everything", as mergeMask does for any sequence', async () => {
    const outbox = await open();
    await enqueueChain(outbox, 'p:1', [ADDED, PRICE, REMOVED]);
    expect((await outbox.claim('google', 10_000, 1, LEASE))[0]?.mask).toBe(PUSH_MASK_ALL_FIELDS | FULL);

    // The store's merge (SQL in SQLite) equals the pure rule for random sequences, each on a target of its own.
    const sequences = fc.sample(
      fc.array(fc.constantFrom(PRICE, SALE, AVAIL, STOCK, ADDED, REMOVED, FULL), { minLength: 1, maxLength: 6 }),
      {
        numRuns: 40,
        seed: 13,
      },
    );
    let cursor: string | undefined = 'v3';
    for (let step = 0; step < 6; step++) {
      const updates = sequences.flatMap((masks, index) =>
        step < masks.length ? [{ channel: 'meta' as const, target: `m:${index}`, mask: masks[step] ?? 0, atMs: 1 }] : [],
      );
      const next = `r${step}`;
      expect(await outbox.enqueue(cursor, next, updates)).toEqual({ ok: true });
      cursor = next;
    }
    const rows = await outbox.claim('meta', 10, 100, LEASE);
    expect(rows).toHaveLength(sequences.length);
    for (const row of rows) {
      const masks = sequences[Number(row.target.slice(2))] ?? [];
      expect({ target: row.target, mask: row.mask, gen: row.gen }).toEqual({
        target: row.target,
        mask: masks.reduce(mergeMask, 0),
        gen: masks.length,
      });
    }
    await outbox.close();
  });

  it('refuses an enqueue whose expected cursor is stale, writing nothing', async () => {
    const outbox = await open();
    expect(await outbox.cursor()).toBeUndefined();
    expect(await outbox.enqueue(undefined, 'v1', [{ channel: 'google', target: 'p:1', mask: PRICE, atMs: 1 }])).toEqual({
      ok: true,
    });

    const stale = [{ channel: 'google' as const, target: 'p:2', mask: PRICE, atMs: 1 }];
    expect(await outbox.enqueue(undefined, 'v2', stale)).toEqual({ ok: false, reason: 'stale-cursor', cursor: 'v1' });
    expect(await outbox.enqueue('v0', 'v2', stale)).toEqual({ ok: false, reason: 'stale-cursor', cursor: 'v1' });
    expect(await outbox.cursor()).toBe('v1');
    expect((await outbox.stats('google')).pending).toBe(1);

    expect(await outbox.enqueue('v1', 'v2', [])).toEqual({ ok: true });
    expect(await outbox.cursor()).toBe('v2');
    await outbox.close();
  });

  it('lets exactly one of concurrent enqueues from the same cursor through', async () => {
    const outbox = await open();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        outbox.enqueue(undefined, `v-${index}`, [{ channel: 'google', target: `p:${index}`, mask: PRICE, atMs: 1 }]),
      ),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect((await outbox.stats('google')).pending).toBe(1);
    await outbox.close();
  });

  it('leases claimed rows: a second claim within the lease gets nothing, after it they come due again', async () => {
    const outbox = await open();
    await outbox.enqueue(undefined, 'v1', [
      { channel: 'google', target: 'p:a', mask: PRICE, atMs: 1_000 },
      { channel: 'google', target: 'p:b', mask: PRICE, atMs: 1_001 },
      { channel: 'google', target: 'p:c', mask: PRICE, atMs: 5_000 },
    ]);
    expect(await outbox.claim('google', 999, 10, LEASE)).toEqual([]);
    // The limit takes the earliest due; p:c is not due yet.
    expect((await outbox.claim('google', 1_001, 1, LEASE)).map((row) => row.target)).toEqual(['p:a']);
    expect((await outbox.claim('google', 4_999, 10, LEASE)).map((row) => row.target)).toEqual(['p:b']);
    expect(await outbox.claim('google', 4_999, 10, LEASE)).toEqual([]);
    expect((await outbox.claim('google', 5_000, 10, LEASE)).map((row) => row.target)).toEqual(['p:c']);
    expect(await outbox.claim('google', 1_001 + LEASE - 1, 10, LEASE)).toEqual([]);

    // The leader that claimed them crashed: each comes due again when its lease ends, with its gen.
    const again = await outbox.claim('google', 5_000 + LEASE, 10, LEASE);
    expect(again.map((row) => [row.target, row.gen, row.dueMs]).sort()).toEqual([
      ['p:a', 1, 5_000 + 2 * LEASE],
      ['p:b', 1, 5_000 + 2 * LEASE],
      ['p:c', 1, 5_000 + 2 * LEASE],
    ]);
    expect(await outbox.claim('google', 5_000 + LEASE, 0, LEASE)).toEqual([]);
    await outbox.close();
  });

  it('claims the earliest due first, ties by target', async () => {
    const outbox = await open();
    await outbox.enqueue(undefined, 'v1', [
      { channel: 'meta', target: 'm:c', mask: PRICE, atMs: 3 },
      { channel: 'meta', target: 'm:b', mask: PRICE, atMs: 1 },
      { channel: 'meta', target: 'm:z', mask: PRICE, atMs: 2 },
      { channel: 'meta', target: 'm:a', mask: PRICE, atMs: 1 },
    ]);
    expect((await outbox.claim('meta', 10, 3, LEASE)).map((row) => row.target)).toEqual(['m:a', 'm:b', 'm:z']);
    await outbox.close();
  });

  it('claims live changes before re-sends: one sale due now comes before 1,000 re-sends due long ago', async () => {
    const outbox = await open();
    const resends = Array.from({ length: 1_000 }, (_, index) => ({
      channel: 'google' as const,
      target: `p:${String(index).padStart(4, '0')}`,
      mask: FULL,
      atMs: 1_000 + index,
    }));
    expect(await outbox.enqueue(undefined, 'v1', resends)).toEqual({ ok: true });
    expect(await outbox.enqueue('v1', 'v2', [{ channel: 'google', target: 'p:sale', mask: STOCK, atMs: 100_000 }])).toEqual({
      ok: true,
    });

    const first = await outbox.claim('google', 100_000, 10, LEASE);
    // The live row first, then the re-sends for the rest of the limit, earliest due first.
    expect(first.map((row) => row.target)).toEqual(['p:sale', ...resends.slice(0, 9).map((row) => row.target)]);
    expect(first[0]).toMatchObject({ mask: STOCK, gen: 1, dueMs: 100_000 + LEASE });
    // Not yet due: neither priority is claimed before its time.
    await outbox.enqueue('v2', 'v3', [{ channel: 'google', target: 'p:later', mask: PRICE, atMs: 200_000 }]);
    expect((await outbox.claim('google', 100_000, 2, LEASE)).map((row) => row.target)).toEqual(['p:0009', 'p:0010']);
    expect(await outbox.stats('google')).toEqual({ pending: 1_002, oldestSinceMs: 1_000, rejected: 0 });
    await outbox.close();
  });

  it('makes a re-send high priority when a live change merges into it, keeping the earlier due time', async () => {
    const outbox = await open();
    await outbox.enqueue(undefined, 'v1', [
      { channel: 'meta', target: 'm:a', mask: FULL, atMs: 10 },
      { channel: 'meta', target: 'm:b', mask: FULL, atMs: 20 },
      { channel: 'meta', target: 'm:c', mask: FULL, atMs: 30 },
      { channel: 'meta', target: 'm:live', mask: PRICE, atMs: 90 },
    ]);
    // m:c gets a sale (due later than it already is), m:b is removed and re-added (nets to FULL + fields).
    await outbox.enqueue('v1', 'v2', [
      { channel: 'meta', target: 'm:c', mask: SALE, atMs: 50 },
      { channel: 'meta', target: 'm:b', mask: REMOVED, atMs: 60 },
      { channel: 'meta', target: 'm:b', mask: ADDED, atMs: 61 },
      // A re-send merged into a live row leaves it live.
      { channel: 'meta', target: 'm:live', mask: FULL, atMs: 95 },
    ]);
    const claimed = await outbox.claim('meta', 100, 10, LEASE);
    expect(claimed.map((row) => [row.target, row.mask, row.gen])).toEqual([
      ['m:b', PUSH_MASK_ALL_FIELDS | FULL, 3],
      ['m:c', FULL | SALE, 2],
      ['m:live', PRICE | FULL, 2],
      ['m:a', FULL, 1],
    ]);
    await outbox.close();
  });

  it('keeps a claimed and retried re-send low: a live change due later still goes first', async () => {
    const outbox = await open();
    await outbox.enqueue(undefined, 'v1', [{ channel: 'shoptet', target: 's:R', mask: FULL, atMs: 1 }]);
    const [row] = await outbox.claim('shoptet', 1, 10, LEASE);
    await outbox.retry('shoptet', 's:R', row?.gen ?? 0, 100, 'HTTP 503');
    await outbox.enqueue('v1', 'v2', [{ channel: 'shoptet', target: 's:L', mask: STOCK, atMs: 200 }]);
    expect((await outbox.claim('shoptet', 200, 1, LEASE)).map((claimed) => claimed.target)).toEqual(['s:L']);
    expect(await outbox.ack('shoptet', 's:L', 1)).toBe(true);
    expect(await outbox.claim('shoptet', 200, 10, LEASE)).toMatchObject([
      { target: 's:R', mask: FULL, gen: 1, attempts: 1, lastError: 'HTTP 503', dueMs: 200 + LEASE },
    ]);
    // A leased re-send comes due again after its lease, still behind a live change due as late.
    await outbox.enqueue('v2', 'v3', [{ channel: 'shoptet', target: 's:M', mask: PRICE, atMs: 200 + LEASE }]);
    expect((await outbox.claim('shoptet', 200 + LEASE, 1, LEASE)).map((claimed) => claimed.target)).toEqual(['s:M']);
    expect(await outbox.ack('shoptet', 's:R', 1)).toBe(true);
    expect(await outbox.stats('shoptet')).toEqual({ pending: 1, oldestSinceMs: 200 + LEASE, rejected: 0 });
    await outbox.close();
  });

  it('acks and rejects re-sends by gen as live rows, and a stale ack keeps a row merged live', async () => {
    const outbox = await open();
    await outbox.enqueue(undefined, 'v1', [
      { channel: 'google', target: 'p:1', mask: FULL, atMs: 1 },
      { channel: 'google', target: 'p:2', mask: FULL, atMs: 2 },
    ]);
    const claimed = await outbox.claim('google', 10, 10, LEASE);
    expect(claimed.map((row) => row.target)).toEqual(['p:1', 'p:2']);
    // p:1 is sold while its re-send is in flight: the ack of the re-send leaves the sale, due at once.
    await outbox.enqueue('v1', 'v2', [{ channel: 'google', target: 'p:1', mask: STOCK, atMs: 20 }]);
    expect(await outbox.ack('google', 'p:1', 1)).toBe(false);
    expect(await outbox.reject('google', 'p:2', 1, 'invalid')).toBe(true);
    expect(await outbox.claim('google', 20, 10, LEASE)).toMatchObject([{ target: 'p:1', mask: FULL | STOCK, gen: 2 }]);
    expect(await outbox.ack('google', 'p:1', 2)).toBe(true);
    expect(await outbox.stats('google')).toEqual({ pending: 0, rejected: 1 });
    expect(await outbox.claim('google', 10 * LEASE, 10, LEASE)).toEqual([]);
    await outbox.close();
  });

  it('acks a delivered row away; an ack with a stale gen keeps the row, due at the merge (a merge during the send)', async () => {
    const outbox = await open();
    await enqueueChain(outbox, 'p:1', [PRICE]);
    await enqueueChain(outbox, 'p:2', [STOCK], 1_000, 1);
    const [first, second] = await outbox.claim('google', 1_000, 10, LEASE);
    expect(first?.target).toBe('p:1');
    expect(await outbox.ack('google', 'p:1', first?.gen ?? 0)).toBe(true);
    expect(await outbox.ack('google', 'p:1', first?.gen ?? 0)).toBe(false);

    // p:2 is sold again while its request is in flight.
    await outbox.enqueue('v2', 'v3', [{ channel: 'google', target: 'p:2', mask: AVAIL, atMs: 2_000 }]);
    expect(await outbox.ack('google', 'p:2', second?.gen ?? 0)).toBe(false);
    const [merged] = await outbox.claim('google', 2_000, 10, LEASE);
    expect(merged).toMatchObject({ target: 'p:2', mask: STOCK | AVAIL, gen: 2, sinceMs: 1_000 });
    expect(await outbox.ack('google', 'p:2', 2)).toBe(true);
    expect(await outbox.stats('google')).toEqual({ pending: 0, rejected: 0 });
    await outbox.close();
  });

  it('retries: sets the due time, counts attempts and keeps the error; a merged row stays due', async () => {
    const outbox = await open();
    await enqueueChain(outbox, 'p:1', [PRICE]);
    const [row] = await outbox.claim('google', 1_000, 10, LEASE);
    await outbox.retry('google', 'p:1', row?.gen ?? 0, 60_000, 'HTTP 503 | backend\nunavailable');
    expect(await outbox.claim('google', 59_999, 10, LEASE)).toEqual([]);
    const [again] = await outbox.claim('google', 60_000, 10, LEASE);
    expect(again).toEqual({
      channel: 'google',
      target: 'p:1',
      mask: PRICE,
      gen: 1,
      sinceMs: 1_000,
      dueMs: 60_000 + LEASE,
      attempts: 1,
      lastError: 'HTTP 503 | backend\nunavailable',
    });

    // Merged during the failed send: its new change was never tried, so it keeps the merge's due time.
    await outbox.enqueue('v1', 'v2', [{ channel: 'google', target: 'p:1', mask: AVAIL, atMs: 61_000 }]);
    await outbox.retry('google', 'p:1', 1, 600_000, 'HTTP 429');
    expect(await outbox.claim('google', 61_000, 10, LEASE)).toMatchObject([{ gen: 2, attempts: 2, lastError: 'HTTP 429' }]);
    await outbox.close();
  });

  it('rejects: drops the row and counts it; a merged row stays with the error', async () => {
    const outbox = await open();
    await outbox.enqueue(undefined, 'v1', [
      { channel: 'shoptet', target: 's:A', mask: STOCK, atMs: 1 },
      { channel: 'shoptet', target: 's:B', mask: STOCK, atMs: 2 },
    ]);
    const claimed = await outbox.claim('shoptet', 10, 10, LEASE);
    expect(await outbox.reject('shoptet', 's:A', 1, 'unknown-product')).toBe(true);
    expect(await outbox.stats('shoptet')).toEqual({ pending: 1, oldestSinceMs: 2, rejected: 1 });

    await outbox.enqueue('v1', 'v2', [{ channel: 'shoptet', target: 's:B', mask: STOCK, atMs: 20 }]);
    expect(await outbox.reject('shoptet', 's:B', claimed[1]?.gen ?? 0, 'stock-change-not-allowed')).toBe(false);
    expect(await outbox.claim('shoptet', 20, 10, LEASE)).toMatchObject([
      { target: 's:B', gen: 2, lastError: 'stock-change-not-allowed' },
    ]);
    expect(await outbox.stats('shoptet')).toEqual({ pending: 1, oldestSinceMs: 2, rejected: 2 });
    expect((await outbox.stats('google')).rejected).toBe(0);
    await outbox.close();
  });

  it('keeps the paused flag and the state per channel', async () => {
    const outbox = await open();
    expect(await outbox.paused('google')).toBe(false);
    expect(await outbox.state('google')).toEqual({});
    await outbox.setPaused('google', true);
    await outbox.patchState('meta', { lastError: 'rate limited (80014)', quota: { used: 10, limit: 100 } });
    expect(await outbox.paused('google')).toBe(true);
    expect(await outbox.paused('meta')).toBe(false);
    expect(await outbox.state('meta')).toEqual({ lastError: 'rate limited (80014)', quota: { used: 10, limit: 100 } });

    await outbox.setPaused('google', false);
    // A patch sets its fields, removes those given as null and keeps the rest (another writer's quota).
    await outbox.patchState('meta', { lastSuccessAt: '2026-11-26T12:00:00.000Z', lastError: null });
    expect(await outbox.paused('google')).toBe(false);
    expect(await outbox.state('meta')).toEqual({
      lastSuccessAt: '2026-11-26T12:00:00.000Z',
      quota: { used: 10, limit: 100 },
    });
    await outbox.patchState('meta', { quota: { used: 11, limit: 100, resetAt: '2026-11-27T12:00:00.000Z' } });
    expect(await outbox.state('meta')).toEqual({
      lastSuccessAt: '2026-11-26T12:00:00.000Z',
      quota: { used: 11, limit: 100, resetAt: '2026-11-27T12:00:00.000Z' },
    });
    expect(await outbox.state('google')).toEqual({});
    await outbox.close();
  });
});

describe.skipIf(binary === null)('push outbox (redis): fencing and take-over', () => {
  it('refuses a fenced enqueue unless the group lease holds the caller, writing nothing', async () => {
    const outbox = await openRedis();
    const client = clients.at(-1);
    await client?.set(GROUP_KEYS.lease, 'instance-a|7');
    const update = [{ channel: 'google' as const, target: 'p:1', mask: PRICE, atMs: 1 }];

    expect(await outbox.enqueue(undefined, 'v1', update, 'instance-b|6')).toEqual({ ok: false, reason: 'fenced' });
    await client?.del(GROUP_KEYS.lease);
    expect(await outbox.enqueue(undefined, 'v1', update, 'instance-a|7')).toEqual({ ok: false, reason: 'fenced' });
    expect(await outbox.cursor()).toBeUndefined();
    expect((await outbox.stats('google')).pending).toBe(0);

    await client?.set(GROUP_KEYS.lease, 'instance-a|7');
    expect(await outbox.enqueue(undefined, 'v1', update, 'instance-a|7')).toEqual({ ok: true });
    expect(await outbox.cursor()).toBe('v1');
  });

  it('claims nothing for a fence the group lease does not hold (a deposed leader), and all for the holder', async () => {
    const outbox = await openRedis();
    const client = clients.at(-1);
    await client?.set(GROUP_KEYS.lease, 'instance-a|7');
    await outbox.enqueue(undefined, 'v1', [{ channel: 'meta', target: 'm:1', mask: PRICE, atMs: 0 }], 'instance-a|7');

    expect(await outbox.claim('meta', 10, 10, 1_000, 'instance-b|6')).toEqual([]);
    await client?.set(GROUP_KEYS.lease, 'instance-b|8');
    expect(await outbox.claim('meta', 10, 10, 1_000, 'instance-a|7')).toEqual([]);
    // Nothing was leased by the refused claims: the holder finds the row due at once.
    expect((await outbox.claim('meta', 10, 10, 1_000, 'instance-b|8')).map((row) => row.target)).toEqual(['m:1']);
  });

  it('lets a new leader on another connection claim what the crashed one leased, once its lease ends', async () => {
    const crashed = await openRedis();
    await crashed.enqueue(undefined, 'v1', [
      { channel: 'meta', target: 'm:1', mask: PRICE, atMs: 0 },
      { channel: 'meta', target: 'm:2', mask: AVAIL, atMs: 0 },
    ]);
    await crashed.setPaused('google', true);
    expect(await crashed.claim('meta', 0, 1, LEASE)).toHaveLength(1);

    // The same database through a second client: another instance of the group.
    const client = createRedisClient(`${redis?.url}/${counter % 16}`);
    clients.push(client);
    await client.connect();
    const leader = createRedisPushOutbox(client);
    expect(await leader.cursor()).toBe('v1');
    expect(await leader.paused('google')).toBe(true);
    expect((await leader.claim('meta', 1, 10, LEASE)).map((row) => row.target)).toEqual(['m:2']);
    expect((await leader.claim('meta', LEASE, 10, LEASE)).map((row) => row.target)).toEqual(['m:1']);
    expect(await leader.claim('meta', LEASE, 10, LEASE)).toEqual([]);
  });
});
