/**
 * Serving benchmark (issue 5; docs/quality-bars.md): requests/s of the cached feed as the bridge serves it, against
 * minimal servers sending the same answer, measured with wrk (autocannon saturates first on
 * multi-megabyte bodies).
 *
 *   npx tsx bench/serve-feeds.ts [--articles 100000] [--units 5] [--feed google.xml] [--duration 10]
 *     [--warmup 3] [--runs 3] [--settings 2x32,2x8] [--scenarios gzip200,notModified304]
 *
 *   --articles  sandbox articles (SANDBOX_ARTICLES), default 100000
 *   --units     sandbox units (SANDBOX_UNITS, 1..5), default 5
 *   --feed      feed file served from the `all` view, default google.xml
 *   --duration  seconds of each measured wrk run, default 10
 *   --warmup    seconds of an unmeasured wrk run per side and scenario before the measured runs, default 3
 *   --runs      measured runs per side, scenario and setting (median reported), default 3
 *   --settings  wrk threads x connections, comma-separated, default 2x32,2x8
 *   --scenarios which comparisons to run, comma-separated, default gzip200,notModified304
 *
 * Bars (ratios within one run, same machine, same client):
 *   1. gzip 200: bridge ≥ 70 % of a bare node:http server sending the bridge's exact gzip bytes and headers;
 *   2. 304 (If-None-Match of the current ETag): bridge ≥ 80 % of an express route answering a constant 304.
 *
 * Every server runs in its own child process (this file with `--role`), so none shares an event loop
 * with the orchestration, wrk or another server; wrk is a separate process on 127.0.0.1. The bridge is
 * `startApp` in sandbox mode (in-memory store, scheduled syncs pushed out of the way so the ETag stays
 * put); it renders every `all` feed before it reports ready, then one warm-up GET reads the ETag and
 * the bare server fetches the exact gzip bytes and headers from it. Each (side, scenario) gets a short
 * wrk warm-up; measured runs alternate which side goes first. wrk and the server share the machine's
 * cores on both sides alike, so other load on the machine moves single runs a lot: the output has each
 * run, the ratio per back-to-back pair, and the servers' CPU time per request (process.cpuUsage, all
 * threads), which other load disturbs less than requests/s. Prints one JSON object; exits 1 when a bar
 * is missed (after printing).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import express from 'express';
import { createLogger } from '../src/adapters/logger/create-logger.js';
import { type RunningApp, startApp } from '../src/app/start-app.js';
import { ALL_UNITS } from '../src/core/catalog/catalog.js';
import { formOf } from '../src/services/feeds/encoded-feed.js';
import { createTestConfig } from '../test/helpers/test-config.js';

const { values: flags } = parseArgs({
  options: {
    role: { type: 'string', default: 'main' },
    articles: { type: 'string', default: '100000' },
    units: { type: 'string', default: '5' },
    feed: { type: 'string', default: 'google.xml' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    runs: { type: 'string', default: '3' },
    settings: { type: 'string', default: '2x32,2x8' },
    scenarios: { type: 'string', default: 'gzip200,notModified304' },
    source: { type: 'string' },
  },
  strict: true,
});

const HOST = '127.0.0.1';
const FEED_PATH = `/feeds/${ALL_UNITS}/${flags.feed}`;
/** The request headers wrk sends to both sides (plus If-None-Match in the 304 scenario). */
const ACCEPT_ENCODING = 'gzip';
/** Response headers node adds on its own; everything else the bridge sent is copied to the bare server. */
const NODE_OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

function positiveInt(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got "${text}"`);
  return value;
}

// ---------------------------------------------------------------------------------------------------
// Child → parent messages (IPC).

interface FeedSize {
  readonly file: string;
  readonly identity: number;
  /** `null` for a body compressed already (the workbook), which is only sent as it is. */
  readonly gzip: number | null;
  readonly br: number | null;
}

interface ReadyMessage {
  readonly type: 'ready';
  readonly port: number;
  readonly sizes?: readonly FeedSize[];
  readonly syncMs?: number;
  readonly bodyBytes?: number;
}

function isReadyMessage(message: unknown): message is ReadyMessage {
  return (
    typeof message === 'object' &&
    message !== null &&
    'type' in message &&
    message.type === 'ready' &&
    'port' in message &&
    typeof message.port === 'number'
  );
}

interface CpuMessage {
  readonly type: 'cpu';
  /** process.cpuUsage() user + system, in µs: every thread of the server (GC helpers, libuv pool) counts. */
  readonly micros: number;
}

function isCpuMessage(message: unknown): message is CpuMessage {
  return typeof message === 'object' && message !== null && 'type' in message && message.type === 'cpu' && 'micros' in message;
}

function announce(message: ReadyMessage): void {
  if (process.send === undefined) throw new Error('--role needs an IPC channel (started by the orchestrator)');
  process.send(message);
  // Answers CPU-time queries between wrk runs (never during one).
  process.on('message', (query: unknown) => {
    if (query !== 'cpu') return;
    const usage = process.cpuUsage();
    process.send?.({ type: 'cpu', micros: usage.user + usage.system } satisfies CpuMessage);
  });
}

/** Children exit with their parent; the parent also kills them explicitly. */
function exitWithParent(cleanup: () => Promise<void> = async () => {}): void {
  let exiting = false;
  const exit = (): void => {
    if (exiting) return;
    exiting = true;
    const forced = setTimeout(() => process.exit(0), 5_000);
    forced.unref();
    void cleanup().finally(() => process.exit(0));
  };
  process.on('disconnect', exit);
  process.on('SIGTERM', exit);
  process.on('SIGINT', exit);
}

// ---------------------------------------------------------------------------------------------------
// Roles.

/** The bridge as `startApp` wires it, on a sandbox catalog, with every `all`-view feed rendered before it reports ready. */
async function runBridge(): Promise<void> {
  const started = performance.now();
  let app: RunningApp | undefined;
  // Registered first: the orchestrator may give up during the long initial sync.
  exitWithParent(async () => {
    await app?.stop();
  });
  const config = createTestConfig({
    SANDBOX_ARTICLES: flags.articles,
    SANDBOX_UNITS: flags.units,
    SANDBOX_SALES_PER_MINUTE: '0',
    // No scheduled sync may publish a new version (new ETag, background renders) during the measurement.
    CATALOG_SYNC_CRON: '0 0 1 1 *',
    STOCK_SYNC_CRON: '0 0 1 1 *',
  });
  app = await startApp(config, { logger: createLogger('silent') });
  await app.initialSync;
  const snapshot = app.catalog.current();
  if (snapshot === undefined) throw new Error('the initial sync published no catalog');
  const syncMs = Math.round(performance.now() - started);
  // Every `all` feed rendered (fresh) and the background prewarm done, so that the bridge is idle when
  // wrk starts; the sizes come for free.
  const sizes: FeedSize[] = [];
  await app.prewarm.idle();
  for (const descriptor of app.feeds.feeds) {
    if (!descriptor.servesView(ALL_UNITS)) continue;
    const { feed } = await app.feeds.render(snapshot, descriptor.file, ALL_UNITS, {}, { fresh: true });
    sizes.push({
      file: descriptor.file,
      identity: feed.identityLength,
      gzip: formOf(feed, 'gzip')?.length ?? null,
      br: formOf(feed, 'br')?.length ?? null,
    });
  }
  const port = Number(new URL(app.url).port);
  announce({ type: 'ready', port, sizes, syncMs });
}

interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

function rawGet(url: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, timeout: 120_000 }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** A bare node:http server sending the bridge's exact gzip bytes with the bridge's headers. */
async function runBare(): Promise<void> {
  exitWithParent();
  if (flags.source === undefined) throw new Error('--role bare needs --source <bridge feed URL>');
  const fetched = await rawGet(flags.source, { 'accept-encoding': ACCEPT_ENCODING });
  if (fetched.status !== 200) throw new Error(`the bridge answered ${fetched.status}`);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(fetched.headers)) {
    if (value !== undefined && !NODE_OWN_HEADERS.has(name)) headers[name] = value;
  }
  const body = fetched.body;
  const server = createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  });
  server.listen(0, HOST);
  await once(server, 'listening');
  announce({ type: 'ready', port: (server.address() as AddressInfo).port, bodyBytes: body.length });
}

/** The least an express app can do for a conditional GET: a constant 304 on the same path. */
async function runExpress304(): Promise<void> {
  exitWithParent();
  const app = express();
  app.disable('x-powered-by');
  app.get(FEED_PATH, (_req, res) => {
    res.status(304).end();
  });
  const server = app.listen(0, HOST);
  await once(server, 'listening');
  announce({ type: 'ready', port: (server.address() as AddressInfo).port });
}

// ---------------------------------------------------------------------------------------------------
// Orchestrator.

const children = new Set<ChildProcess>();

function killChildren(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  }
}

if (flags.role === 'main') {
  process.on('exit', killChildren);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      killChildren();
      process.exit(130);
    });
  }
}

interface Server {
  readonly ready: ReadyMessage;
  readonly child: ChildProcess;
}

/** CPU time the server process has used so far, in µs. */
function cpuOf(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      server.child.off('message', onMessage);
      reject(new Error('no CPU-time answer within 10 s'));
    }, 10_000);
    const onMessage = (message: unknown): void => {
      if (!isCpuMessage(message)) return;
      clearTimeout(timer);
      server.child.off('message', onMessage);
      resolve(message.micros);
    };
    server.child.on('message', onMessage);
    server.child.send('cpu');
  });
}

/** Starts this file in another role and waits for its ready message. */
async function startChild(role: string, extra: readonly string[], timeoutMs: number): Promise<Server> {
  const args = [...process.execArgv, import.meta.filename, '--role', role, ...extra];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, TZ: 'UTC' },
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${role} was not ready within ${timeoutMs} ms`)), timeoutMs);
    child.on('message', (message: unknown) => {
      if (!isReadyMessage(message)) return;
      clearTimeout(timer);
      resolve({ ready: message, child });
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${role} exited early (code ${code}, signal ${signal})`));
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

interface WrkResult {
  readonly rps: number;
  /** Server CPU time per answered request, µs (less sensitive than rps to other load on the machine). */
  readonly serverCpuUsPerRequest?: number;
  readonly transferMbPerSec: number;
  readonly avgLatencyMs: number;
  readonly requests: number;
  readonly errors: string | undefined;
}

function toMs(value: number, unit: string): number {
  return unit === 'us' ? value / 1000 : unit === 's' ? value * 1000 : unit === 'm' ? value * 60_000 : value;
}

function toMb(value: number, unit: string): number {
  return unit === 'GB' ? value * 1024 : unit === 'KB' ? value / 1024 : unit === 'B' ? value / 1_048_576 : value;
}

/** One bounded wrk run; its own kill timer guards against a hang. */
async function wrk(
  url: string,
  headers: readonly string[],
  threads: number,
  connections: number,
  seconds: number,
): Promise<WrkResult> {
  const args = [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, '--timeout', '10s'];
  for (const header of headers) args.push('-H', header);
  args.push(url);
  const child = spawn('/usr/bin/wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const killer = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000);
  let out = '';
  let err = '';
  child.stdout.on('data', (part: Buffer) => {
    out += part.toString();
  });
  child.stderr.on('data', (part: Buffer) => {
    err += part.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(killer);
  children.delete(child);
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${err}${out}`);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const transfer = /Transfer\/sec:\s+([\d.]+)(\w+)/.exec(out);
  const latency = /Latency\s+([\d.]+)(\w+)/.exec(out);
  const requests = /(\d+) requests in/.exec(out);
  if (rps?.[1] === undefined || requests?.[1] === undefined) throw new Error(`cannot parse wrk output:\n${out}`);
  const problems = [/Non-2xx or 3xx responses: \d+/.exec(out)?.[0], /Socket errors: [^\n]+/.exec(out)?.[0]].filter(
    (problem): problem is string => problem !== undefined,
  );
  return {
    rps: Number(rps[1]),
    transferMbPerSec: transfer?.[1] === undefined ? 0 : round(toMb(Number(transfer[1]), transfer[2] ?? 'MB'), 1),
    avgLatencyMs: latency?.[1] === undefined ? 0 : round(toMs(Number(latency[1]), latency[2] ?? 'ms'), 2),
    requests: Number(requests[1]),
    errors: problems.length === 0 ? undefined : problems.join('; '),
  };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

interface Side {
  readonly name: string;
  readonly url: string;
  readonly server: Server;
}

/** A wrk run with the server's CPU time per request. */
async function measure(
  side: Side,
  headers: readonly string[],
  threads: number,
  connections: number,
  seconds: number,
): Promise<WrkResult> {
  const before = await cpuOf(side.server);
  const result = await wrk(side.url, headers, threads, connections, seconds);
  const after = await cpuOf(side.server);
  return { ...result, serverCpuUsPerRequest: round((after - before) / Math.max(1, result.requests), 1) };
}

interface Scenario {
  readonly name: 'gzip200' | 'notModified304';
  readonly bar: number;
  readonly bridge: Side;
  readonly baseline: Side;
  readonly headers: readonly string[];
}

async function main(): Promise<void> {
  const duration = positiveInt('duration', flags.duration);
  const warmup = Number(flags.warmup);
  const runs = positiveInt('runs', flags.runs);
  positiveInt('articles', flags.articles);
  const settings = flags.settings.split(',').map((setting) => {
    const [threads = '', connections = ''] = setting.trim().split('x');
    return { threads: positiveInt('settings', threads), connections: positiveInt('settings', connections) };
  });

  const selected = new Set(flags.scenarios.split(',').map((name) => name.trim()));
  for (const name of selected) {
    if (name !== 'gzip200' && name !== 'notModified304') throw new Error(`--scenarios: unknown scenario "${name}"`);
  }
  const bridge = await startChild('bridge', ['--articles', flags.articles, '--units', flags.units], 600_000);
  const bridgeUrl = `http://${HOST}:${bridge.ready.port}${FEED_PATH}`;
  // The warm-up request: the feed is cached already (the bridge rendered it before "ready"); this reads its validators.
  const warm = await rawGet(bridgeUrl, { 'accept-encoding': ACCEPT_ENCODING });
  if (warm.status !== 200 || warm.headers['content-encoding'] !== 'gzip') {
    throw new Error(`warm-up answered ${warm.status} ${String(warm.headers['content-encoding'])}`);
  }
  const etag = warm.headers.etag;
  if (etag === undefined) throw new Error('the bridge sent no ETag');
  const conditional = await rawGet(bridgeUrl, { 'accept-encoding': ACCEPT_ENCODING, 'if-none-match': etag });
  if (conditional.status !== 304) throw new Error(`conditional GET answered ${conditional.status}, expected 304`);

  const bare = await startChild('bare', ['--source', bridgeUrl, '--feed', flags.feed], 120_000);
  if (bare.ready.bodyBytes !== warm.body.length) {
    throw new Error(`bare server holds ${bare.ready.bodyBytes} bytes, bridge sent ${warm.body.length}`);
  }
  const express304 = await startChild('express304', ['--feed', flags.feed], 60_000);

  const bridgeSide: Side = { name: 'bridge', url: bridgeUrl, server: bridge };
  const scenarios: Scenario[] = [
    {
      name: 'gzip200',
      bar: 0.7,
      bridge: bridgeSide,
      baseline: {
        name: 'bare node:http, same bytes and headers',
        url: `http://${HOST}:${bare.ready.port}${FEED_PATH}`,
        server: bare,
      },
      headers: [`Accept-Encoding: ${ACCEPT_ENCODING}`],
    },
    {
      name: 'notModified304',
      bar: 0.8,
      bridge: bridgeSide,
      baseline: { name: 'express constant 304', url: `http://${HOST}:${express304.ready.port}${FEED_PATH}`, server: express304 },
      headers: [`Accept-Encoding: ${ACCEPT_ENCODING}`, `If-None-Match: ${etag}`],
    },
  ];

  const results = [];
  let allMet = true;
  for (const { threads, connections } of settings) {
    for (const scenario of scenarios) {
      if (!selected.has(scenario.name)) continue;
      if (warmup > 0) {
        for (const side of [scenario.bridge, scenario.baseline])
          await wrk(side.url, scenario.headers, threads, connections, warmup);
      }
      const bridgeRuns: WrkResult[] = [];
      const baselineRuns: WrkResult[] = [];
      for (let run = 0; run < runs; run++) {
        const bridgeFirst = run % 2 === 0;
        for (const which of bridgeFirst ? (['bridge', 'baseline'] as const) : (['baseline', 'bridge'] as const)) {
          const side = which === 'bridge' ? scenario.bridge : scenario.baseline;
          const result = await measure(side, scenario.headers, threads, connections, duration);
          if (result.errors !== undefined) throw new Error(`${scenario.name} ${side.name}: ${result.errors}`);
          (which === 'bridge' ? bridgeRuns : baselineRuns).push(result);
        }
      }
      const bridgeRps = median(bridgeRuns.map((run) => run.rps));
      const baselineRps = median(baselineRuns.map((run) => run.rps));
      const ratio = round(bridgeRps / baselineRps, 3);
      const met = ratio >= scenario.bar;
      allMet &&= met;
      results.push({
        scenario: scenario.name,
        wrk: `-t${threads} -c${connections} -d${duration}s`,
        bridge: {
          medianRps: round(bridgeRps, 1),
          runs: bridgeRuns.map((run) => run.rps),
          medianTransferMbPerSec: median(bridgeRuns.map((run) => run.transferMbPerSec)),
          medianLatencyMs: median(bridgeRuns.map((run) => run.avgLatencyMs)),
          medianServerCpuUsPerRequest: median(bridgeRuns.map((run) => run.serverCpuUsPerRequest ?? 0)),
        },
        baseline: {
          name: scenario.baseline.name,
          medianRps: round(baselineRps, 1),
          runs: baselineRuns.map((run) => run.rps),
          medianTransferMbPerSec: median(baselineRuns.map((run) => run.transferMbPerSec)),
          medianLatencyMs: median(baselineRuns.map((run) => run.avgLatencyMs)),
          medianServerCpuUsPerRequest: median(baselineRuns.map((run) => run.serverCpuUsPerRequest ?? 0)),
        },
        ratio,
        /** bridge ÷ baseline of each back-to-back pair, for judging how much the machine's other load moved things. */
        pairedRatios: bridgeRuns.map((run, index) => round(run.rps / (baselineRuns[index]?.rps ?? Number.NaN), 3)),
        /** baseline CPU per request / bridge CPU per request: the same comparison by cost instead of rate. */
        cpuRatio: round(
          median(baselineRuns.map((run) => run.serverCpuUsPerRequest ?? 0)) /
            median(bridgeRuns.map((run) => run.serverCpuUsPerRequest ?? 0)),
          3,
        ),
        bar: scenario.bar,
        met,
      });
    }
  }

  process.stdout.write(
    `${JSON.stringify(
      {
        node: process.version,
        articles: Number(flags.articles),
        units: Number(flags.units),
        feed: FEED_PATH,
        bridgeStartAndSyncMs: bridge.ready.syncMs,
        requestHeaders: { 'accept-encoding': ACCEPT_ENCODING, 'if-none-match (304 scenario)': etag },
        servedGzipBytes: warm.body.length,
        sizes: bridge.ready.sizes,
        results,
        allBarsMet: allMet,
      },
      null,
      2,
    )}\n`,
  );
  if (!allMet) process.exitCode = 1;
}

async function child(role: string): Promise<void> {
  if (role === 'bridge') await runBridge();
  else if (role === 'bare') await runBare();
  else if (role === 'express304') await runExpress304();
  else throw new Error(`unknown --role ${role}`);
}

try {
  if (flags.role === 'main') await main();
  else await child(flags.role);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  killChildren();
  process.exit(1);
}
if (flags.role === 'main') killChildren();
