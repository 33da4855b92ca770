/**
 * One day of a shop's bridge, 100,000 articles × 5 units by default: memory and liveness phase by phase.
 *
 *   npx tsx bench/serve-day.ts [--articles 100000] [--units 5] [--sales 2000] [--rate 50] [--idle 30]
 *                              [--identity 100] [--gzip 200] [--samples FILE]
 *
 * Three processes: the standalone sandbox POS (`startSandboxProcess`, its webhooks pointed at the bridge),
 * the bridge run as `npm start` runs it (`scripts/build.mjs`, then `node --enable-source-maps dist/main.js`;
 * `--compiled` is accepted and changes nothing: there is no other mode) on 127.0.0.1 with a SQLite store in
 * a fresh temp dir (also its working directory, so no `.env` is read), FEED_PRODUCT_URL and FEED_IMAGE_URL
 * set so that every channel feed is filled, ADMIN_TOKEN set and no scheduled sync during the run, and this
 * one, which forks a probe child (this script with `--probe`, so that the work done here never delays a
 * probe): it samples the bridge's RSS and CPU (`/proc/<pid>`: the worker threads are inside the process)
 * every 100 ms and asks `GET /healthz` sequentially every 25 ms (undici); each sample and probe counts to
 * the phase under way at its time. Phases, one after another:
 *  1. `first-sync`: from the bridge's spawn until `/readyz` answers 200 (the first catalog is served);
 *  2. `prerender`: until the pre-rendered `all` feeds are settled (below), then each of them fetched once
 *     (gzip) to check that it answers 200 with the served version, and the day's sales chosen from
 *     `products.json` (distinct unit and article pairs with a whole stock of at least 2);
 *  3. `downloads`: `--identity` GETs of `/feeds/all/google.xml` without Accept-Encoding and `--gzip` with
 *     `Accept-Encoding: gzip`, all at once; every body read to its end and checked against Content-Length;
 *  4. `resync`: one article's price changed at the POS (an unchanged catalog keeps its version and renders
 *     nothing), `POST /admin/sync?wait=true&job=catalog`, until the new version is served and settled;
 *  5. `sales`: `--sales` sales at `--rate` a second through the sandbox (one piece of a distinct unit and
 *     article each, as bench/webhook-latency.ts makes them), each delivered as a webhook; until the bridge
 *     has processed them all and settled, then `/feeds/all/products.json` is checked for every sale's stock;
 *  6. `idle`: `--idle` seconds of nothing;
 *  7. `restart`: SIGTERM, wait for the exit, the same command on the same store; from the listener's
 *     opening (the first `/healthz` 200) each `all` feed fetched in `prerender` is asked for (gzip) every
 *     250 ms until it answers 200 (statuses before it are counted), then until settled.
 * "Settled" is read from outside, because the bridge exposes no render state: the bridge's CPU under 200 ms
 * a second over 2 s, then `/readyz`'s version equal to the `X-Catalog-Version` of a conditional
 * `GET /feeds/all/google.xml` (its ETag kept, so an unchanged feed costs a 304); in `prerender` also every
 * `all` feed listed as `rendered` in `GET /feeds`. The pre-render renders every `all` feed in one pass, so
 * one of them stands for all. Per phase: duration, when the bridge last worked (over 20 % of a core for half
 * a second), its CPU, RSS max and at the end, `/healthz` count, failures (no answer: before the listener
 * opens, too), p50/p99/max, and at its end the bridge's own event-loop delay over the last minute
 * (`/readyz`) and the machine's load average, to tell a slow main thread from a busy machine. Prints JSON
 * on stdout and a table on stderr. Each phase is capped at 10 minutes. `SERVE_DAY_NODE_ARGS` adds flags to the
 * bridge's `node` (a profile, a GC trace). `--samples FILE` writes every
 * sample (time, phase, RSS, threads alive) as tab-separated lines: where in a phase the RSS went up.
 */
import { type ChildProcess, execFileSync, fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Agent, type Dispatcher, request } from 'undici';
import { allocatorEnv } from './allocator-env.js';
import { numberArgument, stringArgument } from './bench-args.js';
import { freePort } from './free-port.js';
import { nodeFlagsFromEnv } from './node-flags.js';
import { startSandboxProcess } from './sandbox-process.js';

const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = join(SCRIPT, '..', '..');
const API_KEY = 'bench-key';
const ADMIN_TOKEN = 'serve-day-bench-admin-token';
const PHASE_CAP_MS = 10 * 60_000;
/**
 * Extra flags for the bridge's `node` (`SERVE_DAY_NODE_ARGS='--trace-gc'`, `'--cpu-prof --cpu-prof-dir=DIR'`):
 * how the main thread's pauses and stalls of a phase were found. Node refuses most of them in NODE_OPTIONS.
 */
const BRIDGE_NODE_ARGS = nodeFlagsFromEnv('SERVE_DAY_NODE_ARGS');
const SAMPLE_EVERY_MS = 100;
const HEALTHZ_EVERY_MS = 25;
const RESTART_POLL_MS = 250;
/** Quiet: under this much CPU a second over the window (scale-out.ts's threshold). */
const QUIET_CPU_MS_PER_S = 200;
const QUIET_WINDOW_MS = 2_000;
/** Busy: over 20 % of a core for half a second. */
const BUSY_WINDOW_SAMPLES = 5;
const BUSY_CPU_MS = 100;
/** Rendered on request only (people download it), so never part of a pre-render. */
const NOT_PRERENDERED = 'xlsx';

const articles = numberArgument('articles', 100_000);
const units = numberArgument('units', 5);
const saleCount = numberArgument('sales', 2_000);
const rate = numberArgument('rate', 50);
const idleMs = numberArgument('idle', 30) * 1000;
const identityDownloads = numberArgument('identity', 100);
const gzipDownloads = numberArgument('gzip', 200);

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

// --- Processes ---------------------------------------------------------------------------------------

const children = new Set<ChildProcess>();
const alive = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;
// Never leave a bridge or a sandbox behind, whatever ends this process.
process.on('exit', () => {
  for (const child of children) if (alive(child)) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

interface Bridge {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly spawnedAt: number;
  readonly exited: Promise<void>;
}

/** The bridge as `npm start` runs it, minus npm: the pid sampled is the bridge's own. */
function spawnBridge(env: Readonly<Record<string, string>>, dir: string): Bridge {
  const child = spawn(process.execPath, [...BRIDGE_NODE_ARGS, '--enable-source-maps', join(ROOT, 'dist/main.js')], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Drained and echoed, so the child never blocks on a full pipe and its warnings are seen.
  for (const stream of [child.stdout, child.stderr]) {
    if (stream !== null) createInterface({ input: stream }).on('line', (line) => process.stderr.write(`[bridge] ${line}\n`));
  }
  return { child, pid: child.pid ?? 0, spawnedAt: performance.now(), exited };
}

/** SIGTERM and the exit (SIGKILL after 60 s); the time it took. */
async function stopBridge(bridge: Bridge): Promise<number> {
  const started = performance.now();
  if (alive(bridge.child)) {
    bridge.child.kill('SIGTERM');
    const timer = setTimeout(() => bridge.child.kill('SIGKILL'), 60_000);
    await bridge.exited;
    clearTimeout(timer);
  }
  children.delete(bridge.child);
  return performance.now() - started;
}

interface ProcState {
  readonly rssKiB: number;
  readonly hwmKiB: number;
  /** utime + stime of every thread, in clock ticks. */
  readonly cpuTicks: number;
  /** Threads alive (the main thread, V8's and libuv's helpers, and the bridge's worker threads). */
  readonly threads: number;
}

function readProc(pid: number): ProcState | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const threads = Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
    return { rssKiB: kib('VmRSS'), hwmKiB: kib('VmHWM'), cpuTicks: Number(fields[11]) + Number(fields[12]), threads };
  } catch {
    return undefined; // gone (between two bridges), or no /proc here
  }
}

// --- Samples, probes and phases ----------------------------------------------------------------------

/** Milliseconds on a clock this process and the probe child share (performance.now() is per process). */
const epoch = (): number => performance.timeOrigin + performance.now();

/** Messages between this process and the probe child. */
type ToProbe = { readonly type: 'watch'; readonly pid: number; readonly url: string } | { readonly type: 'stop' };
type FromProbe =
  | {
      readonly type: 'sample';
      readonly at: number;
      readonly pid: number;
      readonly rssKiB: number;
      readonly cpuTicks: number;
      readonly threads: number;
    }
  /** `ms` is null when the probe failed (no answer, or not 200). */
  | { readonly type: 'probe'; readonly at: number; readonly ms: number | null };

interface Sample {
  readonly at: number;
  readonly phase: string;
  readonly pid: number;
  readonly rssKiB: number;
  readonly cpuTicks: number;
  readonly threads: number;
}
interface Probe {
  readonly at: number;
  readonly phase: string;
  readonly ms: number | null;
}

interface Summary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

const round1 = (value: number): number => Math.round(value * 10) / 10;
const mib = (kib: number): number => round1(kib / 1024);

function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
  return { count: sorted.length, p50: round1(at(50)), p99: round1(at(99)), max: round1(sorted.at(-1) ?? 0) };
}

/**
 * The probe child (`--probe`): samples the watched bridge's /proc every 100 ms and asks its `/healthz` every
 * 25 ms, one request after another, and sends each result with its time. A process of its own, so that
 * this one's work (300 bodies read, a products.json parsed) never delays a probe or a sample.
 */
async function probeChild(): Promise<void> {
  const agent = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
  let pid = 0;
  let url = '';
  let running = true;
  const send = (message: FromProbe) => process.send?.(message);
  process.on('message', (message: ToProbe) => {
    if (message.type === 'watch') ({ pid, url } = message);
    else running = false;
  });
  process.on('disconnect', () => process.exit(0));
  const timer = setInterval(() => {
    const proc = pid === 0 ? undefined : readProc(pid);
    // A process exiting (a zombie) has no VmRSS: no sample.
    if (proc !== undefined && Number.isFinite(proc.rssKiB) && Number.isFinite(proc.cpuTicks)) {
      send({ type: 'sample', at: epoch(), pid, rssKiB: proc.rssKiB, cpuTicks: proc.cpuTicks, threads: proc.threads });
    }
  }, SAMPLE_EVERY_MS);
  while (running) {
    const due = performance.now() + HEALTHZ_EVERY_MS;
    if (url !== '') {
      const [at, started] = [epoch(), performance.now()];
      let ms: number | null = null;
      try {
        const response = await request(`${url}/healthz`, { dispatcher: agent, headersTimeout: 30_000, bodyTimeout: 30_000 });
        await response.body.dump();
        if (response.statusCode === 200) ms = performance.now() - started;
      } catch {
        // the bridge is down (restart) or did not answer within 30 s: a failed probe
      }
      send({ type: 'probe', at, ms });
    }
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
  }
  clearInterval(timer);
  await agent.close();
  process.disconnect?.();
}

/** The probe child's samples and probes, each counted to the phase under way at its time. */
function createRecorder() {
  const child = fork(SCRIPT, ['--probe'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let pid = 0;
  const samples: Sample[] = [];
  const probes: Probe[] = [];
  const boundaries: { readonly name: string; readonly at: number }[] = [{ name: 'setup', at: epoch() }];
  const phaseAt = (at: number): string => {
    for (let index = boundaries.length - 1; index >= 0; index--) {
      const boundary = boundaries[index];
      if (boundary !== undefined && boundary.at <= at) return boundary.name;
    }
    return 'setup';
  };
  child.on('message', (message: FromProbe) => {
    const phase = phaseAt(message.at);
    if (message.type === 'sample') samples.push({ ...message, phase });
    else probes.push({ at: message.at, phase, ms: message.ms });
  });

  /** CPU ms between consecutive samples of one process, per sample (0 for the first of a process). */
  function cpuMsOf(list: readonly Sample[]): number[] {
    return list.map((entry, index) => {
      const before = list[index - 1];
      return before === undefined || before.pid !== entry.pid ? 0 : ((entry.cpuTicks - before.cpuTicks) * 1000) / CLOCK_TICKS;
    });
  }
  const latenciesOf = (list: readonly Probe[]) => list.flatMap((probe) => (probe.ms === null ? [] : [probe.ms]));

  return {
    watch(bridgePid: number, url: string): void {
      pid = bridgePid;
      child.send({ type: 'watch', pid: bridgePid, url } satisfies ToProbe);
    },
    enter(name: string): void {
      boundaries.push({ name, at: epoch() });
    },
    /** Whether the watched bridge used under QUIET_CPU_MS_PER_S over the last QUIET_WINDOW_MS. */
    quiet(): boolean {
      const now = epoch();
      const recent = samples.filter((entry) => entry.pid === pid && entry.at >= now - QUIET_WINDOW_MS - SAMPLE_EVERY_MS);
      const [first, last] = [recent[0], recent.at(-1)];
      if (first === undefined || last === undefined || last.at - first.at < QUIET_WINDOW_MS - SAMPLE_EVERY_MS) return false;
      const cpuMs = ((last.cpuTicks - first.cpuTicks) * 1000) / CLOCK_TICKS;
      return cpuMs / ((last.at - first.at) / 1000) < QUIET_CPU_MS_PER_S;
    },
    /** The figures of phase `name` (the last one entered) until now. */
    stats(name: string) {
      const startedAt = boundaries.findLast((boundary) => boundary.name === name)?.at ?? epoch();
      // A phase's first sample counts from the previous phase's last: no CPU is lost between two phases.
      const cpuAll = cpuMsOf(samples);
      const indexes = samples.flatMap((entry, index) => (entry.phase === name ? [index] : []));
      const own = indexes.map((index) => samples[index] as Sample);
      const cpu = indexes.map((index) => cpuAll[index] ?? 0);
      let busyUntil: number | undefined;
      for (let end = 0; end < own.length; end++) {
        const window = cpu.slice(Math.max(0, end - BUSY_WINDOW_SAMPLES + 1), end + 1);
        if (window.reduce((sum, ms) => sum + ms, 0) > BUSY_CPU_MS) busyUntil = own[end]?.at;
      }
      const answered = probes.filter((probe) => probe.phase === name);
      const latencies = latenciesOf(answered);
      return {
        durationMs: Math.round(epoch() - startedAt),
        busyUntilMs: busyUntil === undefined ? null : Math.round(busyUntil - startedAt),
        cpuMs: Math.round(cpu.reduce((sum, ms) => sum + ms, 0)),
        rssMaxMiB: mib(Math.max(0, ...own.map((entry) => entry.rssKiB))),
        rssEndMiB: mib(own.at(-1)?.rssKiB ?? 0),
        healthz: { ...summarize(latencies), failed: answered.length - latencies.length },
      };
    },
    peakRssMiB: (): number => mib(Math.max(0, ...samples.map((entry) => entry.rssKiB))),
    maxHealthzMs: (): number => summarize(latenciesOf(probes)).max,
    /** Every sample as a line of tab-separated values (`--samples FILE`): where in a phase the RSS went up. */
    timeline: (): string =>
      [
        'at_s\tphase\tpid\trss_mib\tthreads',
        ...samples.map((entry) =>
          [
            ((entry.at - (boundaries[0]?.at ?? 0)) / 1000).toFixed(1),
            entry.phase,
            entry.pid,
            mib(entry.rssKiB),
            entry.threads,
          ].join('\t'),
        ),
      ].join('\n'),
    async stop(): Promise<void> {
      if (alive(child)) child.send({ type: 'stop' } satisfies ToProbe);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      children.delete(child);
    },
  };
}
type Recorder = ReturnType<typeof createRecorder>;
type PhaseStats = ReturnType<Recorder['stats']>;

let phaseDeadline = Number.POSITIVE_INFINITY;
/** What is left of the current phase's 10 minutes. */
const left = (): number => Math.max(1, phaseDeadline - performance.now());

/** `probe` every `everyMs` until it gives a value, within the phase's time; fails early when the bridge exited. */
async function waitUntil<T>(what: string, everyMs: number, probe: () => Promise<T | undefined>, bridge?: Bridge): Promise<T> {
  for (;;) {
    if (bridge !== undefined && !alive(bridge.child)) throw new Error(`${what}: the bridge exited (${bridge.child.exitCode})`);
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (performance.now() > phaseDeadline) throw new Error(`${what}: not within the phase's ${PHASE_CAP_MS / 60_000} minutes`);
    await sleep(everyMs);
  }
}

// --- The bridge from outside -------------------------------------------------------------------------

interface Readiness {
  readonly ready: boolean;
  readonly version?: string;
  readonly products?: number;
  readonly units?: readonly string[];
  readonly jobs?: Readonly<Record<string, { outcome?: string; durationMs?: number; running?: boolean } | null>>;
  readonly webhooks?: { readonly pending: number; readonly sales: Readonly<Record<string, number>> };
  readonly eventLoopDelay?: unknown;
}
interface FeedList {
  readonly feeds: readonly { feed: string; unit: string; url: string; format: string; rendered: boolean }[];
}

function createClient(url: string, control: Dispatcher) {
  const options = () => ({ dispatcher: control, headersTimeout: left(), bodyTimeout: left() });
  async function json<T>(path: string): Promise<{ status: number; body: T }> {
    // Once more after a failure: a kept-alive socket the bridge closed while this process was busy (parsing
    // products.json) fails the next request on it (UND_ERR_SOCKET).
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await request(`${url}${path}`, options());
        return { status: response.statusCode, body: (await response.body.json()) as T };
      } catch (error) {
        if (attempt >= 2) throw error;
      }
    }
  }
  /** Per path, the last ETag seen: a conditional GET of an unchanged feed is a 304. */
  const etags = new Map<string, string>();
  return {
    url,
    readyz: async (): Promise<Readiness> => (await json<Readiness>('/readyz')).body,
    feedList: async (): Promise<FeedList> => (await json<FeedList>('/feeds')).body,
    async healthy(): Promise<boolean> {
      const response = await request(`${url}/healthz`, options());
      await response.body.dump();
      return response.statusCode === 200;
    },
    /** A poller's GET (gzip, If-None-Match): status and the version it answered with. */
    async poll(path: string): Promise<{ status: number; version: string | undefined; bytes: number }> {
      const etag = etags.get(path);
      const response = await request(`${url}${path}`, {
        ...options(),
        headers: { 'accept-encoding': 'gzip', ...(etag === undefined ? {} : { 'if-none-match': etag }) },
      });
      const body = Buffer.from(await response.body.arrayBuffer());
      const tag = response.headers['etag'];
      if (typeof tag === 'string' && response.statusCode === 200) etags.set(path, tag);
      const version = response.headers['x-catalog-version'];
      return { status: response.statusCode, version: typeof version === 'string' ? version : undefined, bytes: body.length };
    },
    async get(path: string, headers: Record<string, string> = {}) {
      return request(`${url}${path}`, { ...options(), headers });
    },
    async post(path: string) {
      return request(`${url}${path}`, { ...options(), method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    },
  };
}
type Client = ReturnType<typeof createClient>;

/** The `all` feeds the bridge lists and pre-renders (paths), and whether each has been rendered. */
async function prerenderedFeeds(client: Client): Promise<{ paths: string[]; allRendered: boolean }> {
  const list = await client.feedList();
  const feeds = list.feeds.filter((feed) => feed.unit === 'all' && feed.format !== NOT_PRERENDERED);
  return { paths: feeds.map((feed) => new URL(feed.url).pathname), allRendered: feeds.every((feed) => feed.rendered) };
}

/** Waits until the bridge is quiet and serves `google.xml` at the served version (see the header). */
async function settle(
  client: Client,
  recorder: Recorder,
  bridge: Bridge,
  options: { readonly everyRendered?: boolean; readonly newerThan?: string } = {},
): Promise<{ version: string; at: number }> {
  return waitUntil(
    'the feeds settled',
    250,
    async () => {
      if (!recorder.quiet()) return undefined;
      const ready = await client.readyz();
      if (!ready.ready || ready.version === undefined || ready.version === options.newerThan) return undefined;
      if (options.everyRendered === true && !(await prerenderedFeeds(client)).allRendered) return undefined;
      const feed = await client.poll('/feeds/all/google.xml');
      const ok = (feed.status === 200 || feed.status === 304) && feed.version === ready.version;
      return ok ? { version: ready.version, at: performance.now() } : undefined;
    },
    bridge,
  );
}

// --- The POS side ------------------------------------------------------------------------------------

interface SaleItem {
  readonly unit: string;
  readonly id: string;
  readonly stock: number;
}

/** Each unit's stock of each product in the served `/feeds/all/products.json` (gzip), by `unit|id`. */
async function servedStock(
  client: Client,
): Promise<{ status: number; version: string | undefined; stock: Map<string, number | undefined> }> {
  const response = await client.get('/feeds/all/products.json', { 'accept-encoding': 'gzip' });
  const body = Buffer.from(await response.body.arrayBuffer());
  const header = response.headers['x-catalog-version'];
  const version = typeof header === 'string' ? header : undefined;
  const stock = new Map<string, number | undefined>();
  if (response.statusCode !== 200) return { status: response.statusCode, version, stock };
  const text = response.headers['content-encoding'] === 'gzip' ? gunzipSync(body).toString('utf8') : body.toString('utf8');
  type Feed = { items: { id: string; offers?: { unit: string; stock?: number }[] }[] };
  for (const item of (JSON.parse(text) as Feed).items) {
    for (const offer of item.offers ?? []) stock.set(`${offer.unit}|${item.id}`, offer.stock);
  }
  return { status: response.statusCode, version, stock };
}

/**
 * Distinct (unit, article) pairs with a whole stock of at least 2, spread over the served catalog (not over
 * the POS's stock export, which lists articles the bridge does not publish: their sales would only be re-read).
 */
async function chooseSales(client: Client, count: number): Promise<SaleItem[]> {
  const { status, stock } = await servedStock(client);
  if (status !== 200) throw new Error(`products.json answered ${status}`);
  const candidates: SaleItem[] = [];
  for (const [key, value] of stock) {
    const [unit, id] = key.split('|');
    if (unit !== undefined && id !== undefined && unit !== 'all' && value !== undefined && Number.isInteger(value) && value >= 2)
      candidates.push({ unit, id, stock: value });
  }
  if (candidates.length < count) throw new Error(`only ${candidates.length} sellable items for ${count} sales`);
  const step = Math.floor(candidates.length / count);
  return candidates.filter((_, index) => index % step === 0).slice(0, count);
}

/** Sales at `rate` a second, paced against the start; the sandbox delivers each one's webhook to the bridge. */
async function makeSales(posUrl: string, chosen: readonly SaleItem[], agent: Dispatcher): Promise<{ failed: number }> {
  const started = performance.now();
  const requests: Promise<boolean>[] = [];
  for (const [index, item] of chosen.entries()) {
    const wait = started + (index * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    const made = request(`${posUrl}/sandbox/sales`, {
      dispatcher: agent,
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ unitCode: item.unit, lines: [{ localId: item.id, count: 1 }] }),
    }).then(async (response) => {
      await response.body.dump();
      return response.statusCode === 201;
    });
    requests.push(made.catch(() => false));
  }
  return { failed: (await Promise.all(requests)).filter((ok) => !ok).length };
}

// --- Phases ------------------------------------------------------------------------------------------

interface Download {
  readonly gzip: boolean;
  readonly status: number;
  readonly bytes: number;
  readonly complete: boolean;
  readonly ms: number;
  readonly error?: string;
}

/** One download read to its end; complete when 200, in the coding asked for, and as long as Content-Length says. */
async function download(client: Client, path: string, gzip: boolean, agent: Dispatcher): Promise<Download> {
  const started = performance.now();
  try {
    const response = await request(`${client.url}${path}`, {
      dispatcher: agent,
      headers: gzip ? { 'accept-encoding': 'gzip' } : {},
      headersTimeout: left(),
      bodyTimeout: left(),
    });
    let bytes = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) bytes += chunk.length;
    const length = Number(response.headers['content-length']);
    const coding = response.headers['content-encoding'];
    const codingOk = gzip ? coding === 'gzip' : coding === undefined;
    const complete = response.statusCode === 200 && codingOk && bytes === length;
    return { gzip, status: response.statusCode, bytes, complete, ms: performance.now() - started };
  } catch (error) {
    return { gzip, status: 0, bytes: 0, complete: false, ms: performance.now() - started, error: String(error) };
  }
}

async function downloads(client: Client) {
  // Its own pool: every download on a connection of its own, none queued behind the probes.
  const agent = new Agent({ connections: identityDownloads + gzipDownloads, keepAliveTimeout: 10_000 });
  const started = performance.now();
  try {
    const path = '/feeds/all/google.xml';
    const all = await Promise.all([
      ...Array.from({ length: identityDownloads }, () => download(client, path, false, agent)),
      ...Array.from({ length: gzipDownloads }, () => download(client, path, true, agent)),
    ]);
    const wallMs = Math.round(performance.now() - started);
    const of = (gzip: boolean) => {
      const list = all.filter((entry) => entry.gzip === gzip);
      return {
        requests: list.length,
        complete: list.filter((entry) => entry.complete).length,
        bytesEach: list.find((entry) => entry.complete)?.bytes ?? 0,
        ms: summarize(list.map((entry) => entry.ms)),
      };
    };
    const incomplete = all.filter((entry) => !entry.complete);
    return {
      requests: all.length,
      wallMs,
      bytesTotal: all.reduce((sum, entry) => sum + entry.bytes, 0),
      complete: all.length - incomplete.length,
      incomplete: incomplete.length,
      identity: of(false),
      gzip: of(true),
      incompleteExamples: incomplete.slice(0, 5).map(({ gzip, status, bytes, error }) => ({ gzip, status, bytes, error })),
    };
  } finally {
    await agent.close();
  }
}

/** Every `all` feed once (gzip): each must answer 200 at the served version. */
async function checkFeeds(client: Client, paths: readonly string[], version: string) {
  const checked: Record<string, { status: number; atServedVersion: boolean; gzipBytes: number }> = {};
  for (const path of paths) {
    const answer = await client.poll(path);
    checked[path] = { status: answer.status, atServedVersion: answer.version === version, gzipBytes: answer.bytes };
  }
  return checked;
}

/** How many sales `/feeds/all/products.json` (gzip, at the served version) shows: the unit's stock at or below the stock - 1. */
async function salesShown(client: Client, chosen: readonly SaleItem[], version: string) {
  const { status, version: served, stock } = await servedStock(client);
  const isShown = (sale: SaleItem) => (stock.get(`${sale.unit}|${sale.id}`) ?? Number.POSITIVE_INFINITY) <= sale.stock - 1;
  const notShown = chosen.filter((sale) => !isShown(sale));
  return {
    status,
    atServedVersion: served === version,
    shown: chosen.length - notShown.length,
    notShown: notShown.length,
    // The stock before the sale, and as the feed has it.
    notShownExamples: notShown.slice(0, 5).map((sale) => ({ ...sale, served: stock.get(`${sale.unit}|${sale.id}`) ?? null })),
  };
}

/** Processed sales as `/readyz` counts them (applied, re-read or dropped) and the events still waiting. */
async function processedSales(client: Client): Promise<{ processed: number; pending: number; sales: Record<string, number> }> {
  const { webhooks } = await client.readyz();
  const sales = { ...(webhooks?.sales ?? {}) };
  return { processed: Object.values(sales).reduce((sum, n) => sum + n, 0), pending: webhooks?.pending ?? 0, sales };
}

/** A restarted bridge: one feed asked for every RESTART_POLL_MS from the listener's opening until it answers 200. */
async function untilServed(client: Client, path: string, listeningAt: number, bridge: Bridge) {
  const before: Record<string, number> = {};
  const first200 = await waitUntil(
    `${path} answering 200`,
    RESTART_POLL_MS,
    async () => {
      let seen: string;
      try {
        const response = await client.get(path, { 'accept-encoding': 'gzip' });
        if (response.statusCode === 200) {
          await response.body.dump();
          return performance.now();
        }
        const answer = (await response.body.json().catch(() => ({}))) as { error?: { code?: string } };
        seen = `${response.statusCode}${answer.error?.code === undefined ? '' : ` ${answer.error.code}`}`;
      } catch {
        seen = 'no answer';
      }
      before[seen] = (before[seen] ?? 0) + 1;
      return undefined;
    },
    bridge,
  );
  return { first200Ms: Math.round(first200 - listeningAt), before };
}

// --- Run ---------------------------------------------------------------------------------------------

type PhaseResult = PhaseStats & { readonly phase: string } & Readonly<Record<string, unknown>>;

async function main(): Promise<void> {
  process.stderr.write('building dist/ as npm start does (scripts/build.mjs)\n');
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'serve-day-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const control = new Agent({ connections: 32, keepAliveTimeout: 60_000 });
  const posAgent = new Agent({ connections: 16, keepAliveTimeout: 60_000 });
  const recorder = createRecorder();
  const results: PhaseResult[] = [];
  let bridge: Bridge | undefined;
  const hwm: Record<string, number> = {};
  const sandbox = await startSandboxProcess({ articles, units, apiKey: API_KEY, webhookUrl: `${url}/webhooks/pos` });
  children.add(sandbox.child);

  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    TZ: 'UTC',
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    POS_BASE_URL: sandbox.url,
    POS_API_KEY: API_KEY,
    STORE_URL: `sqlite://${join(dir, 'catalog.sqlite')}`,
    FEED_PRODUCT_URL: 'https://shop.example/p/{id}',
    FEED_IMAGE_URL: 'https://shop.example/img/{id}.jpg',
    ADMIN_TOKEN,
    // No scheduled sync during the day measured: every sync here is one the phases start.
    CATALOG_SYNC_CRON: '0 0 1 1 *',
    STOCK_SYNC_CRON: '0 0 1 1 *',
    ...allocatorEnv(ROOT),
  };
  const client = createClient(url, control);

  let current = 'setup';
  /** Runs one phase: its samples and probes are tagged with its name; its figures and `run`'s details are kept. */
  async function phase<T extends object>(name: string, run: (startedAt: number) => Promise<T>): Promise<T> {
    recorder.enter(name);
    const startedAt = performance.now();
    current = name;
    phaseDeadline = startedAt + PHASE_CAP_MS;
    process.stderr.write(`--- ${name} (${new Date().toISOString()})\n`);
    const details = await run(startedAt);
    const stats = recorder.stats(name);
    // Whether slow probes were the bridge's main thread or the machine (2 shared cores, other work on them).
    const eventLoopDelayLastMinute = (await client.readyz().catch(() => undefined))?.eventLoopDelay ?? null;
    const loadAverage = loadavg().map(round1);
    results.push({ phase: name, ...stats, ...details, eventLoopDelayLastMinute, loadAverage });
    return details;
  }
  const since = (startedAt: number, at = performance.now()) => Math.round(at - startedAt);
  const running = (): Bridge => {
    if (bridge === undefined) throw new Error('no bridge started');
    return bridge;
  };

  try {
    let chosen: SaleItem[] = [];

    await phase('first-sync', async (startedAt) => {
      const started = spawnBridge(env, dir);
      bridge = started;
      recorder.watch(started.pid, url);
      const listeningAt = await waitUntil(
        'the listener',
        25,
        async () => ((await client.healthy()) ? performance.now() : undefined),
        started,
      );
      const ready = await waitUntil(
        'the first catalog',
        100,
        async () => {
          const readiness = await client.readyz();
          return readiness.ready ? { readiness, at: performance.now() } : undefined;
        },
        started,
      );
      const sync = ready.readiness.jobs?.['sync-catalog'];
      return {
        listeningMs: since(startedAt, listeningAt),
        servedMs: since(startedAt, ready.at),
        version: ready.readiness.version,
        products: ready.readiness.products,
        sync: { outcome: sync?.outcome, durationMs: sync?.durationMs },
      };
    });

    let feedPaths: string[] = [];
    await phase('prerender', async (startedAt) => {
      const live = running();
      const settled = await settle(client, recorder, live, { everyRendered: true });
      const settledMs = since(startedAt, settled.at);
      feedPaths = (await prerenderedFeeds(client)).paths;
      // Fetched once each, so that every one counts as fetched before the restart (and is checked).
      const feeds = await checkFeeds(client, feedPaths, settled.version);
      // The sales of the day, from what the bridge serves (bench work, after `settledMs`).
      chosen = await chooseSales(client, saleCount);
      return { settledMs, version: settled.version, feeds };
    });

    await phase('downloads', () => downloads(client));

    await phase('resync', async (startedAt) => {
      const live = running();
      const before = (await client.readyz()).version;
      const item = chosen[0];
      if (item === undefined) throw new Error('no article to change');
      // A price change at the POS: without a change a full sync keeps the version and renders nothing (full-sync.ts).
      const imported = await request(`${sandbox.url}/assortment/import`, {
        dispatcher: posAgent,
        method: 'POST',
        headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ localId: item.id, salesPrice: 4321.5 }),
      });
      await imported.body.dump();
      if (imported.statusCode !== 200) throw new Error(`assortment import answered ${imported.statusCode}`);
      const answer = await client.post('/admin/sync?wait=true&job=catalog');
      const report = (await answer.body.json()) as { outcome?: string; version?: string; durationMs?: number };
      const answeredMs = since(startedAt);
      const served = await waitUntil(
        'the new version served',
        100,
        async () => {
          const version = (await client.readyz()).version;
          return version !== undefined && version !== before ? performance.now() : undefined;
        },
        live,
      );
      const settled = await settle(client, recorder, live, before === undefined ? {} : { newerThan: before });
      return {
        status: answer.statusCode,
        outcome: report.outcome,
        syncMs: report.durationMs,
        answeredMs,
        servedMs: since(startedAt, served),
        settledMs: since(startedAt, settled.at),
        version: settled.version,
      };
    });

    await phase('sales', async (startedAt) => {
      const live = running();
      const before = await processedSales(client);
      const reset = await request(`${sandbox.url}/sandbox/webhooks/stats`, {
        dispatcher: posAgent,
        method: 'DELETE',
        headers: { 'x-api-key': API_KEY },
      });
      await reset.body.dump();
      const { failed } = await makeSales(sandbox.url, chosen, posAgent);
      const lastSaleAt = performance.now();
      // All processed, or nothing waiting and no progress for 20 s (a sale the bridge dropped or never got).
      let progress = { count: before.processed, at: performance.now() };
      const processed = await waitUntil(
        'every sale processed',
        100,
        async () => {
          const now = await processedSales(client);
          if (now.processed !== progress.count) progress = { count: now.processed, at: performance.now() };
          const done = now.processed - before.processed >= chosen.length && now.pending === 0;
          const stalled = now.pending === 0 && performance.now() - progress.at > 20_000;
          return done || stalled ? { ...now, at: performance.now() } : undefined;
        },
        live,
      );
      const settled = await settle(client, recorder, live);
      const settledMs = since(startedAt, settled.at);
      const delivery = await request(`${sandbox.url}/sandbox/webhooks/stats`, {
        dispatcher: posAgent,
        headers: { 'x-api-key': API_KEY },
      });
      const sandboxDelivery = (await delivery.body.json()) as unknown;
      const inFeed = await salesShown(client, chosen, settled.version);
      const sales = Object.fromEntries(Object.entries(processed.sales).map(([k, n]) => [k, n - (before.sales[k] ?? 0)]));
      return {
        requested: chosen.length,
        rate,
        failedRequests: failed,
        madeMs: since(startedAt, lastSaleAt),
        processed: sales,
        lastSaleToProcessedMs: since(lastSaleAt, processed.at),
        lastSaleToSettledMs: since(lastSaleAt, settled.at),
        settledMs,
        shownInProductsJson: inFeed,
        sandboxDelivery,
      };
    });

    await phase('idle', async () => {
      await sleep(idleMs);
      return { idleMs };
    });

    await phase('restart', async (startedAt) => {
      const old = running();
      hwm['first'] = mib(readProc(old.pid)?.hwmKiB ?? 0);
      const versionBefore = (await client.readyz()).version;
      const stopMs = await stopBridge(old);
      const restarted = spawnBridge(env, dir);
      bridge = restarted;
      recorder.watch(restarted.pid, url);
      const listeningAt = await waitUntil(
        'the listener',
        25,
        async () => ((await client.healthy()) ? performance.now() : undefined),
        restarted,
      );
      const ready = await client.readyz().catch(() => undefined);
      const feeds = Object.fromEntries(
        await Promise.all(
          feedPaths.map(async (path) => [path, await untilServed(client, path, listeningAt, restarted)] as const),
        ),
      );
      const allFeeds200Ms = Math.max(0, ...Object.values(feeds).map((feed) => feed.first200Ms));
      const settled = await settle(client, recorder, restarted);
      const sync = (await client.readyz()).jobs?.['sync-catalog'];
      return {
        stopMs: Math.round(stopMs),
        spawnToListeningMs: since(restarted.spawnedAt, listeningAt),
        readyAtListening: ready?.ready ?? false,
        // The stored catalog, served from the first request on (README, "Start-up").
        sameVersionAtListening: ready?.version !== undefined && ready.version === versionBefore,
        allFeeds200Ms,
        feeds,
        settledMs: since(startedAt, settled.at),
        startSync: { outcome: sync?.outcome, durationMs: sync?.durationMs },
      };
    });
    hwm['second'] = mib(readProc(running().pid)?.hwmKiB ?? 0);
  } catch (error) {
    process.stderr.write(`serve-day failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
    // The failed phase's figures so far, with the reason: a long run is not lost for one phase.
    results.push({ phase: current, ...recorder.stats(current), error: String(error) });
  } finally {
    await recorder.stop();
    const report = {
      node: process.version,
      bridge: 'node --enable-source-maps dist/main.js (as npm start), SQLite store',
      catalog: { articles, units },
      summary: {
        peakRssMiB: recorder.peakRssMiB(),
        // VmHWM: the peak of each bridge process, between the 100 ms samples too.
        peakRssHwmMiB: hwm,
        maxHealthzMs: recorder.maxHealthzMs(),
        downloadsComplete: (results.find((r) => r.phase === 'downloads')?.['complete'] as number | undefined) ?? null,
        downloadsRequested: identityDownloads + gzipDownloads,
        restartAllFeeds200Ms: (results.find((r) => r.phase === 'restart')?.['allFeeds200Ms'] as number | undefined) ?? null,
      },
      phases: results,
    };
    printTable(results);
    const timelineFile = stringArgument('samples');
    if (timelineFile !== undefined) writeFileSync(timelineFile, `${recorder.timeline()}\n`);
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    if (bridge !== undefined) await stopBridge(bridge);
    await sandbox.stop();
    await Promise.all([control.close(), posAgent.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One line per phase on stderr. */
function printTable(results: readonly PhaseResult[]): void {
  const lines = [
    '| phase | duration s | busy until s | CPU s | RSS max / end MiB | /healthz n | p50 / p99 / max ms | failed |',
    `|${' --- |'.repeat(8)}`,
  ];
  for (const r of results) {
    const s = (ms: number | null) => (ms === null ? '-' : (ms / 1000).toFixed(1));
    const { healthz } = r;
    lines.push(
      `| ${r.phase} | ${s(r.durationMs)} | ${s(r.busyUntilMs)} | ${s(r.cpuMs)} | ${r.rssMaxMiB} / ${r.rssEndMiB} | ${healthz.count} | ${healthz.p50} / ${healthz.p99} / ${healthz.max} | ${healthz.failed} |`,
    );
  }
  process.stderr.write(`\n${lines.join('\n')}\n\n`);
}

if (process.argv.includes('--probe')) await probeChild();
else await main();
