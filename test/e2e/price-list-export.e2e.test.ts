import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/start-sandbox.js';
import { createTestConfig } from '../helpers/test-config.js';

/**
 * `POS_PRICE_LIST_EXPORT`: the interface names the price-list export `eshop-update`, the vendor's public
 * pages `shoptet-update`; a POS answering only the latter is read whole with the setting.
 */

const KEY = 'pos-key-of-the-shop';

describe('a POS whose price lists are at shoptet-update', () => {
  let pos: RunningSandbox;
  let app: RunningApp;

  beforeAll(async () => {
    pos = await startSandbox({ units: 2, articles: 30, seed: 3, salesPerMinute: 0, apiKey: KEY });
    app = await startApp(
      createTestConfig({
        STORE_URL: 'memory://',
        POS_BASE_URL: pos.url,
        POS_API_KEY: KEY,
        POS_PRICE_LIST_EXPORT: 'shoptet-update',
        CATALOG_SYNC_CRON: '0 0 1 1 *',
        STOCK_SYNC_CRON: '0 0 1 1 *',
      }),
      { logger: pino({ level: 'silent' }) },
    );
    await app.initialSync;
  });
  afterAll(async () => {
    await app.stop();
    await pos.stop();
  });

  it('reads every unit’s price list there and publishes the catalog', async () => {
    const answer = await fetch(`${pos.url}/sandbox/requests`, { headers: { 'x-api-key': KEY } });
    const { requests } = (await answer.json()) as { requests: { path: string; status: number }[] };
    const priceLists = requests.filter((request) => request.path.includes('/price-list/export/'));

    expect(app.catalog.current()?.products.length).toBe(30);
    expect(priceLists.map((request) => request.path.split('/').at(-1))).toEqual(['shoptet-update', 'shoptet-update']);
    expect(priceLists.every((request) => request.status === 200)).toBe(true);
  });
});
