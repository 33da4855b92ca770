import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import type { Product } from '../../src/core/catalog/catalog.js';
import { productCode } from '../../src/core/feeds/to-feed-item.js';
import { type MetaServer, startMetaServer } from '../fakes/channels/meta-server.js';
import { type ShoptetServer, startShoptetServer } from '../fakes/channels/shoptet-server.js';
import { createTestConfig } from '../helpers/test-config.js';

/**
 * The channel push end to end (docs/channel-push.md): the real app on the sandbox, Meta and Shoptet as the fake
 * servers that validate every request; a sale of an item's last pieces reaches both.
 */

const META_TOKEN = 'meta-token-e2e-0123456789';
const SHOPTET_TOKEN = 'shoptet-token-e2e-0123456789';
const CATALOG_ID = '123456789';
const STOCK_ID = 1;

const dirs: string[] = [];
function storeUrl(): string {
  const dir = mkdtempSync(join(tmpdir(), 'channel-push-e2e-'));
  dirs.push(dir);
  return `sqlite://${join(dir, 'catalog.sqlite')}`;
}

function pushConfig(meta: MetaServer, shoptet: ShoptetServer, extra: Record<string, string> = {}) {
  return createTestConfig({
    STORE_URL: storeUrl(),
    SANDBOX_ARTICLES: '60',
    SANDBOX_SALES_PER_MINUTE: '0',
    STOCK_SYNC_CRON: '0 0 1 1 *',
    CATALOG_SYNC_CRON: '0 0 1 1 *',
    META_CATALOG_ID: CATALOG_ID,
    META_ACCESS_TOKEN: META_TOKEN,
    META_GRAPH_API_URL: meta.graphUrl,
    SHOPTET_API_TOKEN: SHOPTET_TOKEN,
    SHOPTET_API_URL: shoptet.baseUrl,
    SHOPTET_STOCK_ID: String(STOCK_ID),
    ...extra,
  });
}

/** Polls `read` until it answers `expected` (bounded: about 15 s); answers the last value read. */
async function eventually<T>(read: () => T | Promise<T>, expected: T): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < 300 && value !== expected; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

/** The stock item with the fewest whole pieces in stock: selling them all leaves it out of stock everywhere. */
function fewPiecesItem(app: RunningApp): Product {
  const totalOf = (product: Product): number | undefined => {
    const stocks = product.offers.map((offer) => offer.stock);
    if (product.isStockItem === false || stocks.some((stock) => stock === undefined || !Number.isInteger(stock) || stock < 0)) {
      return undefined;
    }
    return stocks.reduce<number>((sum, stock) => sum + (stock ?? 0), 0);
  };
  let best: { product: Product; total: number } | undefined;
  for (const product of app.catalog.current()?.products ?? []) {
    const total = totalOf(product);
    if (total !== undefined && total >= 1 && (best === undefined || total < best.total)) best = { product, total };
  }
  if (best === undefined) throw new Error('no item with whole pieces in stock');
  return best.product;
}

/** Sells every piece of `item` in every unit through the sandbox (each sale sends its webhook). */
async function sellOut(app: RunningApp, item: Product): Promise<void> {
  for (const offer of item.offers) {
    if ((offer.stock ?? 0) <= 0) continue;
    await app.sandbox?.makeSale({ unitCode: offer.unit, lines: [{ localId: item.id, count: offer.stock ?? 0 }] });
  }
}

async function servers(shoptetProducts: Record<string, { realStock: number }> = {}) {
  const meta = await startMetaServer({ token: META_TOKEN, catalogId: CATALOG_ID, version: 'v23.0' });
  const shoptet = await startShoptetServer({ token: SHOPTET_TOKEN, stockId: STOCK_ID, products: shoptetProducts });
  return { meta, shoptet };
}

describe('channel push against the sandbox and the fake Meta and Shoptet', () => {
  let app: RunningApp | undefined;
  let meta: MetaServer | undefined;
  let shoptet: ShoptetServer | undefined;
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );

  afterEach(async () => {
    await app?.stop();
    await meta?.close();
    await shoptet?.close();
    app = undefined;
    lines.length = 0;
  });

  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('pushes a sell-out to both channels: Meta out of stock, Shoptet stock 0', async () => {
    ({ meta, shoptet } = await servers());
    app = await startApp(pushConfig(meta, shoptet), { logger });
    await app.initialSync;
    const item = fewPiecesItem(app);
    const code = productCode(item);
    // The shop holds the product (others answer unknown-product), with the stock it had before the sale.
    shoptet.stock.set(code, { realStock: 99 });
    // The shop and the Meta catalog hold the item (made from the feeds; unknown ones are refused).
    meta.items.set(item.id, { availability: 'in stock' });
    await sellOut(app, item);

    expect(await eventually(() => meta?.items.get(item.id)?.['availability'], 'out of stock')).toBe('out of stock');
    expect(await eventually(() => shoptet?.stock.get(code)?.realStock, 0)).toBe(0);
    const ready = (await (await fetch(`${app.url}/readyz`)).json()) as {
      push: Record<string, { enabled: boolean; mode: string; lastSuccessAt?: string }>;
    };
    expect(ready.push['meta']).toMatchObject({ enabled: true, mode: 'live' });
    expect(ready.push['shoptet']).toMatchObject({ enabled: true, mode: 'live' });
    // The counters follow the workers' status, refreshed in the background.
    const metrics = () => fetch(`${app?.url}/metrics`).then((response) => response.text());
    const sent = /catalog_bridge_push_requests_total\{channel="meta",outcome="ok"\} [1-9]/;
    expect(await eventually(async () => sent.test(await metrics()), true)).toBe(true);
    expect(await metrics()).toMatch(/catalog_bridge_push_pending\{channel="shoptet"\} \d+/);
    // The credentials never reach the logs.
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain(META_TOKEN);
    expect(logged).not.toContain(SHOPTET_TOKEN);
  });

  it('in dry run sends nothing and logs what it would send', async () => {
    ({ meta, shoptet } = await servers());
    app = await startApp(pushConfig(meta, shoptet, { PUSH_DRY_RUN: 'true' }), { logger });
    await app.initialSync;
    const item = fewPiecesItem(app);
    const dryRuns = () => lines.filter((line) => line['msg'] === 'push dry run: not sent');
    const channels = () => new Set(dryRuns().map((line) => line['channel'])).size;
    expect(await eventually(channels, 2)).toBe(2);
    await sellOut(app, item);
    const logged = dryRuns().length;
    expect(await eventually(() => dryRuns().length > logged, true)).toBe(true);
    expect(meta.requests).toHaveLength(0);
    expect(shoptet.requests).toHaveLength(0);
    const ready = (await (await fetch(`${app.url}/readyz`)).json()) as { push: Record<string, { mode: string }> };
    expect(ready.push['meta']?.mode).toBe('dry-run');
  });

  it('sends nothing to a paused channel, and keeps its changes pending', async () => {
    ({ meta, shoptet } = await servers());
    app = await startApp(pushConfig(meta, shoptet, { PUSH_PAUSED: 'shoptet' }), { logger });
    await app.initialSync;
    const item = fewPiecesItem(app);
    shoptet.stock.set(productCode(item), { realStock: 99 });
    meta.items.set(item.id, { availability: 'in stock' });
    await sellOut(app, item);
    // Meta is live: once it has the sell-out, Shoptet had every chance to be sent it too.
    expect(await eventually(() => meta?.items.get(item.id)?.['availability'], 'out of stock')).toBe('out of stock');
    const status = async () =>
      ((await (await fetch(`${app?.url}/readyz`)).json()) as { push: Record<string, { mode: string; pending: number }> }).push;
    expect(await eventually(async () => ((await status())['shoptet']?.pending ?? 0) > 0, true)).toBe(true);
    expect((await status())['shoptet']?.mode).toBe('paused');
    expect(shoptet.requests).toHaveLength(0);
    expect(shoptet.stock.get(productCode(item))?.realStock).toBe(99);
  });

  it('changes nothing when no channel is configured: no push status, no push metrics', async () => {
    app = await startApp(createTestConfig({ STORE_URL: storeUrl(), SANDBOX_ARTICLES: '20', SANDBOX_SALES_PER_MINUTE: '0' }), {
      logger,
    });
    await app.initialSync;
    const ready = (await (await fetch(`${app.url}/readyz`)).json()) as Record<string, unknown>;
    expect(ready['push']).toBeUndefined();
    expect(await (await fetch(`${app.url}/metrics`)).text()).not.toMatch(/catalog_bridge_push_pending\{/);
  });
});
