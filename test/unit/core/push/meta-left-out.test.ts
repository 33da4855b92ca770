import { describe, expect, it } from 'vitest';
import type { FeedItemOptions } from '../../../../src/core/feeds/to-feed-item.js';
import type { FeedLens } from '../../../../src/core/push/feed-lens.js';
import { PUSH_MASK } from '../../../../src/core/push/outbox.js';
import { metaPayloads } from '../../../../src/core/push/target-payloads.js';
import { snapshot } from '../../services/push/push-fixtures.js';

/**
 * An item the Meta feed leaves out (no link, no image…) is never created; but a field change merged into its
 * FULL row (a sale during a reconciliation) must still reach the copy Meta may hold, as that update alone.
 */

const FEED: FeedItemOptions = { storeCodes: {}, unitNames: new Map() };
const served = snapshot('v1', [{ id: '1', price: 15.99, stock: { A: 0 } }]);
const leftOut: FeedLens = (_snapshot, product) => ({
  kind: 'left-out',
  item: { id: product.id } as never,
  reason: 'left out of the feed: no link',
});
const meta = metaPayloads({ currency: 'CZK' }, FEED, leftOut);

describe('Meta payload of an item the feed leaves out', () => {
  it('FULL alone (a reconciliation) or ADDED: skipped, never half-created', () => {
    expect(meta({ target: 'm:1', mask: PUSH_MASK.FULL }, served)).toEqual({
      kind: 'skip',
      reason: 'left out of the feed: no link',
    });
    expect(meta({ target: 'm:1', mask: PUSH_MASK.ADDED }, served)).toMatchObject({ kind: 'skip' });
  });

  it('FULL merged with an availability change (a sell-out during a reconciliation): the availability update is sent', () => {
    expect(meta({ target: 'm:1', mask: PUSH_MASK.FULL | PUSH_MASK.AVAIL }, served)).toEqual({
      kind: 'send',
      payload: { method: 'UPDATE', data: { id: '1', availability: 'out of stock' } },
    });
  });

  it('a field change alone goes as before: an UPDATE of that field', () => {
    expect(meta({ target: 'm:1', mask: PUSH_MASK.PRICE }, served)).toEqual({
      kind: 'send',
      payload: { method: 'UPDATE', data: { id: '1', price: '15.99 CZK' } },
    });
  });
});
