import { parse } from 'csv-parse/sync';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shoptetParts } from '../../src/app/push-channel-parts.js';
import { metaParts } from '../../src/app/push-meta-parts.js';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import type { Config } from '../../src/config/load-config.js';
import type { CatalogSnapshot } from '../../src/core/catalog/catalog.js';
import { productCode, toFeedItem } from '../../src/core/feeds/to-feed-item.js';
import { PUSH_MASK } from '../../src/core/push/outbox.js';
import type { MetaBatchRequest } from '../../src/core/push/payloads/meta.js';
import type { ShoptetStockItem } from '../../src/core/push/payloads/shoptet.js';
import { startMetaServer } from '../fakes/channels/meta-server.js';
import { startShoptetServer } from '../fakes/channels/shoptet-server.js';
import { eventually } from '../helpers/push-kit.js';
import { createTestConfig } from '../helpers/test-config.js';

/**
 * What the bridge pushes is what the channel's feed says (decision 0013, section 1): with stock policies that
 * change values (`FEED_STOCK_POLICY`: Shoptet keeps 1 piece back, Meta calls fewer than 25 pieces out of stock,
 * Shoptet's view one unit's), the Meta and Shoptet payloads built for sandbox items carry the served `meta.csv`
 * and `shoptet.xml` values: availability, price, sale price, stock.
 */

const SILENT = pino({ level: 'silent' });

let app: RunningApp;
let config: Config;
let snapshot: CatalogSnapshot;

async function served(path: string): Promise<string> {
  const response = await fetch(`${app.url}${path}`);
  expect(response.status).toBe(200);
  return response.text();
}

beforeAll(async () => {
  config = createTestConfig({
    SANDBOX_ARTICLES: '60',
    SANDBOX_SALES_PER_MINUTE: '0',
    STOCK_SYNC_CRON: '0 0 1 1 *',
    CATALOG_SYNC_CRON: '0 0 1 1 *',
    FEED_STOCK_POLICY: 'shoptet:buffer=1;meta:outOfStockBelow=25',
    // Channels configured in dry run: their payload builders exist; nothing leaves the machine.
    PUSH_DRY_RUN: 'true',
    META_CATALOG_ID: '1',
    META_ACCESS_TOKEN: 'meta-token-feed-values-0123',
    META_GRAPH_API_URL: 'http://127.0.0.1:1/v23.0',
    SHOPTET_API_TOKEN: 'shoptet-token-feed-values-0123',
    SHOPTET_API_URL: 'http://127.0.0.1:1',
  });
  app = await startApp(config, { logger: SILENT });
  await app.initialSync;
  const current = app.catalog.current();
  if (current === undefined) throw new Error('no catalog');
  snapshot = current;
});

afterAll(async () => {
  await app.stop();
});

describe('pushed values equal the served feeds', () => {
  it('Meta: a FULL payload carries the meta.csv row of the item (availability under the feed policy, prices)', async () => {
    const rows = parse(await served('/feeds/all/meta.csv'), { columns: true, bom: true }) as Record<string, string>[];
    const meta = metaParts(config.push, config, {}, SILENT, { feeds: app.feeds, now: Date.now, isLeader: () => true });
    if (meta === undefined) throw new Error('Meta not configured');
    expect(rows.length).toBeGreaterThan(5);
    let policyMattered = 0;
    for (const row of rows) {
      const id = row['id'] ?? '';
      const result = meta.buildPayload({ target: `m:${id}`, mask: PUSH_MASK.FULL }, snapshot);
      expect(result.kind).toBe('send');
      if (result.kind !== 'send') continue;
      const { data } = result.payload as MetaBatchRequest;
      expect(data.availability).toBe(row['availability']);
      expect(data.price).toBe(row['price']);
      expect(data.sale_price ?? '').toBe(row['sale_price'] ?? '');
      expect(data.title).toBe(row['title']);
      const product = snapshot.products.find((candidate) => candidate.id === id);
      const plain = product === undefined ? undefined : toFeedItem(product, 'all', { storeCodes: {}, unitNames: new Map() });
      if (plain?.availability === 'in_stock' && data.availability === 'out of stock') policyMattered += 1;
    }
    // An item the feed leaves out (no brand, no GTIN) is skipped, never half-created.
    const inFeed = new Set(rows.map((row) => row['id']));
    for (const product of snapshot.products.filter((candidate) => !inFeed.has(candidate.id)).slice(0, 5)) {
      expect(meta.buildPayload({ target: `m:${product.id}`, mask: PUSH_MASK.FULL }, snapshot).kind).toBe('skip');
    }
    // The sandbox has items with 1 to 24 pieces: the policy made a difference the plain item does not see.
    expect(policyMattered).toBeGreaterThan(0);
  });

  it('Shoptet: the pushed realStock is the shoptet.xml AMOUNT (buffer taken off); no AMOUNT, nothing sent', async () => {
    const xml = await served('/feeds/all/shoptet.xml');
    const items = [...xml.matchAll(/<SHOPITEM>([\s\S]*?)<\/SHOPITEM>/g)].map((match) => match[1] ?? '');
    const shoptet = shoptetParts(config.push, config, {}, SILENT, app.feeds);
    if (shoptet === undefined) throw new Error('Shoptet not configured');
    expect(items.length).toBeGreaterThan(5);
    let buffered = 0;
    let unknown = 0;
    for (const text of items) {
      const code = /<CODE>([^<]*)<\/CODE>/.exec(text)?.[1] ?? '';
      const amount = /<AMOUNT>([^<]*)<\/AMOUNT>/.exec(text)?.[1];
      const result = shoptet.buildPayload({ target: `s:${code}`, mask: PUSH_MASK.STOCK }, snapshot);
      if (amount === undefined) {
        unknown += 1;
        expect(result.kind).toBe('skip');
        continue;
      }
      expect(result).toEqual({ kind: 'send', payload: { productCode: code, realStock: Number(amount) } });
      const product = snapshot.products.find((candidate) => productCode(candidate) === code);
      const payload = result.kind === 'send' ? (result.payload as ShoptetStockItem) : undefined;
      if (product?.aggregate.stock !== undefined && payload !== undefined && 'realStock' in payload) {
        if (payload.realStock < product.aggregate.stock) buffered += 1;
      }
    }
    expect(buffered).toBeGreaterThan(0);
    expect(unknown + buffered).toBeGreaterThan(0);
  });
});

describe('a first start sends Meta every item of its feed, creating what Meta lacks', () => {
  it('the fake catalog (empty before) ends with every meta.csv row, its values as the feed says', async () => {
    const meta = await startMetaServer({ token: 'meta-token-first-start-0123', catalogId: '77', version: 'v23.0' });
    const live = await startApp(
      createTestConfig({
        SANDBOX_ARTICLES: '40',
        SANDBOX_SALES_PER_MINUTE: '0',
        STOCK_SYNC_CRON: '0 0 1 1 *',
        CATALOG_SYNC_CRON: '0 0 1 1 *',
        FEED_STOCK_POLICY: 'meta:outOfStockBelow=25',
        META_CATALOG_ID: '77',
        META_ACCESS_TOKEN: 'meta-token-first-start-0123',
        META_GRAPH_API_URL: meta.graphUrl,
      }),
      { logger: SILENT },
    );
    try {
      await live.initialSync;
      const text = await (await fetch(`${live.url}/feeds/all/meta.csv`)).text();
      const rows = parse(text, { columns: true, bom: true }) as Record<string, string>[];
      expect(rows.length).toBeGreaterThan(5);
      expect(await eventually(() => meta.items.size, rows.length)).toBe(rows.length);
      for (const row of rows) {
        const held = meta.items.get(row['id'] ?? '');
        expect(held?.['availability']).toBe(row['availability']);
        expect(held?.['price']).toBe(row['price']);
        expect(held?.['title']).toBe(row['title']);
      }
      // Whole items went with allow_upsert=true; none was refused.
      const forms = meta.requests.filter((recorded) => recorded.method === 'POST').map((r) => new URLSearchParams(r.body));
      expect(forms.every((form) => form.get('allow_upsert') === 'true')).toBe(true);
    } finally {
      await live.stop();
      await meta.close();
    }
  });
});

describe("Shoptet's bucket filling in the status", () => {
  it('the last X-RateLimit-Bucket-Filling shows as the channel quota on /readyz', async () => {
    const shoptet = await startShoptetServer({ token: 'shoptet-token-bucket-0123', stockId: 1, products: {} });
    shoptet.setBucketFilling('170/200');
    const live = await startApp(
      createTestConfig({
        SANDBOX_ARTICLES: '20',
        SANDBOX_SALES_PER_MINUTE: '0',
        STOCK_SYNC_CRON: '0 0 1 1 *',
        CATALOG_SYNC_CRON: '0 0 1 1 *',
        SHOPTET_API_TOKEN: 'shoptet-token-bucket-0123',
        SHOPTET_API_URL: shoptet.baseUrl,
      }),
      { logger: SILENT },
    );
    try {
      await live.initialSync;
      type Ready = { push?: Record<string, { quota?: { used: number; limit: number } }> };
      const quota = await eventually(
        async () => ((await (await fetch(`${live.url}/readyz`)).json()) as Ready).push?.['shoptet']?.quota,
        (read) => read !== undefined,
      );
      expect(shoptet.requests.length).toBeGreaterThan(0);
      expect(quota).toEqual({ used: 170, limit: 200 });
    } finally {
      await live.stop();
      await shoptet.close();
    }
  });
});
