import { beforeEach, describe, expect, it } from 'vitest';
import { openKeyv } from '../../../src/adapters/store/create-keyv.js';
import { createKeyvWebhookInbox, type WebhookInbox } from '../../../src/adapters/store/keyv-webhook-inbox.js';
import { skipWithoutBackend, storeBackends } from '../../helpers/store-backends.js';

const backends = storeBackends('webhook-inbox');

interface Event {
  readonly n: number;
}

describe.each(backends)('webhook inbox contract (%s)', (name, newUrl) => {
  beforeEach((context) => skipWithoutBackend(context, name));
  function open(url: string): WebhookInbox<Event> {
    return createKeyvWebhookInbox<Event>(openKeyv(url, 'catalog-bridge-inbox', { sqliteTable: 'inbox' }).keyv, {
      seen: openKeyv(url, 'catalog-bridge-seen', { sqliteTable: 'seen' }).keyv,
    });
  }

  it('accepts one of two deliveries of the same event arriving at once', async () => {
    const inbox = open(newUrl());
    const results = await Promise.all([1, 2, 3].map(() => inbox.accept('sale:same', { n: 1 }, new Date())));

    expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
    expect(await inbox.pending()).toHaveLength(1);
    await inbox.close();
  });

  it('keeps accepted events until completed, oldest first, and drops repeated deliveries', async () => {
    const inbox = open(newUrl());
    const first = await inbox.accept('sale:r-1', { n: 1 }, new Date('2026-11-22T10:00:01Z'));
    const second = await inbox.accept('sale:r-2', { n: 2 }, new Date('2026-11-22T10:00:02Z'));
    const again = await inbox.accept('sale:r-1', { n: 1 }, new Date('2026-11-22T10:00:03Z'));

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

  // memory:// lives and dies with its process.
  it.skipIf(name === 'memory')(
    'survives a restart: a new inbox on the same store sees what was accepted and not completed',
    async () => {
      const url = newUrl();
      const before = open(url);
      await before.accept('sale:r-9', { n: 9 }, new Date('2026-11-22T10:00:00Z'));
      await before.close();

      const after = open(url);
      const pending = await after.pending();
      expect(pending).toEqual([
        { id: expect.any(String), dedupeKey: 'sale:r-9', receivedAt: '2026-11-22T10:00:00.000Z', event: { n: 9 } },
      ]);
      await after.close();
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
