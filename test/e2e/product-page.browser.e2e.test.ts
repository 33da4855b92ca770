import { pino } from 'pino';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { launchChromium } from '../helpers/browser.js';
import { createTestConfig } from '../helpers/test-config.js';

/** Found (or installed) by the e2e project's global setup; `null` skips these tests (never under CI). */
const CHROMIUM = inject('chromiumPath');

/** A product's page at a phone's width, without JavaScript: nothing scrolls sideways, the item opens. */
describe.skipIf(CHROMIUM === null)('the product page in headless Chromium', () => {
  let app: RunningApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await startApp(
      createTestConfig({
        SANDBOX_ARTICLES: '120',
        SANDBOX_SALES_PER_MINUTE: '0',
        FEED_PRODUCT_URL: 'https://shop.example.cz/p/{internalIdentifier}',
      }),
      { logger: pino({ level: 'silent' }) },
    );
    await app.initialSync;
    browser = await launchChromium(CHROMIUM);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('is 390 px wide with no horizontal scroll, and shows an included item and a left-out one', async () => {
    const withLink = app.catalog.current()?.products.find((product) => product.internalIdentifier !== undefined);
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    await page.goto(`${app.url}/products/${withLink?.id ?? ''}?lang=cs`);

    const widths = await page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]');
    expect((widths as number[])[0]).toBeLessThanOrEqual((widths as number[])[1] ?? 0);
    const included = page.locator('#feed-products\\.json-all.included');
    await included.locator('summary').click();
    await expect(included.locator('pre').isVisible()).resolves.toBe(true);
    await expect(included.locator('pre').textContent()).resolves.toContain(`"id":"${withLink?.id ?? ''}"`);

    const noLink = app.catalog.current()?.products.find((product) => product.internalIdentifier === undefined);
    await page.goto(`${app.url}/products/${noLink?.id ?? ''}?lang=en`);
    await expect(page.locator('#feed-heureka\\.xml-all.left-out .reason').textContent()).resolves.toContain('URL is missing');
    const after = await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth');
    expect(after).toBe(true);
  });
});
