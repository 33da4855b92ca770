import { readFile } from 'node:fs/promises';
import { pino } from 'pino';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { launchChromium } from '../helpers/browser.js';
import { createTestConfig } from '../helpers/test-config.js';

/** Found (or installed) by the e2e project's global setup; `null` skips these tests (never under CI). */
const CHROMIUM = inject('chromiumPath');

describe.skipIf(CHROMIUM === null)('status page in headless Chromium', () => {
  let app: RunningApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await startApp(createTestConfig({ SANDBOX_ARTICLES: '120', SANDBOX_SALES_PER_MINUTE: '0' }), {
      logger: pino({ level: 'silent' }),
    });
    await app.initialSync;
    browser = await launchChromium(CHROMIUM);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('shows units, syncs and feed links; a link opens the feed; the Excel CSV downloads', async () => {
    const page = await browser.newPage({ acceptDownloads: true });
    await page.goto(`${app.url}/`);

    await expect(page.title()).resolves.toBe('Feeds and syncs · catalog-bridge');
    const text = (await page.locator('body').textContent()) ?? '';
    expect(text).toContain(app.catalog.current()?.version ?? 'missing');
    expect(text).toContain('sync-catalog');
    for (const unit of ['U1', 'U2', 'U3']) expect(text).toContain(unit);

    const googleLink = page.locator('a[href$="/feeds/all/google.xml"]').first();
    await googleLink.click();
    await page.waitForLoadState();
    const xml = await page.content();
    expect(xml).toContain('g:id');
    await page.goBack();

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('a.button[href*="/feeds/all/products.csv?profile=excel"]').click(),
    ]);
    const path = await download.path();
    const bytes = await readFile(path);
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const lines = bytes.toString('utf8').slice(1).split('\r\n');
    expect(lines[0]?.split(';')[0]).toBe('id');
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    await page.close();
  });

  it('offers the Excel workbook beside the CSVs, and it downloads under its file name', async () => {
    const page = await browser.newPage({ acceptDownloads: true });
    await page.goto(`${app.url}/`);

    await expect(page.locator('#spreadsheets').textContent()).resolves.toContain('assumes a Czech locale');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('a[href$="/feeds/all/products.xlsx"]').click(),
    ]);
    const bytes = await readFile(await download.path());

    expect(download.suggestedFilename()).toBe('products-all.xlsx');
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    await page.close();
  });
});
