import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configuredSource } from '../../src/app/catalog-parts.js';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { openConfiguredWebhookInbox } from '../../src/app/webhook-parts.js';
import type { StoredWebhookEvent } from '../../src/services/webhooks/webhook-processor.js';
import { createTestConfig } from '../helpers/test-config.js';
import { waitFor } from '../helpers/wait-for.js';

const logger = pino({ level: 'silent' });
const KEY = 'sandbox-key';
const dir = mkdtempSync(join(tmpdir(), 'webhooks-e2e-'));
const config = createTestConfig({
  STORE_URL: `sqlite://${join(dir, 'catalog.sqlite')}`,
  SANDBOX_ARTICLES: '200',
  SANDBOX_SALES_PER_MINUTE: '0',
  // Scheduled syncs must not be what updates the stock here.
  STOCK_SYNC_CRON: '0 0 1 1 *',
  CATALOG_SYNC_CRON: '0 0 1 1 *',
});

interface Item {
  id: string;
  stock?: number;
  offers: { unit: string; stock?: number }[];
}

async function unitItems(app: RunningApp, unit: string): Promise<{ version: string; items: Item[] }> {
  const response = await fetch(`${app.url}/feeds/${unit}/products.json`);
  expect(response.status).toBe(200);
  return (await response.json()) as { version: string; items: Item[] };
}

/** A stock item of the unit with at least `min` pieces (whole pieces: sold by count, not weight). */
async function stockedItem(app: RunningApp, unit: string, min = 3): Promise<Item> {
  const { items } = await unitItems(app, unit);
  const item = items.find((entry) => Number.isInteger(entry.stock) && (entry.stock ?? 0) >= min);
  if (item === undefined) throw new Error(`no item with stock >= ${min} in ${unit}`);
  return item;
}

/** Polls the unit's JSON feed until the item's stock is `expected` (bounded: 10 s). */
async function stockBecomes(app: RunningApp, unit: string, id: string, expected: number): Promise<number | undefined> {
  let stock: number | undefined;
  // On time-out the caller's assertion shows the last stock seen.
  await waitFor(async () => {
    stock = (await unitItems(app, unit)).items.find((item) => item.id === id)?.stock;
    return stock === expected;
  }).catch(() => undefined);
  return stock;
}

/** Sells one piece of a stocked item of `unit` in the sandbox: the item, its stock before, the sale. */
async function sellOne(app: RunningApp, unit: string) {
  const item = await stockedItem(app, unit);
  const sale = await app.sandbox?.makeSale({ unitCode: unit, lines: [{ localId: item.id, count: 1 }] });
  if (sale === undefined) throw new Error('no sandbox');
  return { item, before: item.stock ?? 0, sale };
}

function postWebhook(app: RunningApp, body: string | object, headers: Record<string, string> = { 'x-api-key': KEY }) {
  return fetch(`${app.url}/webhooks/pos`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function metric(app: RunningApp, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const line = text.split('\n').find((entry) => pattern.test(entry));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

describe('POS webhooks against the sandbox', () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp(config, { logger });
    await app.initialSync;
  });

  afterAll(async () => {
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows a sale in the feeds soon after its webhook, for both forms of the sale event', async () => {
    for (const unit of ['U1', 'U2']) {
      const item = await stockedItem(app, unit);
      const before = item.stock ?? 0;
      const versionBefore = (await unitItems(app, unit)).version;

      const sale = await app.sandbox?.makeSale({ unitCode: unit, lines: [{ localId: item.id, count: 2 }] });

      expect(await stockBecomes(app, unit, item.id, before - 2)).toBe(before - 2);
      expect((await unitItems(app, unit)).version).not.toBe(versionBefore);
      // The aggregate view follows too.
      const all = await unitItems(app, 'all');
      expect(all.items.find((entry) => entry.id === item.id)?.offers.find((offer) => offer.unit === unit)?.stock).toBe(
        before - 2,
      );
      expect(sale?.eventForm).toBeDefined();
    }
    await app.webhooks.idle();
    expect(await metric(app, /^catalog_bridge_webhook_sales_total\{outcome="applied"\}/)).toBeGreaterThanOrEqual(2);
    // Operators see it in /readyz and on the status page.
    const ready = (await (await fetch(`${app.url}/readyz`)).json()) as {
      webhooks: { pending: number; sales: { applied: number } };
    };
    expect(ready.webhooks.pending).toBe(0);
    expect(ready.webhooks.sales.applied).toBeGreaterThanOrEqual(2);
    const page = await (await fetch(`${app.url}/`)).text();
    expect(page).toMatch(
      /Sale webhooks since start: \d+ <a href="[^"]*\/docs\/report-codes#applied">applied from their movements<\/a>/,
    );
  });

  it('rejects calls without the right key, and processes nothing', async () => {
    const sale = { timestamp: new Date().toISOString(), event: 'accounting.receipt.sale', data: { localId: 'r-x', number: 'X' } };
    const missing = await postWebhook(app, sale, {});
    const wrong = await postWebhook(app, sale, { 'x-api-key': 'not-the-key' });

    expect(missing.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    expect(await metric(app, /^catalog_bridge_webhook_events_total\{event="invalid",outcome="unauthorized"\}/)).toBe(2);
  });

  it('answers bad bodies with 400 or 413 naming the problem', async () => {
    const malformed = await postWebhook(app, '{"event": ');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { message: string } }).error.message).toMatch(/not valid JSON/);

    const noTimestamp = await postWebhook(app, { event: 'accounting.receipt.sale', data: {} });
    expect(noTimestamp.status).toBe(400);
    expect(((await noTimestamp.json()) as { error: { message: string } }).error.message).toMatch(/timestamp/);

    const badData = await postWebhook(app, {
      timestamp: 'now',
      event: 'accounting.receipt.sale',
      data: { total: { amount: 'ten' } },
    });
    expect(badData.status).toBe(400);
    expect(((await badData.json()) as { error: { message: string } }).error.message).toMatch(/data\.total\.amount/);

    const huge = await postWebhook(app, { timestamp: 'now', event: 'x', data: { note: 'x'.repeat(1024 * 1024) } });
    expect(huge.status).toBe(413);

    const empty = await postWebhook(app, '');
    expect(empty.status).toBe(400);
  });

  it('answers unknown event kinds and points changes with 200, without changing the catalog', async () => {
    const version = app.catalog.current()?.version;
    const unknown = await postWebhook(app, {
      timestamp: new Date().toISOString(),
      event: 'accounting.cash.flow',
      data: { amount: 5 },
    });
    const points = await postWebhook(app, {
      timestamp: new Date().toISOString(),
      event: 'address-book.client.points',
      accountId: 'acc-1',
      data: { received: 1, spent: 0, balance: 7, client: { localId: 'c-1' }, receipt: { localId: 'r-p', number: 'U1-P1-9' } },
    });

    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toEqual({});
    expect(points.status).toBe(200);
    await app.webhooks.idle();
    expect(app.catalog.current()?.version).toBe(version);
    expect(await metric(app, /^catalog_bridge_webhook_events_total\{event="unknown",outcome="ignored"\}/)).toBe(1);
  });

  it('processes a repeated delivery of the same sale once', async () => {
    app.sandbox?.setWebhookUrl(undefined);
    try {
      const { item, before, sale } = await sellOne(app, 'U1');
      const event = { timestamp: sale.createdAt, event: 'accounting.receipt.sale', data: sale.receipt };
      const appliedBefore = await metric(app, /^catalog_bridge_webhook_sales_total\{outcome="applied"\}/);

      const first = await postWebhook(app, event);
      const second = await postWebhook(app, event);

      expect([first.status, second.status]).toEqual([200, 200]);
      expect(await stockBecomes(app, 'U1', item.id, before - 1)).toBe(before - 1);
      await app.webhooks.idle();
      expect(await metric(app, /^catalog_bridge_webhook_sales_total\{outcome="applied"\}/)).toBe(appliedBefore + 1);
      expect(await metric(app, /^catalog_bridge_webhook_events_total\{event="sale",outcome="duplicate"\}/)).toBe(1);
    } finally {
      app.sandbox?.setWebhookUrl(`${app.url}/webhooks/pos`);
    }
  });

  it('re-reads the unit stock when the sale has no movements to find', async () => {
    app.sandbox?.setWebhookUrl(undefined);
    try {
      const { item, before, sale } = await sellOne(app, 'U2');
      // A receipt id the movement list does not know: only the re-read can show the sale.
      const event = {
        timestamp: sale.createdAt,
        event: 'accounting.receipt.sale',
        unitId: sale.unit.localId,
        data: { ...sale.receipt, localId: 'unknown-receipt', number: 'NONE' },
      };

      expect((await postWebhook(app, event)).status).toBe(200);
      expect(await stockBecomes(app, 'U2', item.id, before - 1)).toBe(before - 1);
      await app.webhooks.idle();
      expect(await metric(app, /^catalog_bridge_webhook_sales_total\{outcome="refetched"\}/)).toBeGreaterThanOrEqual(1);
    } finally {
      app.sandbox?.setWebhookUrl(`${app.url}/webhooks/pos`);
    }
  });

  it('still shows a sale when the movement list answers with an endless body: the stock re-read does', async () => {
    app.sandbox?.setWebhookUrl(undefined);
    try {
      const { item, before, sale } = await sellOne(app, 'U1');
      await fetch(`${app.posUrl}/sandbox/faults`, {
        method: 'PUT',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ endpoint: 'movement-list', mode: 'endless' }),
      });
      const refetchedBefore = await metric(app, /^catalog_bridge_webhook_sales_total\{outcome="refetched"\}/);

      const event = {
        timestamp: sale.createdAt,
        event: 'accounting.receipt.sale',
        unitId: sale.unit.localId,
        data: sale.receipt,
      };
      expect((await postWebhook(app, event)).status).toBe(200);
      expect(await stockBecomes(app, 'U1', item.id, before - 1)).toBe(before - 1);
      await app.webhooks.idle();
      expect(await metric(app, /^catalog_bridge_webhook_sales_total\{outcome="refetched"\}/)).toBe(refetchedBefore + 1);
    } finally {
      await fetch(`${app.posUrl}/sandbox/faults`, { method: 'DELETE', headers: { 'x-api-key': KEY } });
      app.sandbox?.setWebhookUrl(`${app.url}/webhooks/pos`);
    }
  });
});

describe('POS webhooks across a restart', () => {
  it('processes an event that was accepted but not processed before the restart', async () => {
    const restartDir = mkdtempSync(join(tmpdir(), 'webhooks-restart-'));
    const restartConfig = createTestConfig({
      STORE_URL: `sqlite://${join(restartDir, 'catalog.sqlite')}`,
      SANDBOX_ARTICLES: '60',
      SANDBOX_SALES_PER_MINUTE: '0',
      SANDBOX_UNITS: '2',
      STOCK_SYNC_CRON: '0 0 1 1 *',
      CATALOG_SYNC_CRON: '0 0 1 1 *',
    });
    try {
      const first = await startApp(restartConfig, { logger });
      await first.initialSync;
      first.sandbox?.setWebhookUrl(undefined);
      const item = await stockedItem(first, 'U1', 1);
      const before = item.stock ?? 0;
      const sale = await first.sandbox?.makeSale({ unitCode: 'U1', lines: [{ localId: item.id, count: 1 }] });
      if (sale === undefined) throw new Error('no sandbox');
      await first.stop();

      // What the receiver had stored when the process died, before processing it.
      const inbox = openConfiguredWebhookInbox(restartConfig, await configuredSource(restartConfig));
      const event: StoredWebhookEvent = {
        kind: 'sale',
        timestamp: sale.createdAt,
        event: 'accounting.receipt.sale',
        data: { number: sale.receipt.number, localId: 'receipt-lost-in-crash', state: 'open' },
      };
      await inbox.accept('sale|receipt-lost-in-crash', event, new Date());
      await inbox.close();

      // The restarted bridge serves the stored catalog and has its own sandbox (the same seed: the same
      // catalog, stock as generated); the pending event makes it re-read U1's stock.
      const second = await startApp(restartConfig, { logger });
      try {
        await second.webhooks.idle();
        const reopened = openConfiguredWebhookInbox(restartConfig, await configuredSource(restartConfig));
        expect(await reopened.pending()).toEqual([]);
        await reopened.close();
        const metrics = await (await fetch(`${second.url}/metrics`)).text();
        expect(metrics).toMatch(/^catalog_bridge_webhook_sales_total\{outcome="refetched"\} 1$/m);
        const { items } = await unitItems(second, 'U1');
        expect(items.find((entry) => entry.id === item.id)?.stock).toBe(before);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(restartDir, { recursive: true, force: true });
    }
  });
});
