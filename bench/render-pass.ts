/**
 * One pre-render pass in the render worker thread (issue 25): every `all` feed of a 100,000 × 5 sandbox
 * catalog rendered, compressed and written to files in one `createWorkerFeedRenderer` call, as the app's
 * pre-render does after a sync.
 *
 *   npx tsx bench/render-pass.ts [--products 100000] [--units 5] [--runs 2] [--feeds google.xml,products.csv]
 *
 * Per run: wall time, the process's CPU time meanwhile (all threads), the process's peak RSS above the
 * RSS before the call (sampled every 20 ms; the worker's heap and zlib's buffers are the process's), and
 * the main thread's event-loop delay. Also the time to decode every chunk once in this thread (what a
 * render pays per pass of the catalog). Prints one JSON object.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { ALL_UNITS } from '../src/core/catalog/catalog.js';
import { decodeChunk } from '../src/core/catalog/catalog-chunks.js';
import type { FeedRequest } from '../src/services/feeds/feed-builder.js';
import { benchRenderer, finishRenderBench, mebibytes as mb, measureCall } from './bench-renderer.js';

const { values: flags } = parseArgs({
  options: {
    products: { type: 'string', default: '100000' },
    units: { type: 'string', default: '5' },
    runs: { type: 'string', default: '2' },
    feeds: { type: 'string' },
  },
  strict: true,
});
const PRODUCTS = Number(flags.products);
const UNITS = Number(flags.units);
const RUNS = Number(flags.runs);

const bench = await benchRenderer({
  products: PRODUCTS,
  units: UNITS,
  version: 'v-bench-pass',
  dirPrefix: 'bench-render-pass-',
});
const { snapshot, chunks, compiled, renderer } = bench;
const requests: FeedRequest[] = ['products.json', 'products.csv', 'products.xlsx', ...compiled.map((template) => template.file)]
  .filter((file) => flags.feeds === undefined || flags.feeds.split(',').includes(file))
  .map((file) => ({ file, view: ALL_UNITS, variant: {} }));

const decodeStarted = performance.now();
let decoded = 0;
for (const chunk of chunks) decoded += decodeChunk(chunk).length;
const decodeAllMs = Math.round(performance.now() - decodeStarted);

async function measure(run: number) {
  const {
    value,
    eventLoopDelayP99Ms: _p99,
    mainThreadUtilization: _busy,
    ...cost
  } = await measureCall(() => renderer.render({ ...snapshot, version: `v-bench-pass-${run}` }, requests));
  return { ...cost, identityMb: mb(value.reduce((sum, body) => sum + body.identityLength, 0)) };
}

const loadAtStart = os.loadavg();
const runs = [];
for (let run = 0; run < RUNS; run++) runs.push(await measure(run));
await finishRenderBench(bench, loadAtStart, {
  feeds: requests.length,
  chunks: chunks.length,
  decodedProducts: decoded,
  decodeAllMs,
  runs,
});
