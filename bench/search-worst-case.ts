/**
 * The worst a stranger can ask of product search (docs/security.md): queries built to cost most, 8 at
 * once, against a 100,000-product catalog, while `/healthz` is probed.
 *
 *   npx tsx bench/search-worst-case.ts [--products 100000] [--units 5] [--rounds 5] [--concurrency 8]
 *
 * The sandbox's catalog (`sandbox-snapshot.ts`) is served over HTTP on 127.0.0.1 by the bridge's own
 * search routes (`createHttpApp` with `createProductSearchRoutes`), its index built before measuring (as a
 * first search builds it). Queries, each at most 100 characters as the API allows:
 * - `letters-25`: 25 distinct one-letter words (`a b c … y`);
 * - `words-50`: 50 one-letter words (`a b … z 0 … 9 a …`), the most words a query can hold;
 * - `pairs-33`: 33 two-letter words (`ab cd …`), each of which a name search must look for;
 * - `letter-1`: `a`, which nearly every name holds.
 * Per kind, first each query alone and unsliced (`searchProducts` with no slices and no budget, in one
 * stretch: what a request held the event loop for before the search was bounded), then `--rounds` rounds of
 * `--concurrency` requests at once over HTTP with the shipped bounds. Meanwhile the event loop's gaps are
 * measured on this thread (a `setImmediate` chain: the longest gap is the longest stretch nothing else ran,
 * the "stall"; V8's longest garbage-collection pause beside it), and a worker thread probes `GET /healthz` every 5 ms (its own event loop, so its latencies
 * are the server's). Reports per kind: request latency p50/max, whether answers were complete, the longest
 * stall, and the probes' p50/p99/max, beside a quiet baseline of the probes. Bar: stall ≤ 50 ms and the
 * probes' max ≤ 50 ms. Prints JSON.
 */
import type { AddressInfo } from 'node:net';
import { PerformanceObserver } from 'node:perf_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { request } from 'undici';
import { buildFamilyIndex } from '../src/core/catalog/family-index.js';
import { SEARCH_BOUNDS } from '../src/core/catalog/name-search.js';
import { createProductSearchIndexes, searchProducts } from '../src/core/catalog/product-search.js';
import { createProductSearchRoutes } from '../src/http/console/product-search-routes.js';
import { createHttpApp } from '../src/http/create-http-app.js';
import { sandboxSnapshot } from './sandbox-snapshot.js';

const { values: flags } = parseArgs({
  options: {
    products: { type: 'string', default: '100000' },
    units: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '8' },
  },
  strict: true,
});
const PRODUCTS = Number(flags.products);
const ROUNDS = Number(flags.rounds);
const CONCURRENCY = Number(flags.concurrency);

const alnum = 'abcdefghijklmnopqrstuvwxyz0123456789';
const QUERIES: Record<string, string> = {
  'letters-25': alnum.slice(0, 25).split('').join(' '),
  'words-50': Array.from({ length: 50 }, (_, i) => alnum[i % alnum.length]).join(' '),
  'pairs-33': Array.from({ length: 33 }, (_, i) => `${alnum[i % 26]}${alnum[(i * 7 + 3) % 26]}`).join(' '),
  'letter-1': 'a',
};

const round = (ms: number, digits = 1): number => Math.round(ms * 10 ** digits) / 10 ** digits;
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
const stats = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? 0) };
};

/** The longest gap between turns of a `setImmediate` chain on this thread, between start and stop. */
function watchStalls() {
  let longest = 0;
  let last = performance.now();
  let running = true;
  const done = (async () => {
    while (running) {
      await yieldToEventLoop();
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }
  })();
  return async () => {
    running = false;
    await done;
    return round(longest);
  };
}

/** Probes `url` every 5 ms from a worker thread until told to stop; answers the latencies. */
function startProbe(url: string) {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const latencies = [];
    let running = true;
    parentPort.on('message', () => { running = false; });
    const once = () => new Promise((resolve) => {
      const started = performance.now();
      http.get(workerData, { agent }, (res) => { res.resume(); res.on('end', () => { latencies.push(performance.now() - started); resolve(); }); })
        .on('error', () => resolve());
    });
    (async () => {
      while (running) { await once(); await new Promise((r) => setTimeout(r, 5)); }
      parentPort.postMessage(latencies);
      agent.destroy();
    })();`;
  const worker = new Worker(code, { eval: true, workerData: url });
  return async (): Promise<number[]> => {
    const answer = new Promise<number[]>((resolve) => worker.once('message', resolve));
    worker.postMessage('stop');
    const latencies = await answer;
    await worker.terminate();
    return latencies;
  };
}

const snapshot = sandboxSnapshot({ products: PRODUCTS, units: Number(flags.units) });
const familyIndex = await buildFamilyIndex(snapshot);
const indexes = createProductSearchIndexes(async () => familyIndex);
const index = await indexes.get(snapshot);
const app = createHttpApp({
  logger: pino({ level: 'silent' }),
  health: { readiness: () => ({ ready: true }) },
  routers: [
    createProductSearchRoutes({ current: () => snapshot, familyIndex: async () => familyIndex, token: undefined, indexes }),
  ],
});
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const quietProbe = startProbe(`${base}/healthz`);
await new Promise((resolve) => setTimeout(resolve, 500));
const quietStalls = watchStalls();
await new Promise((resolve) => setTimeout(resolve, 2_000));
const quietStallMs = await quietStalls();
const baseline = stats(await quietProbe());

// One unmeasured request of each kind first: the first ones pay for compiling the code they run.
for (const q of Object.values(QUERIES)) await (await request(`${base}/api/products?q=${encodeURIComponent(q)}`)).body.json();

const kinds: Record<string, unknown> = {};
for (const [kind, q] of Object.entries(QUERIES)) {
  const started = performance.now();
  const alone = await searchProducts(index, q, 20, { sliceMs: Number.POSITIVE_INFINITY, budgetMs: Number.POSITIVE_INFINITY });
  const unslicedMs = round(performance.now() - started);

  const stopProbe = startProbe(`${base}/healthz`);
  // Starting a worker costs this thread a few tens of milliseconds: not the search's.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const gcPauses: number[] = [];
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcPauses.push(entry.duration);
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  const stopStalls = watchStalls();
  const latencies: number[] = [];
  let incomplete = 0;
  for (let r = 0; r < ROUNDS; r += 1) {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        const sent = performance.now();
        const answer = await request(`${base}/api/products?q=${encodeURIComponent(q)}&limit=20`);
        const body = (await answer.body.json()) as { complete: boolean };
        latencies.push(performance.now() - sent);
        if (!body.complete) incomplete += 1;
      }),
    );
  }
  const stallMs = await stopStalls();
  gcObserver.disconnect();
  const probes = stats(await stopProbe());
  kinds[kind] = {
    query: q,
    words: q.split(' ').length,
    unslicedMs,
    unslicedFound: alone.total,
    requests: latencies.length,
    incomplete,
    latencyMs: stats(latencies),
    stallMs,
    // Garbage collections in the requests' time: the longest pause is part of the stall, not the search's.
    gcMaxMs: round(Math.max(0, ...gcPauses)),
    healthzMs: probes,
  };
}
server.close();

process.stdout.write(
  `${JSON.stringify(
    {
      node: process.version,
      products: PRODUCTS,
      concurrency: CONCURRENCY,
      rounds: ROUNDS,
      bounds: SEARCH_BOUNDS,
      // Nothing asked but the probes: the machine's own noise in the same measures.
      quiet: { stallMs: quietStallMs, healthzMs: baseline },
      kinds,
    },
    null,
    2,
  )}\n`,
);
