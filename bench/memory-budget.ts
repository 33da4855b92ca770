/**
 * What one bridge process holds at 100,000 articles × 5 units, part by part.
 *
 *   npx tsx bench/memory-budget.ts [--articles 100000] [--units 5] [--sales 2000] [--fetches 5000] [--idle 30] [--tsx]
 *
 * Three processes: the standalone sandbox POS (`startSandboxProcess`, its webhooks pointed at the bridge),
 * the measured bridge process, and this one, which drives it from outside (HTTP requests, sales at the POS),
 * so that none of the client's work lands in the process measured. The measured process is this script
 * compiled by tsc (`compileScript`, no tsx loader: it adds ~35 MB) and run by plain `node --expose-gc
 * --enable-source-maps` (as `npm start`, plus the forced GCs); `--tsx` runs it through tsx instead. It runs
 * the bridge as `npm start` builds it: `startApp` imported from `dist/` (built first by `scripts/build.mjs`,
 * so the worker threads load their bundles), with a config from `createTestConfig`: the sandbox as the POS,
 * a SQLite store in a temp dir (the feed files beside it), FEED_PRODUCT_URL and FEED_IMAGE_URL set so every
 * channel feed is filled, cron schedules that never fire during the run.
 *
 * To read the bridge's fixed parts without a catalog, the sandbox fails every POS request (a `400` fault
 * rule) until the bridge has started: the start sync fails, its retry is put off for an hour, and the fault
 * is lifted before the first full sync is started by hand (`jobs.runNow('sync-catalog')`).
 *
 * Readings (each after two forced full GCs, `global.gc()`): `process.memoryUsage()`, the V8 heap spaces,
 * V8's malloced memory, and for the whole process (worker threads included) VmRSS, RssAnon, RssFile and
 * RssShmem from /proc/self/status; the RSS before the GCs too; the live worker threads' own heaps. Steps
 * record their peak RSS: VmHWM reset at the step's start (`/proc/self/clear_refs`, exact) and VmRSS sampled
 * every 50 ms; and each worker thread's own heap (`process.memoryUsage()` evaluated in the thread through
 * the inspector's NodeWorker domain every 50 ms: Node 20 has no `worker.getHeapStatistics()`). Steps, in order:
 *  - `modules` (reading): `startApp`'s module graph imported, nothing started;
 *  - `start` (reading): the app listening, its start sync failed, no worker thread alive;
 *  - `first-sync` (step): the first full sync (the catalog worker's peak);
 *  - `prerender` (step), `served` (reading): until the pre-render of the `all` feeds is idle; then the served
 *    version's chunks, source rows and feed files are counted, and the feed cache's metadata estimated;
 *  - `family-index`, `search` (steps and readings): the family's index, then two product searches over HTTP
 *    (`GET /api/products?q=…`: a word of a name, an id), which build the search index;
 *  - `fetches` (step and reading): `--fetches` conditional GETs of the pre-rendered `all` feeds (gzip,
 *    If-None-Match, five user agents), then one flush of the fetch log;
 *  - `sales` (step and reading): `--sales` sales at 50 a second through the sandbox, one piece of a distinct
 *    unit and article each, delivered as webhooks, until all are processed and the feeds pre-rendered;
 *  - `idle` (reading): `--idle` seconds later;
 *  - `quiet` (reading): once every worker thread has ended (the render thread idles out after a minute);
 *  - `render-pass` (step and reading): one more sale, its new version pre-rendered (the render worker's peak);
 *  - `resync`, `resync-prerender` (steps), `resynced` (reading): one article's price changed at the POS, a full
 *    sync and its pre-render (a new catalog family replaces the old one: what is not released shows here);
 *  - `end` (reading): every worker thread ended, then `--idle` seconds.
 * The inspector session and the 50 ms sampler are the only things of the bench's own in the measured process
 * (and the list of chosen sales, ~2,000 small objects, in the `sales` delta). `served` and the readings
 * right after it are taken while the render thread idles out its minute (in their RSS, not their heap).
 * Prints JSON on stdout (readings, steps, the budget: part, MiB, how measured) and the budget on stderr.
 */

import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { Agent, type Dispatcher, request } from 'undici';
import type { RunningApp } from '../src/app/start-app.js';
import { allocatorEnv } from './allocator-env.js';
import { numberArgument } from './bench-args.js';
import { compileScript } from './compile-script.js';
import { freePort } from './free-port.js';
import { startSandboxProcess } from './sandbox-process.js';

const SCRIPT = fileURLToPath(import.meta.url);
const API_KEY = 'bench-key';
const MIB = 1024 * 1024;
const SAMPLE_EVERY_MS = 50;
/** The start sync's retry, put off beyond the run: the first full sync is started by hand. */
const RETRY_PUT_OFF_MS = 3_600_000;
/** The render thread idles out after a minute, the catalog pool's threads too: a little more. */
const WORKERS_GONE_WITHIN_MS = 90_000;
const SALES_PER_SECOND = 50;
/** Channels as the fetch log classifies them, and a person. */
const USER_AGENTS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'Heureka-Feed-Downloader/1.0',
  'Seznam-Zbozi-robot/3.0',
  'curl/8.5.0',
];

const round1 = (value: number): number => Math.round(value * 10) / 10;
const mib = (bytes: number): number => round1(bytes / MIB);

// ---------------------------------------------------------------------------------------------------
// What the measured process reports.

/** A worker thread's own isolate, as `process.memoryUsage()` in that thread tells it (MiB). */
export interface WorkerMemory {
  /**
   * `render` (feeds), `catalog-sync` (full syncs), `catalog-pool` (stock re-reads, fingerprints), `starting`
   * (before its bootstrap set `workerData`), else `other`.
   */
  readonly kind: string;
  readonly heapTotalMiB: number;
  readonly heapUsedMiB: number;
  /** C++ memory of its objects, the ArrayBuffers it allocated included. */
  readonly externalMiB: number;
}

/** One reading of the whole process after two forced GCs (MiB). */
export interface Reading {
  readonly label: string;
  /** Seconds since the bridge process started. */
  readonly atS: number;
  /** VmRSS and the main heap in use just before the GCs: what the process held as it ran. */
  readonly rssBeforeGcMiB: number;
  readonly heapUsedBeforeGcMiB: number;
  /** `process.memoryUsage()`: `rss` is the whole process; the rest is the main thread's isolate only. */
  readonly rssMiB: number;
  readonly heapTotalMiB: number;
  readonly heapUsedMiB: number;
  /**
   * C++ memory of the main isolate's objects, `arrayBuffers` included: the Buffers and (Shared)ArrayBuffers this
   * thread allocated, not those a worker thread made and handed over.
   */
  readonly externalMiB: number;
  readonly arrayBuffersMiB: number;
  /** /proc/self/status: anonymous memory (heaps, malloc), file pages (code, mapped files), shared memory. */
  readonly rssAnonMiB: number;
  readonly rssFileMiB: number;
  readonly rssShmemMiB: number;
  /**
   * The SharedArrayBuffer slabs the served version's chunks sit in. Slabs a worker thread made (a full sync's)
   * count in no isolate's `external` once that thread has ended: they are only in the RSS (RssAnon).
   */
  readonly chunkSlabsMiB: number;
  /** The served family's source rows (typed arrays of the main thread: in `arrayBuffers`). */
  readonly sourceRowsMiB: number;
  /**
   * RSS − heapTotal − external − chunk slabs: what no V8 figure accounts for (code, V8's and the libraries'
   * malloc, thread stacks, other SharedArrayBuffers worker threads made, freed memory the allocator keeps).
   */
  readonly nativeRestMiB: number;
  readonly threads: number;
  /** V8's own malloc (compiler zones and the like), outside the JS heap. */
  readonly v8MallocedMiB: number;
  /** Committed and used per V8 space of the main isolate. */
  readonly heapSpaces: Readonly<Record<string, { readonly committedMiB: number; readonly usedMiB: number }>>;
  /** The worker threads alive at the reading. */
  readonly workers: readonly WorkerMemory[];
}

/** Peaks of one kind of worker thread during a step (sums over the threads of that kind at one sample). */
export interface WorkerPeaks {
  readonly threads: number;
  readonly peakHeapTotalMiB: number;
  readonly peakHeapUsedMiB: number;
  readonly peakExternalMiB: number;
}

export interface StepFigures {
  readonly name: string;
  readonly wallMs: number;
  /** VmHWM after resetting it at the step's start: the exact peak RSS; `null` where it cannot be reset. */
  readonly peakRssMiB: number | null;
  /** Highest VmRSS this thread's 50 ms timer saw (late while the main thread is busy). */
  readonly peakRssSampledMiB: number;
  readonly workers: Readonly<Record<string, WorkerPeaks>>;
  readonly detail?: Readonly<Record<string, unknown>>;
}

/** What was counted beside the readings, after the first pre-render. */
export interface ServedDetails {
  readonly products: number;
  readonly version: string;
  readonly chunks: {
    readonly count: number;
    /** Deflated bytes of the chunks (`ItemChunk.bytes`). */
    readonly bytesMiB: number;
    /** The SharedArrayBuffer slabs they sit in (4 MiB each): the memory really held. */
    readonly slabs: number;
    readonly slabsMiB: number;
    /** The JSON text they deflate (not held: the store's and the feeds' size). */
    readonly textMiB: number;
  };
  /** Typed arrays of which POS document row gave each product its values (`catalog.sourceRows`). */
  readonly sourceRowsMiB: number;
  /** `feeds.storage()`: bytes of the rendered feeds on disk (page cache, not process memory). */
  readonly feedFiles: { readonly entries: number; readonly bytesMiB: number; readonly budgetMiB: number | null };
  /** The main heap a structured clone of `feeds.reports()` took: the bulk of the feed cache's metadata. */
  readonly feedReportsCloneMiB: number;
  readonly feedReports: number;
}

export interface BridgeReport {
  readonly readings: readonly Reading[];
  readonly steps: readonly StepFigures[];
  readonly served: ServedDetails;
  /** Whether VmHWM could be reset per step (else only the 50 ms samples give peaks). */
  readonly hwmReset: boolean;
}

export interface BudgetLine {
  readonly part: string;
  readonly MiB: number | null;
  readonly how: string;
}

// ---------------------------------------------------------------------------------------------------
// Messages between this process and the measured one.

export interface SaleItem {
  readonly unit: string;
  readonly id: string;
}

/** What the measured process asks this one to do from outside. */
type Ask =
  | { readonly type: 'ask'; readonly what: 'unfault' }
  | { readonly type: 'ask'; readonly what: 'search'; readonly queries: readonly string[] }
  | { readonly type: 'ask'; readonly what: 'fetches'; readonly count: number }
  | { readonly type: 'ask'; readonly what: 'sales'; readonly sales: readonly SaleItem[] }
  | { readonly type: 'ask'; readonly what: 'price-change'; readonly id: string };
type FromBridge =
  | Ask
  | { readonly type: 'progress'; readonly text: string }
  | { readonly type: 'report'; readonly report: BridgeReport }
  | { readonly type: 'failed'; readonly error: string };
type ToBridge = { readonly type: 'answer'; readonly answer: Readonly<Record<string, unknown>> };

// ---------------------------------------------------------------------------------------------------
// The measured process.

interface ProcStatus {
  readonly vmRss: number;
  readonly vmHwm: number;
  readonly rssAnon: number;
  readonly rssFile: number;
  readonly rssShmem: number;
  readonly threads: number;
}

/** /proc/self/status, in bytes (Threads as a count): the whole process, worker threads included. */
function procStatus(): ProcStatus {
  const text = readFileSync('/proc/self/status', 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    vmRss: field('VmRSS') * 1024,
    vmHwm: field('VmHWM') * 1024,
    rssAnon: field('RssAnon') * 1024,
    rssFile: field('RssFile') * 1024,
    rssShmem: field('RssShmem') * 1024,
    threads: field('Threads'),
  };
}

/** Resets VmHWM to the current RSS (Linux ≥ 4.0, own process); false where that is refused. */
function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Evaluated in a worker thread: which pool it belongs to (from the `workerData` piscina passes on, set once the
 * thread's bootstrap has run: `null` before) and its own isolate's memory.
 */
const SAMPLE_EXPRESSION = `(() => {
  const data = process.getBuiltinModule('node:worker_threads').workerData;
  const kind =
    data === null || typeof data !== 'object' ? 'starting'
    : 'outputDir' in data ? 'render'
    : 'pos' in data ? (data.background === true ? 'catalog-pool' : 'catalog-sync')
    : 'other';
  return JSON.stringify({ kind, ...process.memoryUsage() });
})()`;

interface WorkerUsage {
  readonly kind: string;
  readonly heapTotal: number;
  readonly heapUsed: number;
  readonly external: number;
}

/**
 * The process's worker threads through the inspector (NodeWorker domain, attached without pausing them):
 * each thread's own `process.memoryUsage()`, evaluated in it. The only way on Node 20 to read a piscina
 * thread's heap without a change in src/ (the pools are private to the app).
 */
async function watchWorkers() {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  const workers = new Set<string>();
  const waiting = new Map<number, (value: unknown) => void>();
  let nextId = 1;

  function evaluate(sessionId: string, expression: string): Promise<unknown> {
    const id = nextId++;
    return new Promise((resolve) => {
      // A thread that ends meanwhile never answers.
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve(undefined);
      }, 2_000);
      waiting.set(id, (value) => {
        clearTimeout(timer);
        resolve(value);
      });
      const message = JSON.stringify({ id, method: 'Runtime.evaluate', params: { expression, returnByValue: true } });
      session.post('NodeWorker.sendMessageToWorker', { sessionId, message }).catch(() => undefined);
    });
  }

  session.on('NodeWorker.attachedToWorker', ({ params }) => {
    workers.add(params.sessionId);
  });
  session.on('NodeWorker.detachedFromWorker', ({ params }) => {
    workers.delete(params.sessionId);
  });
  session.on('NodeWorker.receivedMessageFromWorker', ({ params }) => {
    const message = JSON.parse(params.message) as { id?: number; result?: { result?: { value?: unknown } } };
    if (message.id === undefined) return;
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    resolve?.(message.result?.result?.value);
  });
  await session.post('NodeWorker.enable', { waitForDebuggerOnStart: false });

  return {
    count: () => workers.size,
    /** Every live thread's own memory now (threads that do not answer within 2 s are left out). */
    async sample(): Promise<WorkerUsage[]> {
      const answers = await Promise.all(
        [...workers].map(async (sessionId) => {
          const value = await evaluate(sessionId, SAMPLE_EXPRESSION);
          if (typeof value !== 'string') return undefined;
          try {
            return JSON.parse(value) as WorkerUsage;
          } catch {
            // A thread being torn down answers with an error text ("illegal access"): left out like a silent one.
            return undefined;
          }
        }),
      );
      return answers.filter((answer): answer is WorkerUsage => answer !== undefined);
    },
    /** Until no worker thread is alive (or `withinMs`); whether none is. */
    async gone(withinMs: number): Promise<boolean> {
      const until = performance.now() + withinMs;
      while (workers.size > 0 && performance.now() < until) await sleep(250);
      return workers.size === 0;
    },
    close: () => session.disconnect(),
  };
}
type WorkerWatch = Awaited<ReturnType<typeof watchWorkers>>;

function option(name: string): string {
  const index = process.argv.indexOf(`--${name}`);
  const value = index < 0 ? undefined : process.argv[index + 1];
  if (value === undefined) throw new Error(`--${name} is required`);
  return value;
}

/** Readings and steps of the measured process. */
function createProbe(watch: WorkerWatch, servedBuffers: () => Promise<{ slabBytes: number; sourceRowBytes: number }>) {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('the measured process needs --expose-gc');
  const collect = gc;
  const hwmReset = resetPeakRss();
  const startedAt = performance.now();
  const readings: Reading[] = [];
  const steps: StepFigures[] = [];

  async function read(label: string): Promise<Reading> {
    const buffers = await servedBuffers();
    const before = procStatus().vmRss;
    const heapBefore = process.memoryUsage().heapUsed;
    // Twice: the first full GC leaves what weak callbacks and finalizers free to the second.
    collect();
    collect();
    const usage = process.memoryUsage();
    const status = procStatus();
    const workers = await watch.sample();
    const reading: Reading = {
      label,
      atS: Math.round((performance.now() - startedAt) / 1000),
      rssBeforeGcMiB: mib(before),
      heapUsedBeforeGcMiB: mib(heapBefore),
      rssMiB: mib(usage.rss),
      heapTotalMiB: mib(usage.heapTotal),
      heapUsedMiB: mib(usage.heapUsed),
      externalMiB: mib(usage.external),
      arrayBuffersMiB: mib(usage.arrayBuffers),
      rssAnonMiB: mib(status.rssAnon),
      rssFileMiB: mib(status.rssFile),
      rssShmemMiB: mib(status.rssShmem),
      chunkSlabsMiB: mib(buffers.slabBytes),
      sourceRowsMiB: mib(buffers.sourceRowBytes),
      nativeRestMiB: mib(usage.rss - usage.heapTotal - usage.external - buffers.slabBytes),
      threads: status.threads,
      v8MallocedMiB: mib(getHeapStatistics().malloced_memory),
      heapSpaces: Object.fromEntries(
        getHeapSpaceStatistics().map((space) => [
          space.space_name,
          { committedMiB: mib(space.space_size), usedMiB: mib(space.space_used_size) },
        ]),
      ),
      workers: workers.map((worker) => ({
        kind: worker.kind,
        heapTotalMiB: mib(worker.heapTotal),
        heapUsedMiB: mib(worker.heapUsed),
        externalMiB: mib(worker.external),
      })),
    };
    readings.push(reading);
    progress(
      `reading ${label}: rss ${reading.rssMiB} MiB (before GC ${reading.rssBeforeGcMiB}), heap used ${reading.heapUsedMiB}, ` +
        `external ${reading.externalMiB}, workers ${workers.length}`,
    );
    return reading;
  }

  /** Runs `run` with the peak RSS and each worker kind's peaks recorded. */
  async function step<T>(name: string, run: () => Promise<T>, detailOf?: (result: T) => Record<string, unknown>): Promise<T> {
    progress(`step ${name}`);
    const hwm = hwmReset && resetPeakRss();
    let sampledPeak = procStatus().vmRss;
    const peaks = new Map<string, { threads: number; heapTotal: number; heapUsed: number; external: number }>();
    let sampling = false;
    const timer = setInterval(() => {
      sampledPeak = Math.max(sampledPeak, procStatus().vmRss);
      // One round of worker samples at a time: a busy thread may answer late.
      if (sampling || watch.count() === 0) return;
      sampling = true;
      void watch
        .sample()
        .then((usages) => {
          const byKind = new Map<string, { threads: number; heapTotal: number; heapUsed: number; external: number }>();
          for (const usage of usages) {
            const sum = byKind.get(usage.kind) ?? { threads: 0, heapTotal: 0, heapUsed: 0, external: 0 };
            byKind.set(usage.kind, {
              threads: sum.threads + 1,
              heapTotal: sum.heapTotal + usage.heapTotal,
              heapUsed: sum.heapUsed + usage.heapUsed,
              external: sum.external + usage.external,
            });
          }
          for (const [kind, sum] of byKind) {
            const peak = peaks.get(kind) ?? { threads: 0, heapTotal: 0, heapUsed: 0, external: 0 };
            peaks.set(kind, {
              threads: Math.max(peak.threads, sum.threads),
              heapTotal: Math.max(peak.heapTotal, sum.heapTotal),
              heapUsed: Math.max(peak.heapUsed, sum.heapUsed),
              external: Math.max(peak.external, sum.external),
            });
          }
        })
        .finally(() => {
          sampling = false;
        });
    }, SAMPLE_EVERY_MS);
    const started = performance.now();
    try {
      const result = await run();
      const wallMs = Math.round(performance.now() - started);
      sampledPeak = Math.max(sampledPeak, procStatus().vmRss);
      steps.push({
        name,
        wallMs,
        peakRssMiB: hwm ? mib(procStatus().vmHwm) : null,
        peakRssSampledMiB: mib(sampledPeak),
        workers: Object.fromEntries(
          [...peaks].map(([kind, peak]) => [
            kind,
            {
              threads: peak.threads,
              peakHeapTotalMiB: mib(peak.heapTotal),
              peakHeapUsedMiB: mib(peak.heapUsed),
              peakExternalMiB: mib(peak.external),
            },
          ]),
        ),
        ...(detailOf === undefined ? {} : { detail: detailOf(result) }),
      });
      return result;
    } finally {
      clearInterval(timer);
    }
  }

  /** The main heap in use that `make`'s result holds (two GCs before and after it). */
  function heapOf<T>(make: () => T): { readonly bytes: number; readonly value: T } {
    collect();
    collect();
    const before = process.memoryUsage().heapUsed;
    const value = make();
    collect();
    collect();
    return { bytes: process.memoryUsage().heapUsed - before, value };
  }

  return { read, step, heapOf, readings, steps, hwmReset };
}

function progress(text: string): void {
  process.send?.({ type: 'progress', text } satisfies FromBridge);
}

let answered: ((answer: Readonly<Record<string, unknown>>) => void) | undefined;

/** Has the driving process do something from outside; resolves with what it reports. */
function ask(question: Ask): Promise<Readonly<Record<string, unknown>>> {
  return new Promise((resolve) => {
    answered = resolve;
    process.send?.(question);
  });
}

/** Distinct (unit, article) pairs with a whole stock of at least 2, spread over the served catalog. */
function chooseSales(app: RunningApp, count: number): SaleItem[] {
  const candidates: SaleItem[] = [];
  for (const product of app.catalog.current()?.products ?? []) {
    if (!product.isStockItem) continue;
    for (const offer of product.offers) {
      if (offer.stock !== undefined && Number.isInteger(offer.stock) && offer.stock >= 2) {
        candidates.push({ unit: offer.unit, id: product.id });
      }
    }
  }
  if (candidates.length < count) throw new Error(`only ${candidates.length} sellable items for ${count} sales`);
  const every = Math.floor(candidates.length / count);
  return candidates.filter((_, index) => index % every === 0).slice(0, count);
}

async function familyIndexOf(app: RunningApp): Promise<void> {
  const snapshot = app.catalog.current();
  if (snapshot !== undefined) await app.catalog.familyIndex(snapshot);
}

/** A word of a name in the middle of the catalog and that product's id, as copies (no slice of a catalog string). */
function searchQueries(app: RunningApp): string[] {
  const products = app.catalog.current()?.products ?? [];
  const middle = products[Math.floor(products.length / 2)];
  const copy = (text: string) => Buffer.from(text).toString();
  return [copy(middle?.name.split(' ')[0] ?? 'a'), copy(middle?.id ?? '1')];
}

/** Until `count` more sales are processed and nothing waits (or nothing moved for 20 s), then the feeds settle. */
async function salesProcessed(app: RunningApp, before: number, count: number): Promise<Record<string, number>> {
  const processed = () => Object.values(app.webhooks.stats().sales).reduce((sum, n) => sum + n, 0);
  let last = { count: processed(), at: performance.now() };
  for (;;) {
    const now = processed();
    if (now !== last.count) last = { count: now, at: performance.now() };
    const pending = app.webhooks.stats().pending;
    if (pending === 0 && (now - before >= count || performance.now() - last.at > 20_000)) break;
    await sleep(200);
  }
  await app.webhooks.idle();
  await app.prewarm.idle();
  return { ...app.webhooks.stats().sales, processedNow: processed() - before };
}

async function measure(): Promise<BridgeReport> {
  const root = option('root');
  const idleMs = Number(option('idle')) * 1000;
  const saleCount = Number(option('sales'));
  const fetchCount = Number(option('fetches'));
  // The bridge as `npm start` runs it (worker threads load their bundles); the config is plain data.
  const { limitHeapGrowth } = (await import(
    pathToFileURL(join(root, 'dist/workers/heap-growth.js')).href
  )) as typeof import('../src/workers/heap-growth.js');
  limitHeapGrowth();
  const [{ startApp }, { createTestConfig }, { pino }] = await Promise.all([
    import(pathToFileURL(join(root, 'dist/app/start-app.js')).href) as Promise<typeof import('../src/app/start-app.js')>,
    import('../test/helpers/test-config.js'),
    import('pino'),
  ]);
  const watch = await watchWorkers();
  let app: RunningApp | undefined;
  const probe = createProbe(watch, async () =>
    app === undefined
      ? { slabBytes: 0, sourceRowBytes: 0 }
      : { slabBytes: (await chunkStats(app)).slabBytes, sourceRowBytes: sourceRowBytes(app) },
  );
  await probe.read('modules');

  const config = createTestConfig({
    POS_BASE_URL: option('pos'),
    POS_API_KEY: API_KEY,
    PORT: option('port'),
    HOST: '127.0.0.1',
    STORE_URL: `sqlite://${join(option('dir'), 'catalog.sqlite')}`,
    FEED_PRODUCT_URL: 'https://shop.example/p/{id}',
    FEED_IMAGE_URL: 'https://shop.example/img/{id}.jpg',
    CATALOG_SYNC_CRON: '0 0 1 1 *',
    STOCK_SYNC_CRON: '0 0 1 1 *',
  });
  const running = await startApp(config, { logger: pino({ level: 'warn' }), syncRetryDelayMs: () => RETRY_PUT_OFF_MS });
  app = running;
  try {
    await app.initialSync;
    const startOutcome = app.catalog.lastReport('sync-catalog')?.outcome;
    if (app.catalog.current() !== undefined) throw new Error(`the start sync was to fail, it ended ${startOutcome}`);
    await watch.gone(WORKERS_GONE_WITHIN_MS);
    await probe.read('start');
    await ask({ type: 'ask', what: 'unfault' });

    const outcomeOf = (outcome: { ok: boolean; result?: unknown }) =>
      outcome.ok ? ((outcome.result as { outcome?: string } | undefined)?.outcome ?? 'none') : 'crashed';
    await probe.step(
      'first-sync',
      () => app.jobs.runNow('sync-catalog'),
      (outcome) => ({ outcome: outcomeOf(outcome) }),
    );
    if (app.catalog.current() === undefined) throw new Error('the first full sync did not publish');
    await probe.step('prerender', () => app.prewarm.idle());
    await probe.read('served');
    const served = await servedDetails(app, probe);

    // No snapshot is kept in a variable here: the bench would keep a replaced version alive.
    await probe.step('family-index', () => familyIndexOf(app));
    await probe.read('family-index');
    const queries = searchQueries(app);
    await probe.step(
      'search',
      () => ask({ type: 'ask', what: 'search', queries }),
      (answer) => answer,
    );
    await probe.read('search');

    await probe.step(
      'fetches',
      async () => {
        const answer = await ask({ type: 'ask', what: 'fetches', count: fetchCount });
        // Its entries reach the store in batches; the batch's arrays are garbage once stored.
        await app.fetches.flush();
        return answer;
      },
      (answer) => answer,
    );
    await probe.read('fetches');

    const chosen = chooseSales(app, saleCount + 1);
    const lastSale = chosen.pop();
    if (lastSale === undefined) throw new Error('no sale chosen');
    const salesBefore = Object.values(app.webhooks.stats().sales).reduce((sum, n) => sum + n, 0);
    await probe.step(
      'sales',
      async () => {
        const made = await ask({ type: 'ask', what: 'sales', sales: chosen });
        return { ...made, processed: await salesProcessed(app, salesBefore, chosen.length) };
      },
      (answer) => answer,
    );
    await probe.read('sales');
    await sleep(idleMs);
    await probe.read('idle');
    await watch.gone(WORKERS_GONE_WITHIN_MS);
    await probe.read('quiet');

    const oneBefore = Object.values(app.webhooks.stats().sales).reduce((sum, n) => sum + n, 0);
    await probe.step(
      'render-pass',
      async () => {
        await ask({ type: 'ask', what: 'sales', sales: [lastSale] });
        return salesProcessed(app, oneBefore, 1);
      },
      (answer) => answer,
    );
    await probe.read('render-pass');

    await watch.gone(WORKERS_GONE_WITHIN_MS);
    await probe.read('before-resync');
    await ask({ type: 'ask', what: 'price-change', id: queries[1] ?? lastSale.id });
    const versionBefore = app.catalog.current()?.version;
    await probe.step(
      'resync',
      () => app.jobs.runNow('sync-catalog'),
      (outcome) => ({ outcome: outcomeOf(outcome), newVersion: app.catalog.current()?.version !== versionBefore }),
    );
    await probe.step('resync-prerender', () => app.prewarm.idle());
    await probe.read('resynced');

    await watch.gone(WORKERS_GONE_WITHIN_MS);
    await sleep(idleMs);
    await probe.read('end');
    return { readings: probe.readings, steps: probe.steps, served, hwmReset: probe.hwmReset };
  } finally {
    await app.stop();
    watch.close();
  }
}

/** The served version's chunks: how many, their deflated and text bytes, the distinct slabs they sit in. */
async function chunkStats(app: RunningApp) {
  const snapshot = app.catalog.current();
  const chunks = snapshot === undefined ? [] : ((await app.catalog.chunksOf(snapshot)) ?? []);
  const slabs = new Set<ArrayBufferLike>();
  let bytes = 0;
  let text = 0;
  for (const chunk of chunks) {
    bytes += chunk.bytes.byteLength;
    text += chunk.textBytes;
    slabs.add(chunk.bytes.buffer);
  }
  const slabBytes = [...slabs].reduce((sum, slab) => sum + slab.byteLength, 0);
  return { count: chunks.length, bytes, text, slabs: slabs.size, slabBytes };
}

/** The typed arrays of the served family's source rows (`catalog.sourceRows`). */
function sourceRowBytes(app: RunningApp): number {
  const snapshot = app.catalog.current();
  let bytes = 0;
  for (const unit of (snapshot === undefined ? undefined : app.catalog.sourceRows(snapshot))?.rows.units ?? []) {
    bytes +=
      unit.priceRows.byteLength +
      unit.priceKeys.byteLength +
      unit.priceFrom.byteLength +
      unit.stockLines.byteLength +
      unit.stockKeys.byteLength;
  }
  return bytes;
}

/** The served version's chunks, source rows and feed files, and an estimate of the feed cache's metadata. */
async function servedDetails(app: RunningApp, probe: ReturnType<typeof createProbe>): Promise<ServedDetails> {
  const snapshot = app.catalog.current();
  if (snapshot === undefined) throw new Error('nothing served');
  const chunks = await chunkStats(app);
  const sourceRows = sourceRowBytes(app);
  const storage = app.feeds.storage();
  // The cache keeps per feed key its render's file names, lengths, validators and report; the reports are
  // the only part of any size, and a copy of them takes about the heap the originals take.
  const reports = probe.heapOf(() => structuredClone(new Map(app.feeds.reports())));
  return {
    products: snapshot.products.length,
    version: snapshot.version,
    chunks: {
      count: chunks.count,
      bytesMiB: mib(chunks.bytes),
      slabs: chunks.slabs,
      slabsMiB: mib(chunks.slabBytes),
      textMiB: mib(chunks.text),
    },
    sourceRowsMiB: mib(sourceRows),
    feedFiles: {
      entries: storage.entries,
      bytesMiB: mib(storage.bytes),
      budgetMiB: storage.budget === undefined ? null : mib(storage.budget),
    },
    feedReportsCloneMiB: mib(reports.bytes),
    feedReports: reports.value.size,
  };
}

async function measuredProcess(): Promise<void> {
  process.on('message', (message: ToBridge) => {
    if (message.type === 'answer') answered?.(message.answer);
  });
  try {
    const report = await measure();
    process.send?.({ type: 'report', report } satisfies FromBridge);
  } catch (error) {
    process.send?.({
      type: 'failed',
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    } satisfies FromBridge);
  }
  process.disconnect?.();
}

// ---------------------------------------------------------------------------------------------------
// The budget, from the report.

/** The parts, each a difference of readings or a peak of a step (see `how`). */
export function budgetOf(report: BridgeReport): BudgetLine[] {
  const reading = (label: string): Reading => {
    const found = report.readings.find((entry) => entry.label === label);
    if (found === undefined) throw new Error(`no reading ${label}`);
    return found;
  };
  const stepOf = (name: string): StepFigures | undefined => report.steps.find((entry) => entry.name === name);
  const peakOf = (name: string): number | null => {
    const step = stepOf(name);
    return step === undefined ? null : (step.peakRssMiB ?? step.peakRssSampledMiB);
  };
  const minus = (a: number | null, b: number): number | null => (a === null ? null : round1(a - b));
  const heapDelta = (from: string, to: string): number => round1(reading(to).heapUsedMiB - reading(from).heapUsedMiB);
  const ownHeap = (name: string, kind: string): string => {
    const peak = stepOf(name)?.workers[kind]?.peakHeapTotalMiB;
    return peak === undefined ? 'not sampled' : `${peak} MiB`;
  };
  const nativeRest = (r: Reading): number => r.nativeRestMiB;
  const modules = reading('modules');
  const start = reading('start');
  const quiet = reading('quiet');
  const idle = reading('idle');
  const end = reading('end');
  const { chunks, feedFiles } = report.served;
  const fetched = stepOf('fetches')?.detail?.['requests'];
  const peaks = report.steps.map((step) => step.peakRssMiB ?? step.peakRssSampledMiB);
  return [
    {
      part: 'node, V8 and the code loaded',
      MiB: modules.rssMiB,
      how: `RSS once startApp's module graph (dist/) is imported, nothing started; main heap in use ${modules.heapUsedMiB} MiB`,
    },
    {
      part: "bridge's fixed parts (main heap)",
      MiB: heapDelta('modules', 'start'),
      how: 'main heap in use, "start" − "modules": the app listening (templates, express, store, metrics, scheduler), no catalog',
    },
    {
      part: '  RSS after the start',
      MiB: round1(start.rssMiB - modules.rssMiB),
      how: `RSS "start" − "modules": the fixed parts, code run once (RssFile +${round1(start.rssFileMiB - modules.rssFileMiB)} MiB) and what the failed start sync's worker thread left in the allocator (RssAnon +${round1(start.rssAnonMiB - modules.rssAnonMiB)} MiB, heap committed +${round1(start.heapTotalMiB - modules.heapTotalMiB)} MiB)`,
    },
    {
      part: 'served catalog (main heap)',
      MiB: heapDelta('start', 'served'),
      how: `main heap in use, "served" − "start" (${report.served.products} products): the served version's objects and what the first sync and pre-render keep beside them (reports, the first change-log entry, the feed cache's metadata)`,
    },
    {
      part: '  of which feed cache metadata (estimate)',
      MiB: report.served.feedReportsCloneMiB,
      how: `main heap a structured clone of feeds.reports() takes (${report.served.feedReports} reports, the bulk of the cache's entries; file names, lengths and validators add a few hundred bytes each)`,
    },
    {
      part: 'serialized chunks (shared slabs)',
      MiB: chunks.slabsMiB,
      how: `catalog.chunksOf(served): ${chunks.count} deflated chunks of ${chunks.bytesMiB} MiB in ${chunks.slabs} SharedArrayBuffer slabs; made by the sync's worker, so in the RSS but in no heap nor external figure; their JSON text (${chunks.textMiB} MiB) is not held`,
    },
    {
      part: 'source rows (typed arrays)',
      MiB: report.served.sourceRowsMiB,
      how: `catalog.sourceRows(served): which POS row gave each product and unit its values (main external grew ${round1(reading('served').externalMiB - start.externalMiB)} MiB in all)`,
    },
    {
      part: 'family index',
      MiB: heapDelta('served', 'family-index'),
      how: 'main heap in use after catalog.familyIndex(served) − "served" (0 when the sync or pre-render had built it)',
    },
    {
      part: 'search index',
      MiB: heapDelta('family-index', 'search'),
      how: 'main heap in use after two searches over HTTP (GET /api/products?q=<a word of a name>, ?q=<an id>) − before: folded names, offsets, shared codes',
    },
    {
      part: 'fetch log',
      MiB: heapDelta('search', 'fetches'),
      how: `main heap in use after ${String(fetched ?? '?')} conditional feed requests and a flush of the log − before (its ring keeps FETCH_LOG_SIZE, 5,000 by default, entries)`,
    },
    {
      part: 'change log and what the sales leave',
      MiB: heapDelta('fetches', 'sales'),
      how: "main heap in use after the sales (all processed, feeds pre-rendered) − before: change-log transitions (≤ 100), each sale's last stock change, replaced products of the derived versions",
    },
    {
      part: 'main ArrayBuffers the sales leave (not attributed)',
      MiB: round1(
        reading('sales').arrayBuffersMiB -
          reading('fetches').arrayBuffersMiB -
          (reading('sales').sourceRowsMiB - reading('fetches').sourceRowsMiB),
      ),
      how: `arrayBuffers "sales" − "fetches", less the change in source rows: Buffers and SharedArrayBuffers the main thread holds after the sales; after the re-sync's new family ${round1(reading('resynced').arrayBuffersMiB - reading('served').arrayBuffersMiB)} MiB over "served"`,
    },
    {
      part: 'catalog worker (peak, full sync)',
      MiB: minus(peakOf('first-sync'), start.rssMiB),
      how: `peak RSS during the first full sync (${peakOf('first-sync')} MiB) − "start": the sync thread (own heap at most ${ownHeap('first-sync', 'catalog-sync')} committed) and the catalog arriving on the main thread; the re-sync: ${minus(peakOf('resync'), reading('before-resync').rssMiB)} MiB over "before-resync" (own heap ${ownHeap('resync', 'catalog-sync')})`,
    },
    {
      part: 'render worker (peak, pre-render pass)',
      MiB: minus(peakOf('render-pass'), quiet.rssMiB),
      how: `peak RSS while one sale's version was pre-rendered (${peakOf('render-pass')} MiB) − "quiet" (no thread alive before it): the render thread (own heap at most ${ownHeap('render-pass', 'render')} committed; the first pre-render ${ownHeap('prerender', 'render')}), stock re-reads in the catalog pool (${ownHeap('render-pass', 'catalog-pool')})`,
    },
    {
      part: 'whole process, peak during the sales',
      MiB: peakOf('sales'),
      how: "peak RSS while the sales were processed: the main thread, the render thread and the catalog pool's threads re-reading stock, at once",
    },
    {
      part: 'feed files (disk: page cache, not process memory)',
      MiB: feedFiles.bytesMiB,
      how: `feeds.storage() after the first pre-render: ${feedFiles.entries} rendered feeds, every form (identity, gzip, br), of a ${feedFiles.budgetMiB ?? '?'} MiB budget`,
    },
    {
      part: 'native rest at the end',
      MiB: nativeRest(end),
      how: `RSS − heapTotal − external − chunk slabs at "end" (no thread alive): binary and libraries (RssFile ${end.rssFileMiB} MiB), V8's malloc (${end.v8MallocedMiB} MiB), SQLite, libuv, and freed memory the allocator keeps; by reading: ${report.readings.map((r) => `${r.label} ${r.nativeRestMiB}`).join(', ')}`,
    },
    {
      part: '  growth since "modules" (allocator keeps)',
      MiB: round1(nativeRest(end) - nativeRest(modules)),
      how: 'native rest "end" − "modules": what the run left outside every V8 figure: presumably freed malloc memory the allocator keeps (per-thread arenas of worker threads that came and went), SharedArrayBuffers worker threads made (the family\'s identity index), SQLite\'s page caches',
    },
    {
      part: 'main heap committed, not in use, at the end',
      MiB: round1(end.heapTotalMiB - end.heapUsedMiB),
      how: 'heapTotal − heapUsed at "end", after the GCs',
    },
    {
      part: 'RSS an idle bridge holds beyond a GC',
      MiB: round1(idle.rssBeforeGcMiB - idle.rssMiB),
      how: `"idle" (after the sales and the idle wait): RSS ${idle.rssBeforeGcMiB} MiB before two forced GCs, ${idle.rssMiB} after (heap in use ${idle.heapUsedBeforeGcMiB} → ${idle.heapUsedMiB}); at "end" ${end.rssBeforeGcMiB} → ${end.rssMiB}`,
    },
    {
      part: 'main heap growth over a re-sync',
      MiB: heapDelta('before-resync', 'resynced'),
      how: 'main heap in use "resynced" − "before-resync": a new catalog family replaced the old one of the same size (≈ 0 when the old one is released)',
    },
    {
      part: 'whole process at the end',
      MiB: end.rssMiB,
      how: `RSS at "end" after the GCs (${end.rssBeforeGcMiB} before them); the highest peak of any step ${Math.max(...peaks)} MiB`,
    },
  ];
}

// ---------------------------------------------------------------------------------------------------
// The driving process.

interface FeedList {
  readonly feeds: readonly { readonly unit: string; readonly url: string; readonly format: string; readonly rendered: boolean }[];
}

/** `count` conditional GETs of the rendered `all` feeds, eight at a time, each feed's ETag kept (304s after the first). */
async function feedFetches(url: string, count: number): Promise<Record<string, unknown>> {
  const list = (await (await fetch(`${url}/feeds`)).json()) as FeedList;
  const paths = list.feeds
    .filter((feed) => feed.unit === 'all' && feed.format !== 'xlsx' && feed.rendered)
    .map((feed) => new URL(feed.url).pathname);
  if (paths.length === 0) throw new Error('no rendered feed to fetch');
  const agent = new Agent({ connections: 8, keepAliveTimeout: 30_000 });
  const etags = new Map<string, string>();
  const statuses: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < count) {
          const index = next++;
          const path = paths[index % paths.length] as string;
          const etag = etags.get(path);
          const response = await request(`${url}${path}`, {
            dispatcher: agent,
            headers: {
              'user-agent': USER_AGENTS[Math.floor(index / paths.length) % USER_AGENTS.length] as string,
              'accept-encoding': 'gzip',
              ...(etag === undefined ? {} : { 'if-none-match': etag }),
            },
          });
          await response.body.dump({ limit: Number.POSITIVE_INFINITY });
          const tag = response.headers['etag'];
          if (response.statusCode === 200 && typeof tag === 'string') etags.set(path, tag);
          statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
        }
      }),
    );
  } finally {
    await agent.close();
  }
  return { requests: count, feeds: paths.length, statuses, wallMs: Math.round(performance.now() - started) };
}

/** Sales at SALES_PER_SECOND, paced against the start; the sandbox delivers each one's webhook. */
async function makeSales(posUrl: string, sales: readonly SaleItem[], agent: Dispatcher): Promise<Record<string, unknown>> {
  const started = performance.now();
  const made: Promise<boolean>[] = [];
  for (const [index, sale] of sales.entries()) {
    const wait = started + (index * 1000) / SALES_PER_SECOND - performance.now();
    if (wait > 0) await sleep(wait);
    made.push(
      request(`${posUrl}/sandbox/sales`, {
        dispatcher: agent,
        method: 'POST',
        headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ unitCode: sale.unit, lines: [{ localId: sale.id, count: 1 }] }),
      }).then(
        async (response) => {
          await response.body.dump();
          return response.statusCode === 201;
        },
        () => false,
      ),
    );
  }
  const failed = (await Promise.all(made)).filter((ok) => !ok).length;
  return { sales: sales.length, failed, madeMs: Math.round(performance.now() - started) };
}

/** Does what the measured process asks, from outside it. */
async function answer(question: Ask, bridgeUrl: string, posUrl: string, agent: Dispatcher): Promise<Record<string, unknown>> {
  const pos = (path: string, method: string, body?: unknown) =>
    request(`${posUrl}${path}`, {
      dispatcher: agent,
      method,
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then(async (response) => {
      await response.body.dump();
      if (response.statusCode !== 200) throw new Error(`${method} ${path} answered ${response.statusCode}`);
    });
  switch (question.what) {
    case 'unfault':
      await pos('/sandbox/faults', 'DELETE');
      return {};
    case 'search': {
      const answers: Record<string, unknown>[] = [];
      for (const query of question.queries) {
        const started = performance.now();
        const response = await request(`${bridgeUrl}/api/products?q=${encodeURIComponent(query)}`, { dispatcher: agent });
        const body = (await response.body.json()) as { total?: number };
        answers.push({ query, status: response.statusCode, total: body.total, ms: Math.round(performance.now() - started) });
      }
      return { searches: answers };
    }
    case 'fetches':
      return feedFetches(bridgeUrl, question.count);
    case 'sales':
      return makeSales(posUrl, question.sales, agent);
    case 'price-change':
      // An unchanged catalog keeps its version at a full sync: one price changes (as bench/serve-day.ts).
      await pos('/assortment/import', 'POST', { localId: question.id, salesPrice: 4321.5 });
      return {};
  }
}

function printBudget(budget: readonly BudgetLine[]): void {
  const width = Math.max(...budget.map((line) => line.part.length));
  const lines = budget.map(
    (line) => `${line.part.padEnd(width)}  ${(line.MiB === null ? '?' : line.MiB.toFixed(1)).padStart(7)} MiB`,
  );
  process.stderr.write(`\n${lines.join('\n')}\n\n`);
}

async function main(): Promise<void> {
  const articles = numberArgument('articles', 100_000);
  const units = numberArgument('units', 5);
  const sales = numberArgument('sales', 2_000);
  const fetches = numberArgument('fetches', 5_000);
  const idleSeconds = numberArgument('idle', 30);
  const root = join(SCRIPT, '..', '..');
  process.stderr.write('building dist/ as npm start does (scripts/build.mjs)\n');
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  const compiled = process.argv.includes('--tsx') ? undefined : compileScript(SCRIPT);
  const dir = mkdtempSync(join(tmpdir(), 'memory-budget-'));
  const port = await freePort();
  const bridgeUrl = `http://127.0.0.1:${port}`;
  const agent = new Agent({ connections: 16, keepAliveTimeout: 60_000 });
  const sandbox = await startSandboxProcess({ articles, units, apiKey: API_KEY, webhookUrl: `${bridgeUrl}/webhooks/pos` });
  let child: ChildProcess | undefined;
  try {
    // Every POS request fails until the bridge has started: its fixed parts are read without a catalog.
    const faulted = await request(`${sandbox.url}/sandbox/faults`, {
      dispatcher: agent,
      method: 'PUT',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ endpoint: '*', mode: 'error', status: 400 }),
    });
    await faulted.body.dump();
    if (faulted.statusCode !== 200) throw new Error(`the fault rule was answered ${faulted.statusCode}`);
    const started = performance.now();
    const measured = fork(
      compiled ?? SCRIPT,
      [
        '--measure',
        ...['--root', root, '--pos', sandbox.url, '--port', String(port), '--dir', dir],
        ...['--idle', String(idleSeconds), '--sales', String(sales), '--fetches', String(fetches)],
      ],
      {
        execArgv: [...(compiled === undefined ? process.execArgv : []), '--expose-gc', '--enable-source-maps'],
        // With the allocator settings of `npm start` (decision 0017).
        env: { ...process.env, ...allocatorEnv(root), TZ: 'UTC' },
        // Its stdout (the bridge's log) goes to stderr: stdout is this report's.
        stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      },
    );
    child = measured;
    measured.stdout?.pipe(process.stderr);
    const report = await new Promise<BridgeReport>((resolve, reject) => {
      measured.on('message', (message: FromBridge) => {
        if (message.type === 'progress') {
          process.stderr.write(`[${Math.round((performance.now() - started) / 1000)} s] ${message.text}\n`);
        } else if (message.type === 'report') resolve(message.report);
        else if (message.type === 'failed') reject(new Error(`the measured process failed: ${message.error}`));
        else {
          answer(message, bridgeUrl, sandbox.url, agent).then(
            (result) => measured.send({ type: 'answer', answer: result } satisfies ToBridge),
            (error: unknown) => {
              reject(error);
              measured.kill('SIGKILL');
            },
          );
        }
      });
      measured.once('exit', (code) => reject(new Error(`the measured process exited with ${code} before its report`)));
    });
    const budget = budgetOf(report);
    printBudget(budget);
    process.stdout.write(
      `${JSON.stringify(
        {
          node: process.version,
          bridge: `startApp from dist/ in ${compiled === undefined ? 'tsx' : 'this script compiled by tsc, plain node'} --expose-gc --enable-source-maps`,
          catalog: { articles, units },
          sales,
          fetches,
          idleSeconds,
          budget,
          served: report.served,
          hwmReset: report.hwmReset,
          steps: report.steps,
          readings: report.readings,
        },
        null,
        2,
      )}\n`,
    );
    if (measured.exitCode === null) await once(measured, 'exit');
  } finally {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await agent.close();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
    if (compiled !== undefined) rmSync(join(compiled, '..', '..'), { recursive: true, force: true });
  }
}

if (process.argv.includes('--measure')) await measuredProcess();
else await main();
