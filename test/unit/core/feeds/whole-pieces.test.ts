import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectFeed } from '../../../../src/core/feeds/collect-feed.js';
import type { CompiledFeed } from '../../../../src/core/feeds/compiled-feed.js';
import type { FeedItem } from '../../../../src/core/feeds/feed-item.js';
import { loadTemplates } from '../../../../src/core/feeds/load-templates.js';
import { buildGoogleLocalInventory } from '../../../../src/core/push/payloads/google.js';
import { FIXTURE_CONTEXT, readTemplateFiles, stockItem } from './feed-fixture.js';
import { exactXmlParser } from './xml-test-helpers.js';

const ALL = { ...FIXTURE_CONTEXT, unit: 'all' };
const UNITS = ['U1', 'U2', 'U3'] as const;

function heurekaAvailability(unitBuffers: Record<string, number> = {}): CompiledFeed {
  const feed = loadTemplates(readTemplateFiles(), { unitBuffers, feedPolicies: {} }).find(
    (candidate) => candidate.name === 'heureka-availability',
  );
  if (feed === undefined) throw new Error('no heureka-availability template');
  return feed;
}

interface WrittenItem {
  readonly id: string;
  readonly total: number;
  readonly depots: ReadonlyMap<string, number | undefined>;
}

/** The items of a rendered availability feed: each `stock_quantity` and its depots' (absent when not written). */
function written(feed: CompiledFeed, items: readonly FeedItem[]): WrittenItem[] {
  const { body } = collectFeed(feed.render(ALL, items));
  const document = exactXmlParser.parse(body) as { item_list: { item?: unknown } };
  const raw = document.item_list.item;
  const list = (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]) as Record<string, unknown>[];
  return list.map((item) => {
    const depotList = item['depot'] === undefined ? [] : ([] as Record<string, unknown>[]).concat(item['depot'] as never);
    const depots = new Map<string, number | undefined>();
    for (const depot of depotList) {
      const quantity = depot['stock_quantity'];
      depots.set(String(depot['@id']), quantity === undefined ? undefined : Number(quantity));
    }
    return { id: String(item['@id']), total: Number(item['stock_quantity']), depots };
  });
}

/** A unit's stock as a shop has it: weighed (kg to the gram), counted, sold below zero, or unknown. */
const unitStock = fc.option(
  fc.oneof(
    fc.integer({ min: 0, max: 50_000 }).map((grams) => grams / 1000),
    fc.integer({ min: 0, max: 40 }),
    fc.integer({ min: -5_000, max: -1 }).map((grams) => grams / 1000),
  ),
  { nil: undefined },
);

const shopItem = fc
  .tuple(unitStock, unitStock, unitStock)
  .map((stocks) => Object.fromEntries(UNITS.map((unit, index) => [unit, stocks[index]])));

describe('feeds: whole pieces, one rule for units and totals', () => {
  it('writes a weighed item of 0.5 kg and 2.25 kg as depots 1 and 2 and a total of 3', () => {
    const [item] = written(heurekaAvailability(), [stockItem('cheese', { U1: 0.5, U2: 2.25 })]);
    expect(item?.depots).toEqual(
      new Map([
        ['u1', 1],
        ['u2', 2],
      ]),
    );
    expect(item?.total).toBe(3);
  });

  it('makes every stock_quantity the sum of its depots, whatever the weights, buffers and unknown units', () => {
    fc.assert(
      fc.property(
        fc.array(shopItem, { minLength: 1, maxLength: 8 }),
        fc.record({ U1: fc.constantFrom(0, 0.25, 1, 2), '*': fc.constantFrom(0, 0.5, 1) }),
        (stocks, buffers) => {
          const items = stocks.map((unitStocks, index) => stockItem(`i${index}`, unitStocks));
          for (const item of written(heurekaAvailability(buffers), items)) {
            let sum = 0;
            for (const quantity of item.depots.values()) sum += quantity ?? 0;
            expect(item.total, item.id).toBe(sum);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('tells Google a unit with 0.4 kg left as 1 piece, as the feeds do', () => {
    const [offer] = stockItem('ham', { U1: 0.4 }).offers;
    if (offer === undefined) throw new Error('no offer');
    expect(buildGoogleLocalInventory(offer, 'CZK').localInventoryAttributes.quantity).toBe('1');
  });
});
