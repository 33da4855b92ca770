import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { createSandboxCatalog } from '../../src/sandbox/sandbox-catalog.js';
import { createTestConfig } from '../helpers/test-config.js';

/**
 * The first catalog a bridge publishes carries the marketer's sheet: the first full sync waits for the
 * sheet's first read (bounded by ENRICHMENT_TIMEOUT_MS), so a channel fetching right after the start never
 * gets a bare feed; a sheet that cannot be had lets the sync go ahead and is reported.
 */

const ARTICLES = 40;
const sandbox = createSandboxCatalog({ seed: 7, units: 2, articles: ARTICLES });
const ids = Array.from({ length: ARTICLES }, (_, index) => sandbox.articleAt(index).localId);
const SHEET = `id;brand;category\r\n${ids.map((id) => `${id};Značka ze sheetu;Potraviny > Káva`).join('\r\n')}\r\n`;

let app: RunningApp | undefined;
let server: Server | undefined;

afterEach(async () => {
  await app?.stop();
  app = undefined;
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

/** A sheet host that answers after `delayMs` (or never, with `undefined`). */
async function sheetHost(delayMs: number | undefined): Promise<string> {
  server = createServer((_req, res: ServerResponse) => {
    if (delayMs === undefined) return;
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' }).end(SHEET), delayMs);
  });
  const listening = server;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(listening.address() as AddressInfo).port}/sheet.csv`;
}

async function start(sheetUrl: string): Promise<RunningApp> {
  app = await startApp(
    createTestConfig({
      SANDBOX_ARTICLES: String(ARTICLES),
      SANDBOX_UNITS: '2',
      SANDBOX_SALES_PER_MINUTE: '0',
      ENRICHMENT_SOURCE: sheetUrl,
      ENRICHMENT_TIMEOUT_MS: '1000',
    }),
    { logger: pino({ level: 'silent' }) },
  );
  return app;
}

async function brandsServed(running: RunningApp): Promise<(string | undefined)[]> {
  const response = await request(`${running.url}/feeds/all/products.json`);
  expect(response.statusCode).toBe(200);
  const feed = (await response.body.json()) as { items: { brand?: string }[] };
  return feed.items.map((item) => item.brand);
}

describe('the first catalog carries the enrichment sheet', () => {
  it('waits for a slow sheet: the one full sync of the start publishes its values', async () => {
    const running = await start(await sheetHost(700));
    await running.initialSync;
    const runs = await running.catalog.syncHistory('sync-catalog');
    expect(runs).toHaveLength(1);
    expect(running.catalog.lastReport('sync-catalog')?.outcome).toBe('published');
    const brands = await brandsServed(running);
    expect(brands).toHaveLength(ARTICLES);
    expect(new Set(brands)).toEqual(new Set(['Značka ze sheetu']));
  });

  it('goes ahead without a sheet that does not answer within ENRICHMENT_TIMEOUT_MS, and says so', async () => {
    const running = await start(await sheetHost(undefined));
    await running.initialSync;
    expect(running.catalog.lastReport('sync-catalog')?.outcome).toBe('published');
    expect(new Set(await brandsServed(running))).toEqual(new Set([undefined]));
    const readyz = await request(`${running.url}/readyz`, { headers: { accept: 'application/json' } });
    const body = (await readyz.body.json()) as { enrichment?: { problem?: { code?: string } } };
    expect(body.enrichment?.problem?.code).toMatch(/^ENRICHMENT_/);
  });
});
