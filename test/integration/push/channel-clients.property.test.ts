import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetaClient, type MetaClient } from '../../../src/adapters/push/meta-client.js';
import { createShoptetClient, type ShoptetClient } from '../../../src/adapters/push/shoptet-client.js';
import type { PushAction, PushBatchItem } from '../../../src/core/push/channel-client.js';
import { buildMetaRequest, type MetaBatchRequest } from '../../../src/core/push/payloads/meta.js';
import { buildShoptetStockItem, type ShoptetStockItem } from '../../../src/core/push/payloads/shoptet.js';
import { type MetaServer, startMetaServer } from '../../fakes/channels/meta-server.js';
import { type ShoptetServer, startShoptetServer } from '../../fakes/channels/shoptet-server.js';
import { feedItem } from '../../unit/core/push/payloads/push-fixtures.js';

/**
 * Whatever the served item holds, what the payload builders make and the clients send is a request the fake
 * channels accept (docs/decisions/0013-channel-push.md, "Test plan": the client never sends an invalid one).
 */

const TOKEN = 'property-token-5e1f';
const cents = fc.integer({ min: 0, max: 10_000_000 }).map((value) => value / 100);
const availability = fc.constantFrom('in_stock' as const, 'out_of_stock' as const);
const action = fc.constantFrom<PushAction>(
  { kind: 'create' },
  { kind: 'remove' },
  { kind: 'update', fields: ['price'] },
  { kind: 'update', fields: ['salePrice'] },
  { kind: 'update', fields: ['price', 'salePrice', 'availability', 'stock'] },
);
const served = fc.record({
  price: cents,
  salePrice: fc.option(cents, { nil: undefined }),
  stock: fc.option(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { nil: undefined }),
  availability,
});

type Served = typeof served extends fc.Arbitrary<infer T> ? T : never;

function item({ price, salePrice, stock, availability: avail }: Served, id: string) {
  const offer = {
    unit: 'U1',
    price,
    availability: avail,
    ...(stock === undefined ? {} : { stock }),
    ...(salePrice === undefined ? {} : { salePrice }),
  };
  return feedItem({ id, offers: [offer], aggregate: { ...offer, unit: 'all' } });
}

let meta: MetaServer;
let shoptet: ShoptetServer;
let metaClient: MetaClient;
let shoptetClient: ShoptetClient;

beforeAll(async () => {
  meta = await startMetaServer({ token: TOKEN, catalogId: '42' });
  const products = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`S${i}`, {}]));
  shoptet = await startShoptetServer({ token: TOKEN, stockId: 1, products });
  metaClient = createMetaClient({ graphUrl: meta.graphUrl, catalogId: '42', token: TOKEN, timeoutMs: 5000 });
  shoptetClient = createShoptetClient({ baseUrl: shoptet.baseUrl, token: TOKEN, stockId: 1, timeoutMs: 5000 });
});

afterAll(async () => {
  await Promise.all([metaClient.close(), shoptetClient.close()]);
  await Promise.all([meta.close(), shoptet.close()]);
});

describe('channel clients (properties)', () => {
  it('Meta: every request built and sent is valid (only validation_status may refuse an item)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(served, action), { minLength: 1, maxLength: 5 }), async (cases) => {
        const batch: PushBatchItem<MetaBatchRequest>[] = [];
        cases.forEach(([values, act], index) => {
          const result = buildMetaRequest(`m${index}`, item(values, `m${index}`), act, { currency: 'CZK', brand: 'B' });
          if (result.kind === 'send') batch.push({ target: `m:m${index}`, gen: 1, payload: result.payload });
        });
        const before = meta.requests.length;
        const outcomes = await metaClient.send(batch);
        expect(meta.requests.slice(before).every((recorded) => recorded.status === 200)).toBe(true);
        expect(outcomes.every(({ outcome }) => outcome.kind !== 'retry')).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('Shoptet: every stock body built and sent is valid (and lands in the shop copy, never below 0)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(served, { minLength: 1, maxLength: 5 }), async (values) => {
        const batch: PushBatchItem<ShoptetStockItem>[] = [];
        values.forEach((value, index) => {
          const result = buildShoptetStockItem(
            `S${index}`,
            item(value, `s${index}`),
            { kind: 'update', fields: ['stock'] },
            'realStock',
          );
          if (result.kind === 'send') batch.push({ target: `s:S${index}`, gen: 1, payload: result.payload });
        });
        const outcomes = await shoptetClient.send(batch);
        expect(outcomes.every(({ outcome }) => outcome.kind === 'ok')).toBe(true);
        for (const { payload } of batch) {
          expect(shoptet.stock.get(payload.productCode)?.realStock).toBe('realStock' in payload ? payload.realStock : undefined);
          expect(payload).toEqual({ productCode: payload.productCode, realStock: expect.any(Number) });
        }
        values.forEach((value, index) => {
          if (value.stock !== undefined) expect(shoptet.stock.get(`S${index}`)?.realStock).toBe(Math.max(0, value.stock));
        });
      }),
      { numRuns: 60 },
    );
  });
});
