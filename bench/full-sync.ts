/**
 * Full catalog sync from the sandbox POS over loopback (docs/quality-bars.md: 100,000 articles × 5 units in ≤ 30 s,
 * peak RSS ≤ 512 MB, and 100k taking ≤ 2.2× the time of 50k).
 *
 *   npx tsx bench/full-sync.ts [--articles 100000] [--units 5] [--store sqlite|memory] [--runs 1]
 *   npx tsx bench/full-sync.ts --compare [--units 5] [--store sqlite|memory] [--runs 3]   (50k and 100k, ratio)
 *   npx tsx bench/full-sync.ts --pos-concurrency N ...   (POS_CONCURRENCY of the bridge; default: the config default)
 *   npx tsx bench/full-sync.ts --document-threads 2 ...   (SYNC_DOCUMENT_THREADS of the bridge: 1, 2 or auto; default: the config default, auto)
 *   npx tsx bench/full-sync.ts --compiled ...   (worker compiled by tsc and run by plain node, as `npm start` runs)
 *   npx tsx bench/full-sync.ts --timeline ...   (adds RSS and heap used every 100 ms to each run)
 *   npx tsx bench/full-sync.ts --v8-heap-growth ...   (V8's own heap growth, not the 1.5× the bridge sets: decision 0017)
 *   npx tsx bench/full-sync.ts --diagnose ...   (worker with --expose-gc: live heap after a forced GC per phase;
 *                                                 distorts timings, for finding memory only)
 *   npx tsx bench/full-sync.ts --enrichment ROWS ...   (every sync applies an enrichment sheet of ROWS product rows)
 *   FULL_SYNC_NODE_ARGS='--cpu-prof --cpu-prof-dir=DIR' npx tsx bench/full-sync.ts ...   (flags for the sync's
 *                                                 `node`: a profile per thread, or '--trace-gc' to stderr)
 *   BENCH_SANDBOX_ARGS='--cpu-prof --cpu-prof-dir=DIR' npx tsx bench/full-sync.ts ...   (flags for the sandbox's
 *                                                 `node`: what the POS's side costs on the same two cores)
 *   npx tsx bench/full-sync.ts --compare-enrichment [--articles 100000] [--units 5] [--enrichment ROWS] [--runs 3]
 *                                                 (the same catalog without and with a sheet, interleaved; deltas)
 *
 * Each run starts the standalone sandbox (`src/sandbox/main.ts`) as a child process, waits until it
 * listens, then runs the sync in a second child process (this script again, with `--worker`), so the peak
 * RSS (`process.resourceUsage().maxRSS`) is the bridge's alone. The worker wires the real pieces as
 * `src/app/catalog-parts.ts` does: `createPosClient` with the configuration of `createTestConfig`, the keyv store
 * (SQLite in a temp dir by default, the production default; `--store memory` for keyv's in-memory Map),
 * `createCatalogService`, and runs `syncCatalog()` once. Both children run with this process's
 * `execArgv` (tsx's loader), no other Node flags; the sync's child with the `MALLOC_*` settings of `npm start`
 * (`allocator-env.ts`). Prints JSON: per run, the sync's wall time, its phases
 * (from the service's `onPhase` probe), products, outcome, CPU and GC time, peak RSS; then medians.
 * `--compare` interleaves 50k and 100k runs so that drift of a shared machine hits both alike.
 *
 * `--enrichment ROWS` writes a marketer's enrichment sheet (docs/enrichment.md; `bench/enrichment-sheet.ts`:
 * Excel's UTF-8 CSV with `;` and BOM, keyed by `id`, ROWS product rows of ~640 bytes plus one `group:` row per
 * article group) for the sandbox's catalog (the same seed, units and articles) into a temp dir; the worker
 * reads it once and hands it to the service as its `enrichment` dep, so every sync parses and applies it in
 * its worker thread (phase `enrichment`). Rows name products first; rows asked beyond the catalog's products
 * (ROWS of 100,000 with 100,000 articles, of which 96,999 are products) name articles the POS does not sell
 * and are reported `unmatched`. Each run must publish, with the report's `sources.enrichment` counts as the
 * generator expects (`matched` and the rest); a run that does not fails the bench.
 * `--compare-enrichment` interleaves runs without and with the sheet (ROWS defaults to the article count),
 * alternating which goes first each round, and prints the medians and their differences.
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, PerformanceObserver, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { posDocumentReaders } from '../src/adapters/pos/pos-document-readers.js';
import type { EnrichmentReport } from '../src/core/enrichment/apply-enrichment.js';
import { tableBytes } from '../src/core/enrichment/enrichment-table.js';
import type { CatalogWorkers } from '../src/services/catalog/catalog-workers.js';
import type { EnrichmentSyncReport, EnrichmentTableInput } from '../src/services/catalog/enrich-catalog.js';
import { allocatorEnv } from './allocator-env.js';
import { compileScript } from './compile-script.js';
import { type EnrichmentSheetSummary, writeEnrichmentSheet } from './enrichment-sheet.js';
import { nodeFlagsFromEnv } from './node-flags.js';
import { startSandboxProcess } from './sandbox-process.js';

const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = join(SCRIPT, '..', '..');
const API_KEY = 'bench-key';
const MB = 1_048_576;

type StoreKind = 'sqlite' | 'memory';

/** The sync report's `sources.enrichment`, without its problem examples (zeros when there is none). */
type EnrichmentResult = { readonly sheetBytes: number } & Omit<
  EnrichmentReport,
  'keyColumn' | 'problems' | 'fields' | 'problemCounts'
> & { readonly fields: Record<string, number>; readonly problemCounts: Record<string, number> };

interface WorkerResult {
  readonly articles: number;
  readonly units: number;
  readonly store: StoreKind;
  readonly outcome: string;
  readonly products: number | undefined;
  readonly error?: unknown;
  /** Wall time of `syncCatalog()` as the bench measured it. */
  readonly wallMs: number;
  /** Wall time of each sequential phase (ms): units, articles, sources (the whole per-unit stage), merge, fingerprint, publish. */
  readonly phases: Record<string, number>;
  /** Per unit (ms): `price-list` and `stock` (fetch and parse) and `unit-merge` (merging its documents); units overlap. */
  readonly perUnitMs: Record<string, Record<string, number>>;
  /** Highest RSS sampled (every 20 ms and at each phase end) while each sequential phase ran (MiB). */
  readonly phasePeakRssMb: Record<string, number>;
  readonly cpuMs: { readonly user: number; readonly system: number };
  readonly gc: { readonly count: number; readonly ms: number; readonly majorCount: number; readonly majorMs: number };
  /**
   * `--timeline` only, every 100 ms: [ms since the sync started, RSS, V8 heap committed, heap used,
   * ArrayBuffers (MiB), the phase that ended last].
   */
  readonly timeline?: [number, number, number, number, number, string][];
  readonly syncStartedAtMs?: number;
  /** Largest V8 heap (committed, MiB) sampled: the part of the RSS the JS heap accounts for. */
  readonly peakHeapTotalMb: number;
  /** V8's own malloc'ed memory (compiler zones and the like) at its peak (MiB): RSS outside the JS heap. */
  readonly peakV8MallocedMb: number;
  /** The V8 spaces (committed MiB) when the heap was largest. */
  readonly peakHeapSpacesMb: Record<string, number>;
  /** `--diagnose` only: heap in use after a forced full GC at each phase end (MiB), i.e. what is really live. */
  readonly phaseLiveHeapMb?: Record<string, number>;
  /** RSS after the modules were loaded, before the sync (MiB). */
  readonly baselineRssMb: number;
  /** `process.resourceUsage().maxRSS` at the end (MiB): the bar's figure. */
  readonly peakRssMb: number;
  readonly heapUsedAfterMb: number;
  readonly storeBytes?: number;
  /** `--enrichment` only: what the sync report says about the sheet it applied. */
  readonly enrichment?: EnrichmentResult;
  /**
   * `--enrichment` only: reading the sheet into its table before the sync (in a worker, as the app does when
   * it adopts a sheet): wall time, RSS after it, and the process's peak RSS up to then (MiB).
   */
  readonly sheetCompile?: {
    readonly ms: number;
    /** The table's shared buffers (MiB). */
    readonly tableMb: number;
    readonly rssAfterMb: number;
    readonly peakRssMb: number;
  };
}

interface RunResult extends WorkerResult {
  /** CPU time the sandbox process spent while the worker ran (ms), from /proc; absent elsewhere. */
  readonly sandboxCpuMs?: number;
}

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? undefined : process.argv[index + 1];
}

function numberOption(name: string, fallback: number): number {
  const raw = option(name);
  const value = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

function storeOption(): StoreKind {
  const raw = option('store') ?? 'sqlite';
  if (raw !== 'sqlite' && raw !== 'memory') throw new Error(`--store must be sqlite or memory, not ${raw}`);
  return raw;
}

const round = (value: number): number => Math.round(value);
const toMb = (bytes: number): number => Math.round(bytes / MB);

// ---------------------------------------------------------------------------------------------------
// Worker: one sync, in its own process.

async function worker(): Promise<void> {
  const url = option('url');
  if (url === undefined) throw new Error('--worker needs --url');
  const store = storeOption();
  const articles = numberOption('articles', 0);
  const units = numberOption('units', 0);

  // As the process entries set it (decision 0017): the worker threads created below have it too.
  if (!process.argv.includes('--v8-heap-growth')) (await import('../src/workers/heap-growth.js')).limitHeapGrowth();
  const [
    { createPosClient },
    { openKeyv },
    { createKeyvCatalogStore },
    { createTestConfig },
    { createLogger },
    service,
    { createCatalogWorkers },
    { createInThreadCatalogWorkers },
  ] = await Promise.all([
    import('../src/adapters/pos/pos-client.js'),
    import('../src/adapters/store/create-keyv.js'),
    import('../src/adapters/store/keyv-catalog-store.js'),
    import('../test/helpers/test-config.js'),
    import('../src/adapters/logger/create-logger.js'),
    import('../src/services/catalog/catalog-service.js'),
    import('../src/workers/create-catalog-workers.js'),
    import('../src/services/catalog/catalog-workers.js'),
  ]);
  type CatalogMeta = import('../src/services/catalog/catalog-service.js').CatalogMeta;

  const dir = store === 'sqlite' ? mkdtempSync(join(tmpdir(), 'full-sync-')) : undefined;
  const storeUrl = dir === undefined ? 'memory://' : `sqlite://${join(dir, 'catalog.sqlite')}`;
  const concurrency = option('pos-concurrency');
  const documentThreads = option('document-threads');
  const config = createTestConfig({
    POS_BASE_URL: url,
    POS_API_KEY: API_KEY,
    STORE_URL: storeUrl,
    ...(concurrency === undefined ? {} : { POS_CONCURRENCY: concurrency }),
    ...(documentThreads === undefined ? {} : { SYNC_DOCUMENT_THREADS: documentThreads }),
  });
  const logger = createLogger(config.logLevel);
  const sheetPath = option('enrichment-file');

  let gcCount = 0;
  let gcMs = 0;
  let majorCount = 0;
  let majorMs = 0;
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcCount += 1;
      gcMs += entry.duration;
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        majorCount += 1;
        majorMs += entry.duration;
      }
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });

  // Peak RSS per sequential phase; the sampler cannot run during synchronous work, so each phase end samples too.
  let windowPeak = 0;
  let peakHeapTotal = 0;
  let lastPhase = 'start';
  let syncStarted = 0;
  const timeline: [number, number, number, number, number, string][] | undefined = process.argv.includes('--timeline')
    ? []
    : undefined;
  const timelineSampler =
    timeline === undefined
      ? undefined
      : setInterval(() => {
          const memory = process.memoryUsage();
          timeline.push([
            round(performance.now() - syncStarted),
            toMb(memory.rss),
            toMb(memory.heapTotal),
            toMb(memory.heapUsed),
            toMb(memory.arrayBuffers),
            lastPhase,
          ]);
        }, 100);
  let peakSpaces: Record<string, number> = {};
  const sample = (): void => {
    windowPeak = Math.max(windowPeak, process.memoryUsage.rss());
    const heapTotal = getHeapStatistics().total_heap_size;
    if (heapTotal > peakHeapTotal) {
      peakHeapTotal = heapTotal;
      // Which V8 spaces the largest heap was made of (MiB committed), to see where garbage sat.
      peakSpaces = Object.fromEntries(getHeapSpaceStatistics().map((space) => [space.space_name, toMb(space.space_size)]));
    }
  };
  const sampler = setInterval(sample, 20);
  const phases: Record<string, number> = {};
  const perUnitMs: Record<string, Record<string, number>> = {};
  const phasePeakRssMb: Record<string, number> = {};
  // Only with `--diagnose` (the worker then runs with --expose-gc): a forced full GC at each phase end shows the
  // live heap. It distorts the timings, so diagnostic runs are not measurements of the bar.
  const forceGc = (globalThis as { gc?: () => void }).gc;
  const phaseLiveHeapMb: Record<string, number> = {};

  const opened = openKeyv(config.store.url);
  // A store of its own per run: any fixed source will do.
  const BENCH_SOURCE = { id: 'bench:full-sync', label: 'the full-sync benchmark' };
  const catalogStore = createKeyvCatalogStore<CatalogMeta>(opened.keyv, { source: BENCH_SOURCE });
  const internalStore = createKeyvCatalogStore<{ version: string }>(opened.keyv, { source: BENCH_SOURCE, prefix: 'internal' });
  const posConfig = { ...config.pos, baseUrl: url, apiKey: API_KEY };
  const pos = createPosClient({ config: posConfig, logger: logger.child({}) });
  // As the app wires it: reading and merging in a worker thread (`--in-thread` for the calling thread).
  const workers = process.argv.includes('--in-thread')
    ? createInThreadCatalogWorkers({ pos, documents: posDocumentReaders })
    : createCatalogWorkers({ pos: posConfig });
  // The sheet, read once into its table in a worker, as the app's enrichment service does when it adopts a
  // sheet (before any sync applies it); every sync is handed that table in shared memory.
  const compileFrom = performance.now();
  const sheet = sheetPath === undefined ? undefined : await compileSheet(workers, sheetPath);
  const sheetCompile =
    sheet === undefined
      ? undefined
      : {
          ms: round(performance.now() - compileFrom),
          tableMb: toMb(tableBytes(sheet.table)),
          rssAfterMb: toMb(process.memoryUsage.rss()),
          peakRssMb: toMb(maxRss()),
        };
  const catalog = service.createCatalogService({
    workers,
    store: catalogStore,
    internalStore,
    logger: logger.child({}),
    now: () => new Date(),
    options: service.catalogServiceOptions(config),
    ...(sheet === undefined ? {} : { enrichment: async () => sheet }),
    onPhase(phase, ms, unit) {
      sample();
      lastPhase = unit === undefined ? phase : `${phase}:${unit}`;
      if (unit !== undefined) {
        const byUnit = perUnitMs[phase] ?? {};
        byUnit[unit] = round((byUnit[unit] ?? 0) + ms);
        perUnitMs[phase] = byUnit;
      } else {
        phases[phase] = round(ms);
        phasePeakRssMb[phase] = toMb(windowPeak);
        windowPeak = 0;
        if (forceGc !== undefined) {
          forceGc();
          phaseLiveHeapMb[phase] = toMb(process.memoryUsage().heapUsed);
        }
      }
    },
  });

  const baselineRss = process.memoryUsage.rss();
  windowPeak = baselineRss;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  syncStarted = started;
  const report = await catalog.syncCatalog();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  sample();
  phasePeakRssMb['finish'] = toMb(windowPeak);
  clearInterval(sampler);
  if (timelineSampler !== undefined) clearInterval(timelineSampler);
  // GC entries are delivered asynchronously: give the observer a turn before reading the totals.
  await new Promise((resolve) => setTimeout(resolve, 50));
  gcObserver.disconnect();

  const result: WorkerResult = {
    articles,
    units,
    store,
    outcome: report.outcome,
    products: report.products,
    ...(report.error === undefined ? {} : { error: report.error }),
    wallMs: round(wallMs),
    phases,
    perUnitMs,
    phasePeakRssMb,
    ...(forceGc === undefined ? {} : { phaseLiveHeapMb }),
    // With the timeline, also when the sync started (ms since the process started), to line up with --trace-gc.
    ...(timeline === undefined ? {} : { timeline, syncStartedAtMs: round(started) }),
    cpuMs: { user: round(cpu.user / 1000), system: round(cpu.system / 1000) },
    gc: { count: gcCount, ms: round(gcMs), majorCount, majorMs: round(majorMs) },
    peakHeapTotalMb: toMb(peakHeapTotal),
    peakV8MallocedMb: toMb(getHeapStatistics().peak_malloced_memory),
    peakHeapSpacesMb: peakSpaces,
    baselineRssMb: toMb(baselineRss),
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    heapUsedAfterMb: toMb(process.memoryUsage().heapUsed),
    ...(dir === undefined ? {} : { storeBytes: statSync(join(dir, 'catalog.sqlite')).size }),
    ...(sheet === undefined
      ? {}
      : {
          enrichment: enrichmentResultOf(sheet.sheetBytes, report.sources?.enrichment),
          ...(sheetCompile === undefined ? {} : { sheetCompile }),
        }),
  };
  await workers.close();
  await pos.close();
  await catalogStore.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** The sheet at `path` read into its table in a worker thread, as the enrichment service adopts a sheet. */
async function compileSheet(
  workers: CatalogWorkers,
  path: string,
): Promise<EnrichmentTableInput & { readonly sheetBytes: number }> {
  const bytes = readShared(path);
  const fetchedAt = new Date().toISOString();
  const compiled = await workers.checkEnrichment({ bytes, name: 'enrichment.csv', fetchedAt });
  if (compiled.table === undefined) throw new Error(`the bench's sheet cannot be used: ${compiled.check.error ?? '?'}`);
  return { table: compiled.table, name: 'enrichment.csv', fetchedAt, sheetBytes: bytes.byteLength };
}

/** A file's bytes read straight into shared memory, as the enrichment source reads a sheet (no second copy). */
function readShared(path: string): Uint8Array {
  const bytes = new Uint8Array(new SharedArrayBuffer(statSync(path).size));
  const fd = openSync(path, 'r');
  try {
    let read = 0;
    while (read < bytes.length) {
      const got = readSync(fd, bytes, read, bytes.length - read, read);
      if (got === 0) throw new Error(`${path} ended early`);
      read += got;
    }
  } finally {
    closeSync(fd);
  }
  return bytes;
}

function maxRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

/** The counts of the report's `sources.enrichment` (zeros when the report has none: a failed sync). */
function enrichmentResultOf(sheetBytes: number, report: EnrichmentSyncReport | undefined): EnrichmentResult {
  return {
    sheetBytes,
    rows: report?.rows ?? 0,
    groups: report?.groups ?? 0,
    matched: report?.matched ?? 0,
    unmatched: report?.unmatched ?? 0,
    ambiguous: report?.ambiguous ?? 0,
    duplicates: report?.duplicates ?? 0,
    groupsUnmatched: report?.groupsUnmatched ?? 0,
    enrichedProducts: report?.enrichedProducts ?? 0,
    fields: { ...report?.fields },
    problemCount: report?.problemCount ?? 0,
    problemCounts: { ...report?.problemCounts },
  };
}

// ---------------------------------------------------------------------------------------------------
// Parent: sandbox child + worker child per run.

/** utime + stime of a process in ms, from /proc (Linux); `undefined` where that is not readable. */
function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command: state(0) … utime(11) stime(12), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

async function runWorker(
  url: string,
  articles: number,
  units: number,
  store: StoreKind,
  compiled: string | undefined,
  sheet: EnrichmentSheetSummary | undefined,
): Promise<WorkerResult> {
  // `--diagnose` adds --expose-gc to the worker (forced GCs at phase ends); never for measurements of the bar.
  const diagnose = process.argv.includes('--diagnose') ? ['--expose-gc'] : [];
  // `FULL_SYNC_NODE_ARGS='--cpu-prof --cpu-prof-dir=DIR'`: how the sync's threads spend their CPU (Node refuses
  // the profiler's flags in NODE_OPTIONS). Every thread writes its own profile.
  const extraNodeArgs = nodeFlagsFromEnv('FULL_SYNC_NODE_ARGS');
  const child = spawn(
    process.execPath,
    [
      ...(compiled === undefined ? process.execArgv : []),
      ...diagnose,
      ...extraNodeArgs,
      compiled ?? SCRIPT,
      '--worker',
      '--url',
      url,
      '--articles',
      String(articles),
      '--units',
      String(units),
      '--store',
      store,
      ...(option('pos-concurrency') === undefined ? [] : ['--pos-concurrency', option('pos-concurrency') ?? '']),
      ...(option('document-threads') === undefined ? [] : ['--document-threads', option('document-threads') ?? '']),
      ...(process.argv.includes('--timeline') ? ['--timeline'] : []),
      ...(process.argv.includes('--v8-heap-growth') ? ['--v8-heap-growth'] : []),
      ...(sheet === undefined ? [] : ['--enrichment-file', sheet.path]),
    ],
    // The allocator settings of `npm start` (decision 0017), as the bridge runs.
    { cwd: ROOT, env: { ...process.env, ...allocatorEnv(ROOT), TZ: 'UTC' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  const lines = output.trim().split('\n');
  const line = lines.findLast((candidate) => candidate.startsWith('{')) ?? '';
  // Anything else the flags wrote goes to stderr, for reading.
  for (const other of lines) if (other !== line && other !== '') process.stderr.write(`${other}\n`);
  if (code !== 0 || line === '') throw new Error(`worker exited with ${code}:\n${output}`);
  return JSON.parse(line) as WorkerResult;
}

/**
 * A run with a sheet must publish, and its report must count what the generator wrote: every row that names
 * a product matched, the others unmatched, every group row matched. Throws otherwise (the bench fails).
 */
function checkEnrichment(result: WorkerResult, sheet: EnrichmentSheetSummary): void {
  const got = result.enrichment;
  const expected = {
    rows: sheet.rows,
    groups: sheet.groups,
    matched: sheet.expectedMatched,
    unmatched: sheet.expectedUnmatched,
    groupsUnmatched: sheet.expectedGroupsUnmatched,
    enrichedProducts: sheet.expectedEnrichedProducts,
  };
  const wrong = Object.entries(expected).filter(([key, value]) => got?.[key as keyof typeof expected] !== value);
  if (result.outcome !== 'published' || wrong.length > 0) {
    throw new Error(
      `the sync with the enrichment sheet did not come out as expected: outcome ${result.outcome}` +
        `${result.error === undefined ? '' : ` (${JSON.stringify(result.error)})`}; ` +
        `expected ${JSON.stringify(expected)}, the report says ${JSON.stringify(got)}`,
    );
  }
}

async function runOnce(
  articles: number,
  units: number,
  store: StoreKind,
  compiled: string | undefined,
  sheet?: EnrichmentSheetSummary,
): Promise<RunResult> {
  const sandbox = await startSandboxProcess({ articles, units, apiKey: API_KEY });
  try {
    const cpuBefore = processCpuMs(sandbox.child.pid);
    const result = await runWorker(sandbox.url, articles, units, store, compiled, sheet);
    const cpuAfter = processCpuMs(sandbox.child.pid);
    const sandboxCpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
    const enriched =
      result.enrichment === undefined
        ? ''
        : `, sheet: ${result.enrichment.matched} of ${result.enrichment.rows} rows matched, ` +
          `${result.enrichment.enrichedProducts} products enriched, enrichment phase ${result.phases['enrichment'] ?? '?'} ms`;
    process.stderr.write(
      `  ${articles} × ${units} (${store}): ${result.outcome}, ${result.products ?? 0} products, ` +
        `${(result.wallMs / 1000).toFixed(1)} s, peak RSS ${result.peakRssMb} MiB${enriched}\n`,
    );
    if (sheet !== undefined) checkEnrichment(result, sheet);
    return sandboxCpuMs === undefined ? result : { ...result, sandboxCpuMs };
  } finally {
    await sandbox.stop();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 === 1 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  return value ?? Number.NaN;
}

function summarize(runs: readonly RunResult[]): Record<string, unknown> {
  const phaseNames = [...new Set(runs.flatMap((run) => Object.keys(run.phases)))];
  const peakPhaseNames = [...new Set(runs.flatMap((run) => Object.keys(run.phasePeakRssMb)))];
  return {
    runs: runs.length,
    outcomes: [...new Set(runs.map((run) => run.outcome))],
    wallMs: { median: median(runs.map((run) => run.wallMs)), all: runs.map((run) => run.wallMs) },
    peakRssMb: { median: median(runs.map((run) => run.peakRssMb)), all: runs.map((run) => run.peakRssMb) },
    phasesMedianMs: Object.fromEntries(phaseNames.map((name) => [name, median(runs.map((run) => run.phases[name] ?? 0))])),
    phasePeakRssMbMedian: Object.fromEntries(
      peakPhaseNames.map((name) => [name, median(runs.map((run) => run.phasePeakRssMb[name] ?? 0))]),
    ),
    cpuMsMedian: median(runs.map((run) => run.cpuMs.user + run.cpuMs.system)),
    gcMsMedian: median(runs.map((run) => run.gc.ms)),
    ...(runs.some((run) => run.storeBytes !== undefined)
      ? { storeBytesMedian: median(runs.map((run) => run.storeBytes ?? 0)) }
      : {}),
  };
}

/** One kind of run of this invocation: a catalog size, with or without a sheet. */
interface Variant {
  readonly key: string;
  readonly articles: number;
  readonly sheet?: EnrichmentSheetSummary;
}

/** The sandbox's seed, as the sandbox child resolves it (SANDBOX_SEED, else the default), pinned for the child. */
async function pinnedSandboxSeed(): Promise<number> {
  const { createTestConfig } = await import('../test/helpers/test-config.js');
  const seed = createTestConfig({ SANDBOX_SEED: process.env['SANDBOX_SEED'] }).sandbox.seed;
  // The child inherits this process's environment, which a .env file does not override.
  process.env['SANDBOX_SEED'] = String(seed);
  return seed;
}

/** Differences of the medians with and without the sheet (`--compare-enrichment`). */
function enrichmentDelta(without: readonly RunResult[], withSheet: readonly RunResult[]): Record<string, unknown> {
  const medianOf = (runs: readonly RunResult[], pick: (run: RunResult) => number): number => median(runs.map(pick));
  const wallWithout = medianOf(without, (run) => run.wallMs);
  const wallWith = medianOf(withSheet, (run) => run.wallMs);
  const rssWithout = medianOf(without, (run) => run.peakRssMb);
  const rssWith = medianOf(withSheet, (run) => run.peakRssMb);
  const phaseNames = [...new Set([...without, ...withSheet].flatMap((run) => Object.keys(run.phases)))];
  return {
    wallMs: { without: wallWithout, with: wallWith, added: wallWith - wallWithout },
    addedWallPercent: Math.round(((wallWith - wallWithout) / wallWithout) * 1000) / 10,
    enrichmentPhaseMs: {
      median: medianOf(withSheet, (run) => run.phases['enrichment'] ?? 0),
      all: withSheet.map((run) => run.phases['enrichment'] ?? 0),
    },
    peakRssMb: { without: rssWithout, with: rssWith, added: rssWith - rssWithout },
    cpuMs: {
      without: medianOf(without, (run) => run.cpuMs.user + run.cpuMs.system),
      with: medianOf(withSheet, (run) => run.cpuMs.user + run.cpuMs.system),
    },
    addedPhasesMs: Object.fromEntries(
      phaseNames.map((name) => [
        name,
        medianOf(withSheet, (run) => run.phases[name] ?? 0) - medianOf(without, (run) => run.phases[name] ?? 0),
      ]),
    ),
    // Round by round (the two runs of a round ran back to back).
    perRound: withSheet.map((run, index) => ({
      addedWallMs: run.wallMs - (without[index]?.wallMs ?? Number.NaN),
      addedPeakRssMb: run.peakRssMb - (without[index]?.peakRssMb ?? Number.NaN),
    })),
  };
}

async function main(): Promise<void> {
  if (process.argv.includes('--worker')) {
    await worker();
    return;
  }
  const units = numberOption('units', 5);
  const store = storeOption();
  const compare = process.argv.includes('--compare');
  const compareEnrichment = process.argv.includes('--compare-enrichment');
  if (compare && compareEnrichment) throw new Error('--compare and --compare-enrichment do not go together');
  const runs = numberOption('runs', compare || compareEnrichment ? 3 : 1);
  const articles = numberOption('articles', 100_000);
  const sheetRows = compareEnrichment
    ? numberOption('enrichment', articles)
    : option('enrichment') === undefined
      ? undefined
      : numberOption('enrichment', Number.NaN);
  if (sheetRows !== undefined && !Number.isFinite(sheetRows)) throw new Error('--enrichment needs a number of rows');

  const sheetDir = sheetRows === undefined ? undefined : mkdtempSync(join(tmpdir(), 'full-sync-sheet-'));
  const seed = sheetRows === undefined ? undefined : await pinnedSandboxSeed();
  const sheetFor = (size: number): EnrichmentSheetSummary | undefined => {
    if (sheetDir === undefined || seed === undefined || sheetRows === undefined) return undefined;
    const started = performance.now();
    const sheet = writeEnrichmentSheet(join(sheetDir, `enrichment-${size}.csv`), {
      seed,
      units,
      articles: size,
      rows: sheetRows,
    });
    process.stderr.write(
      `enrichment sheet for ${size} × ${units} (seed ${seed}): ${sheet.rows} product rows ` +
        `(${sheet.expectedMatched} name products), ${sheet.groups} group rows, ${(sheet.bytes / MB).toFixed(1)} MiB, ` +
        `written in ${round(performance.now() - started)} ms\n`,
    );
    return sheet;
  };

  const compiled = process.argv.includes('--compiled') ? compileScript(SCRIPT) : undefined;
  let variants: Variant[] = [];
  const results = new Map<string, RunResult[]>();
  try {
    if (compareEnrichment) {
      const sheet = sheetFor(articles);
      variants = [
        { key: 'without', articles },
        { key: 'with', articles, ...(sheet === undefined ? {} : { sheet }) },
      ];
    } else {
      variants = (compare ? [50_000, 100_000] : [articles]).map((size) => {
        const sheet = sheetFor(size);
        return { key: String(size), articles: size, ...(sheet === undefined ? {} : { sheet }) };
      });
    }
    for (const variant of variants) results.set(variant.key, []);
    for (let run = 1; run <= runs; run++) {
      // Without and with the sheet take turns going first, so that drift within a round hits both alike.
      const order = compareEnrichment && run % 2 === 0 ? [...variants].reverse() : variants;
      for (const variant of order) {
        process.stderr.write(`run ${run}/${runs}${compareEnrichment ? ` (${variant.key} the sheet)` : ''}\n`);
        const result = await runOnce(variant.articles, units, store, compiled, variant.sheet);
        if (compareEnrichment && result.outcome !== 'published')
          throw new Error(`the run ${variant.key} the sheet ended ${result.outcome}: ${JSON.stringify(result.error)}`);
        results.get(variant.key)?.push(result);
      }
    }
  } finally {
    if (compiled !== undefined) rmSync(join(compiled, '..', '..'), { recursive: true, force: true });
    if (sheetDir !== undefined) rmSync(sheetDir, { recursive: true, force: true });
  }
  const summaries = Object.fromEntries(variants.map((variant) => [variant.key, summarize(results.get(variant.key) ?? [])]));
  const sheets = variants.flatMap((variant) => (variant.sheet === undefined ? [] : [variant.sheet]));
  const output: Record<string, unknown> = {
    node: process.version,
    worker: compiled === undefined ? 'tsx' : 'compiled (plain node)',
    ...(compareEnrichment ? { articles } : {}),
    units,
    store,
    ...(sheets.length === 0
      ? {}
      : {
          enrichmentSheets: sheets.map(({ path: _path, ...sheet }) => ({
            ...sheet,
            mib: Math.round((sheet.bytes / MB) * 10) / 10,
          })),
        }),
    summaries,
    runs: Object.fromEntries(variants.map((variant) => [variant.key, results.get(variant.key)])),
  };
  if (compare) {
    const small = results.get('50000') ?? [];
    const large = results.get('100000') ?? [];
    const ratio = median(large.map((run) => run.wallMs)) / median(small.map((run) => run.wallMs));
    output['ratio100kTo50k'] = {
      ofMedians: Math.round(ratio * 100) / 100,
      perRound: large.map((run, index) => Math.round((run.wallMs / (small[index]?.wallMs ?? Number.NaN)) * 100) / 100),
    };
  }
  if (compareEnrichment) {
    const delta = enrichmentDelta(results.get('without') ?? [], results.get('with') ?? []);
    output['enrichmentDelta'] = delta;
    const wall = delta['wallMs'] as { without: number; with: number; added: number };
    const rss = delta['peakRssMb'] as { without: number; with: number; added: number };
    const phase = delta['enrichmentPhaseMs'] as { median: number };
    process.stderr.write(
      `\nmedians of ${runs} rounds, ${articles} × ${units}:\n` +
        `  without the sheet: wall ${(wall.without / 1000).toFixed(1)} s, peak RSS ${rss.without} MiB\n` +
        `  with the sheet:    wall ${(wall.with / 1000).toFixed(1)} s (enrichment phase ${(phase.median / 1000).toFixed(1)} s), ` +
        `peak RSS ${rss.with} MiB\n` +
        `  added:             ${(wall.added / 1000).toFixed(1)} s, ${rss.added} MiB\n`,
    );
  }
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
}

await main();
