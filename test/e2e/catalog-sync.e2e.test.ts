import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { createTestConfig } from '../helpers/test-config.js';

const logger = pino({ level: 'silent' });
const ADMIN = 'admin-token-for-tests';
const dir = mkdtempSync(join(tmpdir(), 'catalog-sync-e2e-'));
const storeUrl = `sqlite://${join(dir, 'catalog.sqlite')}`;

interface Readiness {
  ready: boolean;
  degraded?: boolean;
  version?: string;
  products?: number;
  jobs: Record<string, { outcome: string; error?: { code: string; message: string } } | null>;
  eventLoopDelay?: unknown;
}

async function json<T>(url: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(url, init);
  return { status: response.status, body: (await response.json()) as T };
}

function adminSync(app: RunningApp, query = 'wait=true') {
  return json<{ outcome: string; version?: string; error?: { code: string } }>(`${app.url}/admin/sync?${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}` },
  });
}

async function setFault(app: RunningApp, fault: Record<string, unknown> | undefined): Promise<void> {
  const response = await fetch(`${app.posUrl}/sandbox/faults`, {
    method: fault === undefined ? 'DELETE' : 'PUT',
    headers: { 'x-api-key': 'sandbox-key', 'content-type': 'application/json' },
    ...(fault === undefined ? {} : { body: JSON.stringify(fault) }),
  });
  expect(response.status).toBeLessThan(300);
}

describe('catalog sync against the sandbox POS', () => {
  let app: RunningApp;
  let firstVersion: string;

  beforeAll(async () => {
    app = await startApp(
      createTestConfig({
        STORE_URL: storeUrl,
        ADMIN_TOKEN: ADMIN,
        SANDBOX_ARTICLES: '300',
        SANDBOX_SALES_PER_MINUTE: '0',
        POS_TIMEOUT_MS: '800',
        POS_MAX_RETRIES: '1',
      }),
      { logger },
    );
    await app.initialSync;
  });

  afterAll(async () => {
    await app?.stop();
  });

  it('syncs at start-up and becomes ready', async () => {
    const { status, body } = await json<Readiness>(`${app.url}/readyz`);

    expect(status).toBe(200);
    expect(body.ready).toBe(true);
    expect(body.degraded).toBe(false);
    expect(body.products).toBeGreaterThan(250);
    expect(body.jobs['sync-catalog']?.outcome).toBe('published');
    // The main thread's event-loop delay over the last minute.
    expect(body.eventLoopDelay).toEqual({
      maxMs: expect.any(Number),
      p50Ms: expect.any(Number),
      p99Ms: expect.any(Number),
      windowSeconds: expect.any(Number),
    });
    firstVersion = body.version ?? '';
    expect(firstVersion).toMatch(/^v-/);
  });

  it.each([
    ['a 5xx on the unit list', { endpoint: 'unit-list', mode: 'error', status: 500 }, 'POS_UNAVAILABLE'],
    ['a hang past the timeout', { endpoint: 'article-list', mode: 'hang' }, 'POS_UNAVAILABLE'],
    ['malformed JSON', { endpoint: 'article-list', mode: 'malformed' }, 'POS_RESPONSE_INVALID'],
    ['a truncated page', { endpoint: 'article-list', mode: 'truncated' }, 'POS_UNAVAILABLE'],
    ['isValid: false', { endpoint: 'article-list', mode: 'invalid' }, 'POS_REJECTED'],
    ['malformed price-list XML', { endpoint: 'price-list', mode: 'malformed' }, 'PRICE_LIST_INVALID'],
    ['a truncated price list', { endpoint: 'price-list', mode: 'truncated' }, undefined],
    ['a failing stock export', { endpoint: 'stock-export', mode: 'error', status: 503 }, 'POS_UNAVAILABLE'],
  ])('keeps serving the last good version on %s and reports it', async (_name, fault, code) => {
    await setFault(app, fault);
    try {
      const run = await adminSync(app);

      expect(run.status).toBe(502);
      expect(run.body.outcome).toBe('failed');
      if (code !== undefined) expect(run.body.error?.code).toBe(code);
      expect(run.body.version).toBe(firstVersion);
      const { status, body } = await json<Readiness>(`${app.url}/readyz`);
      expect(status).toBe(200);
      expect(body.version).toBe(firstVersion);
      expect(body.degraded).toBe(true);
      expect(body.jobs['sync-catalog']?.outcome).toBe('failed');
      expect(app.catalog.current()?.version).toBe(firstVersion);
    } finally {
      await setFault(app, undefined);
    }
  });

  it('refuses to publish an empty catalog', async () => {
    await setFault(app, { endpoint: 'article-list', mode: 'empty' });
    try {
      const run = await adminSync(app);

      expect(run.status).toBe(409);
      expect(run.body.outcome).toBe('refused');
      expect(app.catalog.current()?.version).toBe(firstVersion);
    } finally {
      await setFault(app, undefined);
    }
  });

  it('keeps the version (and its ETags) when a healthy sync finds nothing changed', async () => {
    const run = await adminSync(app);

    expect(run.status).toBe(200);
    expect(run.body.outcome).toBe('unchanged');
    expect(run.body.version).toBe(firstVersion);
    const { body } = await json<Readiness>(`${app.url}/readyz`);
    expect(body.degraded).toBe(false);
  });

  it('publishes a new version when stock changed, through the stock sync', async () => {
    // The stock sync is what this shows: the sale's webhook must not have applied it first.
    app.sandbox?.setWebhookUrl(undefined);
    await app.sandbox?.makeSale({ unitCode: 'U1' });

    const run = await adminSync(app, 'wait=true&job=stock');

    expect(run.status).toBe(200);
    expect(run.body.outcome).toBe('published');
    expect(run.body.version).not.toBe(firstVersion);
    expect(app.catalog.current()?.version).toBe(run.body.version);
  });

  it('starts a run in the background without wait', async () => {
    const run = await adminSync(app, '');

    expect(run.status).toBe(202);
    expect(run.body).toEqual({ job: 'sync-catalog', status: 'started' });
    await app.jobs.runNow('sync-catalog');
  });

  it('guards the admin endpoint with the admin token', async () => {
    const missing = await fetch(`${app.url}/admin/sync`, { method: 'POST' });
    const wrong = await fetch(`${app.url}/admin/sync`, { method: 'POST', headers: { authorization: 'Bearer nope' } });
    const badQuery = await fetch(`${app.url}/admin/sync?job=everything`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
    });

    expect(missing.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    expect(badQuery.status).toBe(400);
  });
});

describe('restart on the sandbox’s store against another POS', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('does not serve the sandbox’s catalog, even while that POS is down, and says when it tries again', async () => {
    const restarted = await startApp(
      createTestConfig({
        STORE_URL: storeUrl,
        // A POS that refuses connections: every sync fails. The stored catalog is the sandbox's: not this POS's.
        POS_BASE_URL: 'http://127.0.0.1:9',
        POS_API_KEY: 'key-of-a-pos-that-is-down',
        POS_MAX_RETRIES: '0',
      }),
      { logger },
    );
    try {
      await restarted.initialSync;
      const { status, body } = await json<Readiness & { reason: string; storedCatalogNotServed: { version: string } }>(
        `${restarted.url}/readyz`,
      );

      expect(status).toBe(503);
      expect(body.ready).toBe(false);
      expect(body.reason).toMatch(/^the first sync from the POS at http:\/\/127\.0\.0\.1:9 failed at \S+; next try at \S+$/);
      expect(body.storedCatalogNotServed.version).toMatch(/^v-/);
      expect(body.jobs['sync-catalog']?.outcome).toBe('failed');
      expect(restarted.catalog.current()).toBeUndefined();
      expect((await fetch(`${restarted.url}/feeds/all/products.json`)).status).toBe(503);
    } finally {
      await restarted.stop();
    }
  });
});

describe('admin endpoints without ADMIN_TOKEN', () => {
  it('are disabled', async () => {
    const app = await startApp(
      createTestConfig({ POS_BASE_URL: 'http://127.0.0.1:9', POS_API_KEY: 'key-of-a-pos-that-is-down', POS_MAX_RETRIES: '0' }),
      {
        logger,
      },
    );
    try {
      const response = await fetch(`${app.url}/admin/sync`, { method: 'POST' });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('ADMIN_DISABLED');
      const ready = await fetch(`${app.url}/readyz`);
      await app.initialSync;
      expect(ready.status).toBe(503);
    } finally {
      await app.stop();
    }
  });
});

describe('metrics', () => {
  it('exposes job runs, durations, feed requests and catalog size in Prometheus format', async () => {
    const app = await startApp(createTestConfig({ SANDBOX_ARTICLES: '40', SANDBOX_SALES_PER_MINUTE: '0' }), { logger });
    try {
      await app.initialSync;
      await fetch(`${app.url}/feeds/all/products.json`);
      await fetch(`${app.url}/feeds/nowhere/products.json`);

      const response = await fetch(`${app.url}/metrics`);
      const text = await response.text();

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      expect(text).toContain('catalog_bridge_job_runs_total{job="sync-catalog",outcome="published"} 1');
      expect(text).toContain('catalog_bridge_job_duration_seconds_count{job="sync-catalog"} 1');
      expect(text).toContain('catalog_bridge_feed_requests_total{feed="products.json",status="200"} 1');
      expect(text).toContain('catalog_bridge_feed_requests_total{feed="products.json",status="404"} 1');
      expect(text).toMatch(/catalog_bridge_catalog_items\{unit="all"\} \d+/);
      expect(text).toContain('catalog_bridge_process_cpu_seconds_total');
      expect(text).toContain('# TYPE catalog_bridge_event_loop_delay_seconds histogram');
      expect(text).toMatch(/catalog_bridge_event_loop_delay_seconds_bucket\{le="0\.1"\} \d+/);
    } finally {
      await app.stop();
    }
  });
});
