import { afterEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import {
  API_KEY,
  ClientPointsEventSchema,
  call,
  MovementListSchema,
  pollUntil,
  postJson,
  SaleEventSchema,
  sendJson,
  startReceiver,
  startTestSandbox,
  type WebhookReceiver,
} from './sandbox-test-kit.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(
  options: Parameters<typeof startTestSandbox>[0] = {},
): Promise<{ sandbox: RunningSandbox; receiver: WebhookReceiver }> {
  const receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  const sandbox = await startTestSandbox({ webhookUrl: receiver.url, ...options });
  cleanups.push(() => sandbox.stop());
  return { sandbox, receiver };
}

/** Stock of one article in one unit, read from the txt export (code = localId). */
async function stockOf(sandbox: RunningSandbox, unit: string, localId: string): Promise<number | undefined> {
  const { text } = await call(`${sandbox.url}/warehouse/stock/export/txt/${unit}`);
  const row = text.split('\n').find((line) => line.startsWith(`${localId}\t`));
  return row === undefined ? undefined : Number(row.split('\t')[4]);
}

async function movementsOf(sandbox: RunningSandbox, filter: Record<string, string>) {
  const { json } = await postJson(`${sandbox.url}/ext/stockholding/movement/list`, { filter, limit: 200 });
  return MovementListSchema.parse(json);
}

describe('sandbox/sales', () => {
  it('lowers stock in the exports and records movements carrying the receipt', async () => {
    const { sandbox } = await setup();

    const sale = await sandbox.makeSale({ unitCode: 'U2' });
    const movements = await movementsOf(sandbox, { unit: 'U2' });
    const saleMovements = movements.data.items.filter(
      (movement) => movement.warehouseOperation.receipt?.number === sale.receiptNumber,
    );

    expect(sale.unit.code).toBe('U2');
    expect(sale.lines.length).toBeGreaterThanOrEqual(1);
    expect(sale.lines.length).toBeLessThanOrEqual(3);
    expect(saleMovements.map((movement) => movement._id).sort()).toEqual([...sale.movementIds].sort());
    for (const movement of saleMovements) {
      const line = sale.lines.find((candidate) => candidate.localId === movement.article._id);
      expect(movement.count).toBe(-(line?.count ?? 0));
      expect(movement.unit).toEqual({ _id: sale.unit.localId, code: 'U2', name: sale.unit.name });
      expect(movement.warehouseOperation).toMatchObject({ currency: 'CZK', type: 2, createdAt: sale.createdAt });
      expect(movement.warehouseOperation.receipt?._id).toBe(sale.receiptId);
      expect(movement.warehouseOperation.price).toEqual(sale.receipt.total);
    }
  });

  it('decrements the stock export by the sold count', async () => {
    const { sandbox } = await setup();
    const before = await stockOf(sandbox, 'U1', 'a-100004');
    const otherUnitBefore = await stockOf(sandbox, 'U2', 'a-100004');

    const sale = await sandbox.makeSale({ unitCode: 'U1', lines: [{ localId: 'a-100004', count: 2 }] });

    expect(before).toBeDefined();
    expect(sale.lines).toEqual([expect.objectContaining({ localId: 'a-100004', count: 2 })]);
    expect(await stockOf(sandbox, 'U1', 'a-100004')).toBe((before ?? Number.NaN) - 2);
    expect(await stockOf(sandbox, 'U2', 'a-100004')).toBe(otherUnitBefore);
  });

  it('sends both documented forms of the sale event with the API key, alternating', async () => {
    const { sandbox, receiver } = await setup();

    const first = await sandbox.makeSale({ unitCode: 'U1' });
    const second = await sandbox.makeSale({ unitCode: 'U3' });
    const sales = await pollUntil(() => {
      const events = receiver.received.filter((call) => (call.body as { event?: string }).event === 'accounting.receipt.sale');
      return events.length >= 2 ? events : undefined;
    });

    for (const call of sales) {
      expect(call.headers['x-api-key']).toBe(API_KEY);
      expect(call.headers['content-type']).toBe('application/json');
      SaleEventSchema.parse(call.body);
    }
    // A few sales are delivered concurrently, so find each event by its receipt number.
    const bodies = sales.map((call) => call.body as { data: { number: string } } & Record<string, unknown>);
    const withUnit = bodies.find((body) => body.data.number === first.receiptNumber);
    const withoutUnit = bodies.find((body) => body.data.number === second.receiptNumber);
    expect(first.eventForm).toBe('with-unit');
    expect(withUnit).toMatchObject({ unitId: first.unit.localId, accountId: expect.any(String), data: first.receipt });
    expect(second.eventForm).toBe('without-unit');
    expect(withoutUnit).not.toHaveProperty('unitId');
    expect(withoutUnit).not.toHaveProperty('accountId');
    expect(withoutUnit).toMatchObject({ data: { number: second.receiptNumber, state: 'open', paymentType: 'transfer' } });
  });

  it('sends a client-points event after the sale when the sale has a client', async () => {
    const { sandbox, receiver } = await setup();

    let withClient: Awaited<ReturnType<RunningSandbox['makeSale']>> | undefined;
    for (let attempt = 0; attempt < 30 && withClient === undefined; attempt++) {
      const sale = await sandbox.makeSale();
      if (sale.clientId !== undefined) withClient = sale;
    }
    const points = await pollUntil(() =>
      receiver.received.find((call) => (call.body as { event?: string }).event === 'address-book.client.points'),
    );
    const event = ClientPointsEventSchema.parse(points.body);
    const saleIndex = receiver.received.findIndex(
      (call) => (call.body as { data?: { number?: string } }).data?.number === event.data.receipt.number,
    );
    const saleEvent = SaleEventSchema.parse(receiver.received[saleIndex]?.body);

    expect(withClient).toBeDefined();
    expect(points.headers['x-api-key']).toBe(API_KEY);
    expect(saleEvent.data.client?.localId).toBe(event.data.client.localId);
    expect(event.data.receipt.localId).toBe(saleEvent.data.localId);
    expect(event.data.received).toBe(Math.floor(saleEvent.data.total.amountVAT / 100));
    expect(saleIndex).toBeGreaterThanOrEqual(0);
    expect(saleIndex).toBeLessThan(receiver.received.indexOf(points));
    const client = await postJson(`${sandbox.url}/ext/address-book/client/get`, { _id: event.data.client.localId });
    expect(client.json).toMatchObject({ isValid: true, data: { clientPoints: event.data.balance } });
  });

  it('POST /sandbox/sales makes a sale now and validates its body', async () => {
    const { sandbox, receiver } = await setup();

    const made = await sendJson(`${sandbox.url}/sandbox/sales`, 'POST', {
      unitCode: 'U3',
      lines: [{ localId: 'a-100010', count: 1 }],
    });
    const random = await sendJson(`${sandbox.url}/sandbox/sales`, 'POST');
    const badUnit = await sendJson(`${sandbox.url}/sandbox/sales`, 'POST', { unitCode: 'U404' });
    const badLine = await sendJson(`${sandbox.url}/sandbox/sales`, 'POST', { lines: [{ localId: 'a-1', count: 1 }] });
    const badCount = await sendJson(`${sandbox.url}/sandbox/sales`, 'POST', { lines: [{ localId: 'a-100010', count: -1 }] });
    const noKey = await call(`${sandbox.url}/sandbox/sales`, { method: 'POST', headers: {} });

    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ unit: { code: 'U3' }, receiptNumber: expect.stringMatching(/^U3-P3-\d{6}$/) });
    expect(random.status).toBe(201);
    expect(badUnit.status).toBe(400);
    expect(badUnit.json).toMatchObject({ error: { message: expect.stringContaining('U404') } });
    expect(badLine.status).toBe(400);
    expect(badCount.status).toBe(400);
    expect(noKey.status).toBe(401);
    await pollUntil(() => (receiver.received.length >= 2 ? true : undefined));
  });

  it('filters movements by inclusive date bounds, unit (localId or code) and article, with paging and total', async () => {
    let current = new Date('2026-11-22T10:00:00.000Z');
    const { sandbox } = await setup({ now: () => current });
    const first = await sandbox.makeSale({ unitCode: 'U1', lines: [{ localId: 'a-100004', count: 1 }] });
    current = new Date('2026-11-22T11:00:00.000Z');
    await sandbox.makeSale({
      unitCode: 'U1',
      lines: [
        { localId: 'a-100004', count: 1 },
        { localId: 'a-100005', count: 1 },
      ],
    });
    current = new Date('2026-11-22T12:00:00.000Z');
    await sandbox.makeSale({ unitCode: 'U2', lines: [{ localId: 'a-100004', count: 1 }] });

    const exactBounds = await movementsOf(sandbox, { dateFrom: '2026-11-22T10:00:00.000Z', dateTo: '2026-11-22T11:00:00.000Z' });
    const afterFirst = await movementsOf(sandbox, { dateFrom: '2026-11-22T10:00:00.001Z' });
    const byUnitId = await movementsOf(sandbox, { unit: first.unit.localId, dateFrom: '2026-11-22' });
    const byArticle = await movementsOf(sandbox, { article: 'a-100004', dateFrom: '2026-11-22T09:00:00Z' });
    const dayOnly = await movementsOf(sandbox, { dateFrom: '2026-11-22', dateTo: '2026-11-22' });
    const unknownUnit = await movementsOf(sandbox, { unit: 'U404' });
    const { json } = await postJson(`${sandbox.url}/ext/stockholding/movement/list`, {
      filter: { dateFrom: '2026-11-22' },
      limit: 2,
      skip: 2,
    });
    const page = MovementListSchema.parse(json);

    expect(exactBounds.data.total).toBe(3);
    expect(afterFirst.data.total).toBe(3);
    expect(byUnitId.data.total).toBe(3);
    expect(byUnitId.data.items.every((movement) => movement.unit.code === 'U1')).toBe(true);
    expect(byArticle.data.total).toBe(3);
    expect(dayOnly.data.total).toBe(4);
    expect(unknownUnit.data.items).toEqual([]);
    expect(unknownUnit.warnings).toEqual([expect.stringContaining('U404')]);
    expect(page.data.total).toBe(4);
    expect(page.data.items).toHaveLength(2);
  });

  it('leaves optional article fields out of movements when the article lacks them', async () => {
    const { sandbox } = await setup({ articles: 400 });
    const articles = (await postJson(`${sandbox.url}/ext/assortment/article/list`, { limit: 200 })).json as {
      data: { items: { localId: string; ean?: string; isStockItem?: boolean; isSalesItem?: boolean }[] };
    };
    const withoutEan = articles.data.items.find((article) => article.ean === undefined && article.isStockItem !== false);

    await sandbox.makeSale({ unitCode: 'U1', lines: [{ localId: withoutEan?.localId ?? '', count: 1 }] });
    const movements = await movementsOf(sandbox, { article: withoutEan?.localId ?? '' });
    const sold = movements.data.items.find((movement) => movement.count < 0);

    expect(sold?.article).toBeDefined();
    expect(sold?.article).not.toHaveProperty('ean');
    expect(sold?.article.measureUnit).toMatch(/^(ks|kg)$/);
  });

  it('simulates sales on a timer at salesPerMinute', async () => {
    const { sandbox, receiver } = await setup({ salesPerMinute: 6000 });

    await pollUntil(() => (receiver.received.length >= 3 ? true : undefined));
    const movements = await movementsOf(sandbox, {});

    expect(movements.data.items.some((movement) => movement.count < 0)).toBe(true);
  });

  it('survives a failing receiver: retries a few times, records the failure, keeps serving', async () => {
    const { sandbox, receiver } = await setup();
    receiver.status = 500;

    const sale = await sandbox.makeSale({ unitCode: 'U1' });
    const failed = await pollUntil(async () => {
      const { json } = await sendJson(`${sandbox.url}/sandbox/webhooks`, 'GET');
      const deliveries = (json as { deliveries: { ok: boolean; attempts: number; status: number }[] }).deliveries;
      return deliveries.length > 0 ? deliveries : undefined;
    });

    expect(failed[0]).toMatchObject({ ok: false, status: 500, attempts: 3 });
    expect(receiver.received.length).toBe(3);
    expect(receiver.received[0]?.body).toMatchObject({ data: { number: sale.receiptNumber } });
    expect((await postJson(`${sandbox.url}/ext/unit/list`, {})).status).toBe(200);
  });

  it('survives an unreachable receiver and can change the receiver at run time', async () => {
    const { sandbox, receiver } = await setup();
    sandbox.setWebhookUrl('http://127.0.0.1:9/unreachable');
    await sandbox.makeSale();
    sandbox.setWebhookUrl(receiver.url);

    await sandbox.makeSale();

    await pollUntil(() => (receiver.received.length >= 1 ? true : undefined));
    const { json } = await sendJson(`${sandbox.url}/sandbox/webhooks`, 'GET');
    expect(json).toMatchObject({ url: receiver.url });
  });

  it("reports its own share of each delivery (waiting before the first attempt) apart from the receiver's", async () => {
    const { sandbox, receiver } = await setup();
    expect((await call(`${sandbox.url}/sandbox/webhooks/stats`, { method: 'DELETE' })).status).toBe(204);

    await sandbox.makeSale({ unitCode: 'U1' });
    await pollUntil(() => (receiver.received.length >= 1 ? true : undefined));
    const stats = await pollUntil(async () => {
      const { json } = await sendJson(`${sandbox.url}/sandbox/webhooks/stats`, 'GET');
      return (json as { delivered: number }).delivered >= receiver.received.length ? json : undefined;
    });
    const { json: log } = await sendJson(`${sandbox.url}/sandbox/webhooks`, 'GET');

    expect(stats).toMatchObject({
      failed: 0,
      dropped: 0,
      lagMs: { count: receiver.received.length, p50: expect.any(Number), p95: expect.any(Number), max: expect.any(Number) },
      roundTripMs: { count: receiver.received.length },
    });
    expect((log as { deliveries: unknown[] }).deliveries[0]).toMatchObject({
      ok: true,
      lagMs: expect.any(Number),
      roundTripMs: expect.any(Number),
    });
  });
});
