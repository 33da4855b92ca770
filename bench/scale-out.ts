/**
 * Three bridge instances on one Redis (docs/scale-out.md), 100,000 articles × 5 units by default.
 *
 *   npx tsx bench/scale-out.ts [--articles 100000] [--units 5] [--sales-per-second 50] [--seconds 20] [--rounds 5] [--watch-pause-ms 50] [--source]
 *
 * Starts redis-server (from PATH, loopback, no persistence), the standalone sandbox POS and three bridges
 * (compiled by tsc and run by plain `node` as `npm start` runs; `--source`: `src/main.ts` under tsx), and
 * waits until all three serve one ETag. A watcher then polls each instance's `/readyz` (`--watch-pause-ms`
 * between polls, 50 by default: at 10, until 2026-11-30, the polls took 16–25 % of a core per instance, half
 * of the machine's two cores for the three, beside the sales they measure) and notes when each first
 * serves each version.
 * - **Publication**: `--rounds` times, a price is changed at the sandbox (assortment import: no webhook)
 *   and `POST /admin/sync?wait=true&job=catalog` runs on the leader. Latency: from its answer to the first
 *   `/readyz` of each instance showing the version its report names.
 * - **Sales**: sales at `--sales-per-second` (one piece of a distinct unit and article each) through the
 *   sandbox, which delivers their webhooks to bridge-1. The version that includes a sale is read from the
 *   group's change stream in Redis (the first stock entry with that unit's stock of the article at or
 *   below the stock minus one), and the stream's order says which versions are at or past it. Latency:
 *   from just before the sale's request to the first `/readyz` of the last instance at or past that version.
 * - Per phase and instance: CPU (`catalog_bridge_process_cpu_seconds_total`, all threads) per version
 *   appended to the stream in the phase, also net of what the watcher alone costs (a 5 s idle window
 *   first); `group.loads` (a follower must load nothing for a sale); peak RSS (`/proc/<pid>/status`,
 *   every 250 ms). Each phase, and each publication round, ends once every instance is quiet again
 *   (under 200 ms of CPU a second), so that the work it started (loads, feed renders, stock re-reads)
 *   counts to it and not to the next. Prints a summary (a Markdown table per instance), then JSON.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createClient } from '@keyv/redis';
import which from 'which';
import { entriesOf, GROUP_KEYS } from '../src/adapters/group/redis-keys.js';
import type { Product } from '../src/core/catalog/catalog.js';
import { allocatorEnv } from './allocator-env.js';
import { compileScript } from './compile-script.js';
import { freePort } from './free-port.js';
import { startSandboxProcess } from './sandbox-process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const API_KEY = 'bench-key';
const ADMIN = 'bench-admin-token';
const IDLE_MS = 5_000;
const BRIDGE_ENV = {
  TZ: 'UTC',
  DOTENV_CONFIG_PATH: '/nonexistent/.env',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  ADMIN_TOKEN: ADMIN,
  CATALOG_SYNC_CRON: '0 0 1 1 *',
  STOCK_SYNC_CRON: '0 0 1 1 *',
};

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index < 0 ? Number.NaN : Number(process.argv[index + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}
const articles = argument('articles', 100_000);
const units = argument('units', 5);
const rate = argument('sales-per-second', 50);
const seconds = argument('seconds', 20);
const rounds = argument('rounds', 5);
const watchPauseMs = argument('watch-pause-ms', 50);

type Instance = { readonly id: string; readonly url: string; readonly pid: number };
type Sighting = { readonly at: number; readonly version: string };
type Sale = {
  readonly unit: string;
  readonly id: string;
  readonly expected: number;
  readonly startedAt: number;
  index?: number | undefined;
};
type Ready = {
  readonly version?: string;
  readonly group?: { readonly role?: string; readonly loads?: number; readonly checkedAt?: string };
};
type StreamEntry = {
  readonly id: string;
  readonly kind: string;
  readonly version: string;
  readonly products: readonly Product[];
};

const children: ChildProcess[] = [];
const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
process.on('exit', () => {
  for (const child of children) if (running(child)) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

const round = (value: number): number => Math.round(value);
function percentiles(values: readonly number[]): Record<string, number> {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN);
  return { count: sorted.length, p50: at(50), p95: at(95), p99: at(99), max: round(sorted.at(-1) ?? Number.NaN) };
}
const percentilesOf = (lists: Record<string, number[]>) =>
  Object.fromEntries(Object.entries(lists).map(([id, values]) => [id, percentiles(values)]));

async function until<T>(what: string, ms: number, every: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(every);
  }
}

// --- Processes ---------------------------------------------------------------------------------------

/** The first match of `pattern` in the child's stdout, which is drained afterwards. */
function lineOf(child: ChildProcess, pattern: RegExp, ms: number, what: string): Promise<RegExpExecArray> {
  let output = '';
  let matched = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start in ${ms} ms: ${output.slice(-2000)}`)), ms);
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}: ${output.slice(-2000)}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (matched) return;
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match === null) return;
      matched = true;
      clearTimeout(timer);
      resolve(match);
    });
  });
}

/** SIGTERM, and SIGKILL after 15 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (!running(child)) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function startRedis(binary: string): Promise<string> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await lineOf(child, /Ready to accept connections/, 10_000, 'redis-server');
  return `redis://127.0.0.1:${port}`;
}

/** Node arguments that run the bridge: compiled into .tmp/ (templates/ and docs/ linked beside it) or from source. */
function bridgeCommand(): { readonly args: readonly string[]; readonly cleanup: () => void } {
  if (process.argv.includes('--source')) return { args: ['--import', 'tsx', join(ROOT, 'src/main.ts')], cleanup: () => {} };
  const outDir = join(compileScript(join(ROOT, 'src/main.ts')), '..', '..');
  for (const dir of ['templates', 'docs']) symlinkSync(join(ROOT, dir), join(outDir, dir), 'dir');
  return { args: [join(outDir, 'src/main.js')], cleanup: () => rmSync(outDir, { recursive: true, force: true }) };
}

async function startBridge(args: readonly string[], id: string, port: number, env: Record<string, string>): Promise<Instance> {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), INSTANCE_ID: id };
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    // As `npm start` runs it: its glibc allocator settings (decision 0017).
    env: { ...base, ...allocatorEnv(ROOT), ...BRIDGE_ENV, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const match = await lineOf(child, /listening on (http:\/\/\S+)/, 60_000, id);
  return { id, url: match[1] as string, pid: child.pid ?? 0 };
}

// --- Probes ------------------------------------------------------------------------------------------

async function readyz(instance: Instance): Promise<Ready> {
  return (await fetch(`${instance.url}/readyz`)).json() as Promise<Ready>;
}

type Metrics = { cpu: number; heapUsedMb: number; externalMb: number; sales: Record<string, number> };
/** Process CPU seconds (all threads), main-thread heap used and external memory, webhook sales by outcome: `/metrics`. */
async function metricsOf(instance: Instance): Promise<Metrics> {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^catalog_bridge_${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  const [heapUsedMb, externalMb] = ['nodejs_heap_size_used_bytes', 'nodejs_external_memory_bytes'].map((n) =>
    round(value(n) / 2 ** 20),
  );
  const matches = text.matchAll(/^catalog_bridge_webhook_sales_total\{outcome="(\w+)"\} (\d+)/gm);
  const sales = Object.fromEntries([...matches].map((m) => [m[1], Number(m[2])]));
  return { cpu: value('process_cpu_seconds_total'), heapUsedMb: heapUsedMb ?? 0, externalMb: externalMb ?? 0, sales };
}

/**
 * Waits until every instance is quiet (under 200 ms of CPU a second over 2 s), at most 5 minutes: three
 * bridges' first pre-renders at 100,000 × 5 take ~3 minutes of CPU on two cores. Says so when it gives up.
 */
async function settle(instances: readonly Instance[]): Promise<void> {
  for (let attempt = 0; attempt < 150; attempt++) {
    const before = await Promise.all(instances.map(metricsOf));
    await sleep(2_000);
    const after = await Promise.all(instances.map(metricsOf));
    if (after.every((m, n) => (m.cpu - (before[n]?.cpu ?? 0)) * 500 < 200)) return;
  }
  process.stdout.write('scale-out: the instances were still busy after 5 minutes; measuring anyway\n');
}

function procMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return round(Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024);
}

/** Peak RSS per instance (MiB), sampled every 250 ms; `take()` returns the peaks since the last take. */
function sampleRss(instances: readonly Instance[]) {
  let peaks: Record<string, number> = {};
  const sample = () => {
    for (const { id, pid } of instances) {
      try {
        peaks[id] = Math.max(peaks[id] ?? 0, procMb(pid, 'VmRSS'));
      } catch {
        // no /proc here, or the process is gone
      }
    }
  };
  const timer = setInterval(sample, 250);
  const take = () => {
    sample();
    const taken = peaks;
    peaks = {};
    return taken;
  };
  return { take, stop: () => clearInterval(timer) };
}

/** Polls each instance's `/readyz`, with `pauseMs` between polls, and notes each version when first seen. */
function watchVersions(instances: readonly Instance[], pauseMs: number) {
  let stopped = false;
  const sightings = new Map<string, Sighting[]>(instances.map((instance) => [instance.id, []]));
  const loops = instances.map(async (instance) => {
    const list = sightings.get(instance.id) ?? [];
    while (!stopped) {
      const version = await readyz(instance)
        .then((ready) => ready.version)
        .catch(() => undefined);
      if (version !== undefined && version !== list.at(-1)?.version) list.push({ at: performance.now(), version });
      await sleep(pauseMs);
    }
  });
  const firstSeen = (id: string, version: string) => sightings.get(id)?.find((s) => s.version === version)?.at;
  const stop = async () => {
    stopped = true;
    await Promise.all(loops);
  };
  return { sightings, firstSeen, stop };
}

/** The group's change stream read from Redis, in order, with each version's position in it. */
function followStream(redis: { sendCommand(args: string[]): Promise<unknown> }) {
  const entries: StreamEntry[] = [];
  const indexOf = new Map<string, number>();
  async function refresh(): Promise<StreamEntry[]> {
    const from = entries.length;
    for (;;) {
      const after = entries.at(-1)?.id ?? '0-0';
      const page = entriesOf(await redis.sendCommand(['XRANGE', GROUP_KEYS.changes, `(${after}`, '+', 'COUNT', '1000']));
      for (const { id, fields } of page) {
        const body = fields['kind'] === 'stock' ? (JSON.parse(fields['body'] ?? '{}') as { products?: Product[] }) : {};
        indexOf.set(fields['version'] ?? '', entries.length);
        entries.push({ id, kind: fields['kind'] ?? '', version: fields['version'] ?? '', products: body.products ?? [] });
      }
      if (page.length < 1000) return entries.slice(from);
    }
  }
  return { entries, indexOf, refresh };
}

interface Bench {
  readonly instances: readonly Instance[];
  readonly leader: Instance;
  readonly posUrl: string;
  readonly watcher: ReturnType<typeof watchVersions>;
  readonly stream: ReturnType<typeof followStream>;
  readonly rss: ReturnType<typeof sampleRss>;
}

// --- Phases ------------------------------------------------------------------------------------------

async function oneEtag(instances: readonly Instance[], ms: number): Promise<string> {
  return until('one ETag on every instance', ms, 250, async () => {
    const tags = await Promise.all(
      instances.map(async ({ url }) => {
        const response = await fetch(`${url}/feeds/all/products.json`, { method: 'HEAD' });
        return response.status === 200 ? response.headers.get('etag') : null;
      }),
    );
    return tags[0] != null && tags.every((tag) => tag === tags[0]) ? tags[0] : undefined;
  });
}

/** `group.loads` from a group measurement taken after `since` (`Date.now()`); the bridge measures every second. */
async function loadsAfter(instance: Instance, since: number): Promise<number> {
  const fresh = await until('a fresh group measurement', 10_000, 100, async () => {
    const ready = await readyz(instance);
    return Date.parse(ready.group?.checkedAt ?? '') > since ? ready : undefined;
  });
  return fresh.group?.loads ?? 0;
}

/**
 * Runs a phase. Per instance: CPU, and per version the stream got in the phase, also net of `idleCpuMsPerS`
 * (what the watcher's polling costs); stored versions loaded; peak RSS; sales processed.
 */
async function measured<T>(bench: Bench, run: () => Promise<T>, idleCpuMsPerS: Record<string, number> = {}) {
  const { instances, stream, rss } = bench;
  const since = Date.now();
  const before = await Promise.all(instances.map(async (i) => ({ m: await metricsOf(i), loads: await loadsAfter(i, since) })));
  await stream.refresh();
  const [streamFrom, startedAt] = [stream.entries.length, performance.now()];
  rss.take();
  const result = await run();
  const [wallMs, peaks, after] = [performance.now() - startedAt, rss.take(), await Promise.all(instances.map(metricsOf))];
  await stream.refresh();
  const versions = stream.entries.length - streamFrom;
  const ended = Date.now();
  const perInstance = await Promise.all(
    instances.map(async (instance, n) => {
      const [m, was] = [after[n], before[n]];
      if (m === undefined) throw new Error('no metrics');
      const cpuMs = round((m.cpu - (was?.m.cpu ?? 0)) * 1000);
      const netCpuMs = cpuMs - ((idleCpuMsPerS[instance.id] ?? 0) * wallMs) / 1000;
      const sales = Object.fromEntries(Object.entries(m.sales).map(([k, v]) => [k, v - (was?.m.sales[k] ?? 0)]));
      const loads = (await loadsAfter(instance, ended)) - (was?.loads ?? 0);
      const [cpuMsPerVersion, netCpuMsPerVersion] = [cpuMs, netCpuMs].map((ms) => round(ms / Math.max(1, versions)));
      const memory = { peakRssMb: peaks[instance.id], heapUsedMbAfter: m.heapUsedMb, externalMbAfter: m.externalMb };
      return { instance: instance.id, cpuMs, cpuMsPerVersion, netCpuMsPerVersion, loads, ...memory, sales };
    }),
  );
  return { result, versions, wallMs: round(wallMs), perInstance };
}

async function publication(bench: Bench, articleId: string) {
  const { instances, leader, watcher } = bench;
  const perInstance: Record<string, number[]> = Object.fromEntries(instances.map((i) => [i.id, []]));
  const all: number[] = [];
  const syncMs: number[] = [];
  /** Between the first and the last instance serving it. */
  const spread: number[] = [];
  for (let n = 1; n <= rounds; n++) {
    const headers = { 'x-api-key': API_KEY, 'content-type': 'application/json' };
    const body = JSON.stringify({ localId: articleId, salesPrice: 1000 + n + 0.25 });
    const imported = await fetch(`${bench.posUrl}/assortment/import`, { method: 'POST', headers, body });
    if (!imported.ok) throw new Error(`assortment import answered ${imported.status}`);
    const auth = { authorization: `Bearer ${ADMIN}` };
    const answer = await fetch(`${leader.url}/admin/sync?wait=true&job=catalog`, { method: 'POST', headers: auth });
    const doneAt = performance.now();
    const report = (await answer.json()) as { outcome?: string; version?: string; durationMs?: number };
    const version = report.version;
    if (report.outcome !== 'published' || version === undefined) throw new Error(`sync: ${JSON.stringify(report)}`);
    syncMs.push(report.durationMs ?? Number.NaN);
    const seen = await until(`version ${version} everywhere`, 120_000, 20, async () => {
      const times = instances.map((i) => watcher.firstSeen(i.id, version));
      return times.every((t) => t !== undefined) ? (times as number[]) : undefined;
    });
    // From the group's switch to the version (its `serve` entry, stamped by Redis's clock, this machine's).
    await bench.stream.refresh();
    const serve = bench.stream.entries.find((entry) => entry.kind === 'serve' && entry.version === version);
    const switchedAt = serve === undefined ? doneAt : Number(serve.id.split('-')[0]) - (Date.now() - performance.now());
    for (const [k, instance] of instances.entries()) perInstance[instance.id]?.push((seen[k] ?? 0) - switchedAt);
    all.push(Math.max(...seen) - switchedAt);
    spread.push(Math.max(...seen) - Math.min(...seen));
    // The followers' loads and every instance's feed renders of this version end before the next round.
    await settle(instances);
  }
  return {
    allServingMs: percentiles(all),
    spreadMs: percentiles(spread),
    perInstanceMs: percentilesOf(perInstance),
    leaderSyncMs: percentiles(syncMs),
  };
}

/** Distinct (unit, article) pairs with a whole stock of at least 2, spread over the catalog. */
async function chooseSales(instance: Instance, total: number): Promise<{ unit: string; id: string; stock: number }[]> {
  type Feed = { items: { id: string; offers: { unit: string; stock?: number }[] }[] };
  const feed = (await (await fetch(`${instance.url}/feeds/all/products.json`)).json()) as Feed;
  const candidates = feed.items.flatMap((item) =>
    item.offers
      .filter((offer) => offer.unit !== 'all' && Number.isInteger(offer.stock) && (offer.stock ?? 0) >= 2)
      .map((offer) => ({ unit: offer.unit, id: item.id, stock: offer.stock ?? 0 })),
  );
  if (candidates.length < total) throw new Error(`only ${candidates.length} sellable items for ${total} sales`);
  const step = Math.floor(candidates.length / total);
  return candidates.filter((_, index) => index % step === 0).slice(0, total);
}
type Chosen = Awaited<ReturnType<typeof chooseSales>>;

/** Sales at `rate` per second, paced against the start; each sale's webhook goes from the sandbox to bridge-1. */
async function makeSales(
  posUrl: string,
  chosen: Chosen,
  onSale: (sale: Sale) => void,
): Promise<{ sales: Sale[]; failed: number }> {
  const sales: Sale[] = [];
  const requests: Promise<boolean>[] = [];
  const started = performance.now();
  const headers = { 'x-api-key': API_KEY, 'content-type': 'application/json' };
  for (const [index, item] of chosen.entries()) {
    const wait = started + (index * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    const sale: Sale = { unit: item.unit, id: item.id, expected: item.stock - 1, startedAt: performance.now() };
    sales.push(sale);
    onSale(sale);
    const body = JSON.stringify({ unitCode: item.unit, lines: [{ localId: item.id, count: 1 }] });
    const made = fetch(`${posUrl}/sandbox/sales`, { method: 'POST', headers, body });
    const ok = made.then(async (response) => {
      await response.arrayBuffer();
      return response.status === 201;
    });
    requests.push(ok.catch(() => false));
  }
  const failed = (await Promise.all(requests)).filter((ok) => !ok).length;
  return { sales, failed };
}

/** Gives each open sale the stream position of the first version that includes it. */
function placeSales(open: Map<string, Sale>, bench: Bench, fresh: readonly StreamEntry[]): void {
  for (const entry of fresh) {
    for (const product of entry.products) {
      for (const offer of product.offers) {
        const sale = open.get(`${offer.unit}|${product.id}`);
        if (sale === undefined || offer.stock === undefined || offer.stock > sale.expected) continue;
        sale.index = bench.stream.indexOf.get(entry.version);
        open.delete(`${offer.unit}|${product.id}`);
      }
    }
  }
}

/** When an instance first served a version at or past stream position `index`. */
function firstAtOrPast(bench: Bench, instance: Instance, index: number): number | undefined {
  const sightings = bench.watcher.sightings.get(instance.id) ?? [];
  return sightings.find((s) => (bench.stream.indexOf.get(s.version) ?? -1) >= index)?.at;
}

async function salesPhase(bench: Bench, chosen: Chosen) {
  const { instances, watcher, stream } = bench;
  // Read as it grows: the leader trims the stream to the version it stored.
  let reading = false;
  const follow = setInterval(() => {
    if (reading) return;
    reading = true;
    stream
      .refresh()
      .then((fresh) => placeSales(open, bench, fresh))
      .catch(() => undefined)
      .finally(() => {
        reading = false;
      });
  }, 20);
  const open = new Map<string, Sale>();
  const { sales, failed } = await makeSales(bench.posUrl, chosen, (sale) => open.set(`${sale.unit}|${sale.id}`, sale));
  clearInterval(follow);
  const latest = (i: Instance) => stream.indexOf.get(watcher.sightings.get(i.id)?.at(-1)?.version ?? '') ?? -1;
  await until('every sale on every instance', 60_000, 100, async () => {
    placeSales(open, bench, await stream.refresh());
    const needed = Math.max(...sales.map((sale) => sale.index ?? Number.POSITIVE_INFINITY));
    return instances.every((i) => latest(i) >= needed) ? true : undefined;
  }).catch((error: unknown) => process.stderr.write(`${String(error)}\n`));
  // The work the sales left (stock re-reads that confirm them, feed renders) counts to this phase.
  await settle(instances);
  const all: number[] = [];
  const perInstance: Record<string, number[]> = Object.fromEntries(instances.map((i) => [i.id, []]));
  for (const sale of sales) {
    const seen = instances.map((i) => (sale.index === undefined ? undefined : firstAtOrPast(bench, i, sale.index)));
    if (seen.some((at) => at === undefined)) continue;
    for (const [k, i] of instances.entries()) perInstance[i.id]?.push((seen[k] ?? 0) - sale.startedAt);
    all.push(Math.max(...(seen as number[])) - sale.startedAt);
  }
  const [saleToAllServingMs, perInstanceMs] = [percentiles(all), percentilesOf(perInstance)];
  return { requested: sales.length, failedRequests: failed, notInStream: open.size, saleToAllServingMs, perInstanceMs };
}

// --- Run ---------------------------------------------------------------------------------------------

type Group = Omit<Bench, 'watcher' | 'stream'> & { readonly storeUrl: string; readonly startupMs: number };
async function startGroup(args: readonly string[]): Promise<Group> {
  const storeUrl = await startRedis(which.sync('redis-server'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const webhookUrl = `http://127.0.0.1:${ports[0]}/webhooks/pos`;
  const sandbox = await startSandboxProcess({ articles, units, apiKey: API_KEY, webhookUrl });
  children.push(sandbox.child);
  const env = { POS_BASE_URL: sandbox.url, POS_API_KEY: API_KEY, STORE_URL: storeUrl };
  const startedAt = performance.now();
  const instances = await Promise.all(ports.map((port, n) => startBridge(args, `bridge-${n + 1}`, port, env)));
  const rss = sampleRss(instances);
  await oneEtag(instances, 600_000);
  const startupMs = round(performance.now() - startedAt);
  const roles = await Promise.all(instances.map(async (i) => (await readyz(i)).group?.role));
  const leader = instances[roles.indexOf('leader')];
  if (leader === undefined) throw new Error(`no leader among the instances: ${roles.join(', ')}`);
  return { instances, leader, posUrl: sandbox.url, rss, storeUrl, startupMs };
}

async function main(): Promise<void> {
  if (which.sync('redis-server', { nothrow: true }) === null) {
    process.stdout.write('scale-out: skipped: no redis-server on PATH (e.g. apt-get install redis-server)\n');
    return;
  }
  const command = bridgeCommand();
  try {
    const group = await startGroup(command.args);
    const startupPeakRssMb = group.rss.take();
    const chosen = await chooseSales(group.leader, Math.round(rate * seconds));
    const client = createClient({ url: group.storeUrl });
    await client.connect();
    const bench: Bench = { ...group, watcher: watchVersions(group.instances, watchPauseMs), stream: followStream(client) };
    // Feed renders of the first version and the like: ~1 minute of CPU per instance at 100k × 5.
    await settle(group.instances);
    const idle = await measured(bench, () => sleep(IDLE_MS));
    const idleCpuMsPerS = Object.fromEntries(idle.perInstance.map((i) => [i.instance, i.cpuMs / (idle.wallMs / 1000)]));
    const published = await measured(bench, () => publication(bench, chosen[0]?.id ?? 'a-100001'), idleCpuMsPerS);
    const sold = await measured(bench, () => salesPhase(bench, chosen), idleCpuMsPerS);
    const finalEtag = await oneEtag(group.instances, 60_000).catch(() => 'DIFFERENT');
    await bench.watcher.stop();
    group.rss.stop();
    await client.close();
    const peakRssEverMb = Object.fromEntries(group.instances.map((i) => [i.id, procMb(i.pid, 'VmHWM')]));
    const result = {
      node: process.version,
      catalog: { articles, units },
      leader: group.leader.id,
      webhooksTo: 'bridge-1',
      watchPauseMs,
    };
    const report = { ...result, startupMs: group.startupMs, startupPeakRssMb, idle, published, sold, finalEtag, peakRssEverMb };
    printSummary(report);
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    // Bridges first (they still talk to Redis and the sandbox while they stop), then the sandbox, then Redis.
    for (const child of children.reverse()) await stopChild(child);
    command.cleanup();
  }
}

type PerInstance = Awaited<ReturnType<typeof measured>>['perInstance'];
type Phase<T> = { readonly versions: number; readonly result: T; readonly perInstance: PerInstance };
type Summary = { leader: string; startupMs: number; idle: Phase<void>; finalEtag: string; peakRssEverMb: Record<string, number> };

/** The headline figures, then one Markdown table row per instance. */
function printSummary(
  r: Summary & { published: Phase<Awaited<ReturnType<typeof publication>>>; sold: Phase<Awaited<ReturnType<typeof salesPhase>>> },
): void {
  const pct = (p: Record<string, number> | undefined) => (p === undefined ? '-' : `${p.p50} / ${p.p95} / ${p.max}`);
  const { published: pub, sold } = r;
  const lines = [
    `three instances on one Redis, ${articles} articles × ${units} units; all serving one ETag ${r.startupMs} ms after the start`,
    `publication (the group's switch) → all three serving, ${rounds} rounds (ms p50 / p95 / max): ${pct(pub.result.allServingMs)}; first → last instance serving it: ${pct(pub.result.spreadMs)}; the leader's sync: ${pct(pub.result.leaderSyncMs)}`,
    `sale → all three serving, ${rate}/s for ${seconds} s, ${sold.result.saleToAllServingMs.count} of ${sold.result.requested} sales (ms p50 / p95 / max): ${pct(sold.result.saleToAllServingMs)} (bar: p95 ≤ 1000)`,
    `versions appended: publication ${pub.versions}, sales ${sold.versions}; afterwards one ETag everywhere: ${r.finalEtag}`,
    '',
    '| instance | idle CPU ms/s (watcher) | publication → serving ms p50 / p95 / max | CPU ms per version (net of idle) | loads | sale → serving ms p50 / p95 / max | CPU ms per version (net of idle) | loads | peak RSS MiB publication / sales / ever |',
    `|${' --- |'.repeat(9)}`,
  ];
  for (const [n, idle] of r.idle.perInstance.entries()) {
    const [id, p, s] = [idle.instance, pub.perInstance[n], sold.perInstance[n]];
    const name = `${id}${id === r.leader ? ' (leader)' : ''}`;
    const cells = [name, round(idle.cpuMs / (IDLE_MS / 1000)), pct(pub.result.perInstanceMs[id])];
    cells.push(`${p?.cpuMsPerVersion} (${p?.netCpuMsPerVersion})`, String(p?.loads), pct(sold.result.perInstanceMs[id]));
    cells.push(`${s?.cpuMsPerVersion} (${s?.netCpuMsPerVersion})`, String(s?.loads));
    cells.push(`${p?.peakRssMb} / ${s?.peakRssMb} / ${r.peakRssEverMb[id]}`);
    lines.push(`| ${cells.join(' | ')} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

await main();
