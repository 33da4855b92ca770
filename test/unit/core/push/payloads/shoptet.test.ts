import { describe, expect, it } from 'vitest';
import type { ShoptetUpdateQuantityInStockRequest } from '../../../../../src/adapters/push/shoptet-openapi-types.js';
import type { ShoptetStockItem, ShoptetStockMovementsBody } from '../../../../../src/core/push/payloads/shoptet.js';
import { buildShoptetStockItem, cutShoptetBatches } from '../../../../../src/core/push/payloads/shoptet.js';
import { ShoptetStockMovementsRequestSchema } from '../../../../fakes/channels/shoptet-schema.js';
import { CASES, feedItem } from './push-fixtures.js';

const STOCK = { kind: 'update', fields: ['stock'] } as const;

function sent(result: ReturnType<typeof buildShoptetStockItem>): ShoptetStockItem {
  if (result.kind !== 'send') throw new Error(`skipped: ${result.reason}`);
  return result.payload;
}

function valid(items: ShoptetStockItem[]): boolean {
  // The core body must be assignable to the OpenAPI-derived request type (checked by tsc).
  const body: ShoptetUpdateQuantityInStockRequest = { data: items } satisfies ShoptetStockMovementsBody;
  return ShoptetStockMovementsRequestSchema.safeParse(JSON.parse(JSON.stringify(body))).success;
}

describe('core/push/payloads/shoptet', () => {
  it('a sale of the last piece: realStock 0, passing the schema', () => {
    const item = sent(buildShoptetStockItem('1001', CASES.sale(), STOCK, 'realStock'));
    expect(item).toEqual({ productCode: '1001', realStock: 0 });
    expect(valid([item])).toBe(true);
  });

  it('quantity instead of realStock when configured', () => {
    const item = sent(buildShoptetStockItem('1001', feedItem(), STOCK, 'quantity'));
    expect(item).toEqual({ productCode: '1001', quantity: 3 });
    expect(valid([item])).toBe(true);
  });

  it('a price change still sends the absolute stock (the endpoint carries no price)', () => {
    const item = sent(buildShoptetStockItem('1001', CASES.priceChange(), { kind: 'update', fields: ['price'] }, 'realStock'));
    expect(item).toEqual({ productCode: '1001', realStock: 3 });
    expect(valid([item])).toBe(true);
  });

  it('a new item is sent like any other (Shoptet answers unknown-product when it has none)', () => {
    const item = sent(buildShoptetStockItem('1001', CASES.newItem(), { kind: 'create' }, 'realStock'));
    expect(valid([item])).toBe(true);
  });

  it('keeps fractions (goods by weight) and never sends below 0', () => {
    const kg = feedItem({ aggregate: { unit: 'all', price: 1, stock: 2.5, availability: 'in_stock' } });
    expect(sent(buildShoptetStockItem('k', kg, STOCK, 'realStock'))).toEqual({ productCode: 'k', realStock: 2.5 });
    const oversold = feedItem({ aggregate: { unit: 'all', price: 1, stock: -2, availability: 'out_of_stock' } });
    expect(sent(buildShoptetStockItem('k', oversold, STOCK, 'realStock'))).toEqual({ productCode: 'k', realStock: 0 });
  });

  it.each([
    ['a removed item', undefined, { kind: 'remove' } as const],
    ['an unknown stock', feedItem({ aggregate: { unit: 'all', price: 1, availability: 'out_of_stock' } }), STOCK],
    ['a service', feedItem({ isStockItem: false }), STOCK],
    ['an item gone from the served version', undefined, STOCK],
  ])('sends nothing for %s', (_name, item, action) => {
    expect(buildShoptetStockItem('1001', item, action, 'realStock').kind).toBe('skip');
  });

  it('reads the unit view when SHOPTET_STOCK_UNIT names one', () => {
    expect(sent(buildShoptetStockItem('1001', feedItem({}, 'U2'), STOCK, 'realStock'))).toEqual({
      productCode: '1001',
      realStock: 0,
    });
  });

  it('cuts at 300 items a body, in order, each body valid', () => {
    const items = Array.from({ length: 601 }, (_, i) => ({ productCode: `c${i}`, realStock: i }));
    const bodies = cutShoptetBatches(items);
    expect(bodies.map((body) => body.data.length)).toEqual([300, 300, 1]);
    expect(bodies.flatMap((body) => body.data)).toEqual(items);
    for (const body of bodies) expect(valid([...body.data])).toBe(true);
    expect(cutShoptetBatches(items, 100).length).toBe(7);
    expect(cutShoptetBatches([])).toEqual([]);
  });

  it('refuses a size over 300 and a product code twice in one round', () => {
    expect(() => cutShoptetBatches([], 301)).toThrow(RangeError);
    expect(() =>
      cutShoptetBatches([
        { productCode: 'a', realStock: 1 },
        { productCode: 'a', realStock: 2 },
      ]),
    ).toThrow(/twice/);
  });
});
