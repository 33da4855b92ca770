/**
 * The admin area's internal catalog on a 100,000-product catalog (docs/console.md#admin-area): how long
 * `GET /admin/catalog.json` and `.csv` take and how long the event loop is held meanwhile (the bar:
 * no synchronous stretch over ~10 ms, docs/quality-bars.md), and the first read of the purchase prices
 * from the store (an in-memory keyv, chunks of 2,000 items as `publishItems` writes them).
 *
 *   npx tsx bench/admin-catalog.ts [--products 100000] [--units 5]
 *
 * One process: a synthetic catalog, the admin routes on express, and a client that reads and discards
 * the bodies. Delay measured with `monitorEventLoopDelay` (1 ms resolution). Prints JSON.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import express from 'express';
import { Keyv } from 'keyv';
import { createKeyvCatalogStore, publishItems } from '../src/adapters/store/keyv-catalog-store.js';
import { adminCsvLine, adminJsonItem, adminRowOf } from '../src/core/catalog/admin-catalog-rows.js';
import type { CatalogSnapshot, InternalProductData, Offer, Product } from '../src/core/catalog/catalog.js';
import { CSV_DIALECTS } from '../src/core/feeds/csv-dialect.js';
import { createAdminRoutes } from '../src/http/admin/admin-routes.js';
import { createInternalPrices } from '../src/services/catalog/internal-prices.js';

const { values } = parseArgs({ options: { products: { type: 'string' }, units: { type: 'string' } } });
const PRODUCTS = Number(values.products ?? 100_000);
const UNITS = Number(values.units ?? 5);
const TOKEN = 'bench-admin';

function syntheticCatalog(): { snapshot: CatalogSnapshot; internal: InternalProductData[] } {
  const units = Array.from({ length: UNITS }, (_, i) => ({ code: `U${i + 1}`, localId: `u-${i + 1}`, name: `Pobočka ${i + 1}` }));
  const products: Product[] = [];
  const internal: InternalProductData[] = [];
  for (let i = 0; i < PRODUCTS; i += 1) {
    const price = 10 + (i % 5_000) / 7;
    const offers: Offer[] = units.map((unit) => ({ unit: unit.code, price, stock: i % 13, availability: 'in_stock' }));
    products.push({
      id: `a-${100_000 + i}`,
      name: `Výrobek číslo ${i}, balení "${i % 7}"`,
      ean: String(8_594_000_000_000 + i),
      plu: i,
      internalIdentifier: `INT-${i}`,
      isStockItem: true,
      offers,
      aggregate: { unit: 'all', price, stock: (i % 13) * UNITS, availability: 'in_stock' },
    });
    internal.push({ id: `a-${100_000 + i}`, purchasePrice: price * 0.6, avgPurchasePrice: price * 0.61 });
  }
  const snapshot = {
    version: 'v-bench',
    generatedAt: new Date().toISOString(),
    currency: 'CZK',
    primaryUnit: 'U1',
    units,
    products,
  };
  return { snapshot, internal };
}

async function measure<T>(work: () => Promise<T>): Promise<{ ms: number; maxDelayMs: number; p99DelayMs: number; result: T }> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const began = performance.now();
  const result = await work();
  const ms = performance.now() - began;
  delay.disable();
  return {
    ms: Math.round(ms),
    maxDelayMs: Math.round(delay.max / 1e5) / 10,
    p99DelayMs: Math.round(delay.percentile(99) / 1e5) / 10,
    result,
  };
}

/**
 * The synchronous work of one batch of lines (`stream-rows.ts` writes 128 at a time), on its own: on a
 * machine shared with other work the event-loop delay also counts the time this process is not scheduled.
 */
function batchCost(snapshot: CatalogSnapshot, byId: ReadonlyMap<string, InternalProductData>) {
  const lines = {
    json: (product: Product) => adminJsonItem(adminRowOf(product, byId.get(product.id))),
    csv: (product: Product) => adminCsvLine(adminRowOf(product, byId.get(product.id)), 'CZK', CSV_DIALECTS.excel),
  };
  return Object.fromEntries(
    Object.entries(lines).map(([name, lineOf]) => {
      const times: number[] = [];
      const cpu: number[] = [];
      for (let start = 0; start < snapshot.products.length; start += 128) {
        const began = performance.now();
        const cpuBegan = process.cpuUsage();
        const batch: string[] = [];
        for (const product of snapshot.products.slice(start, start + 128)) batch.push(lineOf(product));
        batch.join('');
        const used = process.cpuUsage(cpuBegan);
        cpu.push((used.user + used.system) / 1000);
        times.push(performance.now() - began);
      }
      const at = (list: number[], q: number) => {
        const sorted = [...list].sort((a, b) => a - b);
        return Math.round((sorted[Math.floor(q * (sorted.length - 1))] ?? 0) * 100) / 100;
      };
      return [
        name,
        {
          batches: times.length,
          wall: { p50Ms: at(times, 0.5), p99Ms: at(times, 0.99), maxMs: at(times, 1) },
          // CPU time (all threads of the process, GC helpers included): what the work costs when not preempted.
          cpu: { p50Ms: at(cpu, 0.5), p99Ms: at(cpu, 0.99), maxMs: at(cpu, 1) },
        },
      ];
    }),
  );
}

async function main(): Promise<void> {
  const { snapshot, internal } = syntheticCatalog();
  const store = createKeyvCatalogStore<{ version: string }>(new Keyv(), {
    source: { id: 'bench', label: 'bench' },
    prefix: 'internal',
  });
  await publishItems(store, { version: 'v-bench', meta: { version: 'v-bench' }, items: internal }, new Date());
  const prices = createInternalPrices(store);
  const firstRead = await measure(async () => (await prices.load())?.byId.size);
  const app = express();
  app.use(
    createAdminRoutes({
      token: TOKEN,
      runJob: async () => Promise.reject(new Error('not here')),
      catalog: () => snapshot,
      purchasePrices: () => prices.load(),
    }),
  );
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const download = (path: string) =>
    measure(async () => {
      const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      let bytes = 0;
      for await (const chunk of res.body ?? []) bytes += (chunk as Uint8Array).byteLength;
      return { status: res.status, mib: Math.round((bytes / 1024 / 1024) * 10) / 10 };
    });
  // The noise floor: this process idle for as long, on a machine that may be busy with other work.
  const idle = await measure(() => new Promise((resolve) => setTimeout(resolve, 500)));
  const json = await download('/admin/catalog.json');
  const csv = await download('/admin/catalog.csv');
  const excel = await download('/admin/catalog.csv?profile=excel');
  server.close();
  const batches = batchCost(snapshot, (await prices.load())?.byId ?? new Map());
  const view = ({ result, ...rest }: Awaited<ReturnType<typeof download>>) => ({ ...result, ...rest });
  process.stdout.write(
    `${JSON.stringify(
      {
        products: PRODUCTS,
        units: UNITS,
        idleHalfSecond: { maxDelayMs: idle.maxDelayMs, p99DelayMs: idle.p99DelayMs },
        purchasePricesFirstRead: { items: firstRead.result, ms: firstRead.ms, maxDelayMs: firstRead.maxDelayMs },
        'catalog.json': view(json),
        'catalog.csv': view(csv),
        'catalog.csv?profile=excel': view(excel),
        batchOf128Lines: batches,
      },
      null,
      2,
    )}\n`,
  );
}

await main();
