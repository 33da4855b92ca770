import { afterEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import { call, postJson, readAllArticles, startTestSandbox } from './sandbox-test-kit.js';

const running: RunningSandbox[] = [];
afterEach(async () => {
  for (const sandbox of running.splice(0)) await sandbox.stop();
});

async function start(seed: number): Promise<RunningSandbox> {
  const sandbox = await startTestSandbox({ seed, articles: 250, units: 4, now: () => new Date('2026-11-22T08:00:00Z') });
  running.push(sandbox);
  return sandbox;
}

/** Everything a sync reads, as text. */
async function snapshot(sandbox: RunningSandbox): Promise<Record<string, string>> {
  return {
    articles: JSON.stringify(await readAllArticles(sandbox.url, 100)),
    units: JSON.stringify((await postJson(`${sandbox.url}/ext/unit/list`, {})).json),
    movements: JSON.stringify((await postJson(`${sandbox.url}/ext/stockholding/movement/list`, {})).json),
    priceList: (await call(`${sandbox.url}/unit/U3/price-list/export/eshop-update`)).text,
    stock: (await call(`${sandbox.url}/warehouse/stock/export/csv`)).text,
  };
}

describe('sandbox/determinism', () => {
  it('gives the same data for the same seed', async () => {
    const first = await snapshot(await start(7));
    const second = await snapshot(await start(7));

    expect(second).toEqual(first);
  });

  it('gives different data for a different seed, in every part', async () => {
    const first = await snapshot(await start(7));
    const other = await snapshot(await start(8));

    for (const part of Object.keys(first)) expect(other[part], part).not.toEqual(first[part]);
  });

  it('makes the same sales in the same order for the same seed', async () => {
    const first = await start(11);
    const second = await start(11);

    const firstSales = [await first.makeSale(), await first.makeSale(), await first.makeSale()];
    const secondSales = [await second.makeSale(), await second.makeSale(), await second.makeSale()];

    expect(secondSales).toEqual(firstSales);
    expect((await call(`${second.url}/warehouse/stock/export/txt`)).text).toBe(
      (await call(`${first.url}/warehouse/stock/export/txt`)).text,
    );
  });

  it('starts instantly with 100,000 articles: article i is derived on demand', async () => {
    const big = await startTestSandbox({ articles: 100_000, units: 2 });
    running.push(big);

    const { json } = await postJson(`${big.url}/ext/assortment/article/list`, { limit: 200, skip: 99_900 });
    const items = (json as { data: { items: { localId: string }[] } }).data.items;

    expect(items).toHaveLength(100);
    expect(items.at(-1)?.localId).toBe('a-200000');
  });
});
