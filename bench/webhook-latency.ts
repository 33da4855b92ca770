/**
 * Sale webhook → feed shows the new stock (docs/quality-bars.md: p95 ≤ 1 s at 50 sales/s).
 *
 *   npx tsx bench/webhook-latency.ts [--articles 10000] [--units 3] [--rate 50] [--seconds 20]
 *
 * The sandbox POS runs as a child process (`src/sandbox/main.ts`) with its webhooks pointed at the
 * bridge; the bridge runs in this process as `npm start` wires it (`startApp`: SQLite store in a temp
 * dir, webhook receiver, processor, feeds). After the first sync, sales are made at `--rate` per second
 * through the sandbox's `POST /sandbox/sales`, each of one line (a distinct unit+article, 1 piece), and
 * the sandbox delivers each sale's webhook as it does for every sale. A sale's latency runs from just
 * before its `POST /sandbox/sales` to the first moment the bridge serves a catalog version in which that
 * unit's stock of the article is one less (the served version is what every feed request renders). The
 * run ends when every sale is seen (or after 30 s more). Then every sold item is checked over HTTP in the
 * unit's `products.json` against the sandbox's own stock export. Prints JSON: latency percentiles,
 * outcomes of the processed sales (movements applied or stock re-read), the sandbox's delivery lag apart
 * from the bridge's answer time (`GET /sandbox/webhooks/stats`), versions served, CPU.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startApp } from '../src/app/start-app.js';
import type { CatalogSnapshot } from '../src/core/catalog/catalog.js';
import { createTestConfig } from '../test/helpers/test-config.js';
import { numberArgument } from './bench-args.js';
import { freePort } from './free-port.js';
import { startSandboxProcess } from './sandbox-process.js';

const API_KEY = 'bench-key';

const articles = numberArgument('articles', 10_000);
const units = numberArgument('units', 3);
const rate = numberArgument('rate', 50);
const seconds = numberArgument('seconds', 20);

interface Pending {
  readonly unit: string;
  readonly id: string;
  readonly expected: number;
  readonly startedAt: number;
  seenAt?: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-latency-'));
  const port = await freePort();
  const sandbox = await startSandboxProcess({
    articles,
    units,
    apiKey: API_KEY,
    webhookUrl: `http://127.0.0.1:${port}/webhooks/pos`,
  });
  const app = await startApp(
    createTestConfig({
      POS_BASE_URL: sandbox.url,
      POS_API_KEY: API_KEY,
      PORT: String(port),
      STORE_URL: `sqlite://${join(dir, 'catalog.sqlite')}`,
      // Only webhooks change the stock during the run.
      CATALOG_SYNC_CRON: '0 0 1 1 *',
      STOCK_SYNC_CRON: '0 0 1 1 *',
    }),
    { logger: pino({ level: 'warn' }) },
  );
  try {
    await app.initialSync;
    const first = app.catalog.current();
    if (first === undefined) throw new Error('the first sync did not publish');
    const positionOf = new Map(first.products.map((product, position) => [product.id, position]));

    // Distinct (unit, article) pairs of stock items with at least 2 whole pieces: one sale each.
    const total = Math.round(rate * seconds);
    const candidates: { unit: string; id: string; stock: number }[] = [];
    for (const product of first.products) {
      if (!product.isStockItem) continue;
      for (const offer of product.offers) {
        if (offer.stock !== undefined && Number.isInteger(offer.stock) && offer.stock >= 2) {
          candidates.push({ unit: offer.unit, id: product.id, stock: offer.stock });
        }
      }
    }
    if (candidates.length < total) throw new Error(`only ${candidates.length} sellable items for ${total} sales`);
    // Spread over units and articles, deterministic.
    const chosen = candidates.filter((_, index) => index % Math.floor(candidates.length / total) === 0).slice(0, total);

    const outstanding = new Map<string, Pending>();
    const all: Pending[] = [];
    let versions = 0;
    function check(snapshot: CatalogSnapshot): void {
      versions += 1;
      const at = performance.now();
      for (const [key, sale] of outstanding) {
        const position = positionOf.get(sale.id);
        const product = position === undefined ? undefined : snapshot.products[position];
        const offer = product?.id === sale.id ? product.offers.find((entry) => entry.unit === sale.unit) : undefined;
        if (offer?.stock !== undefined && offer.stock <= sale.expected) {
          sale.seenAt = at;
          outstanding.delete(key);
        }
      }
    }
    app.catalog.onChange(check);

    // The sandbox's delivery figures cover the burst only.
    await fetch(`${sandbox.url}/sandbox/webhooks/stats`, { method: 'DELETE', headers: { 'x-api-key': API_KEY } });
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    // `--memory`: RSS and heap every second on stderr (what a burst costs a large catalog).
    const memoryProbe = process.argv.includes('--memory')
      ? setInterval(() => {
          const usage = process.memoryUsage();
          const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
          process.stderr.write(
            `t=${Math.round(performance.now() - started)}ms rss=${mb(usage.rss)} heapUsed=${mb(usage.heapUsed)} external=${mb(usage.external)} arrayBuffers=${mb(usage.arrayBuffers)} outstanding=${outstanding.size}\n`,
          );
        }, 1000)
      : undefined;
    let failures = 0;
    const requests: Promise<void>[] = [];
    for (const [index, item] of chosen.entries()) {
      // Paced against the start, so a slow moment does not lower the rate.
      const due = started + (index * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const sale: Pending = { unit: item.unit, id: item.id, expected: item.stock - 1, startedAt: performance.now() };
      outstanding.set(`${item.unit}|${item.id}`, sale);
      all.push(sale);
      requests.push(
        fetch(`${sandbox.url}/sandbox/sales`, {
          method: 'POST',
          headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
          body: JSON.stringify({ unitCode: item.unit, lines: [{ localId: item.id, count: 1 }] }),
        }).then(
          async (response) => {
            if (response.status !== 201) failures += 1;
            await response.arrayBuffer();
          },
          () => {
            failures += 1;
          },
        ),
      );
    }
    await Promise.all(requests);
    const salesMadeMs = performance.now() - started;
    const deadline = performance.now() + 30_000;
    while (outstanding.size > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await app.webhooks.idle();
    clearInterval(memoryProbe);
    const cpu = process.cpuUsage(cpuBefore);

    const readiness = (await (await fetch(`${app.url}/readyz`)).json()) as { eventLoopDelay?: unknown };
    const sandboxDelivery = (await (
      await fetch(`${sandbox.url}/sandbox/webhooks/stats`, { headers: { 'x-api-key': API_KEY } })
    ).json()) as unknown;

    // Every sold item over HTTP against the sandbox's stock export of its unit. A feed of a large catalog
    // may answer with the previous render while the served version's is made: wait for that one.
    const mismatches: string[] = [];
    async function currentFeed(unit: string): Promise<{ items: { id: string; stock?: number }[] }> {
      const until = performance.now() + 120_000;
      for (;;) {
        const response = await fetch(`${app.url}/feeds/${unit}/products.json`);
        if (response.headers.get('x-catalog-version') === app.catalog.current()?.version || performance.now() > until) {
          return (await response.json()) as { items: { id: string; stock?: number }[] };
        }
        await response.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    for (const unit of new Set(chosen.map((item) => item.unit))) {
      const feed = await currentFeed(unit);
      const exported = await (
        await fetch(`${sandbox.url}/warehouse/stock/export/txt/${unit}`, { headers: { 'x-api-key': API_KEY } })
      ).text();
      const truth = new Map<string, number>();
      for (const line of exported.split('\n').slice(1)) {
        const cells = line.split('\t');
        if (cells[0] !== undefined && cells[4] !== undefined) truth.set(cells[0], Number(cells[4]));
      }
      const served = new Map(feed.items.map((item) => [item.id, item.stock]));
      for (const item of chosen.filter((entry) => entry.unit === unit)) {
        if (served.get(item.id) !== truth.get(item.id))
          mismatches.push(`${unit}/${item.id}: ${served.get(item.id)} vs ${truth.get(item.id)}`);
      }
    }

    const latencies = all
      .flatMap((sale) => (sale.seenAt === undefined ? [] : [sale.seenAt - sale.startedAt]))
      .sort((a, b) => a - b);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    const processed = Object.fromEntries(
      [...metrics.matchAll(/^catalog_bridge_webhook_sales_total\{outcome="(\w+)"\} (\d+)/gm)].map((match) => [
        match[1],
        Number(match[2]),
      ]),
    );
    // The bridge's own share: from accepting a sale's webhook to serving its stock (the rest is the
    // sandbox recording the sale and delivering the webhook, one delivery at a time).
    const bridgeShare = Object.fromEntries(
      [...metrics.matchAll(/^catalog_bridge_webhook_apply_seconds_bucket\{le="([^"]+)"\} (\d+)/gm)].map((match) => [
        `<=${match[1]}s`,
        Number(match[2]),
      ]),
    );
    const round = (value: number) => Math.round(value);
    process.stdout.write(
      `${JSON.stringify(
        {
          node: process.version,
          catalog: { articles, units, products: first.products.length },
          sales: {
            requested: total,
            rate,
            madeInMs: round(salesMadeMs),
            failedRequests: failures,
            seen: latencies.length,
            notSeen: outstanding.size,
          },
          latencyMs: {
            p50: round(percentile(latencies, 50)),
            p90: round(percentile(latencies, 90)),
            p95: round(percentile(latencies, 95)),
            p99: round(percentile(latencies, 99)),
            max: round(latencies.at(-1) ?? Number.NaN),
          },
          processedSales: processed,
          acceptedToServedHistogram: bridgeShare,
          // The sandbox's own share: how long each event waited in the sandbox before its first delivery
          // attempt, and how long the bridge took to answer it.
          sandboxDelivery,
          // The bridge's main thread over the last minute (`/readyz`): the burst and the re-reads after it.
          bridgeEventLoopDelay: readiness.eventLoopDelay,
          versionsServed: versions,
          bridgeCpuMs: { user: round(cpu.user / 1000), system: round(cpu.system / 1000) },
          feedMatchesPosAfterwards: mismatches.length === 0,
          mismatches: mismatches.slice(0, 10),
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await app.stop();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
