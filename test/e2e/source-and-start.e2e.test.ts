import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { type Dispatcher, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedFileBase } from '../../src/adapters/feed-files/feed-file-names.js';
import { startApp } from '../../src/app/start-app.js';
import { openConfiguredWebhookInbox } from '../../src/app/webhook-parts.js';
import type { JobOutcome } from '../../src/jobs/scheduler.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/start-sandbox.js';
import type { StoredWebhookEvent } from '../../src/services/webhooks/webhook-processor.js';
import { createTestConfig } from '../helpers/test-config.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Start-up and the source of the stored catalog (docs/decisions/0007): a store the built-in sandbox
 * filled is never served for another POS, a catalog of the same POS is served at once while the start
 * sync runs, and a failed first sync is retried until the catalog is served, all without a scheduled run
 * (the cron expressions below fire once a year).
 */

const logger = pino({ level: 'silent' });
const POS_KEY = 'real-pos-key-0001';
const NEVER_SCHEDULED = { CATALOG_SYNC_CRON: '0 0 1 1 *', STOCK_SYNC_CRON: '0 0 1 1 *' };
const FEEDS = ['/feeds/all/products.json', '/feeds/all/google.xml', '/feeds/U1/products.csv', '/feeds/local-inventory.tsv'];

interface Readiness {
  ready: boolean;
  reason?: string;
  degraded?: boolean;
  version?: string;
  products?: number;
  units?: string[];
  source?: string;
  failedAt?: string;
  nextTryAt?: string;
  storedCatalogNotServed?: { source: string; version: string; products: number };
  jobs: Record<string, { outcome: string; finishedAt: string; nextTryAt?: string } | null>;
}

async function json<T>(url: string): Promise<{ status: number; body: T; headers: Headers }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as T, headers: response.headers };
}

async function text(url: string): Promise<string> {
  return (await fetch(url)).text();
}

/** Whether a job run ended with a published catalog. */
function isPublished(outcome: JobOutcome | undefined): boolean {
  return outcome?.ok === true && (outcome.result as { outcome?: string } | undefined)?.outcome === 'published';
}

async function metric(url: string, line: string): Promise<number> {
  const found = (await text(`${url}/metrics`)).split('\n').find((entry) => entry.startsWith(`${line} `));
  return found === undefined ? 0 : Number(found.split(' ').pop());
}

async function setFault(pos: RunningSandbox, fault: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${pos.url}/sandbox/faults`, {
    method: 'PUT',
    headers: { 'x-api-key': POS_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  expect(response.status).toBeLessThan(300);
}

/**
 * A standalone sandbox playing a real POS, behind a pass-through proxy whose address stays the POS's base
 * URL across the test, and which can hold the unit list (the first call of a full sync) until the test
 * releases it: what is served while the start sync runs is then observed without any race. With the
 * sandbox stopped, it answers 502 (a POS that is down).
 */
interface GatedPos {
  readonly url: string;
  hold(): void;
  release(): void;
  /** Unit-list calls being held. */
  held(): number;
  close(): Promise<void>;
}

async function startGatedPos(upstream: () => string): Promise<GatedPos> {
  let gate: { promise: Promise<void>; open: () => void } | undefined;
  let held = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (req.url === '/ext/unit/list' && gate !== undefined) {
        held += 1;
        await gate.promise;
        held -= 1;
      }
      try {
        const { host: _host, connection: _connection, ...headers } = req.headers;
        const answer = await request(`${upstream()}${req.url ?? '/'}`, {
          method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
          headers,
          ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        });
        const body = Buffer.from(await answer.body.arrayBuffer());
        const { 'transfer-encoding': _chunked, connection: _close, 'keep-alive': _alive, ...out } = answer.headers;
        res.writeHead(answer.statusCode, { ...out, 'content-length': String(body.length) }).end(body);
      } catch {
        res.writeHead(502).end();
      }
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hold() {
      let open = () => {};
      const promise = new Promise<void>((resolve) => {
        open = resolve;
      });
      gate = { promise, open };
    },
    release() {
      gate?.open();
      gate = undefined;
    },
    held: () => held,
    close: () =>
      new Promise<void>((resolve) => {
        gate?.open();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('switching the store from the sandbox to a POS, then restarting on it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'source-e2e-'));
  const STORE_URL = `sqlite://${join(dir, 'catalog.sqlite')}`;
  const sandboxConfig = createTestConfig({
    STORE_URL,
    SANDBOX_ARTICLES: '150',
    SANDBOX_UNITS: '2',
    SANDBOX_SALES_PER_MINUTE: '0',
    ...NEVER_SCHEDULED,
  });
  let pos: RunningSandbox;
  let gated: GatedPos;
  let posVersion = '';
  const posConfig = () =>
    createTestConfig({
      STORE_URL,
      POS_BASE_URL: gated.url,
      POS_API_KEY: POS_KEY,
      POS_MAX_RETRIES: '0',
      POS_TIMEOUT_MS: '10000',
      ...NEVER_SCHEDULED,
    });

  beforeAll(async () => {
    pos = await startSandbox({ units: 3, articles: 90, seed: 7, salesPerMinute: 0, apiKey: POS_KEY });
    gated = await startGatedPos(() => pos.url);
  });

  afterAll(async () => {
    await gated?.close();
    await pos?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('never serves the sandbox catalog for the POS, drops the sandbox’s webhook events, and serves the POS’s catalog from the start sync', async () => {
    const first = await startApp(sandboxConfig, { logger });
    await first.initialSync;
    const sandboxVersion = first.catalog.current()?.version ?? '';
    const sandboxProducts = first.catalog.current()?.products.length ?? 0;
    expect(sandboxVersion).toMatch(/^v-/);
    await first.stop();
    // A sale the sandbox had delivered and the bridge had not processed yet.
    const sandboxInbox = openConfiguredWebhookInbox(sandboxConfig, first.source);
    const sale: StoredWebhookEvent = {
      kind: 'sale',
      timestamp: new Date().toISOString(),
      event: 'accounting.receipt.sale',
      data: { localId: 'sandbox-receipt-1', number: 'S-1', state: 'open' },
    };
    await sandboxInbox.accept('sale|sandbox-receipt-1', sale, new Date());
    await sandboxInbox.close();

    gated.hold();
    const app = await startApp(posConfig(), { logger });
    try {
      expect(app.source.id).not.toBe(first.source.id);
      expect(app.source.label).toMatch(/^the POS at http:\/\/127\.0\.0\.1:\d+$/);
      expect(app.source.label).not.toContain(POS_KEY);
      // The start sync is waiting for the POS's unit list: whatever is served now, the store gave.
      await waitFor(() => gated.held() === 1, { message: 'the start sync to ask for the unit list' });

      const waiting = await json<Readiness>(`${app.url}/readyz`);
      expect(waiting.status).toBe(503);
      expect(waiting.body).toMatchObject({
        ready: false,
        reason: `the first sync from ${app.source.label} is running`,
        source: app.source.label,
        storedCatalogNotServed: { source: first.source.label, version: sandboxVersion, products: sandboxProducts },
      });
      for (const path of FEEDS) {
        const feed = await json<{ error: { code: string; message: string } }>(`${app.url}${path}`);
        expect(feed.status, path).toBe(503);
        expect(feed.body.error.code).toBe('CATALOG_NOT_READY');
        expect(feed.body.error.message).toContain(`the first sync from ${app.source.label} is running`);
      }
      expect((await fetch(`${app.url}/feeds`)).status).toBe(503);
      const page = await text(`${app.url}/`);
      expect(page).toContain(`came from ${first.source.label}, not from the configured POS`);
      expect(page).toContain(`The first sync from ${app.source.label} is running.`);
      expect(app.catalog.current()).toBeUndefined();

      gated.release();
      await app.initialSync;

      const ready = await json<Readiness>(`${app.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ ready: true, degraded: false, units: ['U1', 'U2', 'U3'], source: app.source.label });
      expect(ready.body.version).not.toBe(sandboxVersion);
      expect(ready.body.storedCatalogNotServed).toBeUndefined();
      posVersion = ready.body.version ?? '';
      const feed = await json<{ version: string; count: number }>(`${app.url}/feeds/all/products.json`);
      expect(feed.status).toBe(200);
      expect(feed.body).toMatchObject({ version: posVersion, count: ready.body.products });
      expect(ready.body.products).not.toBe(sandboxProducts);
      // The start sync did it: one run, and no scheduled one.
      expect(await metric(app.url, 'catalog_bridge_job_runs_total{job="sync-catalog",outcome="published"}')).toBe(1);
      expect(await metric(app.url, 'catalog_bridge_job_duration_seconds_count{job="sync-catalog"}')).toBe(1);

      // The sandbox's event was dropped, never applied to the POS's catalog.
      await app.webhooks.idle();
      expect(app.webhooks.stats()).toMatchObject({ pending: 0, sales: { applied: 0, refetched: 0, dropped: 0 } });
      const leftOver = openConfiguredWebhookInbox(sandboxConfig, first.source);
      expect(await leftOver.pending()).toEqual([]);
      await leftOver.close();
    } finally {
      gated.release();
      await app.stop();
    }
  });

  it('serves a stored catalog of the same POS at once, and syncs at start', async () => {
    expect(posVersion).toMatch(/^v-/);
    // The POS changes while the bridge is down.
    await pos.makeSale({ unitCode: 'U1' });
    // The feed rendered before the stop, as its manifest names it (docs/decisions/0016-feed-files.md).
    const manifestPath = join(dir, 'catalog.feeds', `${feedFileBase('products.json|all|')}.json`);
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: string; files: { identity: { name: string } } };
    expect(manifest.version).toBe(posVersion);
    gated.hold();
    const app = await startApp(posConfig(), { logger });
    try {
      const served = await json<Readiness>(`${app.url}/readyz`);
      expect(served.status).toBe(200);
      expect(served.body).toMatchObject({ ready: true, version: posVersion, units: ['U1', 'U2', 'U3'] });
      const feed = await fetch(`${app.url}/feeds/all/products.json`, { headers: { 'accept-encoding': 'identity' } });
      expect(feed.status).toBe(200);
      expect(feed.headers.get('x-catalog-version')).toBe(posVersion);
      // Sent from the file written before the restart: not rendered again.
      const body = Buffer.from(await feed.arrayBuffer());
      expect(body.equals(readFileSync(join(dir, 'catalog.feeds', manifest.files.identity.name)))).toBe(true);
      await app.prewarm.idle();
      expect(JSON.parse(readFileSync(manifestPath, 'utf8'))).toEqual(manifest);
      await waitFor(() => gated.held() === 1, { message: 'the start sync to ask for the unit list' });
      expect(app.jobs.status()['sync-catalog']?.running).toBe(true);

      gated.release();
      await app.initialSync;

      const synced = await json<Readiness>(`${app.url}/readyz`);
      expect(synced.body.jobs['sync-catalog']?.outcome).toBe('published');
      expect(synced.body.version).not.toBe(posVersion);
      expect(synced.body.degraded).toBe(false);
      posVersion = synced.body.version ?? '';
    } finally {
      gated.release();
      await app.stop();
    }
  });

  it('keeps serving the stored catalog when the POS is down at start, and says when it tries again', async () => {
    await pos.stop();
    const app = await startApp(posConfig(), { logger, syncRetryDelayMs: () => 600_000 });
    try {
      expect((await json<Readiness>(`${app.url}/readyz`)).body.version).toBe(posVersion);
      await app.initialSync;

      const { status, body } = await json<Readiness>(`${app.url}/readyz`);
      expect(status).toBe(200);
      expect(body).toMatchObject({ ready: true, degraded: true, version: posVersion });
      const run = body.jobs['sync-catalog'];
      expect(run?.outcome).toBe('failed');
      expect(Date.parse(run?.nextTryAt ?? '') - Date.parse(run?.finishedAt ?? '')).toBeGreaterThanOrEqual(600_000);
      // The status page's "next run" of the full sync is that retry.
      expect(await text(`${app.url}/`)).toContain(run?.nextTryAt);
    } finally {
      await app.stop();
    }
  });
});

describe('a start against a POS that fails the first sync three times, then recovers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'start-retry-e2e-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('retries with backoff and serves its catalog within a minute, without a scheduled run', async () => {
    const pos = await startSandbox({ units: 2, articles: 60, seed: 11, salesPerMinute: 0, apiKey: POS_KEY });
    await setFault(pos, { endpoint: 'unit-list', mode: 'error', status: 503, times: 3 });
    const asked: number[] = [];
    const app = await startApp(
      createTestConfig({
        STORE_URL: `sqlite://${join(dir, 'catalog.sqlite')}`,
        POS_BASE_URL: pos.url,
        POS_API_KEY: POS_KEY,
        POS_MAX_RETRIES: '0',
        ...NEVER_SCHEDULED,
      }),
      {
        logger,
        // The real schedule waits 10 s, 30 s, 1 min: the test asks for the same steps, shorter.
        syncRetryDelayMs: (failures) => {
          asked.push(failures);
          return 100 * failures;
        },
      },
    );
    try {
      await app.initialSync;
      const failed = await json<Readiness>(`${app.url}/readyz`);
      expect(failed.status).toBe(503);
      expect(failed.body.failedAt).toEqual(expect.any(String));
      expect(failed.body.reason).toMatch(
        new RegExp(
          `^the first sync from ${app.source.label.replace(/[.()]/g, '\\$&')} failed at \\S+; (next try at \\S+|trying again now)$`,
        ),
      );

      // Waits for the scheduler's end of the run, not for /readyz: a full sync serves its catalog before it
      // has stored it, and the run (its metrics included) is counted only once the store has it.
      await waitFor(() => isPublished(app.jobs.status()['sync-catalog']?.last), {
        timeoutMs: 60_000,
        message: 'a published full sync',
      });

      const ready = await json<Readiness>(`${app.url}/readyz`);
      expect(ready.body).toMatchObject({ ready: true, degraded: false, units: ['U1', 'U2'] });
      expect(ready.body.jobs['sync-catalog']?.outcome).toBe('published');
      expect(asked).toEqual([1, 2, 3]);
      expect(await metric(app.url, 'catalog_bridge_job_runs_total{job="sync-catalog",outcome="failed"}')).toBe(3);
      expect(await metric(app.url, 'catalog_bridge_job_runs_total{job="sync-catalog",outcome="published"}')).toBe(1);
      expect(app.jobs.status()['sync-catalog']).toMatchObject({ failures: 0, nextTry: undefined });
      expect((await fetch(`${app.url}/feeds/all/products.json`)).status).toBe(200);
    } finally {
      await app.stop();
      await pos.stop();
    }
  }, 90_000);
});
