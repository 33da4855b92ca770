import type { Product } from '../src/core/catalog/catalog.js';
import { productCode } from '../src/core/feeds/to-feed-item.js';
import type { HarnessServer, RecordedRequest } from '../test/fakes/channels/http-harness.js';
import { parseMetaBatchForm } from '../test/fakes/channels/meta-schema.js';
import { startMetaServer } from '../test/fakes/channels/meta-server.js';
import { startShoptetServer } from '../test/fakes/channels/shoptet-server.js';

/**
 * The channels `bench/channel-push.ts` pushes to, each as its fake server (`test/fakes/channels/`) with what
 * the bench needs to know of it: the bridge's variables that point at it, which recorded requests carry
 * items, the item state each carried, and which sales the channel is told of. Adding a channel is one more
 * entry in `startChannels`.
 */

/** One sale as the bench made it: the article, its total stock (all units) after it. */
export interface BenchSale {
  readonly id: string;
  readonly totalAfter: number;
}

/** One item state a channel received: the article id and when. */
export interface ItemReceipt {
  readonly id: string;
  readonly at: number;
  /** Whether this state already shows `sale` (or a later one). */
  readonly shows: (sale: BenchSale) => boolean;
}

export interface ChannelUnderTest {
  readonly name: string;
  readonly server: HarnessServer;
  /** The bridge's configuration that sends to this fake. */
  readonly env: Readonly<Record<string, string>>;
  /** Once the first catalog is served, before the first request can arrive (e.g. the shop's products). */
  prepare(products: readonly Product[]): void;
  /** Whether a recorded request is one of the channel's item sends (not a status poll). */
  isSend(request: RecordedRequest): boolean;
  /** The item states one send carried. */
  receipts(request: RecordedRequest): ItemReceipt[];
  /** Whether the channel is told of this sale at all (Meta: only when the item sells out). */
  concerns(sale: BenchSale): boolean;
}

/** When the fake received a request, on `performance.now()`'s clock (the fakes note epoch ms). */
export function arrivedAt(request: RecordedRequest): number {
  return request.receivedAt - performance.timeOrigin;
}

const META_TOKEN = 'bench-meta-token-0123456789';
const SHOPTET_TOKEN = 'bench-shoptet-token-0123456789';

async function metaChannel(latencyMs: number): Promise<ChannelUnderTest> {
  const server = await startMetaServer({ token: META_TOKEN, catalogId: '4242', version: 'v23.0' });
  server.faults.setLatency(latencyMs);
  return {
    name: 'meta',
    server,
    env: { META_CATALOG_ID: '4242', META_ACCESS_TOKEN: META_TOKEN, META_GRAPH_API_URL: server.graphUrl },
    prepare(products) {
      // The catalog holds every item (made from the feed): an UPDATE of an unknown one is refused.
      for (const product of products) server.items.set(product.id, { availability: 'in stock' });
    },
    isSend: (request) => request.method === 'POST' && request.url.endsWith('/items_batch'),
    receipts(request) {
      const body = parseMetaBatchForm(request.body);
      if (!body.success) return [];
      return body.data.requests.flatMap((entry) => {
        const data = entry.data as Record<string, string | undefined>;
        const availability = data.availability;
        if (availability === undefined) return [];
        return [{ id: data.id ?? '', at: arrivedAt(request), shows: () => availability === 'out of stock' }];
      });
    },
    // Meta hears of price and availability, not of stock: a sale matters when it sells the item out.
    concerns: (sale) => sale.totalAfter <= 0,
  };
}

async function shoptetChannel(latencyMs: number): Promise<ChannelUnderTest> {
  const server = await startShoptetServer({ token: SHOPTET_TOKEN, stockId: 1, products: {} });
  server.faults.setLatency(latencyMs);
  const idOf = new Map<string, string>();
  return {
    name: 'shoptet',
    server,
    // SHOPTET_STOCK_UNIT is `all` by default: every sale changes the stock sent.
    env: { SHOPTET_API_TOKEN: SHOPTET_TOKEN, SHOPTET_API_URL: server.baseUrl, SHOPTET_STOCK_ID: '1' },
    prepare(products) {
      // The shop holds every product (it answers `unknown-product` for the others).
      for (const product of products) {
        const code = productCode(product);
        idOf.set(code, product.id);
        server.stock.set(code, { realStock: 0 });
      }
    },
    isSend: (request) => request.method === 'PATCH',
    receipts(request) {
      const body = JSON.parse(request.body) as { data?: { productCode?: string; realStock?: number }[] };
      return (body.data ?? []).flatMap((item) => {
        const id = idOf.get(item.productCode ?? '');
        const stock = item.realStock;
        if (id === undefined || stock === undefined) return [];
        return [{ id, at: arrivedAt(request), shows: (sale) => stock <= sale.totalAfter }];
      });
    },
    concerns: () => true,
  };
}

/** Every channel the bench pushes to, each behind `latencyMs` of added latency per request. */
export async function startChannels(latencyMs: number): Promise<ChannelUnderTest[]> {
  return [await metaChannel(latencyMs), await shoptetChannel(latencyMs)];
}
