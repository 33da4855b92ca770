/**
 * `npm run bench`: runs every benchmark behind BENCHMARKS.md one after another (each in its own
 * process, so one's memory does not inflate another's), echoes their output and writes everything to
 * bench/results/<timestamp>.log. Pass names to run a subset: `npm run bench -- full-sync serve-feeds`.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BENCHMARKS: readonly { name: string; args: readonly string[]; what: string }[] = [
  { name: 'sandbox-paging', args: [], what: 'sandbox: all pages of 100k articles, one price list, one stock export' },
  { name: 'fetch-catalog', args: [], what: 'POS client: fetch and parse 100k articles, price list and stock export' },
  { name: 'parse-price-list', args: ['--runs', '1'], what: 'price-list XML: streaming parser vs fast-xml-parser' },
  { name: 'parse-stock-export', args: [], what: 'stock export parser, 500k rows' },
  { name: 'full-sync', args: ['--compare'], what: 'full sync 100k × 5 units vs 50k × 5 (quality bar)' },
  { name: 'render-feeds', args: [], what: 'feed rendering vs hand-written baselines, feed sizes (quality bar)' },
  { name: 'render-xlsx', args: [], what: 'products.xlsx of 100k × 5 units in the render worker: time, memory, event loop' },
  {
    name: 'render-pass',
    args: [],
    what: 'one pre-render pass (every all feed of 100k × 5) in the render worker: time, CPU, peak RSS',
  },
  { name: 'serve-feeds', args: [], what: 'serving cached gzip google.xml and 304s vs bare baselines (quality bars)' },
  { name: 'admin-catalog', args: [], what: 'admin internal catalog JSON/CSV of 100k × 5: time, event-loop delay, batch cost' },
  { name: 'webhook-latency', args: [], what: 'sale webhook → served stock at 50 sales/s, p95 (quality bar)' },
  {
    name: 'product-search',
    args: [],
    what: 'product search at 100k: search index build (time, longest slice, memory), query latency p50/p99',
  },
  {
    name: 'search-worst-case',
    args: [],
    what: 'the costliest product searches at 100k, 8 at once over HTTP: event-loop stall, /healthz latency (issue 26 bar)',
  },
  {
    name: 'google-verdicts',
    args: [],
    what: "Google's verdicts read back at 100k: page parse, memory, grouping, a bucket's parse",
  },
  {
    name: 'product-detail',
    args: [],
    what: "a product's page at 100k × 5: every feed's verdict for one product, lookup time and event-loop delay",
  },
  { name: 'hostile-pos', args: [], what: 'syncs against a POS that never ends, trickles or hangs: outcome, time, memory' },
  {
    name: 'event-loop',
    args: [],
    what: 'event-loop delay and outside probes during a full sync, feed rendering, a sales burst and a re-sync (quality bar)',
  },
  {
    name: 'channel-push',
    args: [],
    what: 'channel push, 100k × 5: 50 sales/s for 60 s, requests per channel with and without coalescing, lag webhook → channel p50/p95',
  },
  {
    name: 'scale-out',
    args: [],
    what: 'three instances on one Redis, 100k × 5: publication → all serving, sale → all at 50/s, follower CPU and RSS',
  },
  {
    name: 'serve-day',
    args: [],
    what: "a shop's day at 100k × 5 in a child bridge: first sync, pre-render, 300 downloads, re-sync, 2,000 sales, idle, restart: RSS, /healthz, feeds after the restart",
  },
  {
    name: 'memory-budget',
    args: [],
    what: 'what one bridge process holds at 100k × 5, by part: served catalog, chunks, indexes, logs, worker peaks, allocator',
  },
];

const root = fileURLToPath(new URL('..', import.meta.url));
const only = process.argv.slice(2);
const selected = only.length === 0 ? BENCHMARKS : BENCHMARKS.filter((bench) => only.includes(bench.name));
if (selected.length === 0) {
  process.stderr.write(`unknown benchmark(s): ${only.join(', ')}; known: ${BENCHMARKS.map((b) => b.name).join(', ')}\n`);
  process.exit(2);
}

mkdirSync(`${root}bench/results`, { recursive: true });
const logPath = `${root}bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}.log`;
const log = createWriteStream(logPath);

function run(name: string, args: readonly string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `bench/${name}.ts`, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk: Buffer) => {
        process.stdout.write(chunk);
        log.write(chunk);
      });
    }
    child.on('close', (code) => resolve(code ?? 1));
  });
}

let failed = 0;
for (const bench of selected) {
  const banner = `\n=== ${bench.name}: ${bench.what} (${new Date().toISOString()})\n`;
  process.stdout.write(banner);
  log.write(banner);
  const code = await run(bench.name, bench.args);
  if (code !== 0) {
    failed++;
    const line = `=== ${bench.name} exited with ${code}\n`;
    process.stdout.write(line);
    log.write(line);
  }
}
log.end();
process.stdout.write(`\nresults: ${logPath}\n`);
process.exit(failed === 0 ? 0 : 1);
