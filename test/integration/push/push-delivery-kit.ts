import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { expect } from 'vitest';
import { type RunningApp, startApp } from '../../../src/app/start-app.js';
import type { Product } from '../../../src/core/catalog/catalog.js';
import { productCode } from '../../../src/core/feeds/to-feed-item.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start-sandbox.js';
import type { RecordedRequest } from '../../fakes/channels/http-harness.js';
import { type MetaServer, startMetaServer } from '../../fakes/channels/meta-server.js';
import { type ShoptetServer, startShoptetServer } from '../../fakes/channels/shoptet-server.js';
import { createTestConfig } from '../../helpers/test-config.js';

/**
 * What the push delivery tests share (issue 13, "Done when"): the real app on the sandbox POS with a SQLite
 * store, the fake Meta and Shoptet servers, bounded polls, and readers of the bodies the fakes received.
 */

export const META_TOKEN = 'meta-token-delivery-0123456789';
export const SHOPTET_TOKEN = 'shoptet-token-delivery-0123456789';
export const CATALOG_ID = '987654321';
export const STOCK_ID = 1;
export const SANDBOX_KEY = 'sandbox-key';

const dirs: string[] = [];

/** A fresh SQLite store URL in its own temporary directory (removed by `removeStores`). */
export function storeUrl(): string {
  const dir = mkdtempSync(join(tmpdir(), 'push-delivery-'));
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

export function pushEnv(fakes: Fakes, store: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    STORE_URL: store,
    SANDBOX_ARTICLES: '40',
    SANDBOX_SALES_PER_MINUTE: '0',
    STOCK_SYNC_CRON: '0 0 1 1 *',
    CATALOG_SYNC_CRON: '0 0 1 1 *',
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
function capturingLogger(lines: Record<string, unknown>[], level = 'info') {
  return pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
}

export async function startPushApp(
  env: Record<string, string>,
  lines: Record<string, unknown>[] = [],
  level = 'info',
): Promise<RunningApp> {
  const app = await startApp(createTestConfig(env), { logger: capturingLogger(lines, level) });
  await app.initialSync;
  return app;
}

/** Polls `read` until `done` holds for its value (bounded: about 15 s); answers the last value read. */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < 300 && !done(value); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

type PushStatus = Record<string, { mode: string; pending: number; enabled: boolean; lastError?: string }>;

export async function pushStatus(app: RunningApp): Promise<PushStatus> {
  return ((await (await fetch(`${app.url}/readyz`)).json()) as { push: PushStatus }).push;
}

/** How often `/readyz`'s push status is refreshed (src/app/push-parts.ts, STATUS_MS), with a margin. */
const STATUS_REFRESH_MS = 2_300;

/**
 * Waits until both channels have had nothing pending for longer than one status refresh (so the "0" read is
 * not an old one from before the action under test). Bounded: about 20 s.
 */
export async function settled(app: RunningApp): Promise<void> {
  let idleSince: number | undefined;
  let push: PushStatus = {};
  for (let attempt = 0; attempt < 200; attempt++) {
    push = await pushStatus(app);
    const idle = (push['meta']?.pending ?? 1) + (push['shoptet']?.pending ?? 1) === 0;
    idleSince = idle ? (idleSince ?? Date.now()) : undefined;
    if (idleSince !== undefined && Date.now() - idleSince >= STATUS_REFRESH_MS) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect.fail(`the push did not settle (updates still pending): ${JSON.stringify(push)}`);
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

/** Sells `count` of `product` in `unit` through the sandbox (its webhook reaches the app). */
export async function sell(app: RunningApp, product: Product, unit: string, count: number): Promise<void> {
  await app.sandbox?.makeSale({ unitCode: unit, lines: [{ localId: product.id, count }] });
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

/** A stock item with whole pieces in every unit, at least `min` in total (the fewest such). */
export function pieceItem(app: RunningApp, min: number, units = 1): Product {
  let best: { product: Product; total: number } | undefined;
  for (const product of products(app)) {
    const total = wholePieces(product);
    const stocked = product.offers.filter((offer) => (offer.stock ?? 0) >= 1).length;
    if (total === undefined || total < min || stocked < units) continue;
    if (best === undefined || total < best.total) best = { product, total };
  }
  if (best === undefined) throw new Error(`no item with at least ${min} whole pieces in ${units} units`);
  return best.product;
}

/** A sandbox POS outside the app, so its state (sales) outlives an app's restart. */
export async function startExternalSandbox(articles = 40): Promise<RunningSandbox> {
  return startSandbox({ units: 3, articles, seed: 42, salesPerMinute: 0, apiKey: SANDBOX_KEY, host: '127.0.0.1', port: 0 });
}

/** The env of an app reading `sandbox` as its POS (`POS_BASE_URL`); point its webhooks at the app (`setWebhookUrl`). */
export function externalPosEnv(sandbox: RunningSandbox): Record<string, string> {
  return { POS_BASE_URL: sandbox.url, POS_API_KEY: SANDBOX_KEY };
}
