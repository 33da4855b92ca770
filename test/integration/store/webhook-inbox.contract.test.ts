import { beforeEach, describe, expect, it } from 'vitest';
import { openKeyv } from '../../../src/adapters/store/create-keyv.js';
import { openWebhookInbox } from '../../../src/adapters/store/open-webhook-inbox.js';
import type { WebhookInbox } from '../../../src/services/webhooks/webhook-inbox.js';
import { skipWithoutBackend, storeBackends } from '../../helpers/store-backends.js';

const backends = storeBackends('webhook-inbox');

/**
 * A receipt time shortly before now: the inboxes forget a completed event's key a week after it was received,
 * by the real clock (a fixed date in the past made this contract fail a week after it was written).
 */
const secondsAgo = (seconds: number): Date => new Date(Date.now() - seconds * 1000);

interface Event {
  readonly n: number;
}

describe.each(backends)('webhook inbox contract (%s)', (name, newUrl) => {
  beforeEach((context) => skipWithoutBackend(context, name));
  function open(url: string, source = 'pos:test'): WebhookInbox<Event> {
    return openWebhookInbox<Event>(url, source);
  }

  it('accepts one of two deliveries of the same event arriving at once', async () => {
    const inbox = open(newUrl());
    const results = await Promise.all([1, 2, 3].map(() => inbox.accept('sale:same', { n: 1 }, new Date())));

    expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
    expect(await inbox.pending()).toHaveLength(1);
    await inbox.close();
  });

  it('accepts many deliveries at once, each event once', async () => {
    const inbox = open(newUrl());
    const keys = Array.from({ length: 60 }, (_, index) => `sale:r-${index % 20}`);
    const results = await Promise.all(keys.map((key, index) => inbox.accept(key, { n: index % 20 }, new Date())));

    expect(results.filter((result) => !result.duplicate)).toHaveLength(20);
    expect(new Set((await inbox.pending()).map((entry) => entry.event.n)).size).toBe(20);
    await inbox.close();
  });

  it('keeps accepted events until completed, oldest first, and drops repeated deliveries', async () => {
    const inbox = open(newUrl());
    const first = await inbox.accept('sale:r-1', { n: 1 }, secondsAgo(59));
    const second = await inbox.accept('sale:r-2', { n: 2 }, secondsAgo(58));
    const again = await inbox.accept('sale:r-1', { n: 1 }, secondsAgo(57));

    expect(first.duplicate).toBe(false);
    expect(again.duplicate).toBe(true);
    expect(again.entry.id).toBe(first.entry.id);
    expect((await inbox.pending()).map((entry) => entry.event.n)).toEqual([1, 2]);

    await inbox.complete([first.entry.id]);
    expect((await inbox.pending()).map((entry) => entry.id)).toEqual([second.entry.id]);
    // Completed events stay known: a late redelivery is still a duplicate.
    expect((await inbox.accept('sale:r-1', { n: 1 }, new Date())).duplicate).toBe(true);
    await inbox.close();
  });

  // memory:// lives and dies with its process: the tests of what a store keeps across opens (a restart, another
  // source's events) are declared for the persistent stores only (a skip would read as a test left out).
  const persistentIt = name === 'memory' ? undefined : it;
  persistentIt?.('survives a restart: a new inbox on the same store sees what was accepted and not completed', async () => {
    const url = newUrl();
    const before = open(url);
    const receivedAt = secondsAgo(60);
    await before.accept('sale:r-9', { n: 9 }, receivedAt);
    await before.close();

    const after = open(url);
    const pending = await after.pending();
    expect(pending).toEqual([
      {
        id: expect.any(String),
        dedupeKey: 'sale:r-9',
        receivedAt: receivedAt.toISOString(),
        event: { n: 9 },
        source: 'pos:test',
      },
    ]);
    await after.close();
  });

  persistentIt?.(
    'keeps each source to its own events: another source’s are neither listed nor deduplicated against, and are discarded',
    async () => {
      const url = newUrl();
      const sandbox = open(url, 'sandbox:seed=42');
      await sandbox.accept('sale|r-1', { n: 1 }, secondsAgo(60));
      await sandbox.accept('sale|r-2', { n: 2 }, secondsAgo(59));
      await sandbox.close();
      // An event stored before sources were recorded (no `source`) by the keyv inbox; the SQLite inbox's
      // are migrated rows (sqlite-webhook-inbox.test.ts).
      if (name === 'redis') {
        const raw = openKeyv(url, 'catalog-bridge-inbox').keyv;
        await raw.set('event:legacy', {
          id: 'legacy',
          dedupeKey: 'sale|r-0',
          receivedAt: '2026-11-21T10:00:00.000Z',
          event: { n: 0 },
        });
        await raw.disconnect();
      }

      const pos = open(url);
      // The same receipt key at another POS is another event.
      expect((await pos.accept('sale|r-1', { n: 10 }, secondsAgo(58))).duplicate).toBe(false);
      expect((await pos.pending()).map((entry) => entry.event.n)).toEqual([10]);

      expect(await pos.discardForeign()).toBe(name === 'redis' ? 3 : 2);
      expect(await pos.discardForeign()).toBe(0);
      expect((await pos.pending()).map((entry) => entry.event.n)).toEqual([10]);
      await pos.close();
      const back = open(url, 'sandbox:seed=42');
      expect(await back.pending()).toEqual([]);
      await back.close();
    },
  );

  it('lists only its own keys, whatever else the store holds', async () => {
    const url = newUrl();
    const catalog = openKeyv(url).keyv;
    await catalog.set('catalog:v:x:chunk:0', '[{"event":1,"id":"x","receivedAt":"y"}]');
    const inbox = open(url);
    await inbox.accept('k', { n: 1 }, new Date());

    expect((await inbox.pending()).map((entry) => entry.dedupeKey)).toEqual(['k']);
    await inbox.close();
    await catalog.disconnect();
  });
});
