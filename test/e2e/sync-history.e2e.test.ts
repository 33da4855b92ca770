import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import type { SyncReport, SyncRunSummary } from '../../src/services/catalog/catalog-service.js';
import type { ConsoleWarning } from '../../src/services/console/console-warnings.js';
import { createTestConfig } from '../helpers/test-config.js';

/** The sync history (docs/console.md#sync-history) against the sandbox POS, on a SQLite store that outlives a restart. */

const logger = pino({ level: 'silent' });
const ADMIN = 'admin-token-for-tests';
const TOKEN = 'feed-token-for-tests';
const NEVER_SCHEDULED = { CATALOG_SYNC_CRON: '0 0 1 1 *', STOCK_SYNC_CRON: '0 0 1 1 *' };

type Run = SyncRunSummary & { readonly report: string };
type Warning = ConsoleWarning & { readonly docs: string };

async function json<T>(url: string, init: RequestInit = {}): Promise<{ status: number; body: T; headers: Headers }> {
  const response = await fetch(url, init);
  return { status: response.status, body: (await response.json()) as T, headers: response.headers };
}

describe('sync history', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sync-history-e2e-'));
  const config = createTestConfig({
    STORE_URL: `sqlite://${join(dir, 'catalog.sqlite')}`,
    ADMIN_TOKEN: ADMIN,
    FEED_TOKEN: TOKEN,
    SANDBOX_ARTICLES: '150',
    SANDBOX_UNITS: '2',
    SANDBOX_SALES_PER_MINUTE: '0',
    POS_TIMEOUT_MS: '800',
    POS_MAX_RETRIES: '0',
    ...NEVER_SCHEDULED,
  });
  let app: RunningApp;
  const api = (path: string) => `${app.url}${path}${path.includes('?') ? '&' : '?'}token=${TOKEN}`;
  const runs = async (query = '') => (await json<{ runs: Run[] }>(api(`/api/syncs${query}`))).body.runs;

  async function adminSync(job: 'catalog' | 'stock' = 'catalog') {
    return json<SyncReport>(`${app.url}/admin/sync?wait=true&job=${job}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
  }

  async function setFault(fault: Record<string, unknown> | undefined): Promise<void> {
    const response = await fetch(`${app.posUrl}/sandbox/faults`, {
      method: fault === undefined ? 'DELETE' : 'PUT',
      headers: { 'x-api-key': 'sandbox-key', 'content-type': 'application/json' },
      ...(fault === undefined ? {} : { body: JSON.stringify(fault) }),
    });
    expect(response.status).toBeLessThan(300);
  }

  beforeAll(async () => {
    app = await startApp(config, { logger, syncRetryDelayMs: () => 3_600_000 });
    await app.initialSync;
  });

  afterAll(async () => {
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the start sync with its counts per source', async () => {
    const [run] = await runs();

    expect(run).toMatchObject({
      job: 'sync-catalog',
      outcome: 'published',
      products: expect.any(Number),
      rejected: expect.any(Number),
      unmatched: expect.any(Number),
      counts: { units: 2, articles: 150, priceListRows: expect.any(Number), stockRows: expect.any(Number) },
    });
    expect(run?.runId).toMatch(/^catalog-\d{8}T\d{6}Z-[0-9a-f]{6}$/);
    expect(run?.products).toBeGreaterThan(100);
    expect(run?.counts.priceListRows).toBeGreaterThan(100);
    expect(run?.durationMs).toBeGreaterThanOrEqual(0);
    expect(run?.report).toBe(`/api/syncs/${run?.runId}`);
    expect(app.catalog.lastReport('sync-catalog')?.runId).toBe(run?.runId);
  });

  it('needs the feed token', async () => {
    expect((await fetch(`${app.url}/api/syncs`)).status).toBe(401);
    expect((await fetch(`${app.url}/syncs`)).status).toBe(401);
  });

  it('lists a failed run with its error, newest first, and a stock run under its job', async () => {
    await setFault({ endpoint: 'unit-list', mode: 'error', status: 500 });
    try {
      expect((await adminSync()).body.outcome).toBe('failed');
    } finally {
      await setFault(undefined);
    }
    expect((await adminSync('stock')).status).toBeLessThan(300);

    const all = await runs();
    expect(all.map((run) => [run.job, run.outcome])).toEqual([
      ['sync-stock', expect.stringMatching(/^(published|unchanged)$/)],
      ['sync-catalog', 'failed'],
      ['sync-catalog', 'published'],
    ]);
    expect(all[1]?.error?.code).toBe('POS_UNAVAILABLE');
    expect(all[0]?.counts.stockRows).toBeGreaterThan(0);
    expect((await runs('?job=catalog')).map((run) => run.outcome)).toEqual(['failed', 'published']);
    expect((await runs('?job=stock&limit=1')).map((run) => run.job)).toEqual(['sync-stock']);
    expect(await runs('?limit=1')).toHaveLength(1);
  });

  it('warns of the failed sync, the missing brand and the sandbox, with what to do', async () => {
    const { status, body } = await json<{ counts: Record<string, number>; warnings: Warning[] }>(api('/api/warnings'));

    expect(status).toBe(200);
    const byCode = new Map(body.warnings.map((warning) => [warning.code, warning]));
    expect(byCode.get('catalog-sync-failed')).toMatchObject({
      severity: 'error',
      subject: 'sync-catalog',
      docs: '/docs/report-codes#POS_UNAVAILABLE',
      message: { en: expect.stringContaining('POS_UNAVAILABLE'), cs: expect.stringContaining('selhala (POS_UNAVAILABLE') },
      action: { en: expect.stringContaining('next try: '), cs: expect.stringContaining('další pokus: ') },
    });
    expect(byCode.get('no-brand')).toMatchObject({ severity: 'warning', message: { en: expect.stringContaining('FEED_BRAND') } });
    expect(byCode.get('sandbox-pos')).toMatchObject({
      severity: 'info',
      action: { en: 'Set POS_BASE_URL and POS_API_KEY to read your POS.' },
    });
    // The sandbox gives its products links; only the brand is missing.
    expect(byCode.has('no-product-link')).toBe(false);
    expect(body.warnings[0]?.severity).toBe('error');
    expect(body.warnings.at(-1)?.severity).toBe('info');
    expect(body.counts.total).toBe(body.warnings.length);
    expect(body.counts.error).toBeGreaterThanOrEqual(1);

    const errors = await json<{ warnings: Warning[] }>(api('/api/warnings?severity=error'));
    expect(errors.body.warnings.every((warning) => warning.severity === 'error')).toBe(true);
    expect((await fetch(api('/api/warnings?severity=fatal'))).status).toBe(400);
    expect((await fetch(`${app.url}/api/warnings`)).status).toBe(401);
  });

  it('shows the warnings by severity in Czech', async () => {
    const page = await (await fetch(api('/warnings'), { headers: { 'accept-language': 'cs' } })).text();

    expect(page).toContain('<h1>Upozornění</h1>');
    expect(page).toMatch(/<h2 id="error">Chyby \(\d+\)<\/h2>/);
    expect(page).toContain('data-code="catalog-sync-failed"');
    expect(page).toContain('href="/docs/report-codes#POS_UNAVAILABLE"');
    expect(page).toContain('Nastavte POS_BASE_URL a POS_API_KEY, aby bridge četl vaši pokladnu.');
    expect(page.indexOf('id="error"')).toBeLessThan(page.indexOf('id="info"'));
  });

  it('hands out a whole report, as a download when asked', async () => {
    const [, , published] = await runs();
    const id = published?.runId ?? '';

    const shown = await json<SyncReport>(api(`/api/syncs/${id}`));
    expect(shown.status).toBe(200);
    expect(shown.headers.get('content-disposition')).toBeNull();
    expect(shown.body).toMatchObject({ runId: id, job: 'sync-catalog', outcome: 'published' });
    expect(shown.body.merge?.issueCounts).toBeDefined();

    const download = await fetch(api(`/api/syncs/${id}?download=1`));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="sync-${id}.json"`);
    expect(download.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await download.json()) as SyncReport).runId).toBe(id);
  });

  it.each([
    '/api/syncs?job=everything',
    '/api/syncs?limit=0',
    '/api/syncs?limit=101',
    '/api/syncs?limit=ten',
    '/api/syncs/catalog-x?download=yes',
  ])('answers %s with 400', async (path) => {
    const { status, body } = await json<{ error: { code: string; message: string } }>(api(path));

    expect(status).toBe(400);
    expect(body.error.code).toBe('BAD_QUERY');
    expect(body.error.message).not.toBe('');
  });

  it.each(['/api/syncs/catalog-20260101T000000Z-000000', '/api/syncs/..%2Fcatalog', '/api/syncs/%20'])(
    'answers an unknown run (%s) with 404',
    async (path) => {
      const { status, body } = await json<{ error: { code: string } }>(api(path));

      expect(status).toBe(404);
      expect(body.error.code).toBe('UNKNOWN_RUN');
    },
  );

  it('shows the runs with charts, in English and Czech', async () => {
    const english = await (await fetch(api('/syncs'), { headers: { 'accept-language': 'en' } })).text();
    const czech = await (await fetch(api('/syncs'), { headers: { 'accept-language': 'cs-CZ' } })).text();

    expect(english).toContain('Full catalog sync');
    expect(english).toMatch(/<svg class="chart" role="img" aria-label="Duration over the last 2 runs: [^"]*; 1 failed"/);
    expect(english).toContain('href="/docs/report-codes#failed"');
    expect(english).toContain('href="/docs/report-codes#POS_UNAVAILABLE"');
    expect(english).toMatch(/href="\/api\/syncs\/catalog-[^"]+\?download=1&amp;token=feed-token-for-tests" download/);
    expect(english).toContain('<div class="table-wrap"><table>');
    expect(czech).toContain('Historie synchronizací');
    expect(czech).toContain('Úplná synchronizace katalogu');
    expect(czech).toMatch(/aria-label="Trvání za poslední 2 běhy: [^"]*; 1 selhal"/);
    expect(czech).toContain('>selhalo</a>');
  });

  it('keeps the history across a restart', async () => {
    const before = await runs();
    await app.stop();
    app = await startApp(config, { logger, syncRetryDelayMs: () => 3_600_000 });
    await app.initialSync;

    const after = await runs();
    expect(after).toHaveLength(before.length + 1);
    expect(after.slice(1).map((run) => run.runId)).toEqual(before.map((run) => run.runId));
    expect((await json<SyncReport>(api(`/api/syncs/${before[1]?.runId}`))).body.error?.code).toBe('POS_UNAVAILABLE');
  });
});
