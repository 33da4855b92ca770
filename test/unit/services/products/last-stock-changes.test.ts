import { describe, expect, it } from 'vitest';
import { createLastStockChanges, type LastStockChange } from '../../../../src/services/products/last-stock-changes.js';

function change(unit: string, receipt: string): LastStockChange {
  return {
    unit,
    eventId: `e-${receipt}`,
    receipt,
    saleAt: '2026-11-26T10:00:00.000Z',
    appliedAt: '2026-11-26T10:00:01.000Z',
    how: 'movements',
    delta: -1,
  };
}

describe('services/last-stock-changes', () => {
  it("keeps a product's newest change per unit, newest first", () => {
    const changes = createLastStockChanges();
    changes.record('a-1', change('U1', 'r-1'));
    changes.record('a-1', change('U2', 'r-2'));
    changes.record('a-1', change('U1', 'r-3'));

    expect(changes.of('a-1').map((entry) => entry.receipt)).toEqual(['r-3', 'r-2']);
  });

  it('forgets the products changed longest ago beyond its bound', () => {
    const changes = createLastStockChanges(3);
    for (const id of ['a-1', 'a-2', 'a-3']) changes.record(id, change('U1', id));
    // a-1 changed again: now the most recent, so a-2 is the oldest.
    changes.record('a-1', change('U1', 'again'));
    changes.record('a-4', change('U1', 'a-4'));

    expect(changes.size).toBe(3);
    expect(changes.of('a-2')).toEqual([]);
    expect(changes.of('a-1')[0]?.receipt).toBe('again');
    expect(changes.of('a-4')).toHaveLength(1);
  });
});
