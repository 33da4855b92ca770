import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlitePushOutbox } from '../../../src/adapters/push/sqlite-push-outbox.js';
import { openKeyv } from '../../../src/adapters/store/create-keyv.js';
import { type PendingUpdate, PUSH_MASK } from '../../../src/core/push/outbox.js';

// Restart safety of the SQLite push outbox (docs/decisions/0013-channel-push.md, section 3); the shared
// behaviour is in outbox.contract.test.ts. Time is the `now`/`atMs` values passed in: no sleeps.

const dir = mkdtempSync(join(tmpdir(), 'sqlite-push-outbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const { PRICE, AVAIL, STOCK, ADDED } = PUSH_MASK;
const LEASE = 30_000;

describe('push outbox (sqlite): restart safety', () => {
  it('keeps pending rows, cursor, paused flag and state across a close and reopen; each row is claimed once', async () => {
    const path = join(dir, 'restart.sqlite');
    const before = openSqlitePushOutbox(path);
    await before.enqueue(undefined, 'v7', [
      { channel: 'google', target: 'p:1', mask: PRICE, atMs: 1_000 },
      { channel: 'google', target: 'p:2', mask: AVAIL, atMs: 1_000 },
      { channel: 'google', target: 'p:3', mask: STOCK, atMs: 1_000 },
      { channel: 'meta', target: 'm:1', mask: ADDED, atMs: 1_000 },
    ]);
    await before.setPaused('meta', true);
    await before.patchState('google', { lastSuccessAt: '2026-11-26T12:00:00.000Z' });
    const [sent] = await before.claim('google', 1_000, 1, LEASE);
    await before.ack('google', sent?.target ?? '', sent?.gen ?? 0);
    await before.close();
    await expect(before.cursor()).rejects.toThrow(/closed/);

    const after = openSqlitePushOutbox(path);
    expect(await after.cursor()).toBe('v7');
    expect(await after.paused('meta')).toBe(true);
    expect(await after.state('google')).toEqual({ lastSuccessAt: '2026-11-26T12:00:00.000Z' });
    const google = await after.claim('google', 2_000, 10, LEASE);
    expect(google.map((row) => row.target).sort()).toEqual(['p:2', 'p:3']);
    expect(await after.claim('google', 2_000, 10, LEASE)).toEqual([]);
    expect(await after.claim('meta', 2_000, 10, LEASE)).toMatchObject([{ target: 'm:1', mask: ADDED, gen: 1 }]);
    expect(await after.enqueue('v7', 'v8', [])).toEqual({ ok: true });
    await after.close();
  });

  it('writes nothing, not even the cursor, when an enqueue fails part-way', async () => {
    const outbox = openSqlitePushOutbox(join(dir, 'failing.sqlite'));
    const broken = { channel: 'google', target: null, mask: PRICE, atMs: 1 } as unknown as PendingUpdate;
    await expect(
      outbox.enqueue(undefined, 'v1', [{ channel: 'google', target: 'p:1', mask: PRICE, atMs: 1 }, broken]),
    ).rejects.toThrow(/NOT NULL/);
    expect(await outbox.cursor()).toBeUndefined();
    expect((await outbox.stats('google')).pending).toBe(0);
    expect(await outbox.enqueue(undefined, 'v1', [])).toEqual({ ok: true });
    await outbox.close();
  });

  it('brings a row leased before a crash back once, when its lease ends', async () => {
    const path = join(dir, 'crash.sqlite');
    const before = openSqlitePushOutbox(path);
    await before.enqueue(undefined, 'v1', [{ channel: 'shoptet', target: 's:A', mask: STOCK, atMs: 0 }]);
    expect(await before.claim('shoptet', 0, 10, LEASE)).toHaveLength(1);
    await before.close(); // never acked

    const after = openSqlitePushOutbox(path);
    expect(await after.claim('shoptet', LEASE - 1, 10, LEASE)).toEqual([]);
    expect(await after.claim('shoptet', LEASE, 10, LEASE)).toMatchObject([{ target: 's:A', gen: 1 }]);
    expect(await after.claim('shoptet', LEASE, 10, LEASE)).toEqual([]);
    await after.close();
  });

  it('shares the store file with the catalog keyv, each in tables of its own', async () => {
    const path = join(dir, 'catalog.sqlite');
    const store = openKeyv(`sqlite://${path}`, 'catalog-bridge');
    await store.keyv.set('pointer', 'v1');
    const outbox = openSqlitePushOutbox(path);
    await outbox.enqueue(undefined, 'v1', [{ channel: 'google', target: 'p:1', mask: PRICE, atMs: 0 }]);
    expect(await store.keyv.get('pointer')).toBe('v1');
    expect((await outbox.stats('google')).pending).toBe(1);
    await outbox.close();
    await store.close();
  });
});
