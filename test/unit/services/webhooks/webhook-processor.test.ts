import { type Logger, pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { openKeyv } from '../../../../src/adapters/store/create-keyv.js';
import { createKeyvWebhookInbox } from '../../../../src/adapters/store/keyv-webhook-inbox.js';
import type { StockDelta } from '../../../../src/core/catalog/apply-stock.js';
import type { CatalogSnapshot, Product } from '../../../../src/core/catalog/catalog.js';
import { buildFamilyIndex } from '../../../../src/core/catalog/family-index.js';
import type { PosMovement } from '../../../../src/core/catalog/pos-records.js';
import type { SyncReport } from '../../../../src/services/catalog/catalog-types.js';
import { productIdOfMovement } from '../../../../src/services/webhooks/sale-movements.js';
import {
  createWebhookProcessor,
  dedupeKeyOf,
  type StoredWebhookEvent,
} from '../../../../src/services/webhooks/webhook-processor.js';

const logger = pino({ level: 'silent' });

function product(id: string, extra: Partial<Product> = {}): Product {
  const offer = { unit: 'U1', stock: 5, availability: 'in_stock' as const };
  return { id, name: id, isStockItem: true, offers: [offer], aggregate: { ...offer, unit: 'all' }, ...extra };
}

const SNAPSHOT: CatalogSnapshot = {
  version: 'v-1',
  generatedAt: '2026-11-22T10:00:00.000Z',
  currency: 'CZK',
  primaryUnit: 'U1',
  units: [
    { code: 'U1', localId: 'unit-1', name: 'One' },
    { code: 'U2', localId: 'unit-2', name: 'Two' },
  ],
  products: [
    product('a-1', { internalIdentifier: 'KAV-1', plu: 1, ean: '8594000000017' }),
    product('a-2', { plu: 2, ean: '8594000000024' }),
    product('a-3', { ean: '8594000000024' }),
  ],
};

function sale(
  localId: string | undefined,
  extra: Partial<Extract<StoredWebhookEvent, { kind: 'sale' }>> = {},
): StoredWebhookEvent {
  return {
    kind: 'sale',
    timestamp: '2026-11-22T10:00:00.000Z',
    event: 'accounting.receipt.sale',
    data: { ...(localId === undefined ? {} : { localId }), number: `N-${localId ?? 'x'}` },
    ...extra,
  };
}

function movement(
  id: string,
  receiptId: string,
  article: PosMovement['article'],
  unit = { _id: 'unit-1', code: 'U1' },
  count = -1,
): PosMovement {
  return { _id: id, count, unit, article, warehouseOperation: { receipt: { _id: receiptId, number: `N-${receiptId}` } } };
}

function setup(
  movements: PosMovement[],
  options: {
    failMovements?: boolean;
    stockOutcomes?: SyncReport['outcome'][];
    noCatalogUntil?: number;
    /** Outcomes of the store writes, in order (`persisted` of each change, then `flush`): true = stored. */
    stores?: boolean[];
    logger?: Logger;
  } = {},
) {
  const inbox = createKeyvWebhookInbox<StoredWebhookEvent>(openKeyv('memory://').keyv, { source: 'pos:test' });
  const applied: StockDelta[][] = [];
  const refreshed: (readonly string[] | undefined)[] = [];
  const filters: unknown[] = [];
  const outcomes: string[] = [];
  const flushes: string[] = [];
  const store = () => ((options.stores?.shift() ?? true) ? Promise.resolve() : Promise.reject(new Error('store down')));
  const processor = createWebhookProcessor({
    inbox,
    pos: {
      async listMovements(request) {
        filters.push(request?.filter);
        if (options.failMovements) throw new Error('POS down');
        return { items: movements, rejected: [], pages: 1 } as never;
      },
    },
    catalog: {
      current: () => (options.noCatalogUntil !== undefined && Date.now() < options.noCatalogUntil ? undefined : SNAPSHOT),
      familyIndex: (snapshot) => buildFamilyIndex(snapshot),
      async applyStockDeltas(deltas) {
        applied.push([...deltas]);
        return { version: 'v-2', report: {} as never, persisted: store() };
      },
      async syncStock(only) {
        refreshed.push(only?.units);
        return { outcome: options.stockOutcomes?.shift() ?? 'published' } as SyncReport;
      },
      flush() {
        flushes.push('flush');
        return store();
      },
    },
    logger: options.logger ?? logger,
    now: () => new Date('2026-11-22T10:00:01.000Z'),
    options: { movementWindowMs: 30_000, retryDelayMs: 1, maxAttempts: 2, refreshIntervalMs: 0 },
    onSale: (outcome) => outcomes.push(outcome),
  });
  return { processor, inbox, applied, refreshed, filters, outcomes, flushes };
}

describe('services/webhooks/webhook-processor', () => {
  it('keys a sale by its receipt, so a repeated delivery has the same key', () => {
    expect(dedupeKeyOf(sale('r-1'))).toBe(dedupeKeyOf(sale('r-1', { timestamp: '2026-11-22T10:05:00Z' })));
    expect(dedupeKeyOf(sale('r-1'))).not.toBe(dedupeKeyOf(sale('r-2')));
    expect(dedupeKeyOf(sale(undefined))).toContain('N-x');
  });

  it("finds a movement's product by _id, else by a unique internal id, PLU or EAN", async () => {
    const index = await buildFamilyIndex(SNAPSHOT);
    const of = (article: PosMovement['article']) => productIdOfMovement(index, movement('m', 'r', article));

    expect(of({ _id: 'a-2' })).toBe('a-2');
    expect(of({ _id: 'other-id', internalIdentifier: 'KAV-1' })).toBe('a-1');
    expect(of({ plu: 2 })).toBe('a-2');
    // An EAN two products share names neither.
    expect(of({ ean: '8594000000024' })).toBeUndefined();
    expect(of(undefined)).toBeUndefined();
  });

  it('applies the movements of each receipt, looks them up per unit in the time window, and re-reads those units', async () => {
    const { processor, inbox, applied, refreshed, filters, outcomes } = setup([
      movement('m1', 'r-1', { _id: 'a-1' }),
      movement('m2', 'r-1', { _id: 'a-2' }, { _id: 'unit-1', code: 'U1' }, -2.5),
      movement('m3', 'r-other', { _id: 'a-3' }),
    ]);

    await processor.accept(dedupeKeyOf(sale('r-1', { unitId: 'unit-1' })), sale('r-1', { unitId: 'unit-1' }));
    await processor.idle();

    expect(filters).toEqual([{ dateFrom: '2026-11-22T09:59:30.000Z', dateTo: '2026-11-22T10:00:30.000Z', unit: 'unit-1' }]);
    expect(applied).toEqual([
      [
        { unitCode: 'U1', articleId: 'a-1', delta: -1 },
        { unitCode: 'U1', articleId: 'a-2', delta: -2.5 },
      ],
    ]);
    expect(refreshed).toEqual([['U1']]);
    expect(outcomes).toEqual(['applied']);
    expect(await inbox.pending()).toEqual([]);
  });

  it('remembers which sale changed each product last, per unit, and which sale made a unit be re-read', async () => {
    const { processor } = setup([
      movement('m1', 'r-1', { _id: 'a-1' }),
      movement('m2', 'r-1', { _id: 'a-2' }, { _id: 'unit-1', code: 'U1' }, -2.5),
    ]);

    await processor.accept(dedupeKeyOf(sale('r-1', { unitId: 'unit-1' })), sale('r-1', { unitId: 'unit-1' }));
    await processor.accept(dedupeKeyOf(sale('r-9', { unitId: 'unit-2' })), sale('r-9', { unitId: 'unit-2' }));
    await processor.idle();

    expect(processor.lastChanges.of('a-2')).toEqual([
      {
        unit: 'U1',
        eventId: expect.any(String),
        receipt: 'r-1',
        saleAt: '2026-11-22T10:00:00.000Z',
        appliedAt: '2026-11-22T10:00:01.000Z',
        how: 'movements',
        delta: -2.5,
      },
    ]);
    expect(processor.lastChanges.of('a-3')).toEqual([]);
    // r-9's movements are not found: U2's stock is re-read, which products it changed is not known.
    expect(processor.lastChanges.rereadOf('U2')).toMatchObject({ receipt: 'r-9', how: 'reread' });
    expect(processor.lastChanges.rereadOf('U1')).toBeUndefined();
  });

  it("looks across all units for the form without unitId, taking each movement's unit", async () => {
    const { processor, applied, refreshed, filters } = setup([
      movement('m1', 'r-9', { _id: 'a-1' }, { _id: 'unit-2', code: 'U2' }),
    ]);

    await processor.accept('k', sale('r-9'));
    await processor.idle();

    expect(filters).toEqual([{ dateFrom: '2026-11-22T09:59:30.000Z', dateTo: '2026-11-22T10:00:30.000Z' }]);
    expect(applied).toEqual([[{ unitCode: 'U2', articleId: 'a-1', delta: -1 }]]);
    expect(refreshed).toEqual([['U2']]);
  });

  it('re-reads the stock when the movements cannot be found or listed', async () => {
    const notFound = setup([]);
    await notFound.processor.accept('k', sale('r-1', { unitId: 'U2' }));
    await notFound.processor.idle();
    expect(notFound.applied).toEqual([]);
    expect(notFound.refreshed).toEqual([['U2']]);
    expect(notFound.outcomes).toEqual(['refetched']);

    const posDown = setup([], { failMovements: true });
    await posDown.processor.accept('k', sale('r-1'));
    await posDown.processor.idle();
    // Without unitId and without movements: every unit.
    expect(posDown.refreshed).toEqual([undefined]);
  });

  it('keeps events in the inbox while the stock cannot be re-read, then leaves them to the scheduled sync', async () => {
    const { processor, inbox, refreshed, outcomes } = setup([], { stockOutcomes: ['failed', 'failed'] });

    await processor.accept('k', sale('r-1', { unitId: 'U1' }));
    await processor.idle();

    expect(refreshed).toEqual([['U1'], ['U1']]);
    expect(outcomes).toEqual(['dropped']);
    expect(await inbox.pending()).toEqual([]);
  });

  it('is done with a sale whose movements were applied once they are stored, even when the confirming re-read fails, and warns of nothing to retry', async () => {
    const warnings: string[] = [];
    const { processor, inbox, applied, refreshed, outcomes } = setup([movement('m1', 'r-1', { _id: 'a-1' })], {
      stockOutcomes: ['failed'],
      logger: pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) }),
    });

    await processor.accept('k', sale('r-1', { unitId: 'unit-1' }));
    await processor.idle();

    expect(applied).toEqual([[{ unitCode: 'U1', articleId: 'a-1', delta: -1 }]]);
    expect(refreshed).toEqual([['U1']]);
    expect(outcomes).toEqual(['applied']);
    expect(await inbox.pending()).toEqual([]);
    expect(warnings.filter((line) => line.includes('not re-read or stored'))).toEqual([]);
  });

  it('holds sales until there is a catalog to apply them to', async () => {
    const { processor, applied } = setup([movement('m1', 'r-1', { _id: 'a-1' })], { noCatalogUntil: Date.now() + 30 });

    await processor.accept('k', sale('r-1', { unitId: 'unit-1' }));
    await processor.idle();

    expect(applied).toEqual([[{ unitCode: 'U1', articleId: 'a-1', delta: -1 }]]);
  });

  it('stops with events left in the inbox for the next start, and idle() then settles', async () => {
    const { processor, inbox } = setup([], { noCatalogUntil: Date.now() + 60_000 });
    await processor.accept('k', sale('r-1', { unitId: 'unit-1' }));

    await processor.stop();
    await processor.idle();

    expect((await inbox.pending()).map((entry) => entry.dedupeKey)).toEqual(['k']);
  });

  it('completes points changes without touching the catalog, and resumes what the inbox holds', async () => {
    const { processor, inbox, applied, refreshed } = setup([]);
    const points: StoredWebhookEvent = {
      kind: 'client-points',
      timestamp: '2026-11-22T10:00:00Z',
      event: 'address-book.client.points',
      data: { balance: 3 },
    };
    await inbox.accept('points|1', points, new Date());

    expect(await processor.resume()).toBe(1);
    await processor.idle();

    expect(applied).toEqual([]);
    expect(refreshed).toEqual([]);
    expect(await inbox.pending()).toEqual([]);
  });

  it('retries a sale whose store failed by storing again (never re-applying), even when the re-read finds nothing new', async () => {
    const { processor, inbox, applied, flushes } = setup([movement('m1', 'r-1', { _id: 'a-1' })], {
      stores: [false, true],
      stockOutcomes: ['unchanged', 'unchanged'],
    });

    await processor.accept('k', sale('r-1', { unitId: 'unit-1' }));
    await processor.idle();

    expect(applied).toHaveLength(1);
    // The retry's re-read changed nothing, so only the flush can have stored the sale.
    expect(flushes).toEqual(['flush']);
    expect(await inbox.pending()).toEqual([]);
  });

  it('takes the arrival time for an implausible event time, without failing the other sales of its batch', async () => {
    const { processor, applied, filters, outcomes } = setup([
      movement('m1', 'r-1', { _id: 'a-1' }),
      movement('m2', 'r-2', { _id: 'a-2' }),
    ]);

    await Promise.all([
      processor.accept('k1', sale('r-1', { unitId: 'unit-1', timestamp: '+275760-09-13T00:00:00.000Z' })),
      processor.accept('k2', sale('r-2', { unitId: 'unit-1' })),
    ]);
    await processor.idle();

    expect(outcomes).toEqual(['applied', 'applied']);
    expect(applied.flat().map((delta) => delta.articleId)).toEqual(['a-1', 'a-2']);
    expect(filters).toEqual([{ dateFrom: '2026-11-22T09:59:30.000Z', dateTo: '2026-11-22T10:00:31.000Z', unit: 'unit-1' }]);
  });
});
