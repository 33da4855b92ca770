import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPosClient } from '../../../src/adapters/pos/pos-client.js';
import { PosUnavailableError } from '../../../src/adapters/pos/pos-errors.js';
import type { SourceUnit } from '../../../src/core/catalog/source.js';
import type { PosClient } from '../../../src/services/catalog/pos-port.js';
import { API_KEY, BASE_CONFIG, revealsKey } from './pos-mock-harness.js';

/**
 * The failures MockAgent cannot fake faithfully, on real sockets: a tiny node:http server on loopback
 * (not the sandbox POS) that misbehaves per path. The client uses its own pooled Agent here.
 * Timeouts are short (200 ms) and nothing asserts on elapsed time.
 */

const unit: SourceUnit = { localId: 'u-1', code: 'U1', name: 'Brno', priceLists: [] };
const requests: { path: string; apiKey: string | undefined }[] = [];
let server: Server;
let baseUrl: string;

function handle(request: IncomingMessage, response: ServerResponse): void {
  requests.push({ path: request.url ?? '', apiKey: request.headers['x-api-key'] as string | undefined });
  // Drain the request body before answering, like a real server.
  request.resume();
  request.on('end', () => {
    switch (request.url) {
      case '/ext/unit/list':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ data: { items: [{ localId: 'u-1', code: 'U1', name: 'Brno' }], total: 1 } }));
        return;
      case '/hang/ext/unit/list':
      case '/hang/unit/u-1/price-list/export/eshop-update':
        // Headers, then silence: only a body timeout can end this.
        response.writeHead(200, { 'content-type': 'application/json' });
        response.flushHeaders();
        return;
      case '/slow/warehouse/stock/export/csv/u-1': {
        // A large export that keeps coming: a row every 50 ms for 2x the client's 1 s timeout here (the
        // gaps far below it, so a busy test process cannot pass for a stall).
        response.writeHead(200, { 'content-type': 'text/csv' });
        let row = 0;
        const next = () => {
          if (row === 40) {
            response.end();
            return;
          }
          response.write(`a-${row};${row}\n`);
          row += 1;
          setTimeout(next, 50);
        };
        next();
        return;
      }
      case '/hang/warehouse/stock/export/csv/u-1':
        // A first row, then silence.
        response.writeHead(200, { 'content-type': 'text/csv' });
        response.write('a-0;0\n');
        return;
      case '/reset/ext/unit/list':
        request.socket.destroy();
        return;
      case '/truncated/unit/u-1/price-list/export/eshop-update':
        response.writeHead(200, { 'content-type': 'application/xml' });
        response.write('<?xml version="1.0"?><SHOP><SHOPITEM><CODE>a-1</CODE>');
        // Cut the chunked body off without its terminating chunk.
        setImmediate(() => request.socket.destroy());
        return;
      default:
        response.writeHead(404).end();
    }
  });
}

function clientFor(basePath: string, overrides: { maxRetries?: number; timeoutMs?: number } = {}): PosClient {
  return createPosClient({
    // A roomy call budget: a busy test machine must not turn a timeout test into a budget test.
    config: {
      ...BASE_CONFIG,
      baseUrl: `${baseUrl}${basePath}`,
      timeoutMs: 200,
      maxRetries: 1,
      callBudgetMs: 10_000,
      ...overrides,
    },
    // No waiting between attempts, and no jitter that could push a wait past the short call budget.
    sleep: async () => {},
    random: () => 0,
  });
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  requests.length = 0;
});

describe('pos-client over real HTTP', () => {
  it('reads a list with its own keep-alive Agent and closes it', async () => {
    const client = clientFor('');

    const result = await client.listUnits();
    await client.close();

    expect(result.items).toEqual([{ localId: 'u-1', code: 'U1', name: 'Brno', priceLists: [] }]);
    expect(requests).toEqual([{ path: '/ext/unit/list', apiKey: API_KEY }]);
  });

  it('times out a server that hangs after sending headers, retries, then gives up', async () => {
    const client = clientFor('/hang');

    const error = await client.listUnits().catch((caught: unknown) => caught);
    await client.close();

    expect(error).toBeInstanceOf(PosUnavailableError);
    expect(error).toMatchObject({ method: 'POST', path: '/hang/ext/unit/list', attempts: 2 });
    expect(String(error)).toMatch(/no complete answer within 200 ms/);
    expect(requests).toHaveLength(2);
    expect(revealsKey(error)).toBe(false);
  });

  it('times out a price-list body that stalls after the headers', async () => {
    const client = clientFor('/hang');

    const stream = await client.fetchPriceListXml(unit);
    const error = await (async () => {
      for await (const _chunk of stream) {
        // nothing arrives
      }
    })().catch((caught: unknown) => caught);
    await client.close();

    expect(error).toBeInstanceOf(PosUnavailableError);
    expect(error).toMatchObject({ method: 'GET', path: '/hang/unit/u-1/price-list/export/eshop-update', status: 200 });
    expect(String(error)).toMatch(/body broke off after 0 bytes/);
  });

  it('reads a stock export to its end while it keeps coming, past the timeout', async () => {
    const client = clientFor('/slow', { timeoutMs: 1_000 });

    const bytes = await client.fetchStockExport(unit);
    await client.close();

    const rows = Buffer.from(bytes).toString('utf8').trim().split('\n');
    expect(rows).toHaveLength(40);
    expect(rows.at(-1)).toBe('a-39;39');
    expect(requests).toHaveLength(1);
  });

  it('retries a stock export whose body stalls, then reports the stall', async () => {
    const client = clientFor('/hang');

    const error = await client.fetchStockExport(unit).catch((caught: unknown) => caught);
    await client.close();

    expect(error).toBeInstanceOf(PosUnavailableError);
    expect(error).toMatchObject({ method: 'GET', path: '/hang/warehouse/stock/export/csv/u-1', status: 200, attempts: 2 });
    expect(String(error)).toMatch(/the body stalled: no data for 200 ms/);
  });

  it('retries a server that resets the connection, then reports it unavailable', async () => {
    const client = clientFor('/reset', { maxRetries: 2 });

    const error = await client.listUnits().catch((caught: unknown) => caught);
    await client.close();

    expect(error).toBeInstanceOf(PosUnavailableError);
    expect(error).toMatchObject({ method: 'POST', path: '/reset/ext/unit/list', attempts: 3 });
    expect((error as PosUnavailableError).status).toBeUndefined();
    expect(String(error)).toMatch(/network error/);
    expect(requests).toHaveLength(3);
  });

  it('surfaces a chunked price-list body cut off mid-stream as PosUnavailableError', async () => {
    const client = clientFor('/truncated');

    const stream = await client.fetchPriceListXml(unit);
    const received: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) received.push(Buffer.from(chunk).toString('utf8'));
    })().catch((caught: unknown) => caught);
    await client.close();

    expect(received.join('')).toContain('<CODE>a-1</CODE>');
    expect(error).toBeInstanceOf(PosUnavailableError);
    expect(error).toMatchObject({
      code: 'POS_UNAVAILABLE',
      method: 'GET',
      path: '/truncated/unit/u-1/price-list/export/eshop-update',
    });
    expect(String(error)).toMatch(/body broke off after \d+ bytes/);
    expect(revealsKey(error)).toBe(false);
  });
});
