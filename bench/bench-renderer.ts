import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfiguredTemplates } from '../src/app/feed-parts.js';
import type { CatalogSnapshot } from '../src/core/catalog/catalog.js';
import { type ItemChunk, serializeItems } from '../src/core/catalog/catalog-chunks.js';
import type { CompiledFeed } from '../src/core/feeds/compiled-feed.js';
import { createFeedBuilder } from '../src/services/feeds/feed-builder.js';
import type { FeedRenderer } from '../src/services/feeds/feed-renderer.js';
import { createInThreadFeedRenderer } from '../src/services/feeds/feed-renderer.js';
import { createWorkerFeedRenderer } from '../src/workers/create-feed-renderer.js';
import { createTestConfig } from '../test/helpers/test-config.js';
import { sandboxSnapshot } from './sandbox-snapshot.js';

export interface BenchRenderer {
  readonly products: number;
  readonly units: number;
  readonly snapshot: CatalogSnapshot;
  readonly chunks: readonly ItemChunk[];
  /** The shipped templates, compiled in this thread. */
  readonly compiled: readonly CompiledFeed[];
  /** The app's render worker (`createWorkerFeedRenderer`) over `chunks`, writing into a temp dir deleted at exit. */
  readonly renderer: FeedRenderer;
}

/**
 * The sandbox's catalog (`sandboxSnapshot`) serialized into shared chunks as a full sync leaves them, and
 * the render worker with the shipped templates and every link set: what the render benchmarks measure.
 */
export async function benchRenderer(options: {
  readonly products: number;
  readonly units: number;
  readonly version: string;
  readonly dirPrefix: string;
}): Promise<BenchRenderer> {
  const snapshot = { ...sandboxSnapshot({ products: options.products, units: options.units }), version: options.version };
  const chunks = serializeItems(snapshot.products);
  const { compiled, files, stock } = await loadConfiguredTemplates(createTestConfig({}));
  const feedOptions = {
    currency: 'CZK',
    brand: undefined,
    baseUrl: 'https://bridge.example',
    links: { storeCodes: {}, productUrl: 'https://shop.example.cz/p/{id}', imageUrl: 'https://shop.example.cz/i/{id}.jpg' },
  };
  const feedFilesDir = mkdtempSync(join(tmpdir(), options.dirPrefix));
  // The files are kept until the end of the run.
  process.on('exit', () => rmSync(feedFilesDir, { recursive: true, force: true }));
  const renderer = createWorkerFeedRenderer({
    templates: files,
    stock,
    options: feedOptions,
    chunksOf: async () => chunks,
    fallback: createInThreadFeedRenderer(createFeedBuilder(compiled, feedOptions)),
    outputDir: feedFilesDir,
  });
  return { products: options.products, units: options.units, snapshot, chunks, compiled, renderer };
}

export const mebibytes = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** What one render call cost, seen from the calling (main) thread. */
export interface CallCost<T> {
  readonly value: T;
  readonly ms: number;
  /** CPU time of the whole process during the call (all threads: the worker, libuv's pool, the idle main thread). */
  readonly cpuMs: number;
  readonly rssBeforeMb: number;
  /** The process's peak RSS during the call (sampled every 20 ms) above its RSS before it. */
  readonly peakRssAboveBeforeMb: number;
  readonly eventLoopDelayMaxMs: number;
  readonly eventLoopDelayP99Ms: number;
  /** Share of the call's time the main thread was busy (performance.eventLoopUtilization): it only waits. */
  readonly mainThreadUtilization: number;
}

export async function measureCall<T>(call: () => Promise<T>): Promise<CallCost<T>> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  const utilization = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const value = await call();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const busy = performance.eventLoopUtilization(utilization);
  delay.disable();
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return {
    value,
    ms: Math.round(ms),
    cpuMs: Math.round((used.user + used.system) / 1000),
    rssBeforeMb: mebibytes(before),
    peakRssAboveBeforeMb: mebibytes(peak - before),
    eventLoopDelayMaxMs: Math.round(delay.max / 1e6),
    eventLoopDelayP99Ms: Math.round(delay.percentile(99) / 1e6),
    mainThreadUtilization: Math.round(busy.utilization * 1000) / 1000,
  };
}

/** The machine's 1/5/15-minute load averages at the start and now: other work on its cores stretches wall times. */
export function loadAverages(start: readonly number[]): { readonly start: number[]; readonly end: number[] } {
  const round = (loads: readonly number[]) => loads.map((load) => Math.round(load * 10) / 10);
  return { start: round(start), end: round(os.loadavg()) };
}

/**
 * Ends the render thread and prints the benchmark's one JSON object: Node's version, the catalog's size, the
 * machine's load since `loadAtStart`, then `fields`.
 */
export async function finishRenderBench(
  bench: BenchRenderer,
  loadAtStart: readonly number[],
  fields: Record<string, unknown>,
): Promise<void> {
  await bench.renderer.close();
  const { products, units } = bench;
  const report = { node: process.version, products, units, loadAverage: loadAverages(loadAtStart), ...fields };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}
