import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { pino } from 'pino';
import { expect } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import type { Product } from '../../src/core/catalog/catalog.js';
import { productCode } from '../../src/core/feeds/to-feed-item.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/start-sandbox.js';
import type { RecordedRequest } from '../fakes/channels/http-harness.js';
import { type MetaServer, startMetaServer } from '../fakes/channels/meta-server.js';
import { type ShoptetServer, startShoptetServer } from '../fakes/channels/shoptet-server.js';
import { createTestConfig } from './test-config.js';
import { waitFor } from './wait-for.js';

/**
 * The one kit of the channel-push tests (issue 13, "Done when"; issue 24): the real app on the sandbox POS
 * with a SQLite store, the fake Meta and Shoptet servers, bounded waits, readers of the bodies the fakes
 * received, and the operator's calls (admin, `/readyz`).
 */

export const META_TOKEN = 'meta-token-push-0123456789';
export const SHOPTET_TOKEN = 'shoptet-token-push-0123456789';
export const ADMIN_TOKEN = 'admin-token-push-0123456789abcdef';
export const CATALOG_ID = '123456789';
export const STOCK_ID = 1;
export const SANDBOX_KEY = 'sandbox-key';

const dirs: string[] = [];

/** A fresh SQLite store URL in its own temporary directory (removed by `removeStores`). */
export function storeUrl(): string {
  const dir = mkdtempSync(join(tmpdir(), 'push-kit-'));
  dirs.push(dir);
  return `sqlite://${join(dir, 'catalog.sqlite')}`;
}

export function removeStores(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface Fakes {
  readonly meta: MetaServer;
  readonly shoptet: ShoptetServer;
}

export async function startFakes(): Promise<Fakes> {
  const meta = await startMetaServer({ token: META_TOKEN, catalogId: CATALOG_ID, version: 'v23.0' });
  const shoptet = await startShoptetServer({ token: SHOPTET_TOKEN, stockId: STOCK_ID, products: {} });
  return { meta, shoptet };
}

export async function closeFakes(fakes: Fakes | undefined): Promise<void> {
  await fakes?.meta.close();
  await fakes?.shoptet.close();
}

/** The env of an app on the sandbox pushing to both fakes; no cron runs on its own (the tests run the jobs). */
export function pushEnv(fakes: Fakes, store: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    STORE_URL: store,
    SANDBOX_ARTICLES: '40',
    SANDBOX_SALES_PER_MINUTE: '0',
    STOCK_SYNC_CRON: '0 0 1 1 *',
    CATALOG_SYNC_CRON: '0 0 1 1 *',
    ADMIN_TOKEN,
    META_CATALOG_ID: CATALOG_ID,
    META_ACCESS_TOKEN: META_TOKEN,
    META_GRAPH_API_URL: fakes.meta.graphUrl,
    SHOPTET_API_TOKEN: SHOPTET_TOKEN,
    SHOPTET_API_URL: fakes.shoptet.baseUrl,
    SHOPTET_STOCK_ID: String(STOCK_ID),
    PUSH_MAX_BACKOFF_MS: '2000',
    ...extra,
  };
}

/** A pino logger writing its lines (parsed) into `lines`. */
export function capturingLogger(lines: Record<string, unknown>[], level = 'info') {
  return pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
}

/** Starts the app of `env` (its log lines into `lines`) and answers once its start sync has run. */
export async function startPushApp(
  env: Record<string, string>,
  lines: Record<string, unknown>[] = [],
  level = 'info',
): Promise<RunningApp> {
  const app = await startApp(createTestConfig(env), { logger: capturingLogger(lines, level) });
  await app.initialSync;
  return app;
}

/**
 * Waits until `done` holds for what `read` answers (`done` a value: until it answers that value), bounded
 * by the shared `waitFor`; answers the last value read, so the caller's `expect` names what differs.
 */
export async function eventually<T>(
  read: () => T | Promise<T>,
  done: T | ((value: T) => boolean),
  timeoutMs = 20_000,
): Promise<T> {
  const holds = (value: T) => (typeof done === 'function' ? (done as (value: T) => boolean)(value) : value === done);
  let value = await read();
  if (holds(value)) return value;
  await waitFor(
    async () => {
      value = await read();
      return holds(value);
    },
    { intervalMs: 20, timeoutMs },
  ).catch(() => undefined);
  return value;
}

export type PushStatus = Record<
  string,
  {
    mode: string;
    pending: number;
    enabled: boolean;
    lastSuccessAt?: string;
    lastErrorAt?: string;
    lastError?: string;
    lastReconcileAt?: string;
    checkedAt?: string;
  }
>;

export async function pushStatus(app: RunningApp): Promise<PushStatus> {
  return ((await (await fetch(`${app.url}/readyz`)).json()) as { push: PushStatus }).push;
}

/**
 * Waits until both channels have answered a request (the start's reconciliation at least) and two successive
 * reads of the outbox, both begun after this call (`checkedAt`, a read every second), found nothing pending:
 * the first cannot predate the action under test, the second catches an update that followed the first.
 * Bounded: about 20 s.
 */
export async function settled(app: RunningApp): Promise<void> {
  const since = Date.now();
  let push: PushStatus = {};
  let lastRead: string | undefined;
  let idleReads = 0;
  const idle = (channel: string) => {
    const status = push[channel];
    return status?.pending === 0 && (status.lastSuccessAt ?? status.lastErrorAt) !== undefined;
  };
  await waitFor(
    async () => {
      push = await pushStatus(app);
      const read = push['meta']?.checkedAt;
      if (read === undefined || read === lastRead || Date.parse(read) < since) return false;
      lastRead = read;
      idleReads = idle('meta') && idle('shoptet') ? idleReads + 1 : 0;
      return idleReads >= 2;
    },
    { intervalMs: 50 },
  ).catch(() => expect.fail(`the push did not settle (updates still pending): ${JSON.stringify(push)}`));
}

/** One Meta `items_batch` request's `requests[]` (the form's JSON field). */
export interface MetaEntry {
  readonly method: string;
  readonly data: Record<string, string>;
}

export function metaEntries(requests: readonly RecordedRequest[]): MetaEntry[] {
  return requests
    .filter((request) => request.method === 'POST' && request.url.endsWith('/items_batch'))
    .flatMap((request) => JSON.parse(new URLSearchParams(request.body).get('requests') ?? '[]') as MetaEntry[]);
}

/** The Meta items_batch requests that named `id`. */
export function metaRequestsFor(meta: MetaServer, id: string): number {
  return meta.requests.filter((request) => {
    const requests = new URLSearchParams(request.body).get('requests') ?? '[]';
    return (JSON.parse(requests) as { data?: { id?: string } }[]).some((entry) => entry.data?.id === id);
  }).length;
}

export function shoptetItems(requests: readonly RecordedRequest[]): Record<string, unknown>[] {
  return requests
    .filter((request) => request.method === 'PATCH')
    .flatMap((request) => (JSON.parse(request.body) as { data: Record<string, unknown>[] }).data);
}

/** Calls the sandbox's POS or control API with its key. */
export async function sandboxCall(app: RunningApp, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${app.posUrl}${path}`, {
    method,
    headers: { 'x-api-key': SANDBOX_KEY, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return response.status === 204 ? undefined : response.json();
}

/** A bearer call to an admin endpoint. */
export function admin(app: RunningApp, method: string, path: string, token = ADMIN_TOKEN): Promise<Response> {
  return fetch(`${app.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
}

export function products(app: RunningApp): readonly Product[] {
  return app.catalog.current()?.products ?? [];
}

/** Whole pieces of `product` in every unit, or `undefined` when one is unknown, fractional or not a stock item. */
export function wholePieces(product: Product): number | undefined {
  const stocks = product.offers.map((offer) => offer.stock);
  if (product.isStockItem === false || stocks.some((stock) => stock === undefined || !Number.isInteger(stock) || stock < 0)) {
    return undefined;
  }
  return stocks.reduce<number>((sum, stock) => sum + (stock ?? 0), 0);
}

/**
 * Makes both fakes hold every item of the catalog (Meta refuses an UPDATE of an unknown item, Shoptet an
 * unknown code), so the requests under test are accepted. Answers the request counts so far (`since`).
 */
export function holdCatalog(app: RunningApp, fakes: Fakes): { meta: number; shoptet: number } {
  for (const product of products(app)) {
    if (!fakes.meta.items.has(product.id)) fakes.meta.items.set(product.id, {});
    const code = productCode(product);
    if (!fakes.shoptet.stock.has(code)) fakes.shoptet.stock.set(code, {});
  }
  return { meta: fakes.meta.requests.length, shoptet: fakes.shoptet.requests.length };
}

/**
 * The shop and the Meta catalog hold every product of the catalog (both refuse an update of an unknown
 * item), with values they will be told.
 */
export function seedChannels(app: RunningApp, fakes: Fakes): void {
  for (const product of products(app)) {
    fakes.shoptet.stock.set(productCode(product), { realStock: 999 });
    if (!fakes.meta.items.has(product.id)) fakes.meta.items.set(product.id, { availability: 'in stock' });
  }
}

/** Sells `count` of `product` in `unit` through the sandbox (its webhook reaches the app). */
export async function sell(app: RunningApp, product: Product, unit: string, count: number): Promise<void> {
  await app.sandbox?.makeSale({ unitCode: unit, lines: [{ localId: product.id, count }] });
}

/** Sells every piece of `item` in every unit through the sandbox (each sale sends its webhook). */
export async function sellOut(app: RunningApp, item: Product): Promise<void> {
  for (const offer of item.offers) {
    if ((offer.stock ?? 0) > 0) await sell(app, item, offer.unit, offer.stock ?? 0);
  }
}

/** The product as served now (after sales), by id. */
export function served(app: RunningApp, id: string): Product {
  const product = products(app).find((candidate) => candidate.id === id);
  if (product === undefined) throw new Error(`no product ${id} served`);
  return product;
}

/** The stock of `product` in `unit` (`all`: the sum) as served now. */
export function stockIn(app: RunningApp, id: string, unit: string): number | undefined {
  const product = served(app, id);
  return unit === 'all' ? product.aggregate.stock : product.offers.find((offer) => offer.unit === unit)?.stock;
}

/**
 * A stock item with whole pieces in every unit, at least `min` in total and pieces in `units` units (the
 * fewest such), not one of `except`. `pieceItem(app)`: the one whose sell-out takes the fewest pieces.
 */
export function pieceItem(app: RunningApp, min = 1, units = 1, except: readonly string[] = []): Product {
  let best: { product: Product; total: number } | undefined;
  for (const product of products(app)) {
    const total = wholePieces(product);
    const stocked = product.offers.filter((offer) => (offer.stock ?? 0) >= 1).length;
    if (except.includes(product.id) || total === undefined || total < min || stocked < units) continue;
    if (best === undefined || total < best.total) best = { product, total };
  }
  if (best === undefined) throw new Error(`no item with at least ${min} whole pieces in ${units} units`);
  return best.product;
}

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
export async function differences(app: RunningApp, fakes: Fakes): Promise<string[]> {
  const found: string[] = [];
  const rows = await metaFeedRows(app);
  for (const product of products(app)) {
    const row = rows.get(product.id);
    const item = fakes.meta.items.get(product.id);
    const expected =
      row === undefined ? {} : { price: row['price'], sale_price: row['sale_price'], availability: row['availability'] };
    for (const [field, value] of Object.entries(expected)) {
      const held = item?.[field] === '' ? undefined : item?.[field];
      const want = value === '' ? undefined : value;
      if (held !== want) found.push(`meta ${product.id} ${field}: ${String(held)} ≠ ${String(want)}`);
    }
    const offer = product.aggregate;
    if (product.isStockItem !== false && offer.stock !== undefined) {
      const held = fakes.shoptet.stock.get(productCode(product))?.realStock;
      if (held !== Math.max(0, offer.stock)) found.push(`shoptet ${productCode(product)}: ${held} ≠ ${offer.stock}`);
    }
  }
  return found;
}

/** A sandbox POS outside the app, so its state (sales) outlives an app's restart. */
export async function startExternalSandbox(articles = 40): Promise<RunningSandbox> {
  return startSandbox({ units: 3, articles, seed: 42, salesPerMinute: 0, apiKey: SANDBOX_KEY, host: '127.0.0.1', port: 0 });
}

/** The env of an app reading `sandbox` as its POS (`POS_BASE_URL`); point its webhooks at the app (`setWebhookUrl`). */
export function externalPosEnv(sandbox: RunningSandbox): Record<string, string> {
  return { POS_BASE_URL: sandbox.url, POS_API_KEY: SANDBOX_KEY };
}
