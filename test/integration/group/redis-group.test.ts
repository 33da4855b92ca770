import { createClient } from '@keyv/redis';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { openRedisGroup, type RedisGroup } from '../../../src/adapters/group/redis-group.js';
import { GROUP_KEYS } from '../../../src/adapters/group/redis-keys.js';
import type { PointerBackend, VersionPointer } from '../../../src/adapters/store/keyv-catalog-store.js';
import type { InboxEntry } from '../../../src/services/webhooks/webhook-inbox.js';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * The group's Redis parts against a real redis-server (docs/scale-out.md): the lease and its fencing, the
 * change stream's compare-and-set, and the shared webhook inbox (atomic dedupe, one consumer per event,
 * claims of what a dead instance held).
 */

const binary = inject('redisServerBinary');
const source = { id: 'pos-1', label: 'a POS' };
let redis: RedisServer;
const groups: RedisGroup[] = [];

function group(instance: string, leaseMs = 10_000): RedisGroup {
  const opened = openRedisGroup(redis.url, { instance, leaseMs });
  groups.push(opened);
  return opened;
}

const noPointer: PointerBackend = { read: async () => undefined, write: async () => undefined };

function pointer(version: string): VersionPointer {
  return { version, publishedAt: new Date(0).toISOString(), items: 1, layout: 2, source };
}

describe.skipIf(binary === null)('group/redis parts', () => {
  beforeAll(async () => {
    redis = await startRedisServer(binary as string);
  });

  beforeEach(async () => {
    for (const each of groups.splice(0)) await each.close();
    const client = createClient({ url: redis.url });
    await client.connect();
    await client.flushAll();
    await client.close();
  });

  afterAll(async () => {
    for (const each of groups.splice(0)) await each.close();
    await redis?.stop();
  });

  it('gives the lease to one instance at a time, with a new fencing token for each holder', async () => {
    const a = group('a', 300);
    const b = group('b', 300);
    const [tokenA, tokenB] = await Promise.all([a.lease.acquire(), b.lease.acquire()]);
    expect([tokenA, tokenB].filter((token) => token !== undefined)).toHaveLength(1);
    const holder = tokenA === undefined ? b : a;
    const other = holder === a ? b : a;
    expect(await holder.lease.renew()).toBe(true);
    expect(await other.lease.renew()).toBe(false);
    expect((await other.lease.holder())?.instance).toBe(holder.instance);

    // Lapsed (the holder stalled): the other takes it with a higher token; the old holder cannot renew.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const next = await other.lease.acquire();
    expect(next).toBeGreaterThan((tokenA ?? tokenB) as number);
    expect(await holder.lease.renew()).toBe(false);
    expect(holder.lease.held()).toBeUndefined();
    await other.lease.release();
    expect(await holder.lease.holder()).toBeUndefined();
  });

  it('moves a pointer only under the lease: a holder whose lease lapsed is fenced out', async () => {
    const a = group('a', 300);
    const b = group('b', 300);
    const pointerA = a.pointer('catalog', noPointer);
    const pointerB = b.pointer('catalog', noPointer);
    expect(await a.lease.acquire()).toBeDefined();
    await pointerA.write(pointer('v-1'), { announce: true });
    expect((await pointerB.read())?.pointer.version).toBe('v-1');
    // Announced, not switched yet: the group serves it from its `serve` entry on.
    expect(await a.journal.head()).toBeUndefined();
    await a.switching.switchTo('v-1', source.id);
    expect(await a.journal.head()).toBe('v-1');

    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await b.lease.acquire()).toBeDefined();
    // `a` still believes it holds the lease (it was paused and has not renewed since).
    expect(a.lease.held()).toBeDefined();
    await expect(pointerA.write(pointer('v-stale'), { announce: true })).rejects.toMatchObject({ code: 'LEASE_LOST' });
    await expect(a.switching.switchTo('v-stale', source.id)).rejects.toMatchObject({ code: 'LEASE_LOST' });
    expect((await pointerB.read())?.pointer.version).toBe('v-1');
    await pointerB.write(pointer('v-2'), { announce: true });
    const read = await pointerA.read();
    expect(read?.pointer.version).toBe('v-2');
    // Its position is the announcement's entry in the change stream.
    const entries = await b.journal.read('0-0', 10);
    expect(entries.map((entry) => [entry.kind, entry.version])).toEqual([
      ['full', 'v-1'],
      ['serve', 'v-1'],
      ['full', 'v-2'],
    ]);
    expect(read?.position).toBe(entries[2]?.id);
  });

  it('waits for the other live members to load a new catalog before the group switches to it', async () => {
    const [a, b, c] = [group('a'), group('b'), group('c')];
    await Promise.all([a, b, c].map((each) => each.switching.heartbeat()));
    expect(await a.switching.waitReady('v-9', 100)).toEqual({ ready: 0, members: 2 });
    await b.switching.markReady('v-9');
    const waiting = a.switching.waitReady('v-9', 5_000);
    await c.switching.markReady('v-9');
    expect(await waiting).toEqual({ ready: 2, members: 2 });
  });

  it('appends a stock change only onto the head: of two made from one version, one is appended', async () => {
    const a = group('a');
    const b = group('b');
    const change = (version: string) => ({ base: 'v-1', version, source: source.id, body: '{}' });
    // Nothing is appended before the leader announced a catalog (a Redis restarted empty, say).
    expect(await a.journal.appendStock(change('v-1a'))).toEqual({ ok: false, head: '' });
    expect(await a.lease.acquire()).toBeDefined();
    await a.pointer('catalog', noPointer).write(pointer('v-1'), { announce: true });
    await a.switching.switchTo('v-1', source.id);
    expect((await a.journal.appendStock(change('v-1a'))).ok).toBe(true);
    const [first, second] = await Promise.all([a.journal.appendStock(change('v-2a')), b.journal.appendStock(change('v-2b'))]);
    expect(first).toEqual({ ok: false, head: 'v-1a' });
    expect(second).toEqual({ ok: false, head: 'v-1a' });
    const onHead = await Promise.all([
      a.journal.appendStock({ ...change('v-3a'), base: 'v-1a' }),
      b.journal.appendStock({ ...change('v-3b'), base: 'v-1a' }),
    ]);
    expect(onHead.filter((result) => result.ok)).toHaveLength(1);
    // The announcement, the switch and two changes.
    expect(await a.journal.countAfter('0-0', 100)).toBe(4);
  });

  it('accepts an event once however many instances get it at the same moment, and hands it to one', async () => {
    const instances = [group('a'), group('b'), group('c')];
    const inboxes = instances.map((each) => each.inbox<{ readonly n: number }>({ source: source.id, claimIdleMs: 60_000 }));
    const received: [number, InboxEntry<{ readonly n: number }>][] = [];
    for (const [index, inbox] of inboxes.entries())
      inbox.shared?.consume((entries) =>
        received.push(...entries.map((entry) => [index, entry] as [number, InboxEntry<{ readonly n: number }>])),
      );
    const accepted = await Promise.all(inboxes.map((inbox) => inbox.accept('sale|r-1', { n: 1 }, new Date())));
    expect(accepted.filter((result) => !result.duplicate)).toHaveLength(1);
    await Promise.all(inboxes.map((inbox, index) => inbox.accept(`sale|r-${index + 2}`, { n: index + 2 }, new Date())));
    await waitFor(() => received.length >= 4);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received.map(([, entry]) => entry.event.n).sort()).toEqual([1, 2, 3, 4]);
    // Completed by whoever got them: the stream is empty.
    for (const [index, entry] of received) await inboxes[index]?.complete([entry.id]);
    expect(await inboxes[0]?.shared?.stats()).toMatchObject({ depth: 0, pending: 0 });
  });

  it('hands the events a dead instance held to another after the claim timeout, and keeps a live one’s', async () => {
    const live = group('live');
    const dead = group('dead');
    const liveInbox = live.inbox<{ readonly n: number }>({ source: source.id, claimIdleMs: 500 });
    const deadInbox = dead.inbox<{ readonly n: number }>({ source: source.id, claimIdleMs: 500 });
    const deadGot: InboxEntry<{ readonly n: number }>[] = [];
    deadInbox.shared?.consume((entries) => deadGot.push(...entries));
    await deadInbox.accept('sale|d-1', { n: 1 }, new Date());
    await waitFor(() => deadGot.length === 1);
    // The instance dies holding it: its connections go, nothing completes the event.
    await dead.close();

    const liveGot: InboxEntry<{ readonly n: number }>[] = [];
    liveInbox.shared?.consume((entries) => liveGot.push(...entries));
    await waitFor(() => liveGot.length === 1);
    expect(liveGot[0]?.event.n).toBe(1);
    expect((await liveInbox.shared?.stats())?.claimed).toBe(1);
    // Held past the claim timeout while it works on it: not taken from it (it claims its own again).
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await liveInbox.shared?.stats())?.claimed).toBe(1);
    await liveInbox.complete([liveGot[0]?.id as string]);
    expect(await liveInbox.shared?.stats()).toMatchObject({ depth: 0, pending: 0 });
    // The same event delivered again later is a duplicate (the dedupe key outlives the event).
    expect((await liveInbox.accept('sale|d-1', { n: 1 }, new Date())).duplicate).toBe(true);
    expect(await live.journal.lastId()).toBe('0-0');
    expect(GROUP_KEYS.inboxGroup).toBe('bridges');
  });
});
