/**
 * The main thread never stalls (docs/quality-bars.md): event-loop delay and outside probes while the bridge works.
 *
 *   npx tsx bench/event-loop.ts [--articles 100000] [--units 5] [--rate 50] [--seconds 20] [--enrichment ROWS]
 *                               [--tsx] [--stalls] [--memory] [--profile DIR]
 *
 * Three processes: the standalone sandbox POS (its webhooks pointed at the bridge), the bridge
 * (`startApp` as `npm start` wires it: SQLite store in a temp dir, worker threads, no scheduled syncs),
 * compiled by tsc and run by plain `node` unless `--tsx`, and this one, which probes the bridge from the
 * outside every 20 ms: `GET /healthz`, and a conditional `GET /feeds/all/google.xml` (gzip, with the
 * ETag of the last answer, as a poller sends it). Phases, one after another:
 *  - `sync`: the first full sync, from an empty store;
 *  - `prerender`: pre-rendering every feed of the `all` view after it;
 *  - `burst`: `--rate` sales a second for `--seconds` through the sandbox, each delivered as a webhook,
 *    until the bridge has processed them and pre-rendered again;
 *  - `resync`: a second full sync (`POST /admin/sync?wait=true`), as the schedule runs it.
 * `--enrichment ROWS`: a marketer's enrichment sheet of ROWS product rows (`bench/enrichment-sheet.ts`, for
 * the sandbox's catalog: the same seed, units and articles; ~61 MB at 100,000) in a temp file, the bridge
 * started with `ENRICHMENT_SOURCE` set to it (no scheduled re-reads). `sync` then begins with the app's
 * first read of the sheet (64 KiB chunks into shared memory, checked in a worker, stored in slices) and
 * every full sync applies it. Two phases more:
 *  - `resync-prerender`: until the bridge is idle after the re-sync (its pre-render), as after the burst;
 *  - `sheet-change`: the file replaced by the sheet's next version (every title changed: another size and
 *    modification time; written before the probes start and renamed into place, so that this process
 *    does no work meanwhile), then `app.jobs.runNow('sync-enrichment')`: the re-read, check and store, the
 *    full sync it starts, and the pre-render after it, until the new version's feeds are served. After the
 *    run the served `google.xml` is fetched once to check that it carries the new titles; the report's
 *    sheet counts of both syncs are checked against the generator's.
 * Per phase: the bridge's own event-loop delay (`monitorEventLoopDelay`, 10 ms resolution, reset at each
 * phase), the probes' latencies and statuses, and the feed probe's timeline (what it got first and each
 * time the status or the served version changed). Bars: delay max ≤ 100 ms; each probe p99 ≤ 50 ms and
 * max ≤ 150 ms. With `--enrichment`, after the run, the `all` view's pre-rendered feeds are rendered once
 * more to report what the feed cache holds for them (`encodedSize`) beside its budget. Prints JSON.
 *
 * `--stalls` logs every stretch over 100 ms the bridge's event loop was held, `--memory` RSS, heap and
 * GCs over 30 ms (kind and flags, ending on the same clock as the stalls), `--profile DIR` writes CPU
 * profiles of the bridge's threads, on whose clock the stalls are logged.
 */

import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { numberArgument } from './bench-args.js';
import { compileScript } from './compile-script.js';
import type { EnrichmentSheetSummary } from './enrichment-sheet.js';
import { freePort } from './free-port.js';
import { startSandboxProcess } from './sandbox-process.js';

const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = join(SCRIPT, '..', '..');
const API_KEY = 'bench-key';
const ADMIN_TOKEN = 'bench-admin';
const PROBE_INTERVAL_MS = 20;
/** Every title of the sheet's next version begins with it (`sheet-change`). */
const CHANGED_TITLE_PREFIX = 'Nově: ';
const MB = 1024 * 1024;

/** Messages between this process and the bridge child. */
type ToBridge =
  | { readonly type: 'phase'; readonly name: string }
  | { readonly type: 'report' }
  | { readonly type: 'stop' }
  | { readonly type: 'wait-idle' }
  | { readonly type: 'sheet-change' }
  | { readonly type: 'feed-sizes' };
type FromBridge =
  | { readonly type: 'listening'; readonly url: string }
  | {
      readonly type: 'synced';
      readonly outcome: string;
      readonly enrichment?: SheetCounts;
      /** From listening until the full sync began: the first read of the sheet (`--enrichment`). */
      readonly sheetReadMs?: number;
    }
  | { readonly type: 'prerendered' }
  | { readonly type: 'idle' }
  | { readonly type: 'sheet-changed'; readonly change: SheetChange }
  | { readonly type: 'feed-sizes'; readonly sizes: FeedSizes }
  | { readonly type: 'delay'; readonly phase: string; readonly delay: DelaySummary; readonly rssMb: number };

/** What a full sync's report says of the sheet it applied (`sources.enrichment`). */
interface SheetCounts {
  readonly name: string;
  readonly rows: number;
  readonly groups: number;
  readonly matched: number;
  readonly unmatched: number;
  readonly enrichedProducts: number;
  readonly problemCount: number;
}

/** The pre-rendered feeds of the `all` view, rendered once more after the run: what the feed cache must hold. */
interface FeedSizes {
  /** FEED_CACHE_MB, in MiB. */
  readonly cacheMiB: number;
  /** What the cache holds for them (`encodedSize`: gzip + br), in MiB. */
  readonly totalMiB: number;
  /** Their identity bodies (not held: inflated from gzip per request), in MiB. */
  readonly identityMiB: number;
  /** Per file: what the cache holds, in MiB. */
  readonly files: Record<string, number>;
}

/** The `sheet-change` phase as the bridge saw it, in ms from its start. */
interface SheetChange {
  /** `sync-enrichment`'s outcome: `adopted` for a changed sheet. */
  readonly refresh: string;
  /** Re-read, checked in a worker and stored. */
  readonly adoptedMs: number;
  /** The full sync it started has ended. */
  readonly syncedMs: number;
  readonly syncOutcome: string;
  /** Its `all` feeds pre-rendered. */
  readonly prerenderedMs: number;
  readonly enrichment?: SheetCounts;
}

interface DelaySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

// ---------------------------------------------------------------------------------------------------
// The bridge, in its own process.

async function bridge(): Promise<void> {
  const [{ monitorEventLoopDelay }, { pino }, { startApp }, { createTestConfig }, { encodedSize }] = await Promise.all([
    import('node:perf_hooks'),
    import('pino'),
    import('../src/app/start-app.js'),
    import('../test/helpers/test-config.js'),
    import('../src/services/feeds/encoded-feed.js'),
  ]);
  const send = (message: FromBridge) => process.send?.(message);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let phase = 'start';
  let peakRss = 0;
  const memoryLog = process.argv.includes('--memory');
  if (process.argv.includes('--stalls')) {
    // Logs every stretch the event loop was held for over 100 ms, with the monotonic clock in µs (the
    // clock of `--cpu-prof` profiles), to find in a profile what held it.
    let last = process.hrtime.bigint();
    setInterval(() => {
      const now = process.hrtime.bigint();
      const lateMs = Number(now - last) / 1e6 - 10;
      if (lateMs > 100) process.stderr.write(`[${phase}] stall ${Math.round(lateMs)} ms ending at ${now / 1000n}\n`);
      last = now;
    }, 10).unref();
  }
  if (memoryLog) {
    const { PerformanceObserver } = await import('node:perf_hooks');
    // The stall log's clock (`process.hrtime`, µs) at `performance.now()` 0, in ms.
    const hrtimeOrigin = Number(process.hrtime.bigint()) / 1e6 - performance.now();
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (entry.duration < 30) continue;
        // kind: 1 minor (scavenge), 4 major (mark-compact), 8 incremental marking, 16 weak callbacks;
        // flags: 4 forced, 16 all available garbage, 32 all external memory (external memory pressure).
        const { kind, flags } = (entry as { detail?: { kind?: number; flags?: number } }).detail ?? {};
        process.stderr.write(
          `[${phase}] gc kind=${kind} flags=${flags} ${Math.round(entry.duration)} ms ending at ${Math.round((hrtimeOrigin + entry.startTime + entry.duration) * 1000)}\n`,
        );
      }
    }).observe({ entryTypes: ['gc'] });
  }
  let ticks = 0;
  const rssTimer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    ticks += 1;
    if (memoryLog && ticks % 20 === 0) {
      const usage = process.memoryUsage();
      const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
      process.stderr.write(
        `[${phase}] rss=${mb(usage.rss)} heapUsed=${mb(usage.heapUsed)} external=${mb(usage.external)} arrayBuffers=${mb(usage.arrayBuffers)}\n`,
      );
    }
  }, 100);
  function report(): void {
    const late = (ns: number) => Math.max(0, Math.round((ns / 1e6 - 10) * 10) / 10);
    send({
      type: 'delay',
      phase,
      delay: { count: delay.count, p50: late(delay.percentile(50)), p99: late(delay.percentile(99)), max: late(delay.max) },
      rssMb: Math.round(Math.max(peakRss, process.memoryUsage.rss()) / 2 ** 20),
    });
    delay.reset();
    peakRss = 0;
  }
  const sheetFile = process.argv.includes('--enrichment-file') ? option('enrichment-file') : undefined;
  const config = createTestConfig({
    POS_BASE_URL: option('pos'),
    POS_API_KEY: API_KEY,
    PORT: option('port'),
    HOST: '127.0.0.1',
    STORE_URL: `sqlite://${join(option('dir'), 'catalog.sqlite')}`,
    FEED_TEMPLATES_DIR: option('templates'),
    FEED_PRODUCT_URL: 'https://shop.example/p/{id}',
    FEED_IMAGE_URL: 'https://shop.example/i/{id}.jpg',
    ADMIN_TOKEN,
    CATALOG_SYNC_CRON: '0 0 1 1 *',
    STOCK_SYNC_CRON: '0 0 1 1 *',
    ...(sheetFile === undefined ? {} : { ENRICHMENT_SOURCE: sheetFile, ENRICHMENT_SYNC_CRON: '0 0 1 1 *' }),
  });
  const app = await startApp(config, { logger: pino({ level: 'warn' }) });
  const listeningAt = performance.now();
  // The app reads the sheet before its first full sync (src/app/start-app.ts): that sync's start marks the read's end.
  let sheetReadMs: number | undefined;
  const syncStartTimer = setInterval(() => {
    if (app.jobs.status()['sync-catalog']?.running !== true) return;
    sheetReadMs = Math.round(performance.now() - listeningAt);
    clearInterval(syncStartTimer);
  }, 20);
  const sheetCounts = (): SheetCounts | undefined => {
    const report = app.catalog.lastReport('sync-catalog')?.sources?.enrichment;
    return report === undefined
      ? undefined
      : {
          name: report.name,
          rows: report.rows,
          groups: report.groups,
          matched: report.matched,
          unmatched: report.unmatched,
          enrichedProducts: report.enrichedProducts,
          problemCount: report.problemCount,
        };
  };
  process.on('message', (message: ToBridge) => {
    if (message.type === 'phase') {
      report();
      phase = message.name;
    } else if (message.type === 'report') report();
    else if (message.type === 'stop') {
      clearInterval(rssTimer);
      clearInterval(syncStartTimer);
      void app.stop().then(() => process.exit(0));
    }
  });
  send({ type: 'listening', url: app.url });
  await app.initialSync;
  clearInterval(syncStartTimer);
  const firstSheet = sheetCounts();
  send({
    type: 'synced',
    outcome: app.catalog.lastReport('sync-catalog')?.outcome ?? 'none',
    ...(firstSheet === undefined ? {} : { enrichment: firstSheet }),
    ...(sheetFile === undefined || sheetReadMs === undefined ? {} : { sheetReadMs }),
  });
  await app.prewarm.idle();
  send({ type: 'prerendered' });
  // After that, "idle" whenever the parent asks (webhooks processed, feeds pre-rendered), and the sheet's
  // change when it asks for that.
  process.on('message', (message: ToBridge) => {
    if (message.type === 'wait-idle') {
      void (async () => {
        await app.webhooks.idle();
        await new Promise((resolve) => setTimeout(resolve, 700));
        await app.prewarm.idle();
        send({ type: 'idle' });
      })();
    } else if (message.type === 'sheet-change') {
      void sheetChange().then((change) => send({ type: 'sheet-changed', change }));
    } else if (message.type === 'feed-sizes') {
      void feedSizes().then((sizes) => send({ type: 'feed-sizes', sizes }));
    }
  });

  async function feedSizes(): Promise<FeedSizes> {
    const snapshot = app.catalog.current();
    const files: Record<string, number> = {};
    const mib = (bytes: number) => Math.round((bytes / MB) * 10) / 10;
    let total = 0;
    let identity = 0;
    for (const descriptor of snapshot === undefined ? [] : app.feeds.feeds) {
      if (snapshot === undefined || !descriptor.prewarmed || !descriptor.servesView('all')) continue;
      const { feed } = await app.feeds.render(snapshot, descriptor.file, 'all', {}, { fresh: true });
      const bytes = encodedSize(feed);
      files[descriptor.file] = mib(bytes);
      total += bytes;
      identity += feed.identityLength;
    }
    return { cacheMiB: mib(config.feed.cacheBytes), totalMiB: mib(total), identityMiB: mib(identity), files };
  }

  /** The job as its cron runs it; a changed sheet starts a full sync (not awaited by the job). */
  async function sheetChange(): Promise<SheetChange> {
    const started = performance.now();
    const since = () => Math.round(performance.now() - started);
    const outcome = await app.jobs.runNow('sync-enrichment');
    const refresh = outcome.ok ? ((outcome.result as { outcome?: string } | undefined)?.outcome ?? 'none') : 'crashed';
    const adoptedMs = since();
    // The full sync the job started (`void jobs.runNow('sync-catalog')` before the job's end): its end.
    while (app.jobs.status()['sync-catalog']?.running === true) await new Promise((resolve) => setTimeout(resolve, 20));
    const syncedMs = since();
    const syncOutcome = app.catalog.lastReport('sync-catalog')?.outcome ?? 'none';
    const counts = sheetCounts();
    await app.prewarm.idle();
    return {
      refresh,
      adoptedMs,
      syncedMs,
      syncOutcome,
      prerenderedMs: since(),
      ...(counts === undefined ? {} : { enrichment: counts }),
    };
  }
}

function option(name: string): string {
  const index = process.argv.indexOf(`--${name}`);
  const value = index < 0 ? undefined : process.argv[index + 1];
  if (value === undefined) throw new Error(`--${name} is required`);
  return value;
}

// ---------------------------------------------------------------------------------------------------
// The probes and the phases, in this process.

interface Probe {
  readonly name: string;
  readonly latencies: Map<string, number[]>;
}

function summarize(values: readonly number[]): DelaySummary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { count: sorted.length, p50: round(at(50)), p99: round(at(99)), max: round(sorted.at(-1) ?? 0) };
}

function waitFor(child: ChildProcess, type: FromBridge['type']): Promise<FromBridge> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: FromBridge) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message);
    };
    const onExit = (code: number | null) => reject(new Error(`the bridge exited (${code}) while waiting for ${type}`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** The sheet in the bridge's `ENRICHMENT_SOURCE`, and its next version beside it (`sheet-change`). */
interface Sheets {
  readonly path: string;
  readonly changedPath: string;
  readonly seed: number;
  readonly summary: EnrichmentSheetSummary;
  readonly changedBytes: number;
}

/**
 * Both versions of the sheet for the sandbox's catalog. The seed is the sandbox child's (SANDBOX_SEED, else
 * the default), pinned in this process's environment, which the child inherits (as bench/full-sync.ts).
 */
async function writeSheets(
  dir: string,
  size: { readonly units: number; readonly articles: number; readonly rows: number },
): Promise<Sheets> {
  // Imported here: the bridge child never loads the sheet's generator.
  const [{ writeEnrichmentSheet }, { createTestConfig }] = await Promise.all([
    import('./enrichment-sheet.js'),
    import('../test/helpers/test-config.js'),
  ]);
  const seed = createTestConfig({ SANDBOX_SEED: process.env['SANDBOX_SEED'] }).sandbox.seed;
  process.env['SANDBOX_SEED'] = String(seed);
  const started = performance.now();
  const path = join(dir, 'enrichment.csv');
  const changedPath = join(dir, 'enrichment-next.csv');
  const summary = writeEnrichmentSheet(path, { seed, ...size });
  const changed = writeEnrichmentSheet(changedPath, { seed, ...size, titlePrefix: CHANGED_TITLE_PREFIX });
  if (changed.bytes === summary.bytes) throw new Error('the next version of the sheet has the same size');
  process.stderr.write(
    `enrichment sheet for ${size.articles} × ${size.units} (seed ${seed}): ${summary.rows} product rows ` +
      `(${summary.expectedMatched} name products), ${summary.groups} group rows, ${(summary.bytes / MB).toFixed(1)} MiB; ` +
      `next version ${(changed.bytes / MB).toFixed(1)} MiB; both written in ${Math.round(performance.now() - started)} ms\n`,
  );
  return { path, changedPath, seed, summary, changedBytes: statSync(changedPath).size };
}

/** Whether a sync's report of the sheet has the counts the generator promises. */
function sheetAsExpected(counts: SheetCounts | undefined, summary: EnrichmentSheetSummary): boolean {
  return (
    counts !== undefined &&
    counts.rows === summary.rows &&
    counts.groups === summary.groups &&
    counts.matched === summary.expectedMatched &&
    counts.unmatched === summary.expectedUnmatched &&
    counts.enrichedProducts === summary.expectedEnrichedProducts
  );
}

/**
 * The served `google.xml` of the `all` view: its items, and how many titles of the sheet's next version it
 * holds; asked again while it answers `503` (its render under way), for at most a minute.
 */
async function servedTitles(url: string): Promise<{ status: number; items: number; newTitles: number; waitedMs: number }> {
  const started = performance.now();
  let response = await request(`${url}/feeds/all/google.xml`, { headers: { 'accept-encoding': 'gzip' } });
  while (response.statusCode === 503 && performance.now() - started < 60_000) {
    await response.body.dump();
    await new Promise((resolve) => setTimeout(resolve, 500));
    response = await request(`${url}/feeds/all/google.xml`, { headers: { 'accept-encoding': 'gzip' } });
  }
  const waitedMs = Math.round(performance.now() - started);
  const body = Buffer.from(await response.body.arrayBuffer());
  const xml = response.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
  const count = (needle: string): number => {
    const pattern = Buffer.from(needle);
    let found = 0;
    for (let at = xml.indexOf(pattern); at >= 0; at = xml.indexOf(pattern, at + pattern.length)) found += 1;
    return found;
  };
  return { status: response.statusCode, items: count('</item>'), newTitles: count(`<title>${CHANGED_TITLE_PREFIX}`), waitedMs };
}

async function main(): Promise<void> {
  const articles = numberArgument('articles', 100_000);
  const units = numberArgument('units', 5);
  const rate = numberArgument('rate', 50);
  const seconds = numberArgument('seconds', 20);
  const sheetRows = process.argv.includes('--enrichment') ? numberArgument('enrichment', Number.NaN) : undefined;
  if (sheetRows !== undefined && !Number.isFinite(sheetRows)) throw new Error('--enrichment needs a number of rows');
  const dir = mkdtempSync(join(tmpdir(), 'event-loop-'));
  // Both versions of the sheet are written now, before anything is measured (writing one takes seconds).
  const sheets = sheetRows === undefined ? undefined : await writeSheets(dir, { units, articles, rows: sheetRows });
  const compiled = process.argv.includes('--tsx') ? undefined : compileScript(SCRIPT);
  const port = await freePort();
  const sandbox = await startSandboxProcess({
    articles,
    units,
    apiKey: API_KEY,
    webhookUrl: `http://127.0.0.1:${port}/webhooks/pos`,
  });
  const child = fork(
    compiled ?? SCRIPT,
    [
      '--bridge',
      ...['--memory', '--stalls'].filter((flag) => process.argv.includes(flag)),
      '--pos',
      sandbox.url,
      '--dir',
      dir,
      '--port',
      String(port),
      '--templates',
      join(ROOT, 'templates'),
      ...(sheets === undefined ? [] : ['--enrichment-file', sheets.path]),
    ],
    {
      execArgv: [
        ...(compiled === undefined ? process.execArgv : []),
        // `--profile DIR`: a CPU profile of the bridge's main thread (and its workers), for finding stalls.
        ...(process.argv.includes('--profile')
          ? ['--cpu-prof', '--cpu-prof-dir', process.argv[process.argv.indexOf('--profile') + 1] ?? '.']
          : []),
        ...(process.argv.includes('--perf') ? ['--perf-basic-prof'] : []),
      ],
      env: { ...process.env, TZ: 'UTC' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const delays: { phase: string; delay: DelaySummary; rssMb: number }[] = [];
  child.on('message', (message: FromBridge) => {
    if (message.type === 'delay') delays.push({ phase: message.phase, delay: message.delay, rssMb: message.rssMb });
  });
  const dispatcher = new Agent({ connections: 4, keepAliveTimeout: 60_000 });
  let phase = 'start';
  const probes: Probe[] = [
    { name: 'healthz', latencies: new Map() },
    { name: 'feed-304', latencies: new Map() },
  ];
  const phaseTimes: Record<string, number> = {};
  let phaseStarted = performance.now();
  function enter(name: string): void {
    phaseTimes[phase] = Math.round(performance.now() - phaseStarted);
    phaseStarted = performance.now();
    phase = name;
    child.send({ type: 'phase', name } satisfies ToBridge);
  }
  let running = true;
  let etag: string | undefined;
  const statuses: Record<string, number> = {};
  const statusesByPhase: Record<string, Record<string, number>> = {};
  /**
   * Per phase, what the feed probe got first and whenever it changed: `ms status version` (ms from the
   * phase's start; the answer's `x-catalog-version` as its time, HHMMSSmmm; `-` for a `503`), at most 100
   * entries.
   */
  const feedTimeline: Record<string, string[]> = {};
  let lastFeedState = '';
  async function probeLoop(url: string): Promise<void> {
    while (running) {
      const due = performance.now() + PROBE_INTERVAL_MS;
      const at = phase;
      const timed = async (probe: Probe, path: string, headers: Record<string, string>) => {
        const started = performance.now();
        const response = await request(`${url}${path}`, { dispatcher, headers });
        await response.body.dump();
        const ms = performance.now() - started;
        const list = probe.latencies.get(at) ?? [];
        list.push(ms);
        probe.latencies.set(at, list);
        const status = `${probe.name} ${response.statusCode}`;
        statuses[status] = (statuses[status] ?? 0) + 1;
        const ofPhase = statusesByPhase[at] ?? {};
        ofPhase[status] = (ofPhase[status] ?? 0) + 1;
        statusesByPhase[at] = ofPhase;
        return response;
      };
      await Promise.all([
        timed(probes[0] as Probe, '/healthz', {}),
        timed(probes[1] as Probe, '/feeds/all/google.xml', {
          'accept-encoding': 'gzip',
          ...(etag === undefined ? {} : { 'if-none-match': etag }),
        }).then((response) => {
          const tag = response.headers['etag'];
          if (typeof tag === 'string') etag = tag;
          const version = response.headers['x-catalog-version'];
          const state = `${response.statusCode} ${typeof version === 'string' ? version.slice(11, 20) : '-'}`;
          const timeline = feedTimeline[at] ?? [];
          if ((state !== lastFeedState || timeline.length === 0) && phase === at && timeline.length < 100) {
            timeline.push(`${Math.round(performance.now() - phaseStarted)} ${state}`);
            feedTimeline[at] = timeline;
          }
          lastFeedState = state;
        }),
      ]).catch(() => undefined);
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  try {
    const { url } = (await waitFor(child, 'listening')) as { url: string };
    enter('sync');
    const probing = probeLoop(url);
    const synced = (await waitFor(child, 'synced')) as { outcome: string; enrichment?: SheetCounts; sheetReadMs?: number };
    enter('prerender');
    await waitFor(child, 'prerendered');
    enter('burst');
    await burst(sandbox.url, url, rate, seconds);
    child.send({ type: 'wait-idle' });
    await waitFor(child, 'idle');
    enter('resync');
    const resync = await fetch(`${url}/admin/sync?wait=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const resyncReport = (await resync.json()) as { outcome?: string };
    let change: SheetChange | undefined;
    if (sheets !== undefined) {
      // The re-sync's pre-render, apart, so that the sheet's change starts from an idle bridge.
      enter('resync-prerender');
      child.send({ type: 'wait-idle' } satisfies ToBridge);
      await waitFor(child, 'idle');
      enter('sheet-change');
      // Replaced as an editor saves: the next version renamed over the file (another size, a new mtime).
      renameSync(sheets.changedPath, sheets.path);
      const now = new Date();
      utimesSync(sheets.path, now, now);
      child.send({ type: 'sheet-change' } satisfies ToBridge);
      change = ((await waitFor(child, 'sheet-changed')) as { change: SheetChange }).change;
    }
    enter('end');
    running = false;
    await probing;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const served = sheets === undefined ? undefined : await servedTitles(url);
    let feedSizes: FeedSizes | undefined;
    if (sheets !== undefined) {
      child.send({ type: 'feed-sizes' } satisfies ToBridge);
      feedSizes = ((await waitFor(child, 'feed-sizes')) as { sizes: FeedSizes }).sizes;
    }

    const phases = [
      'sync',
      'prerender',
      'burst',
      'resync',
      ...(sheets === undefined ? [] : ['resync-prerender', 'sheet-change']),
    ];
    const result = Object.fromEntries(
      phases.map((name) => [
        name,
        {
          wallMs: phaseTimes[name],
          feedTimeline: feedTimeline[name],
          eventLoopDelayMs: delays.find((entry) => entry.phase === name)?.delay,
          peakRssMb: delays.find((entry) => entry.phase === name)?.rssMb,
          probesMs: Object.fromEntries(probes.map((probe) => [probe.name, summarize(probe.latencies.get(name) ?? [])])),
          probeStatuses: statusesByPhase[name],
        },
      ]),
    );
    const bars = phases.every((name) => {
      const entry = result[name] as { eventLoopDelayMs?: DelaySummary; probesMs: Record<string, DelaySummary> };
      return (
        (entry.eventLoopDelayMs?.max ?? Number.POSITIVE_INFINITY) <= 100 &&
        Object.values(entry.probesMs).every((probe) => probe.p99 <= 50 && probe.max <= 150)
      );
    });
    process.stdout.write(
      `${JSON.stringify(
        {
          node: process.version,
          bridge: compiled === undefined ? 'tsx' : 'compiled (plain node)',
          catalog: { articles, units },
          sales: { rate, seconds },
          firstSync: synced.outcome,
          resync: resyncReport.outcome,
          ...(sheets === undefined
            ? {}
            : {
                enrichment: {
                  seed: sheets.seed,
                  sheetMiB: Math.round((sheets.summary.bytes / MB) * 10) / 10,
                  changedSheetMiB: Math.round((sheets.changedBytes / MB) * 10) / 10,
                  expected: {
                    rows: sheets.summary.rows,
                    groups: sheets.summary.groups,
                    matched: sheets.summary.expectedMatched,
                    unmatched: sheets.summary.expectedUnmatched,
                    enrichedProducts: sheets.summary.expectedEnrichedProducts,
                  },
                  firstRead: { untilSyncStartedMs: synced.sheetReadMs, firstSync: synced.enrichment },
                  sheetChange: change,
                  // The google.xml served after the run: items, and how many carry a title of the new version.
                  servedAfter: served,
                  feedSizesAfter: feedSizes,
                  asExpected:
                    sheetAsExpected(synced.enrichment, sheets.summary) &&
                    change?.refresh === 'adopted' &&
                    change.syncOutcome === 'published' &&
                    sheetAsExpected(change.enrichment, sheets.summary) &&
                    (served?.newTitles ?? 0) > 0,
                },
              }),
          phases: result,
          probeStatuses: statuses,
          barsMet: bars,
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    running = false;
    if (child.exitCode === null) {
      child.send({ type: 'stop' } satisfies ToBridge);
      await once(child, 'exit');
    }
    await dispatcher.close();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
    if (compiled !== undefined) rmSync(join(compiled, '..', '..'), { recursive: true, force: true });
  }
}

/** `rate` sales a second for `seconds`, each of one piece of a distinct article in the units round-robin. */
async function burst(sandboxUrl: string, bridgeUrl: string, rate: number, seconds: number): Promise<void> {
  const feed = (await (await fetch(`${bridgeUrl}/feeds`)).json()) as { units?: { code: string }[] };
  const unitCodes = (feed.units ?? []).map((unit) => unit.code);
  const total = Math.round(rate * seconds);
  const started = performance.now();
  const sales: Promise<unknown>[] = [];
  for (let index = 0; index < total; index++) {
    const wait = started + (index * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    sales.push(
      fetch(`${sandboxUrl}/sandbox/sales`, {
        method: 'POST',
        headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ unitCode: unitCodes[index % unitCodes.length] }),
      }).then(
        (response) => response.arrayBuffer(),
        () => undefined,
      ),
    );
  }
  await Promise.all(sales);
}

if (process.argv.includes('--bridge')) await bridge();
else await main();
