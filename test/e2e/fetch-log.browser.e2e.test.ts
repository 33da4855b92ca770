import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { launchChromium } from '../helpers/browser.js';
import { createTestConfig } from '../helpers/test-config.js';
import { USER_AGENTS as UA } from '../unit/core/fetches/user-agents.js';

/** Found (or installed) by the e2e project's global setup; `null` skips these tests (never under CI). */
const CHROMIUM = inject('chromiumPath');
/** Screenshots are artefacts of the run (`test-artifacts/` is not committed). */
const SHOTS = fileURLToPath(new URL('../../test-artifacts/screenshots/', import.meta.url));

describe.skipIf(CHROMIUM === null)('the fetch log page in headless Chromium, without JavaScript', () => {
  let app: RunningApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await startApp(createTestConfig({ SANDBOX_ARTICLES: '80', SANDBOX_SALES_PER_MINUTE: '0' }), {
      logger: pino({ level: 'silent' }),
    });
    await app.initialSync;
    for (const userAgent of [UA.googlebot, UA.heureka, UA.chrome, UA.curl]) {
      const response = await fetch(`${app.url}/feeds/all/google.xml`, {
        headers: { 'user-agent': userAgent, 'accept-encoding': 'gzip' },
      });
      await response.arrayBuffer();
    }
    browser = await launchChromium(CHROMIUM);
    mkdirSync(SHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('fits a 390 px wide screen and filters by consumer with its form', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    await page.goto(`${app.url}/fetches?lang=cs`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Kdo stahuje feedy');
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SHOTS, 'fetches-390-cs.png'), fullPage: true });

    await page.selectOption('#f-consumer', 'heureka');
    await page.locator('form.search button[type=submit]').click();
    await page.waitForURL(/consumer=heureka/);
    const rows = page.locator('#recent ~ div table tbody tr, section[aria-labelledby=recent] tbody tr');
    await expect(rows.count()).resolves.toBe(1);
    await expect(rows.first().textContent()).resolves.toContain('Heureka');
    await page.close();
  });

  it('shows per feed who fetched it, in English on a desktop', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    await page.goto(`${app.url}/fetches?lang=en`);
    const byFeed = (await page.locator('section[aria-labelledby=by-feed]').textContent()) ?? '';
    expect(byFeed).toContain('/feeds/all/google.xml');
    for (const name of ['Google', 'Heureka', 'Browsers', 'Other (scripts, curl, no agent)'])
      expect(byFeed).toContain(`${name}: last fetched`);
    await page.screenshot({ path: join(SHOTS, 'fetches-desktop-en.png'), fullPage: true });
    await page.close();
  });
});
