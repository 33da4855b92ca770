import { describe, expect, it } from 'vitest';
import type { PosMovement, PosSaleEvent } from '../../../../src/core/catalog/pos-records.js';
import type { PosMovementFilter } from '../../../../src/services/catalog/pos-port.js';
import { createMovementLookup, saleTimeOf } from '../../../../src/services/webhooks/movement-lookup.js';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const logger = { info() {}, warn() {}, error() {} };

function sale(receipt: string): PosSaleEvent {
  return {
    kind: 'sale',
    event: 'accounting.receipt.sale',
    timestamp: new Date(T0).toISOString(),
    data: { localId: receipt },
  } as PosSaleEvent;
}

/** A POS whose movements are created `lagMs` after their sale; it answers what falls in the asked window. */
function pos(lagMs: number, receipts: readonly string[]) {
  const asked: { from: number; to: number }[] = [];
  const movements: PosMovement[] = receipts.map((receipt, i) => ({
    _id: `m-${i}`,
    count: -1,
    unit: { _id: 'u1', code: 'U1' },
    article: { _id: `a-${i}` },
    warehouseOperation: { createdAt: new Date(T0 + lagMs).toISOString(), receipt: { _id: receipt } },
  })) as PosMovement[];
  return {
    asked,
    client: {
      async listMovements(request?: { readonly filter?: PosMovementFilter }) {
        const from = Date.parse(request?.filter?.dateFrom ?? '');
        const to = Date.parse(request?.filter?.dateTo ?? '');
        asked.push({ from: from - T0, to: to - T0 });
        const items = movements.filter((movement) => {
          const at = Date.parse(movement.warehouseOperation?.createdAt ?? '');
          return at >= from && at <= to;
        });
        return { items, rejected: [], pages: 1 };
      },
    },
  };
}

describe('services/movement-lookup', () => {
  it('narrows the window to what recent matches needed, and asks the whole window for the sales it missed', async () => {
    const receipts = Array.from({ length: 12 }, (_, i) => `r-${i}`);
    const posFast = pos(200, [...receipts, 'late']);
    const lookup = createMovementLookup({ pos: posFast.client, logger, windowMs: 10_000 });
    const entries = receipts.map((receipt) => ({ sale: sale(receipt), at: T0 }));

    const first = await lookup.find(entries, 'u1');
    const second = await lookup.find([{ sale: sale('r-0'), at: T0 }], 'u1');

    expect([...first.values()].every((found) => found.length === 1)).toBe(true);
    expect([...second.values()][0]).toHaveLength(1);
    // First with the whole window (nothing learned yet), then ±(2 × 200 ms + 1 s).
    expect(posFast.asked).toEqual([
      { from: -10_000, to: 10_000 },
      { from: -1_400, to: 1_400 },
    ]);
  });

  it('finds a movement outside the narrow window with a second, whole-window query', async () => {
    const receipts = Array.from({ length: 12 }, (_, i) => `r-${i}`);
    const posSlow = pos(0, receipts);
    const lookup = createMovementLookup({ pos: posSlow.client, logger, windowMs: 10_000 });
    await lookup.find(
      receipts.map((receipt) => ({ sale: sale(receipt), at: T0 })),
      'u1',
    );
    // This sale's event time is 5 s off its movements' time.
    const off = { sale: sale('r-3'), at: T0 + 5_000 };

    const found = await lookup.find([off], 'u1');

    expect(found.get(off)).toHaveLength(1);
    expect(posSlow.asked.slice(1)).toEqual([
      { from: 5_000 - 1_000, to: 5_000 + 1_000 },
      { from: 5_000 - 10_000, to: 5_000 + 10_000 },
    ]);
  });

  it('finds nothing, without failing, when the POS cannot list movements', async () => {
    const lookup = createMovementLookup({
      pos: {
        async listMovements() {
          throw new Error('POS down');
        },
      },
      logger,
      windowMs: 10_000,
    });
    const entry = { sale: sale('r-1'), at: T0 };

    expect((await lookup.find([entry], undefined)).get(entry)).toEqual([]);
  });

  it('believes an event time within a day of its arrival, else the arrival', () => {
    expect(saleTimeOf('2026-11-22T09:59:00.000Z', '2026-11-22T10:00:00.000Z')).toBe(T0 - 60_000);
    expect(saleTimeOf('1999-01-01T00:00:00.000Z', '2026-11-22T10:00:00.000Z')).toBe(T0);
    expect(saleTimeOf('not a time', '2026-11-22T10:00:00.000Z')).toBe(T0);
  });
});
