import { createClient } from '@keyv/redis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { openRedisGroup } from '../../../src/adapters/group/redis-group.js';
import { GROUP_KEYS } from '../../../src/adapters/group/redis-keys.js';
import { type RunningApp, startApp } from '../../../src/app/start-app.js';
import type { Product } from '../../../src/core/catalog/catalog.js';
import { productCode } from '../../../src/core/feeds/to-feed-item.js';
import { PUSH_MASK } from '../../../src/core/push/outbox.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start-sandbox.js';
import type { RecordedRequest } from '../../fakes/channels/http-harness.js';
import { type MetaServer, startMetaServer } from '../../fakes/channels/meta-server.js';
import { type ShoptetServer, startShoptetServer } from '../../fakes/channels/shoptet-server.js';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.js';
import { createTestConfig } from '../../helpers/test-config.js';

/**
 * The channel push in a group of two instances on one real redis-server (docs/scale-out.md, docs/channel-push.md):
 * the outbox is in Redis, only the leader derives and sends, every instance shows the same status, and a
 * follower that takes over sends what the old leader left pending. Each instance has its own fake Meta and
 * Shoptet servers (same token, same catalog), so the servers tell which instance sent a request.
 */

const binary = inject('redisServerBinary');
const KEY = 'sandbox-key';
const YEARLY = '0 0 1 1 *';
const META_TOKEN = 'meta-token-group-0123456789';
const SHOPTET_TOKEN = 'shoptet-token-group-0123456789';
const CATALOG_ID = '123456789';
const STOCK_ID = 1;
const logger = pino({ level: 'silent' });

let redis: RedisServer;
let pos: RunningSandbox;

interface Fakes {
  readonly meta: MetaServer;
  readonly shoptet: ShoptetServer;
}

interface Instance {
  readonly app: RunningApp;
  readonly fakes: Fakes;
}

const running: Instance[] = [];
const fakesToClose: Fakes[] = [];

async function startFakes(): Promise<Fakes> {
  const fakes = {
    meta: await startMetaServer({ token: META_TOKEN, catalogId: CATALOG_ID, version: 'v23.0' }),
    shoptet: await startShoptetServer({ token: SHOPTET_TOKEN, stockId: STOCK_ID, products: {} }),
  };
  fakesToClose.push(fakes);
  return fakes;
}

async function startInstance(id: string): Promise<Instance> {
  const fakes = await startFakes();
  const config = createTestConfig({
    POS_BASE_URL: pos.url,
    POS_API_KEY: KEY,
    STORE_URL: redis.url,
    INSTANCE_ID: id,
    GROUP_LEASE_MS: '2000',
    WEBHOOK_CLAIM_IDLE_MS: '2000',
    CATALOG_SYNC_CRON: YEARLY,
    STOCK_SYNC_CRON: YEARLY,
    META_CATALOG_ID: CATALOG_ID,
    META_ACCESS_TOKEN: META_TOKEN,
    META_GRAPH_API_URL: fakes.meta.graphUrl,
    SHOPTET_API_TOKEN: SHOPTET_TOKEN,
    SHOPTET_API_URL: fakes.shoptet.baseUrl,
    SHOPTET_STOCK_ID: String(STOCK_ID),
    // Short, so that a retry after a 503 comes within a second and a claim's lease lapses within seconds.
    PUSH_TIMEOUT_MS: '1000',
    PUSH_MAX_BACKOFF_MS: '1000',
  });
  const instance = { app: await startApp(config, { logger }), fakes };
  running.push(instance);
  return instance;
}

/** A started leader `a` (it synced first) and a follower `b`. */
async function startGroup(): Promise<{ a: Instance; b: Instance }> {
  const a = await startInstance('push-a');
  await a.app.initialSync;
  const b = await startInstance('push-b');
  return { a, b };
}

async function redisClient() {
  const client = createClient({ url: redis.url });
  await client.connect();
  return client;
}

/** Polls `probe` until it answers something other than `undefined` (bounded: about 20 s). */
async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await Promise.resolve(probe()).catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Ready {
  readonly group?: { readonly role: string };
  readonly push?: Record<
    string,
    { readonly pending: number; readonly mode: string; readonly lastSuccessAt?: string; readonly lastError?: string }
  >;
}

async function readyz(instance: Instance): Promise<Ready> {
  return (await fetch(`${instance.app.url}/readyz`)).json() as Promise<Ready>;
}

/** The outbox in Redis has every change of the served version (its cursor) and nothing pending: all was sent. */
async function settled(instance: Instance): Promise<void> {
  const client = await redisClient();
  try {
    await until(async () => {
      const version = instance.app.catalog.current()?.version;
      const [cursor, meta, shoptet] = await Promise.all([
        client.get(GROUP_KEYS.pushCursor),
        client.hLen(GROUP_KEYS.pushPending('meta')),
        client.hLen(GROUP_KEYS.pushPending('shoptet')),
      ]);
      return version !== undefined && cursor === version && Number(meta) + Number(shoptet) === 0 ? true : undefined;
    }, 'the outbox settled');
  } finally {
    await client.close();
  }
}

const totalStock = (product: Product): number => product.offers.reduce((sum, offer) => sum + (offer.stock ?? 0), 0);

/** A stock item with whole pieces in stock (the fewest first), not one of `not`. */
function stockItem(app: RunningApp, not: readonly string[] = []): Product {
  const candidates = (app.catalog.current()?.products ?? []).filter(
    (product) =>
      product.isStockItem !== false &&
      !not.includes(product.id) &&
      product.offers.every((offer) => offer.stock !== undefined && Number.isInteger(offer.stock) && offer.stock >= 0) &&
      totalStock(product) >= 1,
  );
  const item = candidates.sort((x, y) => totalStock(x) - totalStock(y))[0];
  if (item === undefined) throw new Error('no item with whole pieces in stock');
  return item;
}

function served(app: RunningApp, id: string): Product | undefined {
  return app.catalog.current()?.products.find((product) => product.id === id);
}

/** Sells `keep` fewer pieces than the item holds (every unit; the last piece(s) kept in the last unit with stock). */
async function sellDown(app: RunningApp, item: Product, keep: number): Promise<void> {
  const stocked = item.offers.filter((offer) => (offer.stock ?? 0) > 0);
  for (const [index, offer] of stocked.entries()) {
    const count = (offer.stock ?? 0) - (index === stocked.length - 1 ? keep : 0);
    if (count > 0) await pos.makeSale({ unitCode: offer.unit, lines: [{ localId: item.id, count }] });
  }
  const total = totalStock(item) - keep;
  await until(
    () => (served(app, item.id) !== undefined && totalStock(served(app, item.id) as Product) === keep ? true : undefined),
    `${total} sold`,
  );
}

/** Meta `items_batch` POSTs naming the retailer id. */
function metaRequestsFor(meta: MetaServer, id: string, from = 0): RecordedRequest[] {
  return meta.requests.slice(from).filter((request) => {
    if (request.method !== 'POST') return false;
    const requests = JSON.parse(new URLSearchParams(request.body).get('requests') ?? '[]') as { data?: { id?: string } }[];
    return requests.some((entry) => entry.data?.id === id);
  });
}

/** Shoptet stock movement PATCHes naming the product code. */
function shoptetRequestsFor(shoptet: ShoptetServer, code: string, from = 0): RecordedRequest[] {
  return shoptet.requests.slice(from).filter((request) => {
    if (request.method !== 'PATCH') return false;
    const body = JSON.parse(request.body) as { data?: { productCode?: string }[] };
    return (body.data ?? []).some((entry) => entry.productCode === code);
  });
}

/** The shop and the Meta catalog hold the item (others are refused as unknown), in stock. */
function holdItem(fakes: Fakes, item: Product, realStock: number): void {
  fakes.shoptet.stock.set(productCode(item), { realStock });
  fakes.meta.items.set(item.id, { availability: 'in stock' });
}

describe.skipIf(binary === null)('group/channel push on one Redis', () => {
  beforeAll(async () => {
    redis = await startRedisServer(binary as string);
    pos = await startSandbox({
      units: 2,
      articles: 40,
      seed: 7,
      salesPerMinute: 0,
      apiKey: KEY,
      host: '127.0.0.1',
      port: 0,
      logger,
    });
  });

  afterEach(async () => {
    pos.setWebhookUrl(undefined);
    for (const instance of running.splice(0).reverse()) await instance.app.stop();
    for (const fakes of fakesToClose.splice(0)) {
      await fakes.meta.close();
      await fakes.shoptet.close();
    }
    const client = await redisClient();
    await client.flushAll();
    await client.close();
  }, 30_000);

  afterAll(async () => {
    await pos?.stop();
    await redis?.stop();
  });

  it('sends a sale of the last piece once per channel, from the leader only; both show the same status', {
    timeout: 90_000,
  }, async () => {
    const { a, b } = await startGroup();
    expect((await readyz(a)).group?.role).toBe('leader');
    expect((await readyz(b)).group?.role).toBe('follower');
    const item = stockItem(a.app);
    const code = productCode(item);
    for (const fakes of [a.fakes, b.fakes]) holdItem(fakes, item, 99);
    // The first start reconciles every target; wait until the leader has sent it all.
    await settled(a);
    pos.setWebhookUrl(`${a.app.url}/webhooks/pos`);
    await sellDown(a.app, item, 1);
    await settled(a);
    expect(a.fakes.meta.items.get(item.id)?.['availability']).toBe('in stock');
    expect(a.fakes.shoptet.stock.get(code)?.realStock).toBe(1);

    const metaFrom = a.fakes.meta.requests.length;
    const shoptetFrom = a.fakes.shoptet.requests.length;
    await sellDown(a.app, served(a.app, item.id) as Product, 0);
    await settled(a);
    expect(a.fakes.meta.items.get(item.id)?.['availability']).toBe('out of stock');
    expect(a.fakes.shoptet.stock.get(code)?.realStock).toBe(0);
    // Exactly one request per channel carried the sale, and it came from the leader.
    expect(metaRequestsFor(a.fakes.meta, item.id, metaFrom)).toHaveLength(1);
    expect(shoptetRequestsFor(a.fakes.shoptet, code, shoptetFrom)).toHaveLength(1);
    expect(a.fakes.meta.requests.length).toBeGreaterThan(0);
    // The follower derived and sent nothing at all (not even the first start's reconciliation). Here the
    // leader's worker is woken at once and wins every claim; the next test keeps rows pending long enough for
    // a follower's worker to find them, were it to look.
    expect(b.fakes.meta.requests).toHaveLength(0);
    expect(b.fakes.shoptet.requests).toHaveLength(0);

    // Both show the same status: the pending counts and the last success come from Redis (each instance reads
    // them at its own moment: `checkedAt` differs).
    const statuses = await until(async () => {
      const [ra, rb] = await Promise.all([readyz(a), readyz(b)]);
      const shown = (ready: Ready) =>
        JSON.stringify(ready.push, (key, value: unknown) => (key === 'checkedAt' ? undefined : value));
      return shown(ra) === shown(rb) && rb.push?.['meta']?.lastSuccessAt !== undefined ? [ra, rb] : undefined;
    }, 'the same push status on both');
    expect(statuses[1]?.push?.['shoptet']).toMatchObject({ pending: 0, mode: 'live' });
  });

  it('hands the pending updates to the follower when the leader stops, which sends them once the channel recovers', {
    timeout: 90_000,
  }, async () => {
    const { a, b } = await startGroup();
    const item = stockItem(a.app);
    const code = productCode(item);
    for (const fakes of [a.fakes, b.fakes]) holdItem(fakes, item, 99);
    await settled(a);
    // Both channels are down (for either instance): the sale's updates stay pending, retried by the leader.
    for (const fakes of [a.fakes, b.fakes]) {
      fakes.meta.faults.failNext(100_000, { status: 503 });
      fakes.shoptet.faults.failNext(100_000, { status: 503 });
    }
    pos.setWebhookUrl(`${a.app.url}/webhooks/pos`);
    await sellDown(a.app, item, 0);
    await until(() => (metaRequestsFor(a.fakes.meta, item.id).length > 0 ? true : undefined), 'the leader tried Meta');
    await until(() => (shoptetRequestsFor(a.fakes.shoptet, code).length > 0 ? true : undefined), 'the leader tried Shoptet');

    // Both instances show the same pending counts (and the leader's last error), read from Redis.
    const [ra, rb] = await until(async () => {
      const both = await Promise.all([readyz(a), readyz(b)]);
      const [pa, pb] = both.map((ready) => ready.push);
      const same = (channel: string) =>
        pa?.[channel]?.pending !== undefined &&
        (pa[channel]?.pending ?? 0) > 0 &&
        pa[channel]?.pending === pb?.[channel]?.pending &&
        pb?.[channel]?.lastError !== undefined;
      return same('meta') && same('shoptet') ? both : undefined;
    }, 'the same pending counts on both');
    expect(rb.push?.['meta']?.pending).toBe(ra.push?.['meta']?.pending);
    expect(rb.push?.['shoptet']?.pending).toBe(ra.push?.['shoptet']?.pending);
    expect(b.fakes.meta.requests).toHaveLength(0);
    expect(b.fakes.shoptet.requests).toHaveLength(0);

    // The leader stops; the follower takes the lease and its workers find the rows in Redis.
    await a.app.stop();
    running.splice(running.indexOf(a), 1);
    await until(async () => ((await readyz(b)).group?.role === 'leader' ? true : undefined), 'the follower leads');
    for (const fakes of [b.fakes]) {
      fakes.meta.faults.clear();
      fakes.shoptet.faults.clear();
    }
    await settled(b);
    // The channels' copies equal the catalog served now (the values are absolute: a repeat is harmless).
    const now = served(b.app, item.id) as Product;
    expect(totalStock(now)).toBe(0);
    expect(b.fakes.meta.items.get(item.id)?.['availability']).toBe('out of stock');
    expect(b.fakes.shoptet.stock.get(code)?.realStock).toBe(0);
    // Each target accepted at most twice (a batch in flight at the handover may be sent again).
    const accepted = (requests: RecordedRequest[]) => requests.filter((request) => request.status === 200).length;
    expect(accepted(metaRequestsFor(b.fakes.meta, item.id))).toBeGreaterThanOrEqual(1);
    expect(accepted(metaRequestsFor(b.fakes.meta, item.id))).toBeLessThanOrEqual(2);
    expect(accepted(shoptetRequestsFor(b.fakes.shoptet, code))).toBeGreaterThanOrEqual(1);
    expect(accepted(shoptetRequestsFor(b.fakes.shoptet, code))).toBeLessThanOrEqual(2);
  });

  it('refuses an enqueue fenced by a leader whose lease lapsed, and leaves the group’s connection open', async () => {
    const stale = openRedisGroup(redis.url, { instance: 'stale', leaseMs: 300 });
    const fresh = openRedisGroup(redis.url, { instance: 'fresh', leaseMs: 10_000 });
    try {
      const update = [{ channel: 'meta' as const, target: 'm:1', mask: PUSH_MASK.PRICE, atMs: 1 }];
      expect(await stale.lease.acquire()).toBeDefined();
      const staleOutbox = stale.pushOutbox();
      expect(await staleOutbox.enqueue(undefined, 'v1', update, stale.lease.held())).toEqual({ ok: true });
      // The stale leader was paused past its lease; the other took it with a new token.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await fresh.lease.acquire()).toBeDefined();
      expect(stale.lease.held()).toBeDefined();
      expect(await staleOutbox.enqueue('v1', 'v2', update, stale.lease.held())).toEqual({ ok: false, reason: 'fenced' });
      expect(await staleOutbox.cursor()).toBe('v1');
      const freshOutbox = fresh.pushOutbox();
      expect(await freshOutbox.enqueue('v1', 'v2', update, fresh.lease.held())).toEqual({ ok: true });
      // Closing the outbox leaves the group's connection open.
      await staleOutbox.close();
      expect(await stale.ping()).toBe(true);
      expect(await staleOutbox.cursor()).toBe('v2');
    } finally {
      await stale.close();
      await fresh.close();
    }
  });
});
