import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { launchChromium } from '../helpers/browser.js';
import { createTestConfig } from '../helpers/test-config.js';

/** Found (or installed) by the e2e project's global setup; `null` skips these tests (never under CI). */
const CHROMIUM = inject('chromiumPath');
const ADMIN = 'admin-token-for-the-browser-test';
/** Screenshots are artefacts of the run, not committed (`test-artifacts/`, as the console's browser test keeps them). */
const SHOTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');

async function noHorizontalScroll(page: Page): Promise<boolean> {
  // A string: the test project has no DOM types, the page does.
  return (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) === true;
}

describe.skipIf(CHROMIUM === null)('admin area in headless Chromium', () => {
  let app: RunningApp;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    app = await startApp(createTestConfig({ ADMIN_TOKEN: ADMIN, SANDBOX_ARTICLES: '120', SANDBOX_SALES_PER_MINUTE: '0' }), {
      logger: pino({ level: 'silent' }),
    });
    await app.initialSync;
    browser = await launchChromium(CHROMIUM);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('signs in, starts a full sync from the page and follows it to its report', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'cs-CZ' });
    const page = await context.newPage();
    await page.goto(`${app.url}/admin`);
    expect(await page.locator('label[for="admin-token"]').textContent()).toBe('Token správce');
    await page.screenshot({ path: join(SHOTS, 'admin-login-390.png'), fullPage: true });

    await page.fill('#admin-token', 'wrong');
    await page.click('button[type=submit]');
    expect(await page.locator('[role=alert]').textContent()).toContain('Token není správný');
    await page.fill('#admin-token', ADMIN);
    await page.click('button[type=submit]');
    await page.locator('text=Spustit úplnou synchronizaci').waitFor();
    const cookies = await context.cookies();
    expect(cookies.find((cookie) => cookie.name === 'cb_admin')).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
      path: '/admin',
    });
    expect(await noHorizontalScroll(page)).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'admin-home-390.png'), fullPage: true });

    await page.click('text=Spustit úplnou synchronizaci');
    expect(page.url()).toMatch(/\/admin\/sync\/progress\?job=catalog&run=\d+$/);
    // The page reloads itself (no script) until the run has ended; its report then stays.
    await page.locator('td:text-is("neběží")').waitFor({ timeout: 30_000 });
    expect(await page.locator('meta[http-equiv=refresh]').count()).toBe(0);
    expect(await page.locator('main').textContent()).toMatch(/Výsledek(beze změny|zveřejněno)/);
    expect(await page.locator('main').textContent()).toContain(app.catalog.current()?.version ?? 'missing');
    expect(await noHorizontalScroll(page)).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'admin-progress-390.png'), fullPage: true });

    // The internal catalog is one link away; the public console shows no purchase price.
    const [json] = await Promise.all([
      page.waitForResponse(/\/admin\/catalog\.json/),
      page.goto(`${app.url}/admin/catalog.json`),
    ]);
    const items = ((await json.json()) as { items: { purchasePrice?: number }[] }).items;
    const value = items.find((item) => item.purchasePrice !== undefined && !Number.isInteger(item.purchasePrice))?.purchasePrice;
    expect(value).toBeDefined();
    await page.goto(`${app.url}/`);
    const publicText = (await page.locator('body').textContent()) ?? '';
    expect(publicText).not.toMatch(/purchase|nákupní/i);
    expect(publicText).not.toContain(value?.toFixed(2));
    expect(publicText).not.toContain(value?.toFixed(2).replace('.', ','));

    await page.goto(`${app.url}/admin`);
    await page.click('text=Odhlásit se');
    await page.locator('#admin-token').waitFor();
    expect((await context.cookies()).find((cookie) => cookie.name === 'cb_admin')).toBeUndefined();
    await context.close();
  });
});
