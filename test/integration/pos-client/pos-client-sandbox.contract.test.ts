import { stdSerializers } from 'pino';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PriceListParseError, StockExportParseError } from '../../../src/adapters/pos/parse-errors.js';
import { type CreatePosClientOptions, createPosClient, type PosClientConfig } from '../../../src/adapters/pos/pos-client.js';
import { PosRejectedError, PosResponseInvalidError, PosUnavailableError } from '../../../src/adapters/pos/pos-errors.js';
import { createPriceListParser } from '../../../src/adapters/pos/price-list-xml.js';
import { parseStockExport } from '../../../src/adapters/pos/stock-export.js';
import type { PriceListSummary } from '../../../src/core/catalog/pos-documents.js';
import type { PriceListRow, SourceUnit, StockRow } from '../../../src/core/catalog/source.js';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import type { PosBodyStream, PosClient } from '../../../src/services/catalog/pos-port.js';
import { API_KEY, type Article, readAllArticles, sendJson, startTestSandbox } from '../sandbox/sandbox-test-kit.js';

/**
 * Contract tests of the POS client against the sandbox POS over real HTTP on loopback: every operation,
 * both export path prefixes, both unit identifiers, every stock export type, and every fault mode of the
 * sandbox (src/sandbox/README.md "Fault injection") on representative endpoints.
 *
 * What the client sent is seen twice: a recording undici interceptor in front of the client's Agent
 * (bodies and headers), and the sandbox's own request log (`GET /sandbox/requests`: what arrived, with
 * status and fault). Waits between attempts go through an injected `sleep` that records and returns at
 * once, so Retry-After is asserted by value and nothing here waits for a backoff; no assertion is timed.
 */

const ARTICLES = 450; // > 2 × the sandbox's 200 cap, not a multiple of it: pages of 200, 200, 50
const UNIT_CODES = ['U1', 'U2', 'U3'];

let sandbox: RunningSandbox;
/** The article list as the sandbox serves it, read without the client (the test kit's own paging). */
let rawArticles: Article[];
/** The units as the client reads them, read once so that tests' request logs hold only their own calls. */
let unitList: SourceUnit[];

beforeAll(async () => {
  sandbox = await startTestSandbox({ articles: ARTICLES, units: UNIT_CODES.length });
  rawArticles = await readAllArticles(sandbox.url);
  unitList = await withClient({}, async ({ client }) => (await client.listUnits()).items);
});

afterAll(async () => {
  await sandbox.stop();
});

beforeEach(async () => {
  await sendJson(`${sandbox.url}/sandbox/faults`, 'DELETE');
  await sendJson(`${sandbox.url}/sandbox/requests`, 'DELETE');
});

// ---------------------------------------------------------------------------------------------------
// Helpers

interface SentRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

interface TestClient {
  readonly client: PosClient;
  /** Every wait the client asked for between attempts, in ms (recorded, not slept). */
  readonly sleeps: number[];
  /** Every request as it left the client, in order. */
  readonly sent: SentRequest[];
  close(): Promise<void>;
}

function headerRecord(headers: Dispatcher.DispatchOptions['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === null || headers === undefined || typeof headers !== 'object' || Array.isArray(headers)) return out;
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) out[name.toLowerCase()] = String(value);
  return out;
}

/**
 * A client on the sandbox with a real pooled Agent behind a recording interceptor. Short per-attempt
 * timeout (hang tests) and a roomy call budget, so a Retry-After wait (recorded, never slept) is not
 * cut by the default budget of 4 × timeoutMs on a busy machine.
 */
function clientFor(config: Partial<PosClientConfig> = {}, options: Partial<CreatePosClientOptions> = {}): TestClient {
  const sleeps: number[] = [];
  const sent: SentRequest[] = [];
  const agent = new Agent({ connections: 4 });
  const dispatcher = agent.compose((dispatch) => (opts, handler) => {
    sent.push({
      method: opts.method,
      path: opts.path,
      headers: headerRecord(opts.headers),
      body: typeof opts.body === 'string' ? (JSON.parse(opts.body) as unknown) : undefined,
    });
    return dispatch(opts, handler);
  });
  const client = createPosClient({
    config: {
      baseUrl: sandbox.url,
      apiKey: API_KEY,
      exportPathPrefix: '',
      unitIdentifier: 'localId',
      stockExportType: 'csv',
      pageSize: 500,
      timeoutMs: 300,
      maxRetries: 1,
      concurrency: 2,
      maxPages: 50,
      callBudgetMs: 10_000,
      ...config,
    },
    dispatcher,
    retry: { baseDelayMs: 10, maxDelayMs: 50 },
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  return {
    client,
    sleeps,
    sent,
    async close() {
      await client.close();
      await agent.close();
    },
  };
}

/** Runs `body` with a fresh client and always closes it. */
async function withClient<T>(
  config: Partial<PosClientConfig>,
  body: (test: TestClient) => Promise<T>,
  options: Partial<CreatePosClientOptions> = {},
): Promise<T> {
  const test = clientFor(config, options);
  try {
    return await body(test);
  } finally {
    await test.close();
  }
}

const RecordedRequestSchema = z.object({
  method: z.string(),
  path: z.string(),
  time: z.string(),
  status: z.number(),
  fault: z.string().optional(),
});
type RecordedRequest = z.infer<typeof RecordedRequestSchema>;

/** What reached the sandbox since the last reset (its own control calls excluded). */
async function sandboxRequests(): Promise<RecordedRequest[]> {
  const { json } = await sendJson(`${sandbox.url}/sandbox/requests`, 'GET');
  const all = z.object({ requests: z.array(RecordedRequestSchema) }).parse(json).requests;
  return all.filter((entry) => !entry.path.startsWith('/sandbox/'));
}

type FaultRule = {
  endpoint: string;
  mode: 'latency' | 'error' | 'malformed' | 'truncated' | 'hang' | 'invalid' | 'empty';
  status?: number;
  retryAfterSeconds?: number;
  latencyMs?: number;
  times?: number;
  rate?: number;
};

async function injectFault(rule: FaultRule): Promise<void> {
  const { status } = await sendJson(`${sandbox.url}/sandbox/faults`, 'PUT', rule);
  expect(status).toBe(200);
}

/** Awaits `promise` expecting a rejection, and returns the error. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)?.slice(0, 200)}`);
    },
    (error: unknown) => error,
  );
}

/** Whether any printed, serialised or logged form of `error` (causes included) contains `secret`. */
function reveals(error: unknown, secret: string): boolean {
  const texts = [String(error), JSON.stringify(error), error instanceof Error ? (error.stack ?? '') : ''];
  if (error instanceof Error) texts.push(JSON.stringify(stdSerializers.err(error)));
  return texts.some((text) => text.includes(secret));
}

/** Streams the unit's price list through the parser, as the catalog sync does. */
async function readPriceList(client: PosClient, unit: SourceUnit): Promise<{ rows: PriceListRow[]; summary: PriceListSummary }> {
  const rows: PriceListRow[] = [];
  const parser = createPriceListParser((row) => rows.push(row));
  const body: PosBodyStream = await client.fetchPriceListXml(unit);
  try {
    for await (const chunk of body) parser.write(chunk);
  } catch (error) {
    body.cancel();
    throw error;
  }
  return { rows, summary: parser.end() };
}

/** How many rows the parser emitted before the stream failed, and the failure (undefined when it did not fail). */
async function readPriceListPartially(client: PosClient, unit: SourceUnit): Promise<{ rowsBeforeError: number; error: unknown }> {
  let rowsBeforeError = 0;
  const parser = createPriceListParser(() => {
    rowsBeforeError += 1;
  });
  const body = await client.fetchPriceListXml(unit);
  try {
    for await (const chunk of body) parser.write(chunk);
    parser.end();
    return { rowsBeforeError, error: undefined };
  } catch (error) {
    body.cancel();
    return { rowsBeforeError, error };
  }
}

function stockRows(bytes: Uint8Array): StockRow[] {
  return parseStockExport(bytes).rows;
}

/** The client's view of a raw sandbox article (interface 2.2 → SourceArticle: `localGroupId` becomes `groupId`). */
function toSourceArticle(article: Article): Record<string, unknown> {
  const { localGroupId, ...rest } = article;
  return localGroupId === undefined ? rest : { ...rest, groupId: localGroupId };
}

/** The price-list CODE of an article: its internalIdentifier, else its PLU (sandbox README). */
function priceListCode(article: Pick<Article, 'internalIdentifier' | 'plu'>): string {
  return article.internalIdentifier ?? String(article.plu);
}

function sold(): Article[] {
  return rawArticles.filter((article) => article.isSalesItem !== false);
}

function stocked(): Article[] {
  return rawArticles.filter((article) => article.isStockItem !== false);
}

function unitByCode(code: string): SourceUnit {
  const unit = unitList.find((candidate) => candidate.code === code);
  if (unit === undefined) throw new Error(`no unit ${code}`);
  return unit;
}

// ---------------------------------------------------------------------------------------------------
// Operations

describe('POS client against the sandbox: operations', () => {
  it('listUnits reads every unit with its price lists, sending x-api-key and a JSON body', async () => {
    await withClient({}, async ({ client, sent }) => {
      const result = await client.listUnits();

      expect(result.items.map((unit) => unit.code)).toEqual(UNIT_CODES);
      expect(result.total).toBe(UNIT_CODES.length);
      expect(result.rejected).toEqual([]);
      for (const unit of result.items) {
        expect(unit.localId).toMatch(/^[0-9a-f]{24}$/);
        expect(unit.name).not.toBe('');
        expect(unit.priceLists.map((list) => list.externalId)).toContain(`CENIK-${unit.code}`);
      }
      // Every third unit also has an action price list.
      expect(result.items[2]?.priceLists.map((list) => list.externalId)).toContain('AKCE-U3');
      expect(sent).toEqual([
        {
          method: 'POST',
          path: '/ext/unit/list',
          headers: expect.objectContaining({ 'x-api-key': API_KEY, 'content-type': 'application/json' }),
          body: { limit: 500, skip: 0 },
        },
      ]);
    });
  });

  it('listArticles reads a catalog larger than the 200 cap to the end: exactly N distinct articles, gross prices', async () => {
    await withClient({ pageSize: 500 }, async ({ client, sent }) => {
      const result = await client.listArticles();

      expect(result.items).toHaveLength(ARTICLES);
      expect(new Set(result.items.map((article) => article.localId)).size).toBe(ARTICLES);
      expect(result.rejected).toEqual([]);
      expect(result.total).toBeUndefined();
      // Field for field what the sandbox serves, localGroupId renamed, absent fields absent (not undefined).
      expect(result.items).toStrictEqual(rawArticles.map(toSourceArticle));
      for (const field of ['groupId', 'ean', 'plu', 'internalIdentifier', 'isSalesItem', 'isStockItem'] as const) {
        const without = result.items.filter((article) => !Object.hasOwn(article, field));
        expect(without.length, `articles without ${field}`).toBeGreaterThan(0);
        expect(without.length, `articles without ${field}`).toBeLessThan(ARTICLES);
      }
      // Asked 500, got 200, 200, 50: the short last page ends the reading. Two pages are asked ahead, so the
      // page after it (600) was asked while 200 was read, and is ignored.
      expect(result.pages).toBe(4);
      expect(sent.map((request) => request.body)).toEqual([
        { limit: 500, skip: 0, options: { priceOutput: 'with_vat' } },
        { limit: 500, skip: 200, options: { priceOutput: 'with_vat' } },
        { limit: 500, skip: 400, options: { priceOutput: 'with_vat' } },
        { limit: 500, skip: 600, options: { priceOutput: 'with_vat' } },
      ]);
      expect(sent.every((request) => request.headers['x-api-key'] === API_KEY)).toBe(true);
    });
    const log = await sandboxRequests();
    expect(log.map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual(
      Array.from({ length: 4 }, () => 'POST /ext/assortment/article/list 200'),
    );
  });

  it('listArticles on a catalog that is an exact multiple of the cap ends on the empty page after it', async () => {
    const exact = await startTestSandbox({ articles: 400, units: 1 });
    try {
      await withClient({ baseUrl: exact.url }, async ({ client, sent }) => {
        const result = await client.listArticles();

        expect(result.items).toHaveLength(400);
        expect(result.pages).toBe(4);
        // 600 was asked ahead while 200 was read.
        expect(sent.map((request) => (request.body as { skip: number }).skip)).toEqual([0, 200, 400, 600]);
      });
    } finally {
      await exact.stop();
    }
  });

  it('listArticles passes priceOutput: without_vat gives net prices, an unknown value is rejected with the POS text', async () => {
    await withClient({}, async ({ client }) => {
      const net = await client.listArticles({ priceOutput: 'without_vat' });
      const gross = new Map(rawArticles.map((article) => [article.localId, article.salesPrice]));

      expect(net.items).toHaveLength(ARTICLES);
      const cheaper = net.items.filter((article) => (article.salesPrice ?? 0) < (gross.get(article.localId) ?? 0));
      expect(cheaper.length).toBeGreaterThan(ARTICLES / 2);

      const error = await failure(client.listArticles({ priceOutput: 'net' }));
      expect(error).toBeInstanceOf(PosRejectedError);
      expect((error as PosRejectedError).posErrors).toEqual(['options.priceOutput must be one of with_vat, without_vat']);
    });
  });

  it("listMovements finds a sale's movements by unit and date window, with total", async () => {
    const sale = await sandbox.makeSale({ unitCode: 'U2' });

    await withClient({}, async ({ client, sent }) => {
      const byCode = await client.listMovements({ filter: { unit: 'U2', dateFrom: sale.createdAt, dateTo: sale.createdAt } });
      const byLocalId = await client.listMovements({
        filter: { unit: sale.unit.localId, dateFrom: sale.createdAt, dateTo: sale.createdAt },
      });

      expect(byCode.items.map((movement) => movement._id).sort()).toEqual([...sale.movementIds].sort());
      expect(byCode.total).toBe(sale.movementIds.length);
      expect(byLocalId.items).toEqual(byCode.items);
      for (const movement of byCode.items) {
        expect(movement.count).toBeLessThan(0);
        expect(movement.unit).toMatchObject({ _id: sale.unit.localId, code: 'U2' });
        expect(movement.warehouseOperation).toMatchObject({ type: 2, receipt: { number: sale.receiptNumber } });
      }
      const sold = new Map(sale.lines.map((line) => [line.localId, line.count]));
      for (const movement of byCode.items) {
        expect(-movement.count).toBe(sold.get(movement.article?._id ?? ''));
      }
      expect(sent[0]?.body).toEqual({
        filter: { unit: 'U2', dateFrom: sale.createdAt, dateTo: sale.createdAt },
        limit: 500,
        skip: 0,
      });

      // Another unit in the same window: none of the sale's movements.
      const elsewhere = await client.listMovements({ filter: { unit: 'U1', dateFrom: sale.createdAt, dateTo: sale.createdAt } });
      expect(elsewhere.items).toEqual([]);
      expect(elsewhere.total).toBe(0);
    });
  });

  it('listMovements reads past the 200 cap using total (pages after the first requested at the real page size)', async () => {
    const lines = stocked()
      .slice(0, 20)
      .map((article) => ({ localId: article.localId, count: 1 }));
    const before = await withClient({}, async ({ client }) => client.listMovements({ filter: { unit: 'U3' } }));
    // The unit's seeded stock receipt, nothing sold yet.
    expect(before.items.length).toBeGreaterThan(0);
    expect(before.items.every((movement) => movement.warehouseOperation?.type === 1)).toBe(true);
    for (let sale = 0; sale < 11; sale++) await sandbox.makeSale({ unitCode: 'U3', lines });
    const expected = before.items.length + 220;

    await withClient({}, async ({ client, sent }) => {
      const result = await client.listMovements({ filter: { unit: 'U3' } });

      expect(result.total).toBe(expected);
      expect(result.items).toHaveLength(expected);
      expect(new Set(result.items.map((movement) => movement._id)).size).toBe(expected);
      expect(result.pages).toBe(2);
      expect(sent.map((request) => request.body)).toEqual([
        { filter: { unit: 'U3' }, limit: 500, skip: 0 },
        { filter: { unit: 'U3' }, limit: 200, skip: 200 },
      ]);
      // Oldest first: the seeded receipt, then the sales in order.
      expect(result.items.slice(0, before.items.length)).toEqual(before.items);
    });
  });

  it('getClient finds a seeded client by externalId and by e-mail; an unknown client is a PosRejectedError', async () => {
    await withClient({}, async ({ client }) => {
      const byExternalId = await client.getClient({ externalId: 'KLI-0001' });
      const byEmail = await client.getClient({ email: 'JANA.novakova@example.cz' });

      expect(byExternalId).toMatchObject({ externalId: 'KLI-0001', email: 'jana.novakova@example.cz' });
      expect(byExternalId?._id).toMatch(/^[0-9a-f]{24}$/);
      expect(byEmail).toEqual(byExternalId);

      // Seeded client 2 (index 1) has a company.
      const company = await client.getClient({ externalId: 'KLI-0002' });
      expect(company?.company?.VATID).toBe(`CZ${company?.company?.TIN}`);

      const error = await failure(client.getClient({ externalId: 'KLI-9999' }));
      expect(error).toBeInstanceOf(PosRejectedError);
      expect(error).toMatchObject({ method: 'POST', path: '/ext/address-book/client/get', status: 200 });
      expect((error as PosRejectedError).posErrors).toEqual(['Client not found']);
    });
  });

  it('fetchPriceListXml streams a document with one row per sellable article, keyed by internalIdentifier else PLU', async () => {
    const unit = unitByCode('U1');
    await withClient({}, async ({ client, sent }) => {
      const { rows, summary } = await readPriceList(client, unit);

      const expected = sold().map(priceListCode);
      const codes = rows.map((row) => row.code);
      expect(summary.rootElement).toBe('SHOP');
      expect(summary.skippedCount).toBe(0);
      expect(new Set(codes).size).toBe(codes.length);
      // Every sellable article once, plus the two orphan rows the sandbox always adds.
      expect([...codes].sort()).toEqual([...expected, 'ZRUSENO-U1', '9999999999'].sort());
      // Both key kinds occur in one document.
      expect(sold().some((article) => article.internalIdentifier === undefined)).toBe(true);
      expect(sold().some((article) => article.internalIdentifier !== undefined)).toBe(true);
      // U1 sells at the article's salesPrice (when the item carries a gross price).
      const byCode = new Map(rows.map((row) => [row.code, row]));
      for (const article of sold()) {
        const row = byCode.get(priceListCode(article));
        if (row?.priceVat !== undefined) expect(row.priceVat).toBe(article.salesPrice);
      }
      expect(sent).toEqual([
        {
          method: 'GET',
          path: `/unit/${unit.localId}/price-list/export/eshop-update`,
          headers: expect.objectContaining({ 'x-api-key': API_KEY }),
          body: undefined,
        },
      ]);
    });
  });

  it.each([
    { type: 'csv', key: 'internalIdentifier else PLU', codeOf: priceListCode },
    { type: 'txt', key: 'localId', codeOf: (article: Article) => article.localId },
    { type: 'tsv', key: 'localId', codeOf: (article: Article) => article.localId },
  ])('fetchStockExport ($type) parses to one row per stock article, code = $key', async ({ type, codeOf }) => {
    const unit = unitByCode('U2');
    await withClient({ stockExportType: type }, async ({ client, sent }) => {
      const { rows, summary } = parseStockExport(await client.fetchStockExport(unit));

      expect(summary.delimiter).toBe(type === 'csv' ? ';' : '\t');
      expect(summary.skippedCount).toBe(0);
      expect(rows.map((row) => row.codes.code).sort()).toEqual(stocked().map(codeOf).sort());
      expect(new Set(rows.map((row) => row.measureUnit))).toEqual(new Set(stocked().map((article) => article.measureUnit)));
      expect(rows.every((row) => row.unit === undefined)).toBe(true);
      expect(sent.map((request) => request.path)).toEqual([`/warehouse/stock/export/${type}/${unit.localId}`]);
    });
  });

  it('stock export and price list of one unit agree on quantities, whatever the export type', async () => {
    const unit = unitByCode('U2');
    const [csv, txt, priceList] = await Promise.all([
      withClient({ stockExportType: 'csv' }, async ({ client }) => stockRows(await client.fetchStockExport(unit))),
      withClient({ stockExportType: 'txt' }, async ({ client }) => stockRows(await client.fetchStockExport(unit))),
      withClient({}, async ({ client }) => (await readPriceList(client, unit)).rows),
    ]);
    const csvByCode = new Map(csv.map((row) => [row.codes.code, row.quantity]));
    const txtByLocalId = new Map(txt.map((row) => [row.codes.code, row.quantity]));
    const listByCode = new Map(priceList.map((row) => [row.code, row.stock]));

    let compared = 0;
    for (const article of stocked()) {
      const quantity = txtByLocalId.get(article.localId);
      expect(quantity, article.localId).toBeDefined();
      expect(csvByCode.get(priceListCode(article)), article.localId).toBe(quantity);
      if (article.isSalesItem !== false) {
        expect(listByCode.get(priceListCode(article)), article.localId).toBe(quantity);
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(ARTICLES / 2);
    // Weighed goods have fractional stock; the csv's decimal commas were read as decimals.
    expect(csv.some((row) => !Number.isInteger(row.quantity))).toBe(true);
  });

  it.each(['csv', 'txt'])(
    'fetchStockExportAll (%s) has one row per stock article and unit, with the unit column',
    async (type) => {
      await withClient({ stockExportType: type }, async ({ client, sent }) => {
        const { rows, summary } = parseStockExport(await client.fetchStockExportAll());

        expect(summary.skippedCount).toBe(0);
        expect(rows).toHaveLength(stocked().length * UNIT_CODES.length);
        for (const code of UNIT_CODES) {
          expect(
            rows.filter((row) => row.unit === code),
            code,
          ).toHaveLength(stocked().length);
        }
        expect(new Set(rows.map((row) => row.measureUnit))).toEqual(new Set(stocked().map((article) => article.measureUnit)));
        expect(sent.map((request) => request.path)).toEqual([`/warehouse/stock/export/${type}`]);
      });
    },
  );

  it.each([
    { exportPathPrefix: '', unitIdentifier: 'localId' },
    { exportPathPrefix: '/ext', unitIdentifier: 'localId' },
    { exportPathPrefix: '', unitIdentifier: 'code' },
    { exportPathPrefix: '/ext', unitIdentifier: 'code' },
  ] as const)(
    'exports with prefix "$exportPathPrefix" and unit $unitIdentifier',
    async ({ exportPathPrefix, unitIdentifier }) => {
      const unit = unitByCode('U3');
      const identifier = unit[unitIdentifier];
      await withClient({ exportPathPrefix, unitIdentifier }, async ({ client }) => {
        const { rows } = await readPriceList(client, unit);
        const stock = stockRows(await client.fetchStockExport(unit));
        const all = stockRows(await client.fetchStockExportAll());

        expect(rows).toHaveLength(sold().length + 2);
        expect(stock).toHaveLength(stocked().length);
        expect(all).toHaveLength(stocked().length * UNIT_CODES.length);
      });
      expect((await sandboxRequests()).map((entry) => `${entry.path} ${entry.status}`)).toEqual([
        `${exportPathPrefix}/unit/${identifier}/price-list/export/eshop-update 200`,
        `${exportPathPrefix}/warehouse/stock/export/csv/${identifier} 200`,
        `${exportPathPrefix}/warehouse/stock/export/csv 200`,
      ]);
    },
  );

  it('a wrong x-api-key is a PosRejectedError with status 401, not retried, the key in no message', async () => {
    const wrongKey = 'wrong-key-that-must-not-leak-91c2';
    const unit = unitByCode('U1');
    await withClient({ apiKey: wrongKey, maxRetries: 2 }, async ({ client, sleeps }) => {
      const errors = [
        await failure(client.listUnits()),
        await failure(client.listArticles()),
        await failure(client.getClient({ externalId: 'KLI-0001' })),
        await failure(client.fetchPriceListXml(unit)),
        await failure(client.fetchStockExport(unit)),
      ];
      for (const error of errors) {
        expect(error).toBeInstanceOf(PosRejectedError);
        expect((error as PosRejectedError).status).toBe(401);
        expect((error as PosRejectedError).posErrors).toEqual(['Missing or invalid x-api-key header']);
        expect(String(error)).toMatch(/check POS_API_KEY/);
        expect(reveals(error, wrongKey)).toBe(false);
        expect(reveals(error, API_KEY)).toBe(false);
      }
      expect(sleeps).toEqual([]);
    });
    expect((await sandboxRequests()).map((entry) => entry.status)).toEqual([401, 401, 401, 401, 401]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Faults

describe('POS client against the sandbox: fault injection', () => {
  it('error 500 is retried, then PosUnavailableError naming the attempts', async () => {
    await injectFault({ endpoint: 'unit-list', mode: 'error', status: 500 });
    await withClient({ maxRetries: 2 }, async ({ client, sleeps }) => {
      const error = await failure(client.listUnits());

      expect(error).toBeInstanceOf(PosUnavailableError);
      expect(error).toMatchObject({ method: 'POST', path: '/ext/unit/list', status: 500, attempts: 3 });
      expect(String(error)).toMatch(/HTTP 500 .*after 3 attempts/);
      // Backoff from the shrunk policy, jitter fixed at 0.5: floor(0.5 × 10), floor(0.5 × 20).
      expect(sleeps).toEqual([5, 10]);
    });
    expect((await sandboxRequests()).map((entry) => [entry.status, entry.fault])).toEqual([
      [500, 'error'],
      [500, 'error'],
      [500, 'error'],
    ]);
  });

  it('error 503 once: the retry succeeds after the Retry-After wait (2 requests)', async () => {
    await injectFault({ endpoint: 'unit-list', mode: 'error', status: 503, retryAfterSeconds: 1, times: 1 });
    await withClient({}, async ({ client, sleeps }) => {
      const result = await client.listUnits();

      expect(result.items).toHaveLength(UNIT_CODES.length);
      expect(sleeps).toEqual([1000]);
    });
    expect((await sandboxRequests()).map((entry) => `${entry.path} ${entry.status} ${entry.fault ?? '-'}`)).toEqual([
      '/ext/unit/list 503 error',
      '/ext/unit/list 200 -',
    ]);
  });

  it('error 503 on every attempt ends in PosUnavailableError carrying the Retry-After', async () => {
    await injectFault({ endpoint: 'price-list', mode: 'error', status: 503, retryAfterSeconds: 3 });
    const unit = unitByCode('U1');
    await withClient({}, async ({ client, sleeps }) => {
      const error = await failure(client.fetchPriceListXml(unit));

      expect(error).toBeInstanceOf(PosUnavailableError);
      expect(error).toMatchObject({ status: 503, attempts: 2, retryAfterMs: 3000 });
      expect(sleeps).toEqual([3000]);
    });
    expect(await sandboxRequests()).toHaveLength(2);
  });

  it('429 with Retry-After is honoured: the wait is the server-given one, then the call succeeds', async () => {
    await injectFault({ endpoint: 'client-get', mode: 'error', status: 429, retryAfterSeconds: 2, times: 2 });
    await withClient({ maxRetries: 2 }, async ({ client, sleeps }) => {
      const found = await client.getClient({ externalId: 'KLI-0003' });

      expect(found?.externalId).toBe('KLI-0003');
      expect(sleeps).toEqual([2000, 2000]);
    });
    expect((await sandboxRequests()).map((entry) => entry.status)).toEqual([429, 429, 200]);
  });

  it('error 400 is not retried: exactly 1 request, PosRejectedError with the POS text', async () => {
    await injectFault({ endpoint: 'article-list', mode: 'error', status: 400 });
    await withClient({ maxRetries: 2 }, async ({ client, sleeps }) => {
      const error = await failure(client.listArticles());

      expect(error).toBeInstanceOf(PosRejectedError);
      expect(error).toMatchObject({ status: 400, attempts: 1 });
      expect((error as PosRejectedError).posErrors).toEqual(['Simulated failure: HTTP 400']);
      expect(sleeps).toEqual([]);
    });
    expect((await sandboxRequests()).map((entry) => entry.status)).toEqual([400]);
  });

  it('error 400 on a text export is not retried either (no envelope, no POS texts)', async () => {
    await injectFault({ endpoint: 'stock-export', mode: 'error', status: 400 });
    const unit = unitByCode('U1');
    await withClient({ maxRetries: 2 }, async ({ client }) => {
      const error = await failure(client.fetchStockExport(unit));

      expect(error).toBeInstanceOf(PosRejectedError);
      expect(error).toMatchObject({ status: 400, posErrors: [] });
    });
    expect(await sandboxRequests()).toHaveLength(1);
  });

  it('latency below the timeout: the call succeeds on the first attempt', async () => {
    await injectFault({ endpoint: '*', mode: 'latency', latencyMs: 30 });
    const unit = unitByCode('U1');
    // A timeout far above the latency, so a busy machine cannot turn this into a timeout test.
    await withClient({ timeoutMs: 5_000 }, async ({ client, sleeps }) => {
      const units = await client.listUnits();
      const { rows } = await readPriceList(client, unit);

      expect(units.items).toHaveLength(UNIT_CODES.length);
      expect(rows).toHaveLength(sold().length + 2);
      expect(sleeps).toEqual([]);
    });
    expect((await sandboxRequests()).map((entry) => [entry.status, entry.fault])).toEqual([
      [200, 'latency'],
      [200, 'latency'],
    ]);
  });

  it('hang: each attempt times out, then PosUnavailableError after the retries', async () => {
    await injectFault({ endpoint: 'unit-list', mode: 'hang' });
    await withClient({ timeoutMs: 300, maxRetries: 1 }, async ({ client }) => {
      const error = await failure(client.listUnits());

      expect(error).toBeInstanceOf(PosUnavailableError);
      expect(error).toMatchObject({ method: 'POST', path: '/ext/unit/list', attempts: 2 });
      expect((error as PosUnavailableError).status).toBeUndefined();
      expect(String(error)).toMatch(/no complete answer within 300 ms/);
    });
    // Status 0: the sandbox never answered either request.
    expect((await sandboxRequests()).map((entry) => [entry.status, entry.fault])).toEqual([
      [0, 'hang'],
      [0, 'hang'],
    ]);
  });

  it('hang on the price list: no headers within the timeout, retried, PosUnavailableError', async () => {
    await injectFault({ endpoint: 'price-list', mode: 'hang' });
    const unit = unitByCode('U1');
    await withClient({ timeoutMs: 300, maxRetries: 1 }, async ({ client }) => {
      const error = await failure(client.fetchPriceListXml(unit));

      expect(error).toBeInstanceOf(PosUnavailableError);
      expect(error).toMatchObject({ method: 'GET', attempts: 2 });
    });
    expect(await sandboxRequests()).toHaveLength(2);
  });

  it('malformed JSON is a PosResponseInvalidError, not retried', async () => {
    await injectFault({ endpoint: 'article-list', mode: 'malformed' });
    await withClient({ maxRetries: 2 }, async ({ client }) => {
      const error = await failure(client.listArticles());

      expect(error).toBeInstanceOf(PosResponseInvalidError);
      expect(error).toMatchObject({ method: 'POST', path: '/ext/assortment/article/list', status: 200 });
      expect(String(error)).toMatch(/malformed JSON/);
    });
    expect((await sandboxRequests()).map((entry) => [entry.status, entry.fault])).toEqual([[200, 'malformed']]);
  });

  it('malformed XML reaches the parser, which throws PriceListParseError (1 request)', async () => {
    await injectFault({ endpoint: 'price-list', mode: 'malformed' });
    const unit = unitByCode('U1');
    await withClient({ maxRetries: 2 }, async ({ client }) => {
      const error = await failure(readPriceList(client, unit));

      expect(error).toBeInstanceOf(PriceListParseError);
      expect(error).toMatchObject({ code: 'PRICE_LIST_INVALID' });
    });
    expect(await sandboxRequests()).toHaveLength(1);
  });

  it('a malformed stock export (invalid UTF-8 garbage) makes parseStockExport throw StockExportParseError', async () => {
    await injectFault({ endpoint: 'stock-export', mode: 'malformed' });
    const unit = unitByCode('U1');
    await withClient({}, async ({ client }) => {
      const body = await client.fetchStockExport(unit);

      expect(() => parseStockExport(body)).toThrow(StockExportParseError);
    });
    expect(await sandboxRequests()).toHaveLength(1);
  });

  it('truncated JSON (half the declared Content-Length, then the socket closes) is transient: retried, then PosUnavailableError', async () => {
    await injectFault({ endpoint: 'unit-list', mode: 'truncated' });
    await withClient({ maxRetries: 1 }, async ({ client }) => {
      const error = await failure(client.listUnits());

      // Not a parse error: the client never parses a body that broke off.
      expect(error).toBeInstanceOf(PosUnavailableError);
      expect(error).toMatchObject({ status: 200, attempts: 2 });
      expect(String(error)).toMatch(/network error/);
    });
    expect((await sandboxRequests()).map((entry) => entry.fault)).toEqual(['truncated', 'truncated']);
  });

  it('a truncated buffered stock export is retried, and a one-off truncation heals on the retry', async () => {
    await injectFault({ endpoint: 'stock-export', mode: 'truncated', times: 1 });
    const unit = unitByCode('U1');
    await withClient({ maxRetries: 1 }, async ({ client }) => {
      const rows = stockRows(await client.fetchStockExport(unit));

      expect(rows).toHaveLength(stocked().length);
    });
    expect((await sandboxRequests()).map((entry) => entry.fault ?? '-')).toEqual(['truncated', '-']);
  });

  it('a truncated price-list stream fails its iteration with PosUnavailableError after some rows (never retried mid-body)', async () => {
    await injectFault({ endpoint: 'price-list', mode: 'truncated' });
    const unit = unitByCode('U1');
    await withClient({ maxRetries: 2 }, async ({ client }) => {
      const { rowsBeforeError, error } = await readPriceListPartially(client, unit);

      // The transport error surfaces before parser.end(): not a PriceListParseError.
      expect(error).toBeInstanceOf(PosUnavailableError);
      expect(error).toMatchObject({ method: 'GET', status: 200 });
      expect(String(error)).toMatch(/body broke off after \d+ bytes/);
      expect(rowsBeforeError).toBeGreaterThan(0);
      expect(rowsBeforeError).toBeLessThan(sold().length + 2);
    });
    expect(await sandboxRequests()).toHaveLength(1);
  });

  it('invalid (isValid: false) on a list is a PosRejectedError carrying the POS error texts, not retried', async () => {
    await injectFault({ endpoint: 'movement-list', mode: 'invalid' });
    await withClient({ maxRetries: 2 }, async ({ client }) => {
      const error = await failure(client.listMovements());

      expect(error).toBeInstanceOf(PosRejectedError);
      expect(error).toMatchObject({ method: 'POST', path: '/ext/stockholding/movement/list', status: 200 });
      expect((error as PosRejectedError).posErrors).toEqual(['Simulated failure: the POS could not process the request']);
      expect(String(error)).toMatch(/isValid is false: Simulated failure/);
    });
    expect(await sandboxRequests()).toHaveLength(1);
  });

  it('invalid (a JSON isValid: false envelope where XML or text is expected) is a PosRejectedError on the exports too', async () => {
    const unit = unitByCode('U1');
    await withClient({ maxRetries: 2 }, async ({ client }) => {
      await injectFault({ endpoint: 'price-list', mode: 'invalid' });
      const priceList = await failure(readPriceList(client, unit));
      await injectFault({ endpoint: 'stock-export', mode: 'invalid' });
      const stock = await failure(client.fetchStockExport(unit));
      await injectFault({ endpoint: 'stock-export-all', mode: 'invalid' });
      const stockAll = await failure(client.fetchStockExportAll());

      for (const error of [priceList, stock, stockAll]) {
        expect(error).toBeInstanceOf(PosRejectedError);
        expect(error).toMatchObject({ status: 200 });
        expect((error as PosRejectedError).posErrors).toEqual(['Simulated failure: the POS could not process the request']);
      }
    });
    expect(await sandboxRequests()).toHaveLength(3);
  });

  it('empty: empty lists, a <root/> price list and a header-only stock export give zero rows and no error', async () => {
    const unit = unitByCode('U1');
    for (const endpoint of ['article-list', 'unit-list', 'movement-list', 'price-list', 'stock-export', 'stock-export-all']) {
      await sendJson(`${sandbox.url}/sandbox/faults`, 'POST', { endpoint, mode: 'empty' });
    }
    await withClient({}, async ({ client }) => {
      const articles = await client.listArticles();
      const unitList = await client.listUnits();
      const movements = await client.listMovements();
      const priceList = await readPriceList(client, unit);
      const stock = parseStockExport(await client.fetchStockExport(unit));
      const stockAll = parseStockExport(await client.fetchStockExportAll());

      expect(articles).toMatchObject({ items: [], rejected: [], pages: 1 });
      expect(unitList).toMatchObject({ items: [], total: 0, pages: 1 });
      expect(movements).toMatchObject({ items: [], total: 0, pages: 1 });
      expect(priceList.rows).toEqual([]);
      expect(priceList.summary).toMatchObject({ rootElement: 'root', itemsSeen: 0, skippedCount: 0 });
      expect(stock.rows).toEqual([]);
      expect(stock.summary.header).toEqual(['Kód', 'PLU', 'EAN', 'Název', 'Množství', 'MJ']);
      expect(stockAll.rows).toEqual([]);
      expect(stockAll.summary.header[0]).toBe('Středisko');
    });
    expect((await sandboxRequests()).every((entry) => entry.status === 200 && entry.fault === 'empty')).toBe(true);
  });

  it('empty on client get answers `data: {}`: no error, a record with no identifying field', async () => {
    await injectFault({ endpoint: 'client-get', mode: 'empty' });
    await withClient({}, async ({ client }) => {
      const found = await client.getClient({ externalId: 'KLI-0001' });

      expect(found).toEqual({});
    });
  });

  it('a fault with rate < 1 hits a deterministic subset; the client retries the hits and reads everything', async () => {
    await injectFault({ endpoint: 'article-list', mode: 'error', status: 503, retryAfterSeconds: 0, rate: 0.5 });
    await withClient({ maxRetries: 4 }, async ({ client }) => {
      const result = await client.listArticles();

      expect(result.items).toHaveLength(ARTICLES);
    });
    const log = await sandboxRequests();
    // Pages 0, 200 and 400 answered; 600, asked ahead past the end, may still be in flight when the list is read.
    const answered = log.filter((entry) => entry.status === 200).length;
    expect(answered === 3 || answered === 4).toBe(true);
    expect(log.filter((entry) => entry.status === 503).length).toBe(log.length - answered);
  });
});
