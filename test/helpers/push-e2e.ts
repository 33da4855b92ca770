import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { RunningApp } from '../../src/app/start-app.js';
import type { Product } from '../../src/core/catalog/catalog.js';
import { productCode } from '../../src/core/feeds/to-feed-item.js';
import { type MetaServer, startMetaServer } from '../fakes/channels/meta-server.js';
import { type ShoptetServer, startShoptetServer } from '../fakes/channels/shoptet-server.js';
import { createTestConfig } from './test-config.js';

/** Shared by the push operator e2e tests (push-reconcile, push-admin): the app on the sandbox, fake Meta and Shoptet. */

export const META_TOKEN = 'meta-token-e2e-0123456789';
export const SHOPTET_TOKEN = 'shoptet-token-e2e-0123456789';
export const ADMIN_TOKEN = 'admin-token-e2e-0123456789abcdef';
const CATALOG_ID = '123456789';
const STOCK_ID = 1;

const dirs: string[] = [];

export function storeUrl(): string {
  const dir = mkdtempSync(join(tmpdir(), 'push-ops-e2e-'));
  dirs.push(dir);
  return `sqlite://${join(dir, 'catalog.sqlite')}`;
}

export function removeStores(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function pushConfig(meta: MetaServer, shoptet: ShoptetServer, store: string, extra: Record<string, string> = {}) {
  return createTestConfig({
    STORE_URL: store,
    SANDBOX_ARTICLES: '40',
    SANDBOX_SALES_PER_MINUTE: '0',
    STOCK_SYNC_CRON: '0 0 1 1 *',
    CATALOG_SYNC_CRON: '0 0 1 1 *',
    ADMIN_TOKEN,
    META_CATALOG_ID: CATALOG_ID,
    META_ACCESS_TOKEN: META_TOKEN,
    META_GRAPH_API_URL: meta.graphUrl,
    SHOPTET_API_TOKEN: SHOPTET_TOKEN,
    SHOPTET_API_URL: shoptet.baseUrl,
    SHOPTET_STOCK_ID: String(STOCK_ID),
    ...extra,
  });
}

export async function startServers() {
  const meta = await startMetaServer({ token: META_TOKEN, catalogId: CATALOG_ID, version: 'v23.0' });
  const shoptet = await startShoptetServer({ token: SHOPTET_TOKEN, stockId: STOCK_ID, products: {} });
  return { meta, shoptet };
}

/**
 * The shop and the Meta catalog hold every product of the catalog (both refuse an update of an unknown
 * item), with values they will be told.
 */
export function seedChannels(app: RunningApp, meta: MetaServer, shoptet: ShoptetServer): void {
  for (const product of app.catalog.current()?.products ?? []) {
    shoptet.stock.set(productCode(product), { realStock: 999 });
    if (!meta.items.has(product.id)) meta.items.set(product.id, { availability: 'in stock' });
  }
}

/** Polls `read` until it answers `expected` (bounded: about 20 s); answers the last value read. */
export async function eventually<T>(read: () => T | Promise<T>, expected: T): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < 400 && value !== expected; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

/** The stock item with the fewest whole pieces in stock: selling them all leaves it out of stock everywhere. */
export function fewPiecesItem(app: RunningApp, except: readonly string[] = []): Product {
  let best: { product: Product; total: number } | undefined;
  for (const product of app.catalog.current()?.products ?? []) {
    const stocks = product.offers.map((offer) => offer.stock);
    if (except.includes(product.id) || product.isStockItem === false) continue;
    if (stocks.some((stock) => stock === undefined || !Number.isInteger(stock) || stock < 0)) continue;
    const total = stocks.reduce<number>((sum, stock) => sum + (stock ?? 0), 0);
    if (total >= 1 && (best === undefined || total < best.total)) best = { product, total };
  }
  if (best === undefined) throw new Error('no item with whole pieces in stock');
  return best.product;
}

/** Sells every piece of `item` in every unit through the sandbox (each sale sends its webhook). */
export async function sellOut(app: RunningApp, item: Product): Promise<void> {
  for (const offer of item.offers) {
    if ((offer.stock ?? 0) <= 0) continue;
    await app.sandbox?.makeSale({ unitCode: offer.unit, lines: [{ localId: item.id, count: offer.stock ?? 0 }] });
  }
}

/**
 * Where the fakes' copies differ from the served catalog: Meta's price, sale price and availability per
 * item, Shoptet's stock per product code (stock items with a known stock; the bridge sends no other).
 */
/** The served Meta feed's rows by id: what Meta should hold (an item the feed leaves out is never sent whole). */
export async function metaFeedRows(app: RunningApp): Promise<Map<string, Record<string, string>>> {
  const response = await fetch(`${app.url}/feeds/all/meta.csv`);
  if (response.status !== 200) throw new Error(`meta.csv answered ${response.status}`);
  const rows = parse(await response.text(), { columns: true, bom: true }) as Record<string, string>[];
  return new Map(rows.map((row) => [row['id'] ?? '', row]));
}

/**
 * Where the fakes' copies differ from what the channels should hold: Meta each row of the served Meta feed
 * (price, sale price, availability), Shoptet each stock item's known stock.
 */
export async function differences(app: RunningApp, meta: MetaServer, shoptet: ShoptetServer): Promise<string[]> {
  const found: string[] = [];
  const rows = await metaFeedRows(app);
  for (const product of app.catalog.current()?.products ?? []) {
    const row = rows.get(product.id);
    const item = meta.items.get(product.id);
    const expected =
      row === undefined ? {} : { price: row['price'], sale_price: row['sale_price'], availability: row['availability'] };
    for (const [field, value] of Object.entries(expected)) {
      const held = item?.[field] === '' ? undefined : item?.[field];
      const want = value === '' ? undefined : value;
      if (held !== want) found.push(`meta ${product.id} ${field}: ${String(held)} ≠ ${String(want)}`);
    }
    const offer = product.aggregate;
    if (product.isStockItem !== false && offer.stock !== undefined) {
      const held = shoptet.stock.get(productCode(product))?.realStock;
      if (held !== Math.max(0, offer.stock)) found.push(`shoptet ${productCode(product)}: ${held} ≠ ${offer.stock}`);
    }
  }
  return found;
}

/** The Meta items_batch requests that named `id`. */
export function metaRequestsFor(meta: MetaServer, id: string): number {
  return meta.requests.filter((request) => {
    const requests = new URLSearchParams(request.body).get('requests') ?? '[]';
    return (JSON.parse(requests) as { data?: { id?: string } }[]).some((entry) => entry.data?.id === id);
  }).length;
}

export type PushStatus = Record<
  string,
  { mode: string; pending: number; lastSuccessAt?: string; lastErrorAt?: string; lastReconcileAt?: string }
>;

export async function pushStatus(app: RunningApp): Promise<PushStatus> {
  return ((await (await fetch(`${app.url}/readyz`)).json()) as { push: PushStatus }).push;
}

/** A bearer call to an admin endpoint. */
export function admin(app: RunningApp, method: string, path: string, token = ADMIN_TOKEN): Promise<Response> {
  return fetch(`${app.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
}
