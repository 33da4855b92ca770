import { afterEach, describe, expect, it } from 'vitest';
import { PosResponseInvalidError } from '../../../src/adapters/pos/pos-errors.js';
import { articles, createHarness, type Harness, json, movements, serveList, units } from './pos-mock-harness.js';

const ARTICLES = '/ext/assortment/article/list';
const UNITS = '/ext/unit/list';
const MOVEMENTS = '/ext/stockholding/movement/list';

let harness: Harness;

afterEach(async () => {
  await harness.finish();
});

function skips(): number[] {
  return harness.calls().map((call) => (call.body as { skip: number }).skip);
}

describe('pos-client paging without total (article list)', () => {
  it('reads a server that caps 500 to 200 to the very end', async () => {
    harness = createHarness({ pageSize: 500 });
    serveList(harness.pool, ARTICLES, articles(1_050), { cap: 200 });

    const result = await harness.client.listArticles();

    expect(result.items).toHaveLength(1_050);
    expect(result.items.at(-1)?.localId).toBe('a-1050');
    // Two pages asked ahead: the one after the short last page (1,200) was asked while 800 was read.
    expect(skips()).toEqual([0, 200, 400, 600, 800, 1_000, 1_200]);
    expect(result.pages).toBe(7);
    expect(result.rejected).toEqual([]);
  });

  it('asks with priceOutput with_vat and the configured limit', async () => {
    harness = createHarness({ pageSize: 500 });
    serveList(harness.pool, ARTICLES, articles(3));

    await harness.client.listArticles();

    expect(harness.calls()[0]?.body).toEqual({ limit: 500, skip: 0, options: { priceOutput: 'with_vat' } });
  });

  it('ends on an empty last page when the list is a multiple of the page size', async () => {
    harness = createHarness({ pageSize: 100 });
    serveList(harness.pool, ARTICLES, articles(300));

    const result = await harness.client.listArticles();

    expect(result.items).toHaveLength(300);
    expect(skips()).toEqual([0, 100, 200, 300, 400]);
  });

  it('ends on a short page once the honoured page size is known', async () => {
    harness = createHarness({ pageSize: 100 });
    serveList(harness.pool, ARTICLES, articles(250));

    const result = await harness.client.listArticles();

    expect(result.items).toHaveLength(250);
    expect(skips()).toEqual([0, 100, 200, 300]);
  });

  it('does not take a short first page for the end (it may be the server page size)', async () => {
    harness = createHarness({ pageSize: 500 });
    serveList(harness.pool, ARTICLES, articles(37));

    const result = await harness.client.listArticles();

    expect(result.items).toHaveLength(37);
    expect(skips()).toEqual([0, 37, 74]);
  });

  it('reads an empty catalog with one request', async () => {
    harness = createHarness();
    serveList(harness.pool, ARTICLES, []);

    const result = await harness.client.listArticles();

    expect(result).toEqual({ items: [], rejected: [], pages: 1 });
  });

  it('fails instead of looping when the server ignores skip', async () => {
    harness = createHarness({ pageSize: 100 });
    serveList(harness.pool, ARTICLES, articles(300), { ignoreSkip: true });

    const error = await harness.client.listArticles().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PosResponseInvalidError);
    expect(String(error)).toMatch(/paging does not advance.*skip 100 repeats the page at skip 0/);
    // The first page, and the two asked ahead of it.
    expect(harness.calls()).toHaveLength(3);
  });

  it('fails when a page brings only items of earlier pages', async () => {
    harness = createHarness({ pageSize: 2 });
    const [first, second] = articles(2);
    harness.pool.intercept({ path: ARTICLES, method: 'POST' }).reply(...json({ data: { items: [first, second] } }));
    harness.pool.intercept({ path: ARTICLES, method: 'POST' }).reply(...json({ data: { items: [second, first] } }));

    const error = await harness.client.listArticles().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PosResponseInvalidError);
    expect(String(error)).toMatch(/holds only items of earlier pages/);
  });

  it('stops at maxPages with a clear error', async () => {
    harness = createHarness({ pageSize: 10, maxPages: 3 });
    serveList(harness.pool, ARTICLES, articles(100));

    const error = await harness.client.listArticles().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PosResponseInvalidError);
    expect(error).toMatchObject({ code: 'POS_RESPONSE_INVALID', method: 'POST', path: ARTICLES });
    expect(String(error)).toMatch(/did not end within 3 pages \(POS_MAX_PAGES\)/);
    expect(harness.calls()).toHaveLength(3);
  });

  it('keeps good items, reports bad ones with id and reason, and reports duplicates', async () => {
    harness = createHarness({ pageSize: 3 });
    harness.pool.intercept({ path: ARTICLES, method: 'POST' }).reply(
      ...json({
        data: {
          items: [
            { localId: 'a-1', name: 'One' },
            { localId: 'a-2', salesPrice: 'x' },
            { localId: 'a-3', name: 'Three' },
          ],
        },
      }),
    );
    harness.pool.intercept({ path: ARTICLES, method: 'POST' }).reply(
      ...json({
        data: {
          items: [
            { localId: 'a-3', name: 'Three again' },
            { localId: 'a-4', name: 'Four' },
          ],
        },
      }),
    );

    const result = await harness.client.listArticles();

    expect(result.items.map((item) => item.localId)).toEqual(['a-1', 'a-3', 'a-4']);
    expect(result.rejected).toEqual([
      { id: 'a-2', index: 1, issues: ['name: is required', 'salesPrice: expected a number'] },
      { id: 'a-3', index: 3, issues: ['duplicate id: an earlier item of the list has the same id'] },
    ]);
    expect(harness.logs).toContainEqual(expect.objectContaining({ level: 'warn', message: 'POS list items rejected' }));
  });

  it('accepts items sent as a single object (quirk 3)', async () => {
    harness = createHarness({ pageSize: 10 });
    harness.pool
      .intercept({ path: ARTICLES, method: 'POST' })
      .reply(...json({ data: { items: { localId: 'a-1', name: 'Solo' } } }));
    harness.pool.intercept({ path: ARTICLES, method: 'POST' }).reply(...json({ data: { items: [] } }));

    const result = await harness.client.listArticles();

    expect(result.items).toEqual([{ localId: 'a-1', name: 'Solo' }]);
  });
});

describe('pos-client paging with total (units, movements)', () => {
  it('reads the remaining pages concurrently once total and real page size are known', async () => {
    harness = createHarness({ pageSize: 500, concurrency: 3 });
    serveList(harness.pool, MOVEMENTS, movements(1_234), { cap: 100, withTotal: true });

    const result = await harness.client.listMovements({ filter: { dateFrom: '2026-11-01', unit: 'U1' } });

    expect(result.items).toHaveLength(1_234);
    expect(result.items.map((item) => item._id)).toEqual(movements(1_234).map((item) => item._id));
    expect(result.total).toBe(1_234);
    expect(result.pages).toBe(13);
    const bodies = harness.calls().map((call) => call.body as { limit: number; skip: number; filter: unknown });
    expect(bodies[0]).toEqual({ filter: { dateFrom: '2026-11-01', unit: 'U1' }, limit: 500, skip: 0 });
    // After the first page every request asks for the page size the server showed.
    expect(bodies.slice(1).every((body) => body.limit === 100)).toBe(true);
    expect(bodies.map((body) => body.skip).sort((a, b) => a - b)).toEqual(Array.from({ length: 13 }, (_, i) => i * 100));
  });

  it('reads all units with one request when the page holds them all, omitting select', async () => {
    harness = createHarness();
    serveList(harness.pool, UNITS, units(3), { withTotal: true });

    const result = await harness.client.listUnits();

    expect(result.items.map((unit) => unit.code)).toEqual(['U1', 'U2', 'U3']);
    expect(result.pages).toBe(1);
    expect(harness.calls()[0]?.body).toEqual({ limit: 500, skip: 0 });
  });

  it('fails with "truncated paging" when fewer items arrive than total', async () => {
    harness = createHarness({ pageSize: 100 });
    serveList(harness.pool, UNITS, units(250), { withTotal: true, totalOverride: 400 });

    const error = await harness.client.listUnits().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PosResponseInvalidError);
    expect(String(error)).toMatch(/truncated paging: received 250 of 400 items/);
  });

  it('fails when the first page is empty but total is not zero', async () => {
    harness = createHarness();
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(...json({ data: { items: [], total: 5 } }));

    await expect(harness.client.listUnits()).rejects.toThrow(/truncated paging: received 0 of 5 items/);
  });

  it('fails before reading when total needs more than maxPages pages', async () => {
    harness = createHarness({ pageSize: 10, maxPages: 5 });
    serveList(harness.pool, MOVEMENTS, movements(100), { withTotal: true });

    await expect(harness.client.listMovements()).rejects.toThrow(/need 10 pages, more than 5 \(POS_MAX_PAGES\)/);
    expect(harness.calls()).toHaveLength(1);
  });

  it('fails instead of looping when the server ignores skip', async () => {
    harness = createHarness({ pageSize: 10, concurrency: 1 });
    serveList(harness.pool, MOVEMENTS, movements(30), { withTotal: true, ignoreSkip: true });

    await expect(harness.client.listMovements()).rejects.toThrow(/paging does not advance/);
  });
});
