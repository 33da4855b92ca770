import { type HarnessServer, type RecordedRequest, type Reply, startHarness } from './http-harness.js';
import { ShoptetRequestHeadersSchema, ShoptetStockIdSchema, ShoptetStockMovementsRequestSchema } from './shoptet-schema.js';

/**
 * A fake Shoptet REST API (docs/decisions/0013-channel-push.md, "Shoptet REST API"): `PATCH
 * /api/stocks/{stockId}/movements` validated with `shoptet-schema.ts`, answering 200 with `errors[]` for
 * per-item failures (400 when every item failed), 401 for a wrong token, and 429 with an HTTP-date
 * `Retry-After` when a token holds more than `maxConnections` connections ("3 per token").
 */

export interface ShoptetStock {
  realStock?: number;
  quantity?: number;
}

export interface ShoptetServerOptions {
  readonly token: string;
  readonly stockId: number;
  /** Product codes the shop holds, with their stock. Others answer `unknown-product`. */
  readonly products: Readonly<Record<string, ShoptetStock>>;
  /** Codes of product sets: their stock cannot be changed (`stock-change-not-allowed`). */
  readonly sets?: readonly string[];
  /** Connections allowed at once (Shoptet: 3 per token); a request on one more answers 429. */
  readonly maxConnections?: number;
  /** Wall clock of the `Retry-After` dates it sends. */
  readonly now?: () => number;
}

export interface ShoptetServer extends HarnessServer {
  /** The shop's copy: product code → stock. */
  readonly stock: Map<string, ShoptetStock>;
  /** Requests refused because too many connections were open (must stay 0 for a well-behaved client). */
  readonly connectionViolations: () => number;
  /** What `X-RateLimit-Bucket-Filling` says from now on (default `1/200`). */
  setBucketFilling(text: string): void;
  /** Fault: the next `count` items are answered as accepted but not applied (a lost update). */
  loseNext(count: number): void;
}

interface ShoptetErrorItem {
  readonly errorCode: string;
  readonly message: string;
  readonly instance: string;
}

let requestCounter = 0;

function envelope(errors: readonly ShoptetErrorItem[] | null, data: Record<string, unknown> | null = null) {
  requestCounter += 1;
  return { data, errors, metadata: { requestId: `fake-${requestCounter}` } };
}

/** Shoptet's answer to a whole request it refuses (a body the fake sends for faults and auth errors too). */
export function shoptetErrorBody(status: number): unknown {
  const codes: Record<number, string> = { 401: 'invalid-token', 423: 'locked', 429: 'too-many-requests' };
  return envelope([{ errorCode: codes[status] ?? `http-${status}`, message: `HTTP ${status}`, instance: 'request' }]);
}

/** Applies the items the shop holds to its copy; the others come back as Shoptet's per-item errors. */
function applyItems(
  stock: Map<string, ShoptetStock>,
  sets: ReadonlySet<string>,
  items: readonly Record<string, unknown>[],
  lose: () => boolean,
): ShoptetErrorItem[] {
  const errors: ShoptetErrorItem[] = [];
  for (const item of items) {
    const code = String(item.productCode);
    const held = stock.get(code);
    if (held !== undefined && lose()) continue;
    if (held === undefined) {
      errors.push({ errorCode: 'unknown-product', message: `Product with code "${code}" not found.`, instance: code });
    } else if (sets.has(code)) {
      errors.push({
        errorCode: 'stock-change-not-allowed',
        message: 'Stock of a product set cannot be changed.',
        instance: code,
      });
    } else if (typeof item.realStock === 'number') {
      held.realStock = item.realStock;
    } else if (typeof item.quantity === 'number') {
      held.quantity = item.quantity;
    } else if (typeof item.amountChange === 'number') {
      held.realStock = (held.realStock ?? 0) + item.amountChange;
    }
  }
  return errors;
}

const MOVEMENTS_PATH = /^\/api\/stocks\/([^/?]+)\/movements$/;

export async function startShoptetServer(options: ShoptetServerOptions): Promise<ShoptetServer> {
  const stock = new Map<string, ShoptetStock>(Object.entries(options.products).map(([code, value]) => [code, { ...value }]));
  const sets = new Set(options.sets ?? []);
  const limit = options.maxConnections ?? 3;
  const now = options.now ?? Date.now;
  let violations = 0;
  let filling = '1/200';
  let toLose = 0;
  const lose = () => {
    if (toLose <= 0) return false;
    toLose -= 1;
    return true;
  };

  function answer(status: number, body: unknown, extra: Record<string, string> = {}): Reply {
    return { status, body, headers: { 'x-ratelimit-bucket-filling': filling, ...extra } };
  }

  function handle(request: RecordedRequest, connections: number): Reply {
    if (connections > limit) {
      violations += 1;
      const retryAfter = new Date(Math.floor(now() / 1000) * 1000 + 1000).toUTCString();
      return answer(429, shoptetErrorBody(429), { 'retry-after': retryAfter });
    }
    const path = MOVEMENTS_PATH.exec(request.url);
    if (request.method !== 'PATCH' || path === null) return answer(404, shoptetErrorBody(404));
    const headers = ShoptetRequestHeadersSchema.safeParse(request.headers);
    if (!headers.success) {
      const status = headers.error.issues.some((issue) => issue.path[0] === 'content-type') ? 400 : 401;
      return answer(status, shoptetErrorBody(status));
    }
    if (headers.data['shoptet-private-api-token'] !== options.token) return answer(401, shoptetErrorBody(401));
    const stockId = ShoptetStockIdSchema.safeParse(path[1]);
    if (!stockId.success || stockId.data !== options.stockId) return answer(404, shoptetErrorBody(404));
    let json: unknown;
    try {
      json = JSON.parse(request.body);
    } catch {
      return answer(400, envelope([{ errorCode: 'invalid-json', message: 'Body is not JSON.', instance: 'body' }]));
    }
    const body = ShoptetStockMovementsRequestSchema.safeParse(json);
    if (!body.success) {
      return answer(400, envelope([{ errorCode: 'invalid-request', message: body.error.message, instance: 'body' }]));
    }
    const errors = applyItems(stock, sets, body.data.data as readonly Record<string, unknown>[], lose);
    const allFailed = errors.length > 0 && errors.length === body.data.data.length;
    return answer(allFailed ? 400 : 200, envelope(errors.length === 0 ? null : errors));
  }

  const harness = await startHarness(handle, shoptetErrorBody);
  return {
    ...harness,
    stock,
    connectionViolations: () => violations,
    setBucketFilling: (text) => {
      filling = text;
    },
    loseNext: (count) => {
      toLose = count;
    },
  };
}
