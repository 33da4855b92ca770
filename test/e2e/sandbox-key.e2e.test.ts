import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { sandboxSource } from '../../src/core/catalog/catalog-source.js';
import { createTestConfig } from '../helpers/test-config.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * A `.env` prepared for the real POS (`POS_API_KEY` set) while `POS_BASE_URL` is still unset: the bridge
 * reads its built-in sandbox with the sandbox's own key, says so, and counts it as the sandbox (the same
 * source as a sandbox run without the key), so a store the sandbox filled stays served.
 */

const STRAY_KEY = 'real-pos-key-from-dotenv';
const NEVER_SCHEDULED = { CATALOG_SYNC_CRON: '0 0 1 1 *', STOCK_SYNC_CRON: '0 0 1 1 *' };
const NOTE = '(POS_BASE_URL is unset; POS_API_KEY is ignored in sandbox mode)';

interface LogLine {
  readonly msg?: string;
  readonly [field: string]: unknown;
}

interface Readiness {
  readonly ready: boolean;
  readonly source?: string;
  readonly pos?: string;
}

/** A logger whose lines the test reads (JSON, one object a line). */
function capturingLogger(): { logger: pino.Logger; lines: LogLine[]; raw: string[] } {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write(line: string) {
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      },
    },
  );
  return { logger, lines, raw };
}

describe('sandbox mode with a POS_API_KEY set for the real POS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-key-e2e-'));
  const settings = {
    STORE_URL: `sqlite://${join(dir, 'catalog.sqlite')}`,
    SANDBOX_ARTICLES: '120',
    SANDBOX_UNITS: '2',
    SANDBOX_SALES_PER_MINUTE: '0',
    ...NEVER_SCHEDULED,
  };
  const config = createTestConfig({ ...settings, POS_API_KEY: STRAY_KEY });
  const log = capturingLogger();
  let sandboxOnlyVersion = '';
  let app: RunningApp;

  beforeAll(async () => {
    // A plain sandbox run first (no key): its catalog must be this run's too.
    const plain = await startApp(createTestConfig(settings), { logger: pino({ level: 'silent' }) });
    await plain.initialSync;
    sandboxOnlyVersion = plain.catalog.current()?.version ?? '';
    await plain.stop();
    app = await startApp(config, { logger: log.logger });
  });

  afterAll(async () => {
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is identified as the sandbox: the catalog the plain sandbox run stored is served at once', () => {
    expect(sandboxOnlyVersion).toMatch(/^v-/);
    expect(app.source).toEqual(sandboxSource(config.sandbox));
    expect(app.catalog.current()?.version).toBe(sandboxOnlyVersion);
  });

  it('reads the sandbox with its own key: the initial sync succeeds and the feeds are served', async () => {
    await app.initialSync;
    const report = app.catalog.lastReport('sync-catalog');
    expect(report?.error).toBeUndefined();
    expect(['published', 'unchanged']).toContain(report?.outcome);
    const feed = await fetch(`${app.url}/feeds/all/products.json`);
    expect(feed.status).toBe(200);
    expect(((await feed.json()) as { count: number }).count).toBeGreaterThan(0);
  });

  it('says in one start-up log line which POS it reads and that POS_API_KEY is ignored', () => {
    const said = log.lines.filter((line) => line.msg?.startsWith('POS: '));
    expect(said.map((line) => line.msg)).toEqual([`POS: built-in sandbox at ${app.posUrl} ${NOTE}`]);
    expect(log.raw.join('')).not.toContain(STRAY_KEY);
  });

  it('says the same on /readyz, /feeds and the console', async () => {
    const ready = (await (await fetch(`${app.url}/readyz`)).json()) as Readiness;
    expect(ready).toMatchObject({ ready: true, source: app.source.label, pos: `built-in sandbox at ${app.posUrl} ${NOTE}` });
    const feeds = (await (await fetch(`${app.url}/feeds`)).json()) as { pos?: string };
    expect(feeds.pos).toBe(`built-in sandbox at ${app.posUrl} ${NOTE}`);
    const page = await (await fetch(`${app.url}/`)).text();
    expect(page).toContain(`POS: built-in sandbox at ${app.posUrl} ${NOTE}`);
  });

  it("accepts the sandbox's webhooks (its own key), not POS_API_KEY", async () => {
    // Whole pieces in stock: sold by count, not weight.
    const stocked = (stock: number | undefined) => Number.isInteger(stock) && (stock ?? 0) >= 3;
    const item = app.catalog.current()?.products.find((product) => product.offers.some((offer) => stocked(offer.stock)));
    if (item === undefined) throw new Error('no stocked product');
    const unit = item.offers.find((offer) => stocked(offer.stock))?.unit ?? 'U1';
    await app.sandbox?.makeSale({ unitCode: unit, lines: [{ localId: item.id, count: 1 }] });
    const handled = () => Object.values(app.webhooks.stats().sales).reduce((sum, count) => sum + count, 0);
    await waitFor(() => handled() > 0, { message: 'the sale webhook handled' });
    expect(handled()).toBeGreaterThan(0);

    const stray = await fetch(`${app.url}/webhooks/pos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': STRAY_KEY },
      body: '{}',
    });
    expect(stray.status).toBe(401);
  });
});
