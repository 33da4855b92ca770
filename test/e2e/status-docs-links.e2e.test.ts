import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { createTestConfig } from '../helpers/test-config.js';

/**
 * The status page links every report code it shows to its entry in docs/report-codes.md, which the bridge
 * serves itself: on the sandbox's catalog (which has unmatched and net-price-only rows, and items that
 * Meta's feed leaves out without a brand), every such link opens the page at an element with that id.
 */
describe('status page → report code explanations', () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp(createTestConfig({ SANDBOX_ARTICLES: '200', SANDBOX_SALES_PER_MINUTE: '0' }), {
      logger: pino({ level: 'silent' }),
    });
    await app.initialSync;
    // Rendered once, so that the status page has its report (warnings with their codes).
    expect((await fetch(`${app.url}/feeds/all/meta.csv`)).status).toBe(200);
  });

  afterAll(async () => {
    await app?.stop();
  });

  it('links each shown code to an anchor of the served report-codes page', async () => {
    const status = await (await fetch(`${app.url}/`)).text();
    const linked = new Set(
      [...status.matchAll(/href="[^"]*\/docs\/report-codes#([^"]+)"/g)].map((match) => decodeURIComponent(match[1] ?? '')),
    );
    const issues = Object.keys(app.catalog.lastReport('sync-catalog')?.merge?.issueCounts ?? {});
    expect(issues.length).toBeGreaterThan(0);
    for (const code of ['published', ...issues, 'missing']) expect(linked, code).toContain(code);

    const page = await fetch(`${app.url}/docs/report-codes`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    for (const code of linked) expect(html, code).toContain(`id="${code}"`);
  });

  it('serves the documentation index and the guide without a token, and 404 for an unknown page', async () => {
    const index = await fetch(`${app.url}/docs/`);
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('href="going-live"');
    const guide = await (await fetch(`${app.url}/docs/going-live`)).text();
    expect(guide).toContain('<a href="report-codes#missing">');
    const missing = await fetch(`${app.url}/docs/no-such-page`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it("keeps the documentation out of other sites' frames", async () => {
    for (const path of ['/docs/', '/docs/going-live']) {
      const page = await fetch(`${app.url}${path}`);
      await page.arrayBuffer();
      expect(page.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
      expect(page.headers.get('x-frame-options'), path).toBe('DENY');
    }
  });
});
