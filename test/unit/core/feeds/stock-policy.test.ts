import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { type CollectedFeed, collectFeed } from '../../../../src/core/feeds/collect-feed.js';
import type { CompiledFeed } from '../../../../src/core/feeds/compiled-feed.js';
import type { FeedContext, FeedItem, FeedOffer } from '../../../../src/core/feeds/feed-item.js';
import { loadTemplates, TemplateLoadError } from '../../../../src/core/feeds/load-templates.js';
import { NO_STOCK_SETTINGS, parseStockPolicies, type StockSettings } from '../../../../src/core/feeds/stock-policy.js';
import type { TemplateProblem } from '../../../../src/core/feeds/template-problems.js';
import { FIXTURE_CONTEXT, stockItem } from './feed-fixture.js';

const ALL: FeedContext = { ...FIXTURE_CONTEXT, unit: 'all' };

/** The item of a unit view: that unit's offer only. */
function unitView(item: FeedItem, unit: string): FeedItem {
  const offer = item.offers.find((candidate) => candidate.unit === unit) as FeedOffer;
  const { stock: _sum, ...rest } = item;
  return {
    ...rest,
    ...(offer.stock === undefined ? {} : { stock: offer.stock }),
    availability: offer.availability,
    offers: [offer],
  };
}

function load(template: Record<string, unknown>, settings: StockSettings = NO_STOCK_SETTINGS): CompiledFeed {
  const [feed] = loadTemplates(
    [
      {
        name: 'templates/policy.json',
        text: JSON.stringify({ name: 'policy', title: 'Policy', file: 'policy.csv', ...template }),
      },
    ],
    settings,
  );
  if (feed === undefined) throw new Error('no feed');
  return feed;
}

/** A CSV of one row per item: id, quantity, availability, inStock. */
function itemCsv(stockPolicy?: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: 'csv',
    ...(stockPolicy === undefined ? {} : { stockPolicy }),
    columns: [
      { header: 'id', value: '{id}' },
      { header: 'quantity', value: '{quantity}', type: 'number' },
      { header: 'availability', value: '{availability}' },
      { header: 'inStock', value: '{inStock}' },
    ],
    ...extra,
  };
}

/** A CSV of one row per (item, unit): id, unit, quantity, availability, inStock. */
function offerCsv(stockPolicy?: Record<string, unknown>): Record<string, unknown> {
  return {
    kind: 'csv',
    each: 'offers',
    ...(stockPolicy === undefined ? {} : { stockPolicy }),
    columns: [
      { header: 'id', value: '{id}' },
      { header: 'unit', value: '{offer.unit}' },
      { header: 'quantity', value: '{offer.quantity}', type: 'number' },
      { header: 'availability', value: '{offer.availability}' },
      { header: 'inStock', value: '{offer.inStock}' },
    ],
  };
}

function rows(rendered: CollectedFeed): Record<string, string>[] {
  return parse(rendered.body, { columns: true });
}

function render(feed: CompiledFeed, items: readonly FeedItem[], context: FeedContext = ALL): CollectedFeed {
  return collectFeed(feed.render(context, items));
}

function settings(unitBuffers: Record<string, number>, feedPolicies: StockSettings['feedPolicies'] = {}): StockSettings {
  return { unitBuffers, feedPolicies };
}

function problemsOf(template: Record<string, unknown>, stock: StockSettings = NO_STOCK_SETTINGS): readonly TemplateProblem[] {
  try {
    load(template, stock);
  } catch (error) {
    if (error instanceof TemplateLoadError) return error.problems;
    throw error;
  }
  throw new Error('expected a TemplateLoadError');
}

describe('feeds: stock policy (buffer, thresholds, listing)', () => {
  it('without a policy, advertises what the catalog says', () => {
    const items = [stockItem('a', { U1: 3, U2: -2 }), stockItem('b', { U1: 0.5 }), stockItem('c', { U1: 0, U2: 0 })];
    expect(rows(render(load(itemCsv()), items))).toEqual([
      { id: 'a', quantity: '3', availability: 'in_stock', inStock: 'true' },
      { id: 'b', quantity: '1', availability: 'in_stock', inStock: 'true' },
      { id: 'c', quantity: '0', availability: 'out_of_stock', inStock: '' },
    ]);
  });

  it("subtracts the unit's buffer and the feed's, added up, never below 0", () => {
    const feed = load(offerCsv({ buffer: 1 }), settings({ U1: 2, '*': 1 }));
    const item = stockItem('a', { U1: 5, U2: 4, U3: 1, U4: -3 });
    expect(rows(render(feed, [item]))).toEqual([
      { id: 'a', unit: 'U1', quantity: '2', availability: 'in_stock', inStock: 'true' },
      { id: 'a', unit: 'U2', quantity: '2', availability: 'in_stock', inStock: 'true' },
      { id: 'a', unit: 'U3', quantity: '0', availability: 'out_of_stock', inStock: '' },
      { id: 'a', unit: 'U4', quantity: '0', availability: 'out_of_stock', inStock: '' },
    ]);
  });

  it("sums each unit's stock minus its buffer, floored at 0, in the all view", () => {
    // U1: 5 − 2 = 3; U2: 1 − 1 → 0; U3: −4 → 0 (not −5, and it cancels nothing): 3 in all.
    const feed = load(itemCsv(), settings({ U1: 2, '*': 1 }));
    const item = stockItem('a', { U1: 5, U2: 1, U3: -4 });
    expect(rows(render(feed, [item]))).toEqual([{ id: 'a', quantity: '3', availability: 'in_stock', inStock: 'true' }]);
    // Sold out once the buffers are taken: 2 − 2 and 1 − 1.
    expect(rows(render(feed, [stockItem('b', { U1: 2, U2: 1 })]))[0]).toMatchObject({
      quantity: '0',
      availability: 'out_of_stock',
    });
  });

  it("applies the view unit's buffer in a unit view", () => {
    const feed = load(itemCsv({ buffer: 1 }), settings({ U1: 2 }));
    const item = stockItem('a', { U1: 5, U2: 9 });
    const context = { ...FIXTURE_CONTEXT, unit: 'U1', unitName: 'U1' };
    expect(rows(render(feed, [unitView(item, 'U1')], context))).toEqual([
      { id: 'a', quantity: '2', availability: 'in_stock', inStock: 'true' },
    ]);
    // U2 is not named: no unit buffer, the feed's 1.
    const other = { ...FIXTURE_CONTEXT, unit: 'U2', unitName: 'U2' };
    expect(rows(render(feed, [unitView(item, 'U2')], other))[0]?.['quantity']).toBe('8');
  });

  it('keeps fractional stock as pieces after the buffer (0.5 kg left is 1 piece)', () => {
    const feed = load(itemCsv({ buffer: 2 }));
    expect(rows(render(feed, [stockItem('a', { U1: 2.5 })]))[0]).toMatchObject({ quantity: '1', availability: 'in_stock' });
    // No float noise: 5.1 − 0.1 is 5 pieces, not 4.
    const noise = load(itemCsv({ buffer: 0.1 }));
    expect(rows(render(noise, [stockItem('b', { U1: 5.1 })]))[0]).toMatchObject({ quantity: '5' });
  });

  it('gives advertisedStock (what an e-shop import takes): buffers off, fractions kept, never below 0, unknown stays unknown', () => {
    const feed = load({
      kind: 'csv',
      each: 'offers',
      stockPolicy: { buffer: 1 },
      columns: [
        { header: 'id', value: '{id}' },
        { header: 'all', value: '{advertisedStock}', type: 'number' },
        { header: 'unit', value: '{offer.unit}' },
        { header: 'stock', value: '{offer.advertisedStock}', type: 'number' },
      ],
    });
    const rendered = rows(render(feed, [stockItem('a', { U1: 2.5, U2: 0.5, U3: undefined })]));
    expect(rendered).toEqual([
      { id: 'a', all: '1.5', unit: 'U1', stock: '1.5' },
      { id: 'a', all: '1.5', unit: 'U2', stock: '0' },
      { id: 'a', all: '1.5', unit: 'U3', stock: '' },
    ]);
  });

  it('counts stock below outOfStockBelow as out of stock', () => {
    const feed = load(itemCsv({ outOfStockBelow: 3 }));
    const items = [stockItem('a', { U1: 2 }), stockItem('b', { U1: 3 })];
    expect(rows(render(feed, items))).toEqual([
      { id: 'a', quantity: '2', availability: 'out_of_stock', inStock: '' },
      { id: 'b', quantity: '3', availability: 'in_stock', inStock: 'true' },
    ]);
  });

  it('gives limited_availability from outOfStockBelow to below limitedBelow, which is still in stock', () => {
    const feed = load(offerCsv({ limitedBelow: 3 }));
    const item = stockItem('a', { U1: 0, U2: 1, U3: 2, U4: 3 });
    expect(rows(render(feed, [item])).map((row) => [row['unit'], row['availability'], row['inStock']])).toEqual([
      ['U1', 'out_of_stock', ''],
      ['U2', 'limited_availability', 'true'],
      ['U3', 'limited_availability', 'true'],
      ['U4', 'in_stock', 'true'],
    ]);
  });

  it('lists out-of-stock items with outOfStock: list (the default), leaves them out with omit, and counts them', () => {
    const items = [stockItem('a', { U1: 1 }), stockItem('b', { U1: 0 }), stockItem('c', { U1: 2 })];
    const listed = render(load(itemCsv({ outOfStock: 'list' })), items);
    expect(rows(listed).map((row) => row['id'])).toEqual(['a', 'b', 'c']);
    expect(listed.report).toMatchObject({ items: 3, outOfStock: 0, filtered: 0 });
    // With a buffer of 1, "a" (1 piece) is sold out too.
    const omitted = render(load(itemCsv({ outOfStock: 'omit', buffer: 1 })), items);
    expect(rows(omitted).map((row) => row['id'])).toEqual(['c']);
    expect(omitted.report).toMatchObject({ items: 1, records: 1, outOfStock: 2, filtered: 0, dropped: 0 });
    expect(omitted.report.warnings.count).toBe(0);
  });

  it("leaves out each unit's out-of-stock record with omit; an item with none left counts as out of stock", () => {
    const feed = load(offerCsv({ outOfStock: 'omit' }));
    const items = [stockItem('a', { U1: 2, U2: 0 }), stockItem('b', { U1: 0, U2: undefined }, 'in_stock')];
    const rendered = render(feed, items);
    // "b": U1 is sold out; U2's stock is unknown and the unknown-stock setting says in stock: listed, without a quantity.
    expect(rows(rendered).map((row) => [row['id'], row['unit'], row['quantity'], row['availability']])).toEqual([
      ['a', 'U1', '2', 'in_stock'],
      ['b', 'U2', '', 'in_stock'],
    ]);
    expect(rendered.report).toMatchObject({ items: 2, records: 2, outOfStock: 0 });

    const xml = load({
      file: 'depots.xml',
      kind: 'xml',
      stockPolicy: { outOfStock: 'omit' },
      document: {
        name: 'list',
        children: [{ items: { name: 'depot', each: 'offers', attributes: { item: '{id}', id: '{offer.unit}' } } }],
      },
    });
    // Every unit of "c" sold out but the all view in stock cannot happen; a unit view of a sold-out unit can.
    const soldOut = render(xml, [unitView(stockItem('c', { U1: 0 }), 'U1')], { ...FIXTURE_CONTEXT, unit: 'U1' });
    expect(soldOut.body.toString()).not.toContain('depot');
    expect(soldOut.report).toMatchObject({ items: 0, outOfStock: 1, filtered: 0 });
    const perOffer = render(load(offerCsv({ outOfStock: 'omit', limitedBelow: 5 })), [stockItem('d', { U1: 0, U2: 0 })]);
    expect(perOffer.report).toMatchObject({ items: 0, records: 0, outOfStock: 1, filtered: 0 });
  });

  it('makes filter.availability use the policy availability (limited is in stock)', () => {
    const items = [stockItem('a', { U1: 1 }), stockItem('b', { U1: 2 }), stockItem('c', { U1: 5 })];
    const inStock = render(load(itemCsv({ buffer: 1, limitedBelow: 3 }, { filter: { availability: 'in_stock' } })), items);
    expect(rows(inStock).map((row) => [row['id'], row['availability']])).toEqual([
      ['b', 'limited_availability'],
      ['c', 'in_stock'],
    ]);
    expect(inStock.report).toMatchObject({ filtered: 1, outOfStock: 0 });
    const soldOut = render(load(itemCsv({ buffer: 1 }, { filter: { availability: 'out_of_stock' } })), items);
    expect(rows(soldOut).map((row) => row['id'])).toEqual(['a']);
  });

  describe('unknown stock stays unknown', () => {
    const feed = load(itemCsv({ buffer: 2, outOfStockBelow: 2, limitedBelow: 4 }), settings({ '*': 1 }));
    const perUnit = load(offerCsv({ buffer: 2, outOfStockBelow: 2, limitedBelow: 4 }), settings({ '*': 1 }));

    it('through the buffer and the threshold: no quantity, and the catalog availability', () => {
      for (const setting of ['in_stock', 'out_of_stock'] as const) {
        const item = stockItem('a', { U1: undefined }, setting);
        expect(rows(render(feed, [item]))).toEqual([
          { id: 'a', quantity: '', availability: setting, inStock: setting === 'in_stock' ? 'true' : '' },
        ]);
        expect(rows(render(perUnit, [item]))[0]).toMatchObject({ quantity: '', availability: setting });
        const unit = unitView(item, 'U1');
        expect(rows(render(feed, [unit], { ...FIXTURE_CONTEXT, unit: 'U1' }))[0]).toMatchObject({
          quantity: '',
          availability: setting,
        });
      }
    });

    it('through the sum: the known units add up, and a sold-out sum follows the unknown-stock setting', () => {
      // U1: 9 − 3 = 6 (in stock); U2 unknown adds nothing and is not 0.
      const rich = stockItem('a', { U1: 9, U2: undefined }, 'in_stock');
      expect(rows(render(feed, [rich]))[0]).toMatchObject({ quantity: '6', availability: 'in_stock' });
      // U1: 3 − 3 = 0, below the threshold: U2 (unknown) may still have it, so the setting decides.
      for (const setting of ['in_stock', 'out_of_stock'] as const) {
        const poor = stockItem('b', { U1: 3, U2: undefined }, setting);
        expect(rows(render(feed, [poor]))[0]).toMatchObject({ quantity: '0', availability: setting });
      }
      // Every unit unknown: the sum is unknown, not 0.
      const none = stockItem('c', { U1: undefined, U2: undefined }, 'in_stock');
      expect(rows(render(feed, [none]))[0]).toMatchObject({ quantity: '', availability: 'in_stock' });
    });

    it('is never left out by omit when the unknown-stock setting says in stock', () => {
      const omit = load(itemCsv({ buffer: 5, outOfStock: 'omit' }));
      const item = stockItem('a', { U1: undefined }, 'in_stock');
      expect(rows(render(omit, [item])).map((row) => row['id'])).toEqual(['a']);
    });
  });

  it('leaves services as they are (no buffer, no threshold, never omitted)', () => {
    const service: FeedItem = { ...stockItem('s', { U1: 1, U2: undefined }), isStockItem: false, availability: 'in_stock' };
    const servicePerUnit: FeedItem = {
      ...service,
      offers: service.offers.map((offer) => ({ ...offer, availability: 'in_stock' as const })),
    };
    const items = [servicePerUnit];
    const feed = load(itemCsv({ buffer: 3, outOfStockBelow: 2, outOfStock: 'omit' }), settings({ '*': 2 }));
    expect(rows(render(feed, items))).toEqual([{ id: 's', quantity: '1', availability: 'in_stock', inStock: 'true' }]);
    const perUnit = load(offerCsv({ buffer: 3, outOfStockBelow: 2, outOfStock: 'omit' }), settings({ '*': 2 }));
    expect(rows(render(perUnit, items)).map((row) => [row['unit'], row['quantity'], row['availability']])).toEqual([
      ['U1', '1', 'in_stock'],
      ['U2', '', 'in_stock'],
    ]);
  });

  it('lets FEED_STOCK_POLICY override the template per key', () => {
    const template = itemCsv({ buffer: 1, outOfStock: 'omit' });
    const feed = load(template, settings({}, { policy: { limitedBelow: 4, outOfStock: 'list' } }));
    const items = [stockItem('a', { U1: 1 }), stockItem('b', { U1: 3 }), stockItem('c', { U1: 9 })];
    // buffer 1 (template) and limitedBelow 4 (configuration); listed (configuration wins over omit).
    expect(rows(render(feed, items)).map((row) => [row['id'], row['quantity'], row['availability']])).toEqual([
      ['a', '0', 'out_of_stock'],
      ['b', '2', 'limited_availability'],
      ['c', '8', 'in_stock'],
    ]);
  });

  describe('load problems', () => {
    it('refuses thresholds that contradict each other, saying where the values came from', () => {
      expect(problemsOf(itemCsv({ outOfStockBelow: 3, limitedBelow: 3 }))).toEqual([
        {
          file: 'templates/policy.json',
          path: 'stockPolicy',
          message: 'limitedBelow (3) must be above outOfStockBelow (3), else nothing is ever limited',
        },
      ]);
      expect(problemsOf(itemCsv({ limitedBelow: 3 }), settings({}, { policy: { outOfStockBelow: 5 } }))[0]?.message).toBe(
        'limitedBelow (3) must be above outOfStockBelow (5), else nothing is ever limited (the template with FEED_STOCK_POLICY)',
      );
    });

    it('reports a refused policy together with the other problems of the template', () => {
      const template = { ...itemCsv({ outOfStockBelow: 4, limitedBelow: 2 }), columns: [{ header: 'x', value: '{nope}' }] };
      expect(problemsOf(template).map((problem) => problem.path)).toEqual(['stockPolicy', 'columns[0].value']);
    });

    it('refuses invalid values in the template', () => {
      const problems = problemsOf(itemCsv({ buffer: -1, outOfStockBelow: 0.5, outOfStock: 'hide', keep: 1 }));
      expect(problems.map((problem) => problem.path).sort()).toEqual([
        'stockPolicy',
        'stockPolicy.buffer',
        'stockPolicy.outOfStock',
        'stockPolicy.outOfStockBelow',
      ]);
    });

    it('requires every availability map to translate limited_availability when limitedBelow is set', () => {
      const template = {
        kind: 'csv',
        maps: { avail: { in_stock: 'yes', out_of_stock: 'no' }, other: { in_stock: 'x' } },
        columns: [
          { header: 'a', value: '{availability|map:avail}' },
          { header: 'b', value: '{name|map:other}' },
        ],
      };
      expect(load(template).name).toBe('policy');
      expect(problemsOf({ ...template, stockPolicy: { limitedBelow: 3 } })).toEqual([
        {
          file: 'templates/policy.json',
          path: 'maps.avail.limited_availability',
          message:
            'the stock policy sets limitedBelow, so the availability map "avail" must translate "limited_availability" too',
        },
      ]);
      expect(problemsOf(template, settings({}, { policy: { limitedBelow: 3 } }))[0]?.message).toContain(
        'limitedBelow (the template with FEED_STOCK_POLICY)',
      );
      const offers = {
        ...offerCsv({ limitedBelow: 3 }),
        maps: { m: { in_stock: 'y' } },
        columns: [{ header: 'm', value: '{offer.availability | lower | map:m}' }],
      };
      expect(problemsOf(offers).map((problem) => problem.path)).toEqual(['maps.m.limited_availability']);
    });

    it('names FEED_STOCK_POLICY feeds that match no template, listing the feeds', () => {
      const problems = problemsOf(itemCsv(), settings({}, { gogle: { buffer: 1 }, policy: { buffer: 1 } }));
      expect(problems).toEqual([
        { file: 'FEED_STOCK_POLICY', path: 'gogle', message: 'names no feed template (the feeds: policy)' },
      ]);
      expect(() => load(itemCsv(), settings({}, { gogle: {} }))).toThrow(
        'FEED_STOCK_POLICY at gogle: names no feed template (the feeds: policy)',
      );
    });
  });
});

describe('feeds: FEED_STOCK_POLICY syntax', () => {
  it('reads feed sections of key=value pairs', () => {
    expect(parseStockPolicies(' google: buffer=1, limitedBelow=3 ; heureka:outOfStock=omit;')).toEqual({
      policies: { google: { buffer: 1, limitedBelow: 3 }, heureka: { outOfStock: 'omit' } },
      problems: [],
    });
    expect(parseStockPolicies('meta:buffer=0.5,outOfStockBelow=2').policies).toEqual({
      meta: { buffer: 0.5, outOfStockBelow: 2 },
    });
  });

  it('names the feed and the key of every problem', () => {
    expect(
      parseStockPolicies(
        'google:bufer=1,limitedBelow=1.5;heureka:outOfStock=hide,buffer=-1;zbozi buffer=1;Meta:buffer=1;google:buffer=2;x:buffer',
      ).problems,
    ).toEqual([
      'feed "google": unknown key "bufer" (known: buffer, outOfStockBelow, limitedBelow, outOfStock)',
      'feed "google": limitedBelow must be a whole number of pieces, at least 2, got "1.5"',
      'feed "heureka": outOfStock must be list or omit, got "hide"',
      'feed "heureka": buffer must be a non-negative number of pieces, got "-1"',
      '"zbozi buffer=1" is not of the form FEED:key=value,key=value (e.g. google:buffer=1,outOfStockBelow=2)',
      '"Meta" is not a feed name (a template\'s "name": lower-case letters, digits and dashes)',
      'feed "google" is named twice; give all its keys in one section',
      'feed "x": "buffer" is not of the form key=value',
    ]);
    expect(parseStockPolicies('a:buffer=1,buffer=2;b:outOfStockBelow=0').problems).toEqual([
      'feed "a": key "buffer" is given twice',
      'feed "b": outOfStockBelow must be a whole number of pieces, at least 1, got "0"',
    ]);
  });
});
