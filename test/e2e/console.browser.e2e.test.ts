import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app.js';
import { createTestConfig } from '../../src/config/load-config.js';

/** Found (or installed) by the e2e project's global setup; `null` skips these tests (never under CI). */
const CHROMIUM = inject('chromiumPath');
/** Screenshots of the main pages, kept as artefacts of the run (git-ignored). */
const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');

/** Whether the page is wider than its window (a horizontal scroll bar). */
async function scrollsSideways(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth')) === true;
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

describe.skipIf(CHROMIUM === null)('the console in headless Chromium', () => {
  let app: RunningApp;
  let browser: Browser;

  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    app = await startApp(createTestConfig({ SANDBOX_ARTICLES: '120', SANDBOX_SALES_PER_MINUTE: '0' }), {
      logger: pino({ level: 'silent' }),
    });
    await app.initialSync;
    browser = await chromium.launch({
      ...(CHROMIUM === null ? {} : { executablePath: CHROMIUM }),
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('speaks the browser’s language, and the switch changes it for the pages opened next', async () => {
    const context = await browser.newContext({ locale: 'cs-CZ' });
    const page = await context.newPage();
    await page.goto(`${app.url}/`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('cs');
    await expect(page.locator('h1').textContent()).resolves.toBe('Feedy a synchronizace');
    await screenshot(page, 'overview-cs');

    await page.getByRole('link', { name: 'English' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Feeds and syncs');
    // Remembered: a page opened without `?lang=` stays English although the browser prefers Czech.
    await page.goto(`${app.url}/`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await screenshot(page, 'overview-en');
    await context.close();
  });

  it('fits a 390 px wide phone without scrolling sideways, and the navigation works by keyboard', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'cs-CZ' });
    const page = await context.newPage();
    for (const path of ['/']) {
      await page.goto(`${app.url}${path}`);
      expect(await scrollsSideways(page), path).toBe(false);
    }
    await screenshot(page, 'overview-390px');
    // The first Tab reaches the skip link, which leads to the content.
    await page.keyboard.press('Tab');
    await expect(page.evaluate('document.activeElement?.className')).resolves.toBe('skip');
    await context.close();
  });
});
