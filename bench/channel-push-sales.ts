import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Product } from '../src/core/catalog/catalog.js';
import type { BenchSale } from './channel-push-channels.js';

/**
 * The sales side of `bench/channel-push.ts`: a Zipf-like choice of items (a few sell often, so coalescing has
 * something to merge, and the hottest sell out), sales made through the sandbox's `POST /sandbox/sales` as the
 * POS records them, and a pass-through in front of the bridge's webhook receiver that notes when the bridge
 * accepted each sale's webhook.
 */

/** One sale made: what the bench knows of it, when its webhook was accepted (`performance.now()`). */
export interface MadeSale extends BenchSale {
  readonly postedAt: number;
  receiptId?: string;
  acceptedAt?: number;
  /** When the bridge first served a version whose stock shows the sale (the push derives from it). */
  servedAt?: number;
}

/** Deterministic (mulberry32): the same run chooses the same items. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SalePicker {
  /** The next sale's article and unit, with the article's total stock after it; `undefined` when all sold out. */
  next(): { readonly id: string; readonly unit: string; readonly count: number; readonly totalAfter: number } | undefined;
  readonly poolSize: number;
}

/**
 * The `poolSize` stock items with whole pieces in every unit and the fewest pieces in all (so the hottest
 * sell out: Meta hears of nothing else), in a random order, the first chosen most often (weight 1/rank^1.1). A sold-out
 * item gives its draws to the next one in rank that has stock.
 */
export function zipfPicker(products: readonly Product[], poolSize: number, seed = 13): SalePicker {
  const random = prng(seed);
  const stock = new Map<string, Map<string, number>>();
  for (const product of products) {
    if (product.isStockItem === false) continue;
    const units = new Map(product.offers.map((offer) => [offer.unit, offer.stock]));
    const whole = [...units.values()].every((value) => value !== undefined && Number.isInteger(value) && value >= 0);
    const total = [...units.values()].reduce<number>((sum, value) => sum + (value ?? 0), 0);
    if (whole && total >= 1) stock.set(product.id, units as Map<string, number>);
  }
  const totalOf = (units: ReadonlyMap<string, number>) => [...units.values()].reduce((a, b) => a + b, 0);
  // The fewest pieces first: the pool, shuffled so that rank and stock are unrelated.
  const ids = [...stock.keys()]
    .map((id) => ({ id, total: totalOf(stock.get(id) ?? new Map<string, number>()) }))
    .sort((a, b) => a.total - b.total)
    .slice(0, poolSize)
    .map(({ id }) => id);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j] as string, ids[i] as string];
  }
  const pool = ids;
  const cumulative: number[] = [];
  let sum = 0;
  for (let rank = 0; rank < pool.length; rank++) {
    sum += 1 / (rank + 1) ** 1.1;
    cumulative.push(sum);
  }
  return {
    poolSize: pool.length,
    next() {
      const draw = random() * sum;
      let low = 0;
      let high = cumulative.length - 1;
      while (low < high) {
        const mid = (low + high) >> 1;
        if ((cumulative[mid] ?? 0) < draw) low = mid + 1;
        else high = mid;
      }
      for (let step = 0; step < pool.length; step++) {
        const id = pool[(low + step) % pool.length] as string;
        const units = stock.get(id);
        const inStock = [...(units ?? new Map<string, number>())].filter(([, value]) => value > 0);
        if (units === undefined || inStock.length === 0) continue;
        const [unit, value] = inStock[Math.floor(random() * inStock.length)] as [string, number];
        // 1 to 3 pieces, as a shop's sales mostly are (never more than the unit holds).
        const count = Math.min(value, 1 + Math.floor(random() * 3));
        units.set(unit, value - count);
        return { id, unit, count, totalAfter: totalOf(units) };
      }
      return undefined;
    },
  };
}

/** Makes one sale of one article through the sandbox, as the POS records it; answers its receipt id. */
export async function makeSale(
  sandboxUrl: string,
  apiKey: string,
  line: { readonly unit: string; readonly id: string; readonly count: number },
): Promise<string | undefined> {
  const response = await fetch(`${sandboxUrl}/sandbox/sales`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ unitCode: line.unit, lines: [{ localId: line.id, count: line.count }] }),
  });
  const body = (await response.json()) as { receiptId?: string };
  return response.status === 201 ? body.receiptId : undefined;
}

export interface WebhookTap {
  readonly url: string;
  /** Receipt id → when the bridge answered its sale webhook with 2xx. */
  readonly acceptedAt: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

/**
 * A pass-through the sandbox delivers its webhooks to: each is forwarded to `target` as received (headers
 * and body), the bridge's answer is returned, and a sale event's 2xx time is noted by its receipt id.
 */
export async function startWebhookTap(target: () => string): Promise<WebhookTap> {
  const acceptedAt = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = { 'content-type': request.headers['content-type'] ?? 'application/json' };
      const key = request.headers['x-api-key'];
      if (typeof key === 'string') headers['x-api-key'] = key;
      fetch(target(), { method: 'POST', headers, body })
        .then(async (answer) => {
          const text = await answer.text();
          if (answer.status >= 200 && answer.status < 300) {
            const event = JSON.parse(body) as { event?: string; data?: { localId?: string } };
            const receipt = event.data?.localId;
            if (event.event === 'accounting.receipt.sale' && receipt !== undefined) acceptedAt.set(receipt, performance.now());
          }
          response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
          response.end(text);
        })
        .catch(() => {
          response.writeHead(502);
          response.end();
        });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/pos`,
    acceptedAt,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
