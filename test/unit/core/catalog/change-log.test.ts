import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot, Offer, Product } from '../../../../src/core/catalog/catalog.js';
import { createChangeLog } from '../../../../src/core/catalog/change-log.js';

function offer(unit: string, price: number, stock: number): Offer {
  return { unit, price, stock, availability: stock > 0 ? 'in_stock' : 'out_of_stock' };
}

function product(id: string, u1: [number, number], u2: [number, number], name = `Zboží ${id}`): Product {
  const offers = [offer('U1', ...u1), offer('U2', ...u2)];
  return { id, name, isStockItem: true, offers, aggregate: offer('all', u1[0], u1[1] + u2[1]) };
}

function snapshot(version: string, products: readonly Product[]): CatalogSnapshot {
  return {
    version,
    generatedAt: '2026-11-22T10:00:00Z',
    currency: 'CZK',
    primaryUnit: 'U1',
    units: [
      { code: 'U1', localId: 'u1', name: 'A' },
      { code: 'U2', localId: 'u2', name: 'B' },
    ],
    products,
  };
}

const a = product('a', [10, 1], [10, 0]);
const b = product('b', [20, 5], [20, 5]);
const c = product('c', [30, 1], [30, 1]);
const v1 = snapshot('v1', [a, b, c]);
// b sells out in U2, c disappears, d is new, a is untouched (shared by reference).
const b2 = product('b', [20, 5], [20, 0]);
const d = product('d', [40, 1], [40, 1]);
const v2 = snapshot('v2', [a, b2, d]);
// a gets a new price everywhere and a new name.
const a3 = product('a', [12, 1], [12, 0], 'Nové jméno');
const v3 = snapshot('v3', [a3, b2, d]);

describe('core/catalog/change-log', () => {
  const log = createChangeLog({ maxTransitions: 10 });
  log.record(undefined, v1);
  log.record(v1, v2);
  log.record(v2, v3);

  it.each([
    ['U2', 'v2', [{ id: 'a', change: 'changed', fields: ['price', 'details'] }]],
    [
      'U2',
      'v1',
      [
        { id: 'b', change: 'changed', fields: ['stock', 'availability'] },
        { id: 'd', change: 'added' },
        { id: 'c', change: 'removed' },
        { id: 'a', change: 'changed', fields: ['price', 'details'] },
      ],
    ],
    [
      'U1',
      'v1',
      [
        { id: 'd', change: 'added' },
        { id: 'c', change: 'removed' },
        { id: 'a', change: 'changed', fields: ['price', 'details'] },
      ],
    ],
    [
      'all',
      'v1',
      [
        { id: 'b', change: 'changed', fields: ['stock'] },
        { id: 'd', change: 'added' },
        { id: 'c', change: 'removed' },
        { id: 'a', change: 'changed', fields: ['price', 'details'] },
      ],
    ],
    ['all', 'v3', []],
  ])('view %s since %s', async (view, since, expected) => {
    const result = await log.changesSince(since, view);

    expect(result).toEqual({ ok: true, changes: expected });
  });

  it('does not know cursors it never recorded', async () => {
    expect(await log.changesSince('v0', 'all')).toEqual({ ok: false });
    expect(await createChangeLog({ maxTransitions: 2 }).changesSince('v1', 'all')).toEqual({ ok: false });
  });

  it('forgets transitions beyond its capacity', async () => {
    const small = createChangeLog({ maxTransitions: 1 });
    small.record(v1, v2);
    small.record(v2, v3);

    expect(await small.changesSince('v1', 'all')).toEqual({ ok: false });
    expect((await small.changesSince('v2', 'all')).ok).toBe(true);
  });

  it('starts over after a gap in the versions it saw', async () => {
    const gapped = createChangeLog({ maxTransitions: 5 });
    gapped.record(v1, v2);
    gapped.record(snapshot('v9', v3.products), v3);

    expect(await gapped.changesSince('v1', 'all')).toEqual({ ok: false });
  });

  it('reports an item removed and added again as changed in every field', async () => {
    const gone = snapshot('w2', [b]);
    const back = snapshot('w3', [a, b]);
    const flapping = createChangeLog({ maxTransitions: 5 });
    flapping.record(snapshot('w1', [a, b]), gone);
    flapping.record(gone, back);

    expect(await flapping.changesSince('w1', 'U1')).toEqual({
      ok: true,
      changes: [
        { id: 'a', change: 'changed', fields: ['price', 'salePrice', 'standardPrice', 'stock', 'availability', 'details'] },
      ],
    });
  });

  it('finds the same changes whether the products stayed in place (a stock change) or moved', async () => {
    const inPlace = createChangeLog({ maxTransitions: 10 });
    const moved = createChangeLog({ maxTransitions: 10 });
    const before = snapshot('w1', [a, b, c]);
    const c2 = product('c', [30, 1], [30, 0]);
    inPlace.record(before, snapshot('w2', [a, b2, c2]));
    moved.record(before, snapshot('w2', [c2, b2, a]));

    // The same changes; listed in the products' new order.
    const byId = (result: Awaited<ReturnType<typeof moved.changesSince>>) =>
      result.ok ? [...result.changes].sort((x, y) => x.id.localeCompare(y.id)) : result;
    for (const view of ['all', 'U1', 'U2']) {
      expect(byId(await inPlace.changesSince('w1', view))).toEqual(byId(await moved.changesSince('w1', view)));
    }
    expect(await inPlace.changesSince('w1', 'U2')).toEqual({
      ok: true,
      changes: [
        { id: 'b', change: 'changed', fields: ['stock', 'availability'] },
        { id: 'c', change: 'changed', fields: ['stock', 'availability'] },
      ],
    });
  });

  it('compares only the products a stock change replaced when told which, with the same result', async () => {
    const told = createChangeLog({ maxTransitions: 10 });
    const scanned = createChangeLog({ maxTransitions: 10 });
    const before = snapshot('w1', [a, b, c]);
    const c2 = product('c', [30, 1], [30, 0]);
    const after = snapshot('w2', [a, b, c2]);

    told.record(before, after, [2]);
    scanned.record(before, after);

    for (const view of ['all', 'U1', 'U2'])
      expect(await told.changesSince('w1', view)).toEqual(await scanned.changesSince('w1', view));
    expect(await told.changesSince('w1', 'U2')).toEqual({
      ok: true,
      changes: [{ id: 'c', change: 'changed', fields: ['stock', 'availability'] }],
    });
  });
});
