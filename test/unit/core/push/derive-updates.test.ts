import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ItemChange } from '../../../../src/core/catalog/change-log.js';
import {
  actionOf,
  changeMask,
  deriveUpdates,
  fullReconciliation,
  type PushTargetsConfig,
  viewsNeeded,
} from '../../../../src/core/push/derive-updates.js';
import { PUSH_MASK } from '../../../../src/core/push/outbox.js';
import { type ItemSpec, snapshot } from '../../services/push/push-fixtures.js';

const ALL: PushTargetsConfig = { google: { localUnits: ['A'] }, shoptet: { unit: 'A' }, meta: true };
const AT = 1_000;

function derive(
  changes: Record<string, ItemChange[]>,
  config = ALL,
  items: readonly ItemSpec[] = [{ id: '1', price: 10, stock: { A: 2 } }],
) {
  return deriveUpdates({ config, changes: new Map(Object.entries(changes)), snapshot: snapshot('v2', items), atMs: AT });
}

describe('deriveUpdates', () => {
  it('asks only for the views the enabled channels need', () => {
    expect(viewsNeeded(ALL).sort()).toEqual(['A', 'all']);
    expect(viewsNeeded({ shoptet: { unit: 'B' } })).toEqual(['B']);
    expect(viewsNeeded({})).toEqual([]);
  });

  it('maps a price change to Google and Meta products and the Google local inventory, never Shoptet', () => {
    const updates = derive({
      all: [{ id: '1', change: 'changed', fields: ['price'] }],
      A: [{ id: '1', change: 'changed', fields: ['price'] }],
    });
    expect(updates).toEqual([
      { channel: 'google', target: 'p:1', mask: PUSH_MASK.PRICE, atMs: AT },
      { channel: 'meta', target: 'm:1', mask: PUSH_MASK.PRICE, atMs: AT },
      { channel: 'google', target: 'l:1:A', mask: PUSH_MASK.PRICE, atMs: AT },
    ]);
  });

  it('maps a sale (stock only) to the local inventory and Shoptet, by the Shoptet code', () => {
    const updates = derive({ A: [{ id: '1', change: 'changed', fields: ['stock'] }] }, ALL, [
      { id: '1', price: 10, stock: { A: 1 }, plu: 77 },
    ]);
    expect(updates).toEqual([
      { channel: 'google', target: 'l:1:A', mask: PUSH_MASK.STOCK, atMs: AT },
      { channel: 'shoptet', target: 's:77', mask: PUSH_MASK.STOCK, atMs: AT },
    ]);
  });

  it('a sale reaches Google products and Meta only when the stock policy of their feed can change the availability', () => {
    const sale = { all: [{ id: '1', change: 'changed' as const, fields: ['stock' as const] }] };
    expect(derive(sale, { google: { localUnits: [] }, meta: true })).toEqual([]);
    expect(derive(sale, { google: { localUnits: [] }, meta: true, metaStock: true, googleStock: true })).toEqual([
      { channel: 'google', target: 'p:1', mask: PUSH_MASK.STOCK, atMs: AT },
      { channel: 'meta', target: 'm:1', mask: PUSH_MASK.STOCK, atMs: AT },
    ]);
  });

  it('a sale price change reaches the local inventory (its payload carries salePrice), never Shoptet', () => {
    expect(derive({ A: [{ id: '1', change: 'changed', fields: ['salePrice'] }] })).toEqual([
      { channel: 'google', target: 'l:1:A', mask: PUSH_MASK.SALE, atMs: AT },
    ]);
  });

  it('enqueues nothing for details or standardPrice', () => {
    expect(derive({ all: [{ id: '1', change: 'changed', fields: ['details', 'standardPrice'] }] })).toEqual([]);
  });

  it('maps added and removed items; a removed item sends nothing to Shoptet', () => {
    const updates = derive(
      {
        all: [
          { id: '1', change: 'added' },
          { id: '9', change: 'removed' },
        ],
        A: [{ id: '9', change: 'removed' }],
      },
      { google: { localUnits: [] }, shoptet: { unit: 'A' }, meta: true },
    );
    expect(updates).toEqual([
      { channel: 'google', target: 'p:1', mask: PUSH_MASK.ADDED, atMs: AT },
      { channel: 'meta', target: 'm:1', mask: PUSH_MASK.ADDED, atMs: AT },
      { channel: 'google', target: 'p:9', mask: PUSH_MASK.REMOVED, atMs: AT },
      { channel: 'meta', target: 'm:9', mask: PUSH_MASK.REMOVED, atMs: AT },
    ]);
  });

  it('never pushes stock or availability when the stock became unknown (a failed source is not a sell-out)', () => {
    const updates = derive(
      {
        all: [{ id: '1', change: 'changed', fields: ['stock', 'availability'] }],
        A: [{ id: '1', change: 'changed', fields: ['stock', 'availability', 'price'] }],
      },
      ALL,
      [{ id: '1', price: 10, stock: { A: undefined } }],
    );
    expect(updates).toEqual([{ channel: 'google', target: 'l:1:A', mask: PUSH_MASK.PRICE, atMs: AT }]);
  });

  it('property: no STOCK/AVAIL bit for an item whose stock is unknown; bits stay within each relevance filter', () => {
    const field = fc.constantFrom('price', 'salePrice', 'standardPrice', 'stock', 'availability', 'details' as const);
    fc.assert(
      fc.property(fc.uniqueArray(field, { minLength: 1 }), fc.boolean(), (fields, known) => {
        const change: ItemChange = { id: '1', change: 'changed', fields };
        const relevant = PUSH_MASK.STOCK | PUSH_MASK.AVAIL | PUSH_MASK.PRICE | PUSH_MASK.SALE;
        const mask = changeMask(change, relevant, known);
        expect(mask & ~relevant).toBe(0);
        if (!known) expect(mask & (PUSH_MASK.STOCK | PUSH_MASK.AVAIL)).toBe(0);
        if (fields.includes('price')) expect(mask & PUSH_MASK.PRICE).toBe(PUSH_MASK.PRICE);
        if (known && fields.includes('stock')) expect(mask & PUSH_MASK.STOCK).toBe(PUSH_MASK.STOCK);
      }),
    );
  });

  it('a full reconciliation names every target of every enabled channel once, with FULL', () => {
    const snap = snapshot('v1', [
      { id: '1', price: 1, stock: { A: 1 } },
      { id: '2', price: 2, stock: { B: 3 } },
    ]);
    const updates = fullReconciliation(ALL, snap, AT);
    expect(updates.map((update) => `${update.channel} ${update.target}`).sort()).toEqual(
      ['google l:1:A', 'google p:1', 'google p:2', 'meta m:1', 'meta m:2', 'shoptet s:1'].sort(),
    );
    expect(updates.every((update) => update.mask === PUSH_MASK.FULL)).toBe(true);
    // Shoptet's default view `all` holds every product (no offer is of a unit named `all`).
    const summed = fullReconciliation({ shoptet: { unit: 'all' } }, snap, AT);
    expect(summed.map((update) => update.target).sort()).toEqual(['s:1', 's:2']);
  });

  it('actionOf: the served version decides create or remove; field bits give an update', () => {
    expect(actionOf(PUSH_MASK.PRICE | PUSH_MASK.STOCK, true)).toEqual({ kind: 'update', fields: ['price', 'stock'] });
    expect(actionOf(PUSH_MASK.ADDED, true)).toEqual({ kind: 'create' });
    expect(actionOf(PUSH_MASK.FULL, false)).toEqual({ kind: 'remove' });
    expect(actionOf(PUSH_MASK.REMOVED, false)).toEqual({ kind: 'remove' });
  });
});
