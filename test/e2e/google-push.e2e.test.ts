import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import type { Product } from '../../src/core/catalog/catalog.js';
import { toAmountMicros } from '../../src/core/push/money-micros.js';
import { createSandboxApp } from '../../src/sandbox/create-sandbox-app.js';
import { createSandboxState, type SandboxState } from '../../src/sandbox/sandbox-state.js';
import type { GoogleServer } from '../fakes/channels/google-server.js';
import { createGoogleKit, GOOGLE_ACCOUNT, GOOGLE_DATA_SOURCE } from '../helpers/google-kit.js';
import { pieceItem, sellOut as sellEveryPiece, eventually as waitUntil } from '../helpers/push-kit.js';

/**
 * The Google push end to end (docs/channel-push.md, Google): the real app on the sandbox, the fake Merchant API
 * (token endpoint, data source, quotas, product inputs, local inventories; every request validated). A
 * throwaway RSA key is written as the service-account file.
 */

const ACCOUNT = GOOGLE_ACCOUNT;
const DATA_SOURCE = GOOGLE_DATA_SOURCE;
const STORE_OF: Record<string, string> = { U1: 'praha-1', U2: 'brno', U3: 'ostrava' };
const kit = createGoogleKit();
const googleConfig = kit.config;

/** Waits for `read` to answer `expected` (bounded: about 40 s, a loaded CI machine); answers the last value read. */
function eventually<T>(read: () => T | Promise<T>, expected: T): Promise<T> {
  return waitUntil(read, expected, 40_000);
}

/** Sells every piece; answers when the last sale's webhook was answered (the clock the lag is measured from). */
async function sellOut(app: RunningApp, item: Product): Promise<number> {
  await sellEveryPiece(app, item);
  return Date.now();
}

const productKey = (id: string) => `cs~CZ~${id}`;

type GoogleStatus = {
  pending: number;
  reconcileProgress?: string;
  lastFullReconcileAt?: string;
  mode: string;
  lastError?: string;
  quota?: { used: number; limit: number; resetAt?: string };
};
async function googleStatus(app: RunningApp | undefined): Promise<GoogleStatus | undefined> {
  const ready = (await (await fetch(`${app?.url}/readyz`)).json()) as { push?: Record<string, GoogleStatus> };
  return ready.push?.['google'];
}

/** Product and inventory calls (not token, data source or quota reads). */
function pushCalls(google: GoogleServer) {
  return google.requests.filter((request) => /^\/(products|inventories)\/v1\//.test(new URL(request.url, 'http://x').pathname));
}

const POS_KEY = 'pos-key-e2e-0123456789';
const ADMIN_TOKEN_E2E = 'admin-token-google-e2e-0123456789abcdef';

/** A POS (the sandbox's interface) whose catalog the test changes: a price, an article more or less. */
async function startPos(articles: number): Promise<{ server: Server; url: string; use(articles: number): SandboxState }> {
  const build = (count: number) => {
    const state = createSandboxState({ units: 3, articles: count, seed: 42 });
    return { state, app: createSandboxApp(state, { apiKey: POS_KEY }) as unknown as RequestListener };
  };
  let current = build(articles);
  const server = createServer((request, response) => current.app(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    use(count) {
      current = build(count);
      return current.state;
    },
  };
}

describe('Google push against the sandbox and the fake Merchant API', () => {
  let app: RunningApp | undefined;
  let google: GoogleServer | undefined;
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const startFake = kit.startFake;

  afterEach(async () => {
    await app?.stop();
    await google?.close();
    app = undefined;
    lines.length = 0;
  });

  afterAll(() => kit.cleanUp());

  it('inserts every item with its full input, then a sell-out reaches the product and the local inventories', async () => {
    google = await startFake();
    app = await startApp(googleConfig(google), { logger });
    await app.initialSync;
    // The first start reconciles: every item is inserted (primary source), every unit's inventory sent.
    const count = app.catalog.current()?.products.length;
    expect(await eventually(() => google?.products.size, count)).toBe(count);
    expect(await eventually(async () => (await googleStatus(app))?.pending, 0)).toBe(0);
    const item = pieceItem(app);
    const key = productKey(item.id);
    expect(google.products.get(key)?.availability).toBe('IN_STOCK');
    const insert = google.requests.find(
      (request) =>
        request.method === 'POST' &&
        request.url.includes('productInputs:insert') &&
        request.body.includes(`"offerId":"${item.id}"`),
    );
    const input = JSON.parse(insert?.body ?? '{}') as { productAttributes?: Record<string, unknown> };
    expect(Object.keys(input.productAttributes ?? {})).toEqual(
      expect.arrayContaining(['title', 'description', 'link', 'imageLink', 'availability', 'price', 'condition']),
    );
    const price = item.aggregate.price;
    if (price !== undefined) expect(google.products.get(key)?.priceMicros).toBe(toAmountMicros(price));

    const soldAt = await sellOut(app, item);
    const stocked = item.offers.filter((offer) => (offer.stock ?? 0) > 0).map((offer) => offer.unit);
    const arrived = () =>
      google?.products.get(key)?.availability === 'OUT_OF_STOCK' &&
      stocked.every((unit) => google?.localInventories.get(key)?.get(STORE_OF[unit] ?? unit)?.['quantity'] === '0');
    expect(await eventually(arrived, true)).toBe(true);
    // Recorded, not asserted (no timed assertions): the lag from the last webhook's answer to Google having it.
    console.info(`google push lag after the webhook: ${Date.now() - soldAt} ms (bounded poll, 50 ms steps)`);
    const status = await googleStatus(app);
    expect(status?.mode).toBe('live');
    expect(status?.quota).toEqual({
      used: expect.any(Number) as unknown,
      limit: 100_000,
      resetAt: expect.stringMatching(/T12:00:00.000Z$/) as unknown,
    });
    // The sell-out went as a patch of availability (the product exists). Under load the sale may merge into
    // the item's pending first-start re-send, which then goes as one insert carrying the sold-out state.
    const soldOutSent = () =>
      google?.requests.some(
        (request) =>
          request.body.includes(`"offerId":"${item.id}"`) &&
          request.body.includes('"OUT_OF_STOCK"') &&
          ((request.method === 'PATCH' && /updateMask=[^&]*productAttributes\.availability/.test(request.url)) ||
            (request.method === 'POST' && request.url.includes('productInputs:insert'))),
      );
    expect(await eventually(soldOutSent, true)).toBe(true);
    expect(JSON.stringify(lines)).not.toContain('PRIVATE KEY');
  });

  it('a price change patches the exact micros, a new item is inserted, a removed item deleted', async () => {
    google = await startFake();
    const pos = await startPos(30);
    try {
      const config = googleConfig(google, {
        POS_BASE_URL: pos.url,
        POS_API_KEY: POS_KEY,
        FEED_PRODUCT_URL: 'https://shop.example/p/{id}',
        FEED_IMAGE_URL: 'https://shop.example/i/{id}.jpg',
      });
      app = await startApp(config, { logger });
      await app.initialSync;
      const count = app.catalog.current()?.products.length ?? 0;
      expect(await eventually(() => google?.products.size, count)).toBe(count);
      expect(await eventually(async () => (await googleStatus(app))?.pending, 0)).toBe(0);
      const before = new Set(app.catalog.current()?.products.map((product) => product.id));

      // One article more, and article 0 at 15.99 (the POS's gross price): one sync publishes both.
      const state = pos.use(31);
      state.overrideArticle(0, { salesPrice: 15.99 });
      await app.catalog.syncCatalog();
      const products = app.catalog.current()?.products ?? [];
      const added = products.find((product) => !before.has(product.id));
      const repriced = products.find((product) => product.aggregate.price === 15.99);
      expect(added).toBeDefined();
      expect(repriced).toBeDefined();
      const addedKey = productKey(added?.id ?? '');
      expect(await eventually(() => google?.products.has(addedKey), true)).toBe(true);
      const insert = google.requests.find(
        (r) => r.url.includes('productInputs:insert') && r.body.includes(`"offerId":"${added?.id}"`),
      );
      expect(JSON.parse(insert?.body ?? '{}')).toMatchObject({
        offerId: added?.id,
        contentLanguage: 'cs',
        feedLabel: 'CZ',
        productAttributes: {
          title: expect.any(String) as unknown,
          link: `https://shop.example/p/${added?.id}`,
          imageLink: `https://shop.example/i/${added?.id}.jpg`,
          condition: 'NEW',
        },
      });
      const repricedKey = productKey(repriced?.id ?? '');
      expect(await eventually(() => google?.products.get(repricedKey)?.priceMicros, '15990000')).toBe('15990000');
      const patch = google.requests.find(
        (r) =>
          r.method === 'PATCH' && r.body.includes(`"offerId":"${repriced?.id}"`) && r.url.includes('productAttributes.price'),
      );
      expect(JSON.parse(patch?.body ?? '{}')).toMatchObject({
        productAttributes: { price: { amountMicros: '15990000', currencyCode: 'CZK' } },
      });

      // The article is gone again: the product input is deleted, and so are its local inventories.
      pos.use(30);
      await app.catalog.syncCatalog();
      expect(await eventually(() => google?.products.has(addedKey), false)).toBe(false);
      const deleted = google.requests.filter((r) => r.method === 'DELETE');
      expect(deleted.some((r) => r.url.startsWith(`/products/v1/accounts/${ACCOUNT}/productInputs/`))).toBe(true);
      const localDeleted = () =>
        google?.requests.some(
          (r) => r.method === 'DELETE' && r.url.includes(`${Buffer.from(addedKey).toString('base64url')}/localInventories/`),
        );
      expect(await eventually(localDeleted, true)).toBe(true);
      expect(await eventually(async () => (await googleStatus(app))?.pending, 0)).toBe(0);
    } finally {
      await app?.stop();
      app = undefined;
      await new Promise((resolve) => pos.server.close(resolve));
    }
  });

  it('with the daily quota spent sends nothing and drops nothing; after the reset every pending item is sent', async () => {
    google = await startFake();
    google.exhaustDailyQuota();
    app = await startApp(googleConfig(google, { GOOGLE_QUOTA_REFRESH_MS: '1000' }), { logger });
    await app.initialSync;
    // Two quota reads after the catalog was enqueued: the channel had time to send, and did not.
    expect(await eventually(async () => ((await googleStatus(app))?.pending ?? 0) > 0, true)).toBe(true);
    const reads = google.quotaReads();
    expect(await eventually(() => google !== undefined && google.quotaReads() >= reads + 2, true)).toBe(true);
    expect(pushCalls(google)).toHaveLength(0);
    const closed = await googleStatus(app);
    expect(closed?.quota?.used).toBe(closed?.quota?.limit);
    const pending = closed?.pending ?? 0;
    expect(pending).toBeGreaterThan(0);

    google.resetDailyQuota();
    expect(await eventually(async () => (await googleStatus(app))?.pending, 0)).toBe(0);
    expect(google.products.size).toBe(app.catalog.current()?.products.length);
    expect(lines.some((line) => line['msg'] === 'push: Google daily quota spent; waiting')).toBe(true);
  });

  it('a supplemental data source is patched only: nothing inserted or deleted', async () => {
    google = await startFake();
    google.dataSourceKind = 'supplemental';
    app = await startApp(googleConfig(google), { logger });
    await app.initialSync;
    const item = pieceItem(app);
    const key = productKey(item.id);
    // The item came from the feed file (the primary source); the supplemental source patches it.
    google.products.set(key, { availability: 'IN_STOCK' });
    // The reconciliation's patches (the others are answered 404: not in the fake) are through.
    expect(await eventually(() => (google?.requests.filter((r) => r.method === 'PATCH').length ?? 0) > 0, true)).toBe(true);
    expect(await eventually(async () => (await googleStatus(app))?.pending, 0)).toBe(0);
    await sellOut(app, item);
    expect(await eventually(() => google?.products.get(key)?.availability, 'OUT_OF_STOCK')).toBe('OUT_OF_STOCK');
    const productCalls = pushCalls(google).filter((request) => request.url.startsWith('/products/v1/'));
    expect(productCalls.length).toBeGreaterThan(0);
    expect(productCalls.every((request) => request.method === 'PATCH')).toBe(true);
  });

  it('in dry run reads and sends nothing, and logs the rounds it would send', async () => {
    google = await startFake();
    app = await startApp(googleConfig(google, { PUSH_DRY_RUN: 'true' }), { logger });
    await app.initialSync;
    const dryRuns = () => lines.filter((line) => line['msg'] === 'push dry run: not sent' && line['channel'] === 'google');
    expect(await eventually(() => dryRuns().length > 0, true)).toBe(true);
    expect(await eventually(async () => (await googleStatus(app))?.pending, 0)).toBe(0);
    expect((await googleStatus(app))?.mode).toBe('dry-run');
    // Not even the token, the data source or the quotas are asked for.
    expect(google.requests).toHaveLength(0);
  });

  it('a data source that is not an API source: nothing is sent, /readyz names it, the feeds are served', async () => {
    google = await startFake();
    google.dataSourceKind = 'file';
    app = await startApp(googleConfig(google), { logger });
    await app.initialSync;
    const error = await eventually(async () => (await googleStatus(app))?.lastError?.includes('not an API data source'), true);
    expect(error).toBe(true);
    expect((await googleStatus(app))?.lastError).toContain(`accounts/${ACCOUNT}/dataSources/${DATA_SOURCE}`);
    expect(await eventually(async () => ((await googleStatus(app))?.pending ?? 0) > 0, true)).toBe(true);
    expect(pushCalls(google)).toHaveLength(0);
    expect(lines.some((line) => line['level'] === 50 && String(line['msg']).includes('not an API data source'))).toBe(true);
    expect((await fetch(`${app.url}/readyz`)).status).toBeLessThan(500);
  });

  it('a reconciliation run spends a share of the quota left: 40 calls left × 0.5 = 20 items, the next run the next 20', async () => {
    google = await startFake();
    const fake = google;
    app = await startApp(
      googleConfig(fake, {
        // One target per product (no local inventory): the budget counts products one to one.
        GOOGLE_LOCAL_INVENTORY: 'false',
        GOOGLE_QUOTA_REFRESH_MS: '1000',
        PUSH_GOOGLE_RECONCILE_SHARE: '0.5',
        ADMIN_TOKEN: ADMIN_TOKEN_E2E,
      }),
      { logger },
    );
    const running = app;
    await running.initialSync;
    const products = running.catalog.current()?.products ?? [];
    expect(products.length).toBe(40);
    // The first start sends everything (the deriver's first pass, not the budgeted reconciliation).
    expect(await eventually(() => fake.products.size, products.length)).toBe(products.length);
    expect(await eventually(async () => (await googleStatus(running))?.pending, 0)).toBe(0);

    /** Leaves 40 calls of the day in every group and waits until the channel has read it. */
    const leave40 = async () => {
      for (const group of fake.quotaGroups) group.usage = group.dailyLimit - 40;
      const read = async () => {
        const quota = (await googleStatus(running))?.quota;
        return quota !== undefined && quota.limit - quota.used === 40;
      };
      expect(await eventually(read, true)).toBe(true);
    };
    const insertedIds = (from: number) =>
      fake.requests
        .slice(from)
        .filter((request) => request.method === 'POST' && request.url.includes('productInputs:insert'))
        .map((request) => (JSON.parse(request.body) as { offerId: string }).offerId);
    const reconcile = async () => {
      const response = await fetch(`${running.url}/admin/push/reconcile?channel=google`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN_E2E}`, accept: 'application/json' },
      });
      expect(response.status).toBe(202);
      return (await response.json()) as { targets: Record<string, number> };
    };

    await leave40();
    let from = fake.requests.length;
    expect((await reconcile()).targets['google']).toBe(20);
    expect(await eventually(async () => (await googleStatus(running))?.pending, 0)).toBe(0);
    expect(await eventually(() => insertedIds(from).length, 20)).toBe(20);
    expect(new Set(insertedIds(from))).toEqual(new Set(products.slice(0, 20).map((product) => product.id)));
    const first = await googleStatus(running);
    expect(first?.reconcileProgress).toMatch(/^products 1-20 of 40 this run .*next from product 21$/);
    expect(first?.lastFullReconcileAt).toBeUndefined();

    // The next run continues where the first stopped: products 21 to 40, and a full pass is recorded.
    await leave40();
    from = fake.requests.length;
    expect((await reconcile()).targets['google']).toBe(20);
    expect(await eventually(async () => (await googleStatus(running))?.pending, 0)).toBe(0);
    expect(await eventually(() => insertedIds(from).length, 20)).toBe(20);
    expect(new Set(insertedIds(from))).toEqual(new Set(products.slice(20, 40).map((product) => product.id)));
    const second = await googleStatus(running);
    expect(second?.reconcileProgress).toMatch(/^products 21-40 of 40 this run .*next from product 1$/);
    expect(second?.lastFullReconcileAt).toEqual(expect.any(String));

    // A spent day's quota enqueues nothing (the live changes keep what is left), and the position stays.
    for (const group of fake.quotaGroups) group.usage = group.dailyLimit;
    const spent = async () => (await googleStatus(running))?.quota?.used === 100_000;
    expect(await eventually(spent, true)).toBe(true);
    const none = await reconcile();
    expect(none.targets['google'] ?? 0).toBe(0);
    expect((await googleStatus(running))?.reconcileProgress).toMatch(/^no products this run .*next from product 1 of 40$/);
  });
});
