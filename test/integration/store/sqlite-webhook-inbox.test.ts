import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openKeyv } from '../../../src/adapters/store/create-keyv.js';
import { createKeyvWebhookInbox } from '../../../src/adapters/store/keyv-webhook-inbox.js';
import { openSqliteWebhookInbox } from '../../../src/adapters/store/sqlite-webhook-inbox.js';

const dir = mkdtempSync(join(tmpdir(), 'sqlite-inbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const newPath = () => join(dir, `inbox-${++counter}.sqlite`);

describe('SQLite webhook inbox', () => {
  it('forgets processed events once their dedupe window has passed, never pending ones', async () => {
    let clock = Date.parse('2026-11-22T10:00:00Z');
    const inbox = openSqliteWebhookInbox<{ n: number }>(newPath(), { source: 'pos:a', dedupeTtlMs: 60_000, now: () => clock });
    const done = await inbox.accept('sale:done', { n: 1 }, new Date(clock));
    await inbox.accept('sale:waiting', { n: 2 }, new Date(clock));
    await inbox.complete([done.entry.id]);

    clock += 30_000;
    expect((await inbox.accept('sale:done', { n: 1 }, new Date(clock))).duplicate).toBe(true);
    clock += 60_000;
    // Past the window: a processed event's redelivery is new again; an unprocessed one stays a duplicate.
    expect((await inbox.accept('sale:done', { n: 1 }, new Date(clock))).duplicate).toBe(false);
    expect((await inbox.accept('sale:waiting', { n: 2 }, new Date(clock))).duplicate).toBe(true);
    expect((await inbox.pending()).map((entry) => entry.event.n)).toEqual([2, 1]);
    await inbox.close();
  });

  it('takes over what the keyv-based inbox left in the same file: pending events and dedupe marks', async () => {
    const path = newPath();
    const url = `sqlite://${path}`;
    const before = createKeyvWebhookInbox<{ n: number }>(
      openKeyv(url, 'catalog-bridge-inbox', { sqliteTable: 'webhook_inbox' }).keyv,
      { seen: openKeyv(url, 'catalog-bridge-seen', { sqliteTable: 'webhook_seen' }).keyv, source: 'pos:a' },
    );
    const processed = await before.accept('sale:processed', { n: 1 }, new Date('2026-11-22T10:00:01Z'));
    await before.accept('sale:pending', { n: 2 }, new Date('2026-11-22T10:00:02.123Z'));
    await before.complete([processed.entry.id]);
    await before.close();
    // An event accepted before sources were recorded.
    const raw = openKeyv(url, 'catalog-bridge-inbox', { sqliteTable: 'webhook_inbox' }).keyv;
    await raw.set('event:legacy', {
      id: 'legacy',
      dedupeKey: 'sale:old',
      receivedAt: '2026-11-21T10:00:00.000Z',
      event: { n: 0 },
    });
    await raw.disconnect();

    const after = openSqliteWebhookInbox<{ n: number }>(path, { source: 'pos:a', now: () => Date.parse('2026-11-22T11:00:00Z') });
    expect(await after.pending()).toEqual([
      {
        id: expect.any(String),
        dedupeKey: 'sale:pending',
        receivedAt: '2026-11-22T10:00:02.123Z',
        event: { n: 2 },
        source: 'pos:a',
      },
    ]);
    expect((await after.accept('sale:processed', { n: 1 }, new Date())).duplicate).toBe(true);
    expect((await after.accept('sale:pending', { n: 2 }, new Date())).duplicate).toBe(true);
    expect(await after.discardForeign()).toBe(1);
    await after.close();

    // Migrated once: a second start finds only the new table.
    const again = openSqliteWebhookInbox<{ n: number }>(path, { source: 'pos:a' });
    expect((await again.pending()).map((entry) => entry.dedupeKey)).toEqual(['sale:pending']);
    await again.close();
  });

  it('rejects accepts it could not store, and accepts after close', async () => {
    const inbox = openSqliteWebhookInbox<{ n: number }>(join(dir, 'no-such-dir', '\0bad'), { source: 'pos:a' });
    await expect(inbox.accept('sale:x', { n: 1 }, new Date())).rejects.toThrow();
    await inbox.close();
    await expect(inbox.accept('sale:y', { n: 1 }, new Date())).rejects.toThrow(/closed/);
  });
});
