/**
 * The main thread never stalls (docs/quality-bars.md): event-loop delay and outside probes while the bridge works.
 *
 *   npx tsx bench/event-loop.ts [--articles 100000] [--units 5] [--rate 50] [--seconds 20] [--tsx] [--memory] [--profile DIR]
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
 * Per phase: the bridge's own event-loop delay (`monitorEventLoopDelay`, 10 ms resolution, reset at each
 * phase) and the probes' latencies. Bars: delay max ≤ 100 ms; each probe p99 ≤ 50 ms and max ≤ 150 ms.
 * Prints JSON.
 */

import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { compileScript } from './compile-script.js';
import { freePort } from './free-port.js';
import { startSandboxProcess } from './sandbox-process.js';

const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = join(SCRIPT, '..', '..');
const API_KEY = 'bench-key';
const ADMIN_TOKEN = 'bench-admin';
const PROBE_INTERVAL_MS = 20;

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index < 0 ? undefined : Number(process.argv[index + 1]);
  return value === undefined || !Number.isFinite(value) ? fallback : value;
}

/** Messages between this process and the bridge child. */
type ToBridge = { readonly type: 'phase'; readonly name: string } | { readonly type: 'report' } | { readonly type: 'stop' };
type FromBridge =
  | { readonly type: 'listening'; readonly url: string }
  | { readonly type: 'synced'; readonly outcome: string }
  | { readonly type: 'prerendered' }
  | { readonly type: 'idle' }
  | { readonly type: 'delay'; readonly phase: string; readonly delay: DelaySummary; readonly rssMb: number };

interface DelaySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

// ---------------------------------------------------------------------------------------------------
// The bridge, in its own process.

async function bridge(): Promise<void> {
  const [{ monitorEventLoopDelay }, { pino }, { startApp }, { createTestConfig }] = await Promise.all([
    import('node:perf_hooks'),
    import('pino'),
    import('../src/app.js'),
    import('../src/config/load-config.js'),
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
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (entry.duration < 30) continue;
        const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
        process.stderr.write(`[${phase}] gc kind=${kind} ${Math.round(entry.duration)} ms\n`);
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
  const app = await startApp(
    createTestConfig({
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
    }),
    { logger: pino({ level: 'warn' }) },
  );
  process.on('message', (message: ToBridge) => {
    if (message.type === 'phase') {
      report();
      phase = message.name;
    } else if (message.type === 'report') report();
    else if (message.type === 'stop') {
      clearInterval(rssTimer);
      void app.stop().then(() => process.exit(0));
    }
  });
  send({ type: 'listening', url: app.url });
  await app.initialSync;
  send({ type: 'synced', outcome: app.catalog.lastReport('sync-catalog')?.outcome ?? 'none' });
  await app.prewarm.idle();
  send({ type: 'prerendered' });
  // After that, "idle" whenever the parent asks (webhooks processed, feeds pre-rendered).
  process.on('message', (message: { type: string }) => {
    if (message.type !== 'wait-idle') return;
    void (async () => {
      await app.webhooks.idle();
      await new Promise((resolve) => setTimeout(resolve, 700));
      await app.prewarm.idle();
      send({ type: 'idle' });
    })();
  });
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

async function main(): Promise<void> {
  const articles = argument('articles', 100_000);
  const units = argument('units', 5);
  const rate = argument('rate', 50);
  const seconds = argument('seconds', 20);
  const dir = mkdtempSync(join(tmpdir(), 'event-loop-'));
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
        statuses[`${probe.name} ${response.statusCode}`] = (statuses[`${probe.name} ${response.statusCode}`] ?? 0) + 1;
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
    const synced = (await waitFor(child, 'synced')) as { outcome: string };
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
    enter('end');
    running = false;
    await probing;
    await new Promise((resolve) => setTimeout(resolve, 200));

    const phases = ['sync', 'prerender', 'burst', 'resync'];
    const result = Object.fromEntries(
      phases.map((name) => [
        name,
        {
          wallMs: phaseTimes[name],
          eventLoopDelayMs: delays.find((entry) => entry.phase === name)?.delay,
          peakRssMb: delays.find((entry) => entry.phase === name)?.rssMb,
          probesMs: Object.fromEntries(probes.map((probe) => [probe.name, summarize(probe.latencies.get(name) ?? [])])),
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
