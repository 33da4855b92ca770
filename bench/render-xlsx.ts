/**
 * The Excel workbook (`products.xlsx`, issue 15) at scale: a 100,000-product × 5-unit catalog rendered
 * in the render worker thread, as the app does it, next to `products.csv` and `google.xml` of the same
 * catalog for scale.
 *
 *   npx tsx bench/render-xlsx.ts [--products 100000] [--units 5] [--runs 3]
 *
 * The catalog is the sandbox's (names, EANs, PLUs, codes, per-unit prices and stock, kg goods), built
 * straight from its generator and serialized into shared chunks as a full sync leaves them; the renderer
 * is `createWorkerFeedRenderer` with the shipped templates. Per feed and run: wall time of the render
 * call (parse of the chunks in the worker, render, compression) and the CPU time the process spent meanwhile
 * (less disturbed than wall time by other load on the machine), the body's size, the process's peak
 * RSS during the call above the RSS before it (all threads: the worker's heap is the process's), and
 * the main thread's event-loop delay meanwhile (monitorEventLoopDelay, 10 ms resolution): the main
 * thread only waits (its utilization shows how little it does; its delay is the machine's scheduling).
 * An unmeasured render of products.json first starts the thread. Prints one JSON object.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { ALL_UNITS } from '../src/core/catalog/catalog.js';
import type { FeedRequest } from '../src/services/feeds/feed-builder.js';
import { benchRenderer, type CallCost, finishRenderBench, mebibytes as mb, measureCall } from './bench-renderer.js';

const { values: flags } = parseArgs({
  options: {
    products: { type: 'string', default: '100000' },
    units: { type: 'string', default: '5' },
    runs: { type: 'string', default: '3' },
  },
  strict: true,
});
const PRODUCTS = Number(flags.products);
const UNITS = Number(flags.units);
const RUNS = Number(flags.runs);
const FEEDS = ['products.xlsx', 'products.csv', 'google.xml'];

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

const bench = await benchRenderer({
  products: PRODUCTS,
  units: UNITS,
  version: 'v-bench-xlsx',
  dirPrefix: 'bench-render-xlsx-',
});
const { snapshot, renderer } = bench;

type Run = Omit<CallCost<unknown>, 'value' | 'rssBeforeMb'> & { readonly bytes: number };

async function measure(file: string): Promise<Run> {
  const request: FeedRequest = { file, view: ALL_UNITS, variant: {} };
  const { value, rssBeforeMb: _before, ...cost } = await measureCall(() => renderer.render(snapshot, [request]));
  return { ...cost, bytes: value[0]?.identityLength ?? 0 };
}

// A first render starts the thread and compiles the templates there; it is not measured.
await renderer.render(snapshot, [{ file: 'products.json', view: ALL_UNITS, variant: {} }]);
const rssWithCatalogMb = mb(process.memoryUsage().rss);
const loadAtStart = os.loadavg();
const results: Record<string, Run[]> = Object.fromEntries(FEEDS.map((file) => [file, []]));
// Feeds interleaved run by run, so a busy moment of the machine does not fall on one feed only.
for (let run = 0; run < RUNS; run++) {
  for (const file of FEEDS) results[file]?.push(await measure(file));
}
await finishRenderBench(bench, loadAtStart, {
  runs: RUNS,
  rssWithCatalogMb,
  peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
  feeds: Object.fromEntries(
    Object.entries(results).map(([file, runs]) => [
      file,
      {
        medianMs: median(runs.map((run) => run.ms)),
        medianCpuMs: median(runs.map((run) => run.cpuMs)),
        bytes: runs[0]?.bytes,
        maxPeakRssAboveBeforeMb: Math.max(...runs.map((run) => run.peakRssAboveBeforeMb)),
        maxEventLoopDelayMs: Math.max(...runs.map((run) => run.eventLoopDelayMaxMs)),
        maxMainThreadUtilization: Math.max(...runs.map((run) => run.mainThreadUtilization)),
        runs,
      },
    ]),
  ),
});
