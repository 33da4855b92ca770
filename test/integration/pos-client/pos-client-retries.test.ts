import { errors } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PosRejectedError, PosUnavailableError } from '../../../src/adapters/pos/pos-errors.js';
import { createHarness, type Harness, json, revealsKey, units } from './pos-mock-harness.js';

const UNITS = '/ext/unit/list';
const unitPage = { data: { items: units(2), total: 2 } };

let harness: Harness;

afterEach(async () => {
  vi.useRealTimers();
  await harness.finish();
});

describe('pos-client retries', () => {
  it('retries a 5xx and succeeds, with full-jitter exponential backoff', async () => {
    harness = createHarness({ maxRetries: 3 }, { retry: { baseDelayMs: 400 } });
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(503, 'busy');
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(502, 'bad gateway');
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(...json(unitPage));

    const result = await harness.client.listUnits();

    expect(result.items).toHaveLength(2);
    // random() is 0.5: half of 400, then half of 800.
    expect(harness.sleeps).toEqual([200, 400]);
    expect(harness.logs.filter((log) => log.level === 'warn')).toEqual([
      expect.objectContaining({
        message: 'POS request failed, retrying',
        meta: expect.objectContaining({ method: 'POST', path: UNITS, status: 503, attempt: 1 }),
      }),
      expect.objectContaining({
        message: 'POS request failed, retrying',
        meta: expect.objectContaining({ status: 502, attempt: 2 }),
      }),
    ]);
  });

  it('honours Retry-After in seconds on 429', async () => {
    harness = createHarness({ timeoutMs: 10_000 });
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(429, 'slow down', { headers: { 'retry-after': '7' } });
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(...json(unitPage));

    await harness.client.listUnits();

    expect(harness.sleeps).toEqual([7_000]);
  });

  it('gives up at once when Retry-After reaches past the call budget', async () => {
    harness = createHarness({ timeoutMs: 1_000, callBudgetMs: 4_000 });
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(429, '', { headers: { 'retry-after': '30' } });

    const error = await harness.client.listUnits().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PosUnavailableError);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 30_000 });
    expect(harness.sleeps).toEqual([]);
  });

  it('honours Retry-After as an HTTP date, and caps it', async () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    harness = createHarness({ timeoutMs: 60_000 }, { now: () => now, retry: { maxRetryAfterMs: 20_000 } });
    harness.pool
      .intercept({ path: UNITS, method: 'POST' })
      .reply(429, '', { headers: { 'retry-after': 'Sun, 22 Nov 2026 10:00:12 GMT' } });
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(503, '', { headers: { 'retry-after': '3600' } });
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(...json(unitPage));

    await harness.client.listUnits();

    expect(harness.sleeps).toEqual([12_000, 20_000]);
  });

  it('retries network resets and timeouts reported by undici', async () => {
    harness = createHarness();
    harness.pool.intercept({ path: UNITS, method: 'POST' }).replyWithError(new errors.SocketError('other side closed'));
    harness.pool.intercept({ path: UNITS, method: 'POST' }).replyWithError(new errors.HeadersTimeoutError());
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(...json(unitPage));

    const result = await harness.client.listUnits();

    expect(result.items).toHaveLength(2);
    // The first attempt's closed connection is retried at once (a kept-alive one the POS had closed), and
    // only logged at debug; the timeout after it waits and warns.
    expect(harness.sleeps).toHaveLength(1);
    const retries = harness.logs.filter((entry) => entry.message.includes('retrying'));
    expect(retries.map((entry) => [entry.level, entry.message])).toEqual([
      ['debug', 'POS closed a kept-alive connection; retrying at once'],
      ['warn', 'POS request failed, retrying'],
    ]);
  });

  it('waits and warns when the new connection is closed too', async () => {
    harness = createHarness();
    harness.pool.intercept({ path: UNITS, method: 'POST' }).replyWithError(new errors.SocketError('other side closed')).times(2);
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(...json(unitPage));

    await harness.client.listUnits();

    expect(harness.sleeps).toHaveLength(1);
    const retries = harness.logs.filter((entry) => entry.message.includes('retrying'));
    expect(retries.map((entry) => [entry.level, entry.meta])).toEqual([
      ['debug', expect.objectContaining({ attempt: 1, delayMs: 0 })],
      ['warn', expect.objectContaining({ attempt: 2, reason: expect.stringMatching(/UND_ERR_SOCKET: other side closed/) })],
    ]);
  });

  it('times out an attempt that gets no answer, then retries', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    harness = createHarness({ timeoutMs: 1_000, maxRetries: 1 });
    harness.pool
      .intercept({ path: UNITS, method: 'POST' })
      .reply(...json(unitPage))
      .delay(60_000);
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(...json(unitPage));

    const pending = harness.client.listUnits();
    await vi.advanceTimersByTimeAsync(1_000);
    const result = await pending;

    expect(result.items).toHaveLength(2);
    expect(harness.logs[0]?.meta).toMatchObject({
      attempt: 1,
      reason: expect.stringMatching(/no complete answer within 1000 ms/),
    });
  });

  it('gives up after maxRetries with a PosUnavailableError naming method, path and status', async () => {
    harness = createHarness({ maxRetries: 2 });
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(500, 'oops').times(3);

    const error = await harness.client.listUnits().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PosUnavailableError);
    expect(error).toMatchObject({ code: 'POS_UNAVAILABLE', method: 'POST', path: UNITS, status: 500, attempts: 3 });
    expect(String(error)).toBe(
      'PosUnavailableError: POS unavailable: HTTP 500 [POST /ext/unit/list (HTTP 500) after 3 attempts]',
    );
    expect(harness.sleeps).toHaveLength(2);
    expect(revealsKey(error)).toBe(false);
  });

  it('gives up on network errors after maxRetries, keeping the cause', async () => {
    harness = createHarness({ maxRetries: 1 });
    const reset = new errors.SocketError('other side closed');
    harness.pool.intercept({ path: UNITS, method: 'POST' }).replyWithError(reset).times(2);

    const error = await harness.client.listUnits().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PosUnavailableError);
    expect(error).toMatchObject({ method: 'POST', path: UNITS, attempts: 2 });
    expect((error as PosUnavailableError).status).toBeUndefined();
    expect((error as Error).cause).toBe(reset);
    expect(String(error)).toMatch(/network error UND_ERR_SOCKET: other side closed/);
  });

  it('stops retrying when the next wait would exceed the call budget', async () => {
    let clock = 0;
    harness = createHarness(
      { timeoutMs: 1_000, maxRetries: 10, callBudgetMs: 5_000 },
      {
        now: () => clock,
        sleep: async (ms) => {
          clock += ms;
        },
        retry: { baseDelayMs: 1_000 },
      },
    );
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(503, '').times(4);

    const error = await harness.client.listUnits().catch((caught: unknown) => caught);

    // Waits of 500, 1000, 2000 (random 0.5) fit into 5 s; the next one (4000) would not.
    expect(error).toMatchObject({ status: 503, attempts: 4 });
  });

  it.each([400, 401, 403, 404, 422])('does not retry HTTP %i', async (status) => {
    harness = createHarness();
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(status, 'no');

    const error = await harness.client.listUnits().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PosRejectedError);
    expect(error).toMatchObject({ code: 'POS_REJECTED', method: 'POST', path: UNITS, status });
    expect(harness.sleeps).toEqual([]);
  });

  it('names the likely misconfiguration on 401 and keeps the POS error texts of a 4xx envelope', async () => {
    harness = createHarness();
    harness.pool
      .intercept({ path: UNITS, method: 'POST' })
      .reply(401, JSON.stringify({ isValid: false, errors: ['Invalid API key'] }));

    const error = await harness.client.listUnits().catch((caught: unknown) => caught);

    expect(error).toMatchObject({ status: 401, posErrors: ['Invalid API key'] });
    expect(String(error)).toMatch(/API key was refused \(check POS_API_KEY\): Invalid API key/);
    expect(revealsKey(error)).toBe(false);
  });

  it('does not retry errors that mean a bug on our side (here: a call nobody mocked)', async () => {
    harness = createHarness();

    const error = await harness.client.listUnits().catch((caught: unknown) => caught);

    expect(error).toMatchObject({ name: 'MockNotMatchedError' });
    expect(harness.sleeps).toEqual([]);
  });

  it('does not retry schema errors', async () => {
    harness = createHarness();
    harness.pool.intercept({ path: UNITS, method: 'POST' }).reply(...json({ data: { total: 2 } }));

    await expect(harness.client.listUnits()).rejects.toThrow(/data does not match the interface: data.items/);
    expect(harness.sleeps).toEqual([]);
  });
});
