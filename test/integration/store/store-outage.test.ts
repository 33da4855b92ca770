import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { openRedisGroup } from '../../../src/adapters/group/redis-group.js';
import { openKeyv } from '../../../src/adapters/store/create-keyv.js';
import { createKeyvCatalogStore } from '../../../src/adapters/store/keyv-catalog-store.js';
import { type RunningApp, startApp } from '../../../src/app/start-app.js';
import type { CatalogMeta } from '../../../src/services/catalog/catalog-service.js';
import { freePort, type RedisServer, startRedisServer } from '../../helpers/redis-server.js';
import { createTestConfig } from '../../helpers/test-config.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * The store watched (docs/failure-modes.md), against a real redis-server: absent at start (named in a log
 * line, retried, no silent hang), stalled while running (every call has a deadline: webhooks 503 instead
 * of hanging, admin syncs refused, feeds served from memory, `/readyz` degraded; back by itself), and
 * restarted empty (the served catalog written back at once).
 */

const binary = inject('redisServerBinary');
const ADMIN = 'admin-token-0001';
const KEY = 'sandbox-key';
const PROBE_MS = 200;
const running: { stop(): Promise<void> }[] = [];

// Stopping while Redis is away waits for a few Redis calls' own deadlines.
afterAll(async () => {
  for (const resource of running.reverse()) await resource.stop();
}, 30_000);

/** A logger whose JSON lines are kept for the test to read. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

function config(storeUrl: string) {
  return createTestConfig({
    STORE_URL: storeUrl,
    SANDBOX_ARTICLES: '120',
    SANDBOX_UNITS: '2',
    SANDBOX_SALES_PER_MINUTE: '0',
    ADMIN_TOKEN: ADMIN,
    CATALOG_SYNC_CRON: '0 0 1 1 *',
    STOCK_SYNC_CRON: '0 0 1 1 *',
  });
}

async function readiness(app: RunningApp): Promise<{ ready: boolean; degraded?: boolean; store?: { up: boolean } }> {
  return (await fetch(`${app.url}/readyz`)).json() as Promise<{ ready: boolean; degraded?: boolean; store?: { up: boolean } }>;
}

function sale(id: string) {
  return fetch(`${app.url}/webhooks/pos`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({
      timestamp: new Date().toISOString(),
      event: 'accounting.receipt.sale',
      data: { localId: id, number: id },
    }),
  });
}

let app: RunningApp;

describe.skipIf(binary === null)('store/ a Redis store that goes away', () => {
  beforeEach((context) => {
    if (binary === null) context.skip();
  });

  it('names a Redis that is absent at start within seconds, keeps trying, and starts once it is there', async () => {
    const port = await freePort();
    const { logger, lines } = capturingLogger();
    const starting = startApp(config(`redis://127.0.0.1:${port}`), { logger, storeProbeMs: PROBE_MS });
    let started = false;
    void starting.then(() => {
      started = true;
    });
    await waitFor(() =>
      lines.some((line) => String(line['msg']).includes(`cannot reach the store at redis://127.0.0.1:${port}`)),
    );
    expect(started).toBe(false);

    const redis = await startRedisServer(binary as string, { port });
    running.push(redis);
    app = await starting;
    running.push(app);
    await app.initialSync;
    expect((await readiness(app)).ready).toBe(true);
    const attempts = lines.filter(
      (line) => line['msg'] === `cannot reach the store at redis://127.0.0.1:${port}; trying again in 0.2 s`,
    );
    expect(attempts.length).toBeGreaterThanOrEqual(1);
  });

  it('while Redis stalls: degraded, webhooks 503 within their deadline, admin sync refused, feeds served; then back', async () => {
    const redis = running[0] as RedisServer;
    const feed = `${app.url}/feeds/all/products.json`;
    const before = await fetch(feed);
    expect(before.status).toBe(200);
    const etag = before.headers.get('etag');

    redis.pause();
    await waitFor(async () => (await readiness(app)).store?.up === false);
    const report = await readiness(app);
    expect(report).toMatchObject({ ready: true, degraded: true });

    const webhook = await sale('r-stalled');
    expect(webhook.status).toBe(503);
    expect(webhook.headers.get('retry-after')).not.toBeNull();
    const admin = await fetch(`${app.url}/admin/sync?wait=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(admin.status).toBe(503);
    expect(((await admin.json()) as { error: { code: string } }).error.code).toBe('STORE_UNAVAILABLE');
    const during = await fetch(feed);
    expect(during.status).toBe(200);
    expect(during.headers.get('etag')).toBe(etag);
    expect(await (await fetch(`${app.url}/metrics`)).text()).toMatch(/^catalog_bridge_store_up 0$/m);
    const page = await (await fetch(`${app.url}/`)).text();
    expect(page).toContain('id="store-down"');
    expect(page).toContain('/docs/failure-modes#the-store');
    // The console's other pages answer too: the outage said, never a page that waits for the store.
    const warnings = (await (await fetch(`${app.url}/api/warnings`)).json()) as { warnings: { code: string }[] };
    expect(warnings.warnings.map((warning) => warning.code)).toContain('store-down');
    expect((await fetch(`${app.url}/syncs`)).status).toBe(503);
    expect((await fetch(`${app.url}/fetches`)).status).toBe(200);
    const prices = await fetch(`${app.url}/admin/catalog.json`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect([200, 503]).toContain(prices.status);
    if (prices.status === 503)
      expect(((await prices.json()) as { error: { code: string } }).error.code).toBe('STORE_UNAVAILABLE');
    else await prices.arrayBuffer();

    redis.resume();
    await waitFor(async () => (await readiness(app)).store?.up === true);
    expect((await readiness(app)).degraded).toBe(false);
    expect(await (await fetch(`${app.url}/`)).text()).not.toContain('id="store-down"');
    expect((await sale('r-after')).status).toBe(200);
  });

  it('writes the served catalog back at once when Redis comes back empty, even after a sale stored part of one', async () => {
    const redis = running[0] as RedisServer;
    await redis.stop();
    await waitFor(async () => (await readiness(app)).store?.up === false);

    const empty = await startRedisServer(binary as string, { port: redis.port });
    running.push(empty);
    // A sale at once: its store writes the changed chunk and a pointer, naming chunks the empty Redis lacks.
    const product = app.catalog.current()?.products.find((entry) => entry.offers.some((offer) => (offer.stock ?? 0) > 2));
    const offer = product?.offers.find((entry) => (entry.stock ?? 0) > 2);
    if (product === undefined || offer === undefined) throw new Error('no stocked product');
    const applied = await app.catalog.applyStockDeltas([{ unitCode: offer.unit, articleId: product.id, delta: -1 }]);
    await applied?.persisted.catch(() => undefined);
    await waitFor(async () => (await readiness(app)).store?.up === true);

    // Read back as another instance of the group would: the served version, whole.
    const { keyv } = openKeyv(empty.url);
    const group = openRedisGroup(empty.url, { instance: 'reader', leaseMs: 10_000 });
    const store = createKeyvCatalogStore<CatalogMeta>(keyv, { source: app.source, pointer: group.pointer });
    const load = () =>
      store.loadCurrent(async (head, texts) => {
        let chunks = 0;
        for await (const _text of texts) chunks += 1;
        return { version: head.version, items: head.items, chunks };
      });
    await waitFor(async () => {
      const loaded = await load().catch(() => undefined);
      return loaded?.version === app.catalog.current()?.version && loaded?.items === app.catalog.current()?.products.length;
    });
    await store.close();
    await group.close();
  });
});
