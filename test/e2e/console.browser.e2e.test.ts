import { pino } from 'pino';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import type { Product } from '../../src/core/catalog/catalog.js';
import { isValidEan13 } from '../../src/sandbox/ean13.js';
import { launchChromium, saveScreenshot, scrollsSideways } from '../helpers/browser.js';
import { createTestConfig } from '../helpers/test-config.js';

/** Found (or installed) by the e2e project's global setup; `null` skips these tests (never under CI). */
const CHROMIUM = inject('chromiumPath');
const screenshot = saveScreenshot;

describe.skipIf(CHROMIUM === null)('the console in headless Chromium', () => {
  let app: RunningApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await startApp(
      createTestConfig({
        SANDBOX_ARTICLES: '120',
        SANDBOX_SALES_PER_MINUTE: '0',
        // Products without an internal identifier get no link: a channel that requires one leaves them out.
        FEED_PRODUCT_URL: 'https://shop.example.cz/p/{internalIdentifier}',
        ADMIN_TOKEN: 'console-admin-token-for-tests',
      }),
      { logger: pino({ level: 'silent' }) },
    );
    await app.initialSync;
    browser = await launchChromium(CHROMIUM);
  });

  const products = (): readonly Product[] => app.catalog.current()?.products ?? [];

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
    // What to fix, in Czech too (no FEED_BRAND in the sandbox), and the syncs' times the Czech way.
    await expect(page.locator('#warnings').textContent()).resolves.toContain('Produkty nemají značku');
    await expect(page.locator('#pos').textContent()).resolves.toMatch(
      /^Pokladna: vestavěná zkušební pokladna \(sandbox\) na http/,
    );
    await expect(page.locator('time').first().textContent()).resolves.toMatch(/^\d{1,2}\. \d{1,2}\. \d{4}/);
    await screenshot(page, 'overview-cs');

    await page.getByRole('link', { name: 'English' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Feeds and syncs');
    // Remembered: a page opened without `?lang=` stays English although the browser prefers Czech.
    await page.goto(`${app.url}/`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await screenshot(page, 'overview-en');
    // The switch keeps what the page shows: a search stays the same search in the other language.
    await page.goto(`${app.url}/products?q=kava`);
    await page.getByRole('link', { name: 'Česky' }).click();
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('cs');
    await expect(page.getByRole('searchbox').inputValue()).resolves.toBe('kava');
    await context.close();
  });

  it('finds a product by its name typed without diacritics, and by its EAN', async () => {
    const product = products().find((candidate) => /[čřšžýáíéůú]/i.test(candidate.name.split(' ')[0] ?? ''));
    expect(product, 'a sandbox product whose first word has diacritics').toBeDefined();
    const word = (product?.name.split(' ')[0] ?? '').normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    const page = await browser.newPage({ locale: 'en-GB' });
    await page.goto(`${app.url}/`);
    await page.getByRole('searchbox').fill(word);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect(page.locator('h1').textContent()).resolves.toContain('Products');
    await screenshot(page, 'search-by-name');
    await page
      .getByRole('link', { name: product?.name ?? '' })
      .first()
      .click();
    await expect(page.locator('#identifiers').textContent()).resolves.toContain(product?.id ?? '');

    const withEan = products().find((candidate) => candidate.ean !== undefined && isValidEan13(candidate.ean));
    await page.goto(`${app.url}/products`);
    await page.getByLabel('Search products').fill(withEan?.ean ?? '');
    await page.getByRole('button', { name: 'Search' }).click();
    const rows = page.locator('tbody tr');
    await expect(rows.first().textContent()).resolves.toContain(withEan?.id ?? '');
    await page.close();
  });

  it('shows why a product is left out of a feed: no link, a mistyped EAN, sold out; and the item of a feed it is in', async () => {
    const page = await browser.newPage({ locale: 'en-GB' });
    const reasonIn = (feed: string) => page.locator(`#feed-${feed.replace('.', '\\.')}-all.left-out .reason`).textContent();

    const noLink = products().find((candidate) => candidate.internalIdentifier === undefined);
    await page.goto(`${app.url}/products/${noLink?.id ?? ''}`);
    await expect(reasonIn('heureka.xml')).resolves.toContain('URL');

    const mistyped = products().find((candidate) => candidate.ean !== undefined && !isValidEan13(candidate.ean));
    await page.goto(`${app.url}/products/${mistyped?.id ?? ''}`);
    await expect(page.locator('#ean-problem').textContent()).resolves.toContain('wrong check digit');
    await expect(reasonIn('meta.csv')).resolves.toContain('wrong check digit');
    await screenshot(page, 'product-left-out');

    const soldOut = products().find((candidate) => candidate.isStockItem && candidate.aggregate.availability === 'out_of_stock');
    await page.goto(`${app.url}/products/${soldOut?.id ?? ''}`);
    await expect(reasonIn('heureka.xml')).resolves.toMatch(/[Ss]old out/);

    const included = products().find(
      (candidate) => candidate.internalIdentifier !== undefined && candidate.aggregate.availability === 'in_stock',
    );
    await page.goto(`${app.url}/products/${included?.id ?? ''}`);
    const item = page.locator('#feed-google\\.xml-all.included');
    await item.locator('summary').click();
    const text = (await item.locator('pre').textContent()) ?? '';
    expect(text).toContain(`<g:id>${included?.id ?? ''}</g:id>`);
    const feed = await (await fetch(`${app.url}/feeds/all/google.xml`)).text();
    expect(feed).toContain(text);
    await screenshot(page, 'product-included');
    await page.close();
  });

  it('fits a 390 px wide phone without scrolling sideways, and the navigation works by keyboard', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'cs-CZ' });
    const page = await context.newPage();
    const first = products()[0]?.id ?? '';
    for (const path of ['/', '/products?q=kava', `/products/${first}`, '/fetches', '/syncs', '/warnings', '/admin']) {
      await page.goto(`${app.url}${path}`);
      expect(await scrollsSideways(page), path).toBe(false);
      // Every field has a label a screen reader reads out; the page says its language.
      const unlabelled = await page.evaluate(
        "[...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter((field) => field.labels.length === 0 && !field.getAttribute('aria-label')).map((field) => field.name)",
      );
      expect(unlabelled, path).toEqual([]);
      await expect(page.locator('html').getAttribute('lang'), path).resolves.toBe('cs');
      await screenshot(page, `390px${path.replace(/[/?=]+/g, '-')}`);
    }
    await page.goto(`${app.url}/`);
    // The first Tab reaches the skip link, which leads to the content.
    await page.keyboard.press('Tab');
    await expect(page.evaluate('document.activeElement?.className')).resolves.toBe('skip');
    await context.close();
  });
});
