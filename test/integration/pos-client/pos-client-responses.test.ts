import { errors } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { PosRejectedError, PosResponseInvalidError, PosUnavailableError } from '../../../src/adapters/pos/pos-errors.js';
import { DocumentTooLargeError } from '../../../src/core/catalog/document-limits.js';
import type { SourceUnit } from '../../../src/core/catalog/source.js';
import { createTestConfig } from '../../helpers/test-config.js';
import { API_KEY, articles, createHarness, type Harness, json, ORIGIN, revealsKey, serveList } from './pos-mock-harness.js';

const UNITS = '/ext/unit/list';
const CLIENT = '/ext/address-book/client/get';
const unit: SourceUnit = { localId: 'u-1', code: 'U 1/Brno', name: 'Brno', priceLists: [] };

let harness: Harness;

afterEach(async () => {
  await harness.finish();
});

async function bytesOf(stream: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

describe('pos-client envelopes', () => {
  it('turns isValid:false into a PosRejectedError carrying the POS error texts, without retrying', async () => {
    harness = createHarness();
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(
      ...json({
        data: null,
        isValid: false,
        errors: ['Unit list is not available', 'Licence expired'],
        warnings: [],
        messages: [],
      }),
    );

    const error = await harness.client.listUnits().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PosRejectedError);
    expect(error).toMatchObject({
      code: 'POS_REJECTED',
      method: 'POST',
      path: UNITS,
      status: 200,
      posErrors: ['Unit list is not available', 'Licence expired'],
    });
    expect(String(error)).toContain('Unit list is not available; Licence expired');
    expect(harness.sleeps).toEqual([]);
  });

  it('turns malformed JSON into a PosResponseInvalidError that does not quote the body', async () => {
    harness = createHarness();
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(200, '<html>maintenance</html>');

    const error = await harness.client.listUnits().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PosResponseInvalidError);
    expect(error).toMatchObject({ code: 'POS_RESPONSE_INVALID', method: 'POST', path: UNITS, status: 200 });
    expect(String(error)).toBe(
      'PosResponseInvalidError: POS response invalid: malformed JSON (24 bytes) [POST /ext/unit/list (HTTP 200)]',
    );
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
    expect(harness.sleeps).toEqual([]);
  });

  it('rejects an envelope that is not an object', async () => {
    harness = createHarness();
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(...json([{ localId: 'u-1' }]));

    await expect(harness.client.listUnits()).rejects.toThrow(/the envelope does not match the interface/);
  });

  it('logs POS warnings and messages without failing', async () => {
    harness = createHarness();
    harness.pool
      .intercept({ path: UNITS, method: 'POST' })
      .reply(
        ...json({ data: { items: [], total: 0 }, isValid: true, errors: [], warnings: ['Slow query'], messages: ['Hello'] }),
      );

    await harness.client.listUnits();

    expect(harness.logs).toContainEqual({
      level: 'warn',
      message: 'POS returned warnings',
      meta: { method: 'POST', path: UNITS, status: 200, warnings: ['Slow query'] },
    });
    expect(harness.logs).toContainEqual(expect.objectContaining({ level: 'debug', message: 'POS returned messages' }));
  });
});

describe('pos-client getClient', () => {
  it('returns the client of the envelope', async () => {
    harness = createHarness();
    harness.pool
      .intercept({ path: CLIENT, method: 'POST', body: JSON.stringify({ email: 'eva@example.cz' }) })
      .reply(...json({ isValid: true, errors: [], data: { _id: 'c-1', email: 'eva@example.cz', clientPoints: '120' } }));

    const client = await harness.client.getClient({ email: 'eva@example.cz' });

    expect(client).toEqual({ _id: 'c-1', email: 'eva@example.cz', clientPoints: 120 });
  });

  it('returns undefined when the POS sends no data', async () => {
    harness = createHarness();
    harness.pool.intercept({ path: CLIENT, method: 'POST' }).reply(...json({ isValid: true, errors: [], data: null }));

    expect(await harness.client.getClient({ _id: 'nobody' })).toBeUndefined();
  });
});

describe('pos-client exports', () => {
  it.each([
    ['', 'localId', '/unit/u-1/price-list/export/eshop-update'],
    ['/ext', 'localId', '/ext/unit/u-1/price-list/export/eshop-update'],
    ['/ext', 'code', '/ext/unit/U%201%2FBrno/price-list/export/eshop-update'],
  ] as const)('streams the price-list XML (prefix "%s", identifier %s)', async (exportPathPrefix, unitIdentifier, path) => {
    harness = createHarness({ exportPathPrefix, unitIdentifier });
    harness.pool
      .intercept({ path, method: 'GET' })
      .reply(200, '<?xml version="1.0"?><SHOP><SHOPITEM><CODE>a-1</CODE></SHOPITEM></SHOP>', {
        headers: { 'content-type': 'application/xml' },
      });

    const stream = await harness.client.fetchPriceListXml(unit);

    expect(stream.contentType).toBe('application/xml');
    expect(await bytesOf(stream)).toContain('<CODE>a-1</CODE>');
  });

  it('retries the price-list request until the body starts', async () => {
    harness = createHarness();
    const path = '/unit/u-1/price-list/export/eshop-update';
    harness.pool.intercept({ path, method: 'GET' }).reply(503, 'later');
    harness.pool.intercept({ path, method: 'GET' }).replyWithError(new errors.SocketError('other side closed'));
    harness.pool.intercept({ path, method: 'GET' }).reply(200, '<root/>');

    expect(await bytesOf(await harness.client.fetchPriceListXml(unit))).toBe('<root/>');
    expect(harness.sleeps).toHaveLength(2);
  });

  it('rejects a price list the POS does not know (404), naming the settings to check', async () => {
    harness = createHarness({ exportPathPrefix: '/ext' });
    harness.pool.intercept({ path: '/ext/unit/u-1/price-list/export/eshop-update', method: 'GET' }).reply(404, 'Not Found');

    const error = await harness.client.fetchPriceListXml(unit).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PosRejectedError);
    expect(error).toMatchObject({ method: 'GET', path: '/ext/unit/u-1/price-list/export/eshop-update', status: 404 });
    expect(String(error)).toMatch(/POS_EXPORT_PATH_PREFIX/);
    // The export has two names (the interface's and the vendor's pages'): the advice names the setting first.
    expect(String(error)).toMatch(/check POS_PRICE_LIST_EXPORT: eshop-update or shoptet-update; then POS_BASE_URL/);
  });

  it('reads the price list at shoptet-update with POS_PRICE_LIST_EXPORT=shoptet-update (the vendor’s public name)', async () => {
    harness = createHarness({ exportPathPrefix: '/ext', priceListExport: 'shoptet-update' });
    harness.pool
      .intercept({ path: '/ext/unit/u-1/price-list/export/shoptet-update', method: 'GET' })
      .reply(200, '<SHOP><SHOPITEM><CODE>a-1</CODE></SHOPITEM></SHOP>', { headers: { 'content-type': 'application/xml' } });

    expect(await bytesOf(await harness.client.fetchPriceListXml(unit))).toContain('<CODE>a-1</CODE>');
    expect(harness.calls().map((call) => call.path)).toEqual(['/ext/unit/u-1/price-list/export/shoptet-update']);
  });

  it.each([
    ['', 'localId', '/warehouse/stock/export/csv/u-1'],
    ['/ext', 'code', '/ext/warehouse/stock/export/csv/U%201%2FBrno'],
  ] as const)(
    'fetches the stock export of a unit (prefix "%s", identifier %s)',
    async (exportPathPrefix, unitIdentifier, path) => {
      harness = createHarness({ exportPathPrefix, unitIdentifier });
      harness.pool
        .intercept({ path, method: 'GET' })
        .reply(200, 'code;amount\r\na-1;5\r\n', { headers: { 'content-type': 'text/plain' } });

      const body = await harness.client.fetchStockExport(unit);

      expect(Buffer.from(body).toString('utf8')).toBe('code;amount\r\na-1;5\r\n');
    },
  );

  it('fetches the stock export of all units with the configured type', async () => {
    harness = createHarness({ exportPathPrefix: '/ext', stockExportType: 'tsv' });
    harness.pool.intercept({ path: '/ext/warehouse/stock/export/tsv', method: 'GET' }).reply(200, 'unit\tcode\tamount\n');

    const body = await harness.client.fetchStockExportAll();

    expect(Buffer.from(body).toString('utf8')).toBe('unit\tcode\tamount\n');
  });

  it('refuses a stock export larger than the cap, announced or not', async () => {
    harness = createHarness({ maxStockExportBytes: 16 });
    harness.pool.intercept({ path: '/warehouse/stock/export/csv/u-1', method: 'GET' }).reply(200, 'x'.repeat(17));
    harness.pool
      .intercept({ path: '/warehouse/stock/export/csv', method: 'GET' })
      .reply(200, 'x'.repeat(17), { headers: { 'content-length': '17' } });

    await expect(harness.client.fetchStockExport(unit)).rejects.toMatchObject({
      code: 'POS_RESPONSE_TOO_LARGE',
      message: expect.stringMatching(/stock export .* is larger than 0 MiB/),
    });
    await expect(harness.client.fetchStockExportAll()).rejects.toBeInstanceOf(DocumentTooLargeError);
    expect(harness.sleeps).toEqual([]);
  });

  it('refuses a stock export larger than the limit the caller gives, below its own', async () => {
    harness = createHarness();
    harness.pool.intercept({ path: '/warehouse/stock/export/csv/u-1', method: 'GET' }).reply(200, 'x'.repeat(2_000_000));

    await expect(harness.client.fetchStockExport(unit, { maxBytes: 1_048_576 })).rejects.toMatchObject({
      code: 'POS_RESPONSE_TOO_LARGE',
      message: expect.stringContaining('larger than 1 MiB'),
    });
    expect(harness.sleeps).toEqual([]);
  });
});

describe('pos-client headers and secrets', () => {
  it('sends x-api-key on every call, and JSON headers on JSON calls', async () => {
    harness = createHarness();
    serveList(harness.pool, '/ext/assortment/article/list', articles(2));
    serveList(harness.pool, UNITS, [], { withTotal: true });
    serveList(harness.pool, '/ext/stockholding/movement/list', [], { withTotal: true });
    harness.pool.intercept({ path: CLIENT, method: 'POST' }).reply(...json({ data: null }));
    harness.pool.intercept({ path: '/unit/u-1/price-list/export/eshop-update', method: 'GET' }).reply(200, '<root/>');
    harness.pool.intercept({ path: '/warehouse/stock/export/csv/u-1', method: 'GET' }).reply(200, '');
    harness.pool.intercept({ path: '/warehouse/stock/export/csv', method: 'GET' }).reply(200, '');

    await harness.client.listArticles();
    await harness.client.listUnits();
    await harness.client.listMovements();
    await harness.client.getClient({ phone: '+420777000111' });
    await bytesOf(await harness.client.fetchPriceListXml(unit));
    await harness.client.fetchStockExport(unit);
    await harness.client.fetchStockExportAll();

    const calls = harness.calls();
    // The article list: its page, the empty page after it and the one asked ahead with it.
    expect(calls).toHaveLength(9);
    for (const call of calls) {
      expect(call.headers['x-api-key']).toBe(API_KEY);
      expect(call.path).not.toContain('key=');
      if (call.method === 'POST') {
        expect(call.headers['content-type']).toBe('application/json');
        expect(call.headers['accept']).toBe('application/json');
      }
    }
  });

  it('keeps a base path of the base URL in front of every path', async () => {
    harness = createHarness({ baseUrl: `${ORIGIN}/api/` });
    harness.pool.intercept({ path: '/api/ext/unit/list', method: 'POST' }).reply(500, '').times(4);

    const error = await harness.client.listUnits().catch((caught: unknown) => caught);

    expect(error).toMatchObject({ path: '/api/ext/unit/list', status: 500 });
  });

  it('never reveals the API key, even when the POS echoes it', async () => {
    harness = createHarness({ maxRetries: 0 });
    harness.pool
      .intercept({ path: UNITS, method: 'POST' })
      .reply(...json({ isValid: false, errors: [`Key ${API_KEY} is not valid`] }));
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(403, JSON.stringify({ errors: [`Forbidden for ${API_KEY}`] }));
    harness.pool
      .intercept({ path: UNITS, method: 'POST' })
      .replyWithError(new errors.SocketError(`reset while sending ${API_KEY}`));
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(200, `{"broken": "${API_KEY}`);
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(...json({ data: { items: API_KEY } }));

    const failures: unknown[] = [];
    for (let i = 0; i < 5; i++) failures.push(await harness.client.listUnits().catch((caught: unknown) => caught));

    expect(failures.map((error) => (error as Error).name)).toEqual([
      'PosRejectedError',
      'PosRejectedError',
      'PosUnavailableError',
      'PosResponseInvalidError',
      'PosResponseInvalidError',
    ]);
    for (const error of failures) expect(revealsKey(error)).toBe(false);
    expect(String(failures[0])).toContain('Key [redacted] is not valid');
    expect(JSON.stringify(harness.logs)).not.toContain(API_KEY);
  });

  it.each(['k', 'network'])(
    'leaves the words of its messages whole with the key %j (redacts it only as a whole value)',
    async (apiKey) => {
      harness = createHarness({ maxRetries: 0, apiKey });
      harness.pool
        .intercept({ path: UNITS, method: 'POST' })
        .reply(...json({ isValid: false, errors: [`network key check failed for x-api-key: ${apiKey}`] }));
      harness.pool.intercept({ path: UNITS, method: 'POST' }).replyWithError(new errors.SocketError('network is unreachable'));

      const rejected = await harness.client.listUnits().catch((caught: unknown) => caught);
      const unreachable = await harness.client.listUnits().catch((caught: unknown) => caught);

      expect(rejected).toMatchObject({ posErrors: ['network key check failed for x-api-key: [redacted]'] });
      expect(String(unreachable)).toContain('network is unreachable');
      expect(String(unreachable)).not.toContain('[redacted]');
    },
  );

  it('accepts the loaded configuration slice as is', async () => {
    const config = { ...createTestConfig().pos, baseUrl: ORIGIN, apiKey: API_KEY, maxRetries: 0 };
    harness = createHarness(config);
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(502, '');

    await expect(harness.client.listUnits()).rejects.toBeInstanceOf(PosUnavailableError);
  });
});
