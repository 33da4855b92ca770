import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { launchChromium, scrollsSideways } from '../helpers/browser.js';
import { createTestConfig } from '../helpers/test-config.js';

/** Found (or installed) by the e2e project's global setup; `null` skips these tests (never under CI). */
const CHROMIUM = inject('chromiumPath');
/** Screenshots of the pages, kept as artefacts of the run (git-ignored). */
const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');
const ADMIN = 'admin-token-for-tests';

describe.skipIf(CHROMIUM === null)('sync history and warnings in headless Chromium', () => {
  let app: RunningApp;
  let browser: Browser;

  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    app = await startApp(
      createTestConfig({
        ADMIN_TOKEN: ADMIN,
        SANDBOX_ARTICLES: '120',
        SANDBOX_SALES_PER_MINUTE: '0',
        POS_MAX_RETRIES: '0',
        CATALOG_SYNC_CRON: '0 0 1 1 *',
        STOCK_SYNC_CRON: '0 0 1 1 *',
      }),
      { logger: pino({ level: 'silent' }), syncRetryDelayMs: () => 3_600_000 },
    );
    await app.initialSync;
    // A failed run between two good ones, for the charts.
    const fault = (method: string, body?: unknown) =>
      fetch(`${app.posUrl}/sandbox/faults`, {
        method,
        headers: { 'x-api-key': 'sandbox-key', 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const sync = () =>
      fetch(`${app.url}/admin/sync?wait=true`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` } });
    await fault('PUT', { endpoint: 'article-list', mode: 'error', status: 500 });
    await sync();
    await fault('DELETE');
    await sync();
    browser = await launchChromium(CHROMIUM);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('shows the charts and the runs at 390 px without sideways scroll, and downloads a report', async () => {
    const context = await browser.newContext({ locale: 'cs-CZ', viewport: { width: 390, height: 844 }, acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(`${app.url}/syncs`);

    await expect(page.locator('h1').textContent()).resolves.toBe('Historie synchronizací');
    const chart = page.getByRole('img', { name: /^Trvání za poslední 3 běhy: .*; 1 selhal$/ });
    await expect(chart.count()).resolves.toBe(1);
    const box = await chart.boundingBox();
    expect(box?.width).toBeGreaterThan(200);
    expect(box?.width).toBeLessThanOrEqual(390);
    await expect(page.locator('svg.chart .failed-point').count()).resolves.toBe(2);
    expect(await scrollsSideways(page)).toBe(false);
    await page.screenshot({ path: join(SCREENSHOTS, 'syncs-390px-cs.png'), fullPage: true });

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('a[download]').first().click()]);
    expect(download.suggestedFilename()).toMatch(/^sync-catalog-\d{8}T\d{6}Z-[0-9a-f]{6}\.json$/);
    const report = JSON.parse(await readFile(await download.path(), 'utf8')) as { job: string; runId: string };
    expect(report.job).toBe('sync-catalog');
    expect(download.suggestedFilename()).toBe(`sync-${report.runId}.json`);
    await context.close();
  });

  it('lists the warnings with what to do, at 390 px without sideways scroll', async () => {
    const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${app.url}/warnings`);

    await expect(page.locator('h1').textContent()).resolves.toBe('Warnings');
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain('Set POS_BASE_URL and POS_API_KEY to read your POS.');
    expect(text).toContain('FEED_BRAND');
    expect(await scrollsSideways(page)).toBe(false);
    await page.screenshot({ path: join(SCREENSHOTS, 'warnings-390px-en.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.url}/syncs`);
    await page.screenshot({ path: join(SCREENSHOTS, 'syncs-en.png'), fullPage: true });
    await context.close();
  });
});
