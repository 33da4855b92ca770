import type { FeedItem } from '../../feeds/feed-item.js';
import type { PayloadResult, PushAction } from '../channel-client.js';

/**
 * Shoptet `PATCH /api/stocks/{stockId}/movements` bodies (docs/decisions/0013-channel-push.md, "Shoptet REST
 * API"). Only absolute amounts (`realStock` or `quantity`, SHOPTET_STOCK_FIELD), never `amountChange`, so a
 * repeated request after a crash is harmless. Shapes mirror `src/adapters/push/shoptet-openapi-types.ts`
 * (kept structural here because core does not import adapters).
 */

export const SHOPTET_STOCK_FIELDS = ['realStock', 'quantity'] as const;
export type ShoptetStockField = (typeof SHOPTET_STOCK_FIELDS)[number];

/** "max. 300 products/variants" per call (operation `updateQuantityInStock`). */
export const SHOPTET_MAX_BATCH = 300;

export type ShoptetStockItem =
  | { readonly productCode: string; readonly realStock: number }
  | { readonly productCode: string; readonly quantity: number };

export interface ShoptetStockMovementsBody {
  readonly data: readonly ShoptetStockItem[];
}

/**
 * The one `data[]` entry for a target `s:{code}` (the Shoptet template's `{code}`), read from the
 * SHOPTET_STOCK_UNIT view. The amount is `item.stock`: the caller (`shoptetPayloads` in `target-payloads.ts`)
 * passes the served `shoptet.xml` `STOCK/AMOUNT` as rendered, the template's buffers applied; only without a
 * `shoptet` feed template is it the view's stock unbuffered. Fractions kept, never below 0. Sends nothing for a removed item (the endpoint cannot delete; the shop owns its
 * products), a service, or an unknown stock (the template leaves `STOCK` out then: unknown is not 0).
 */
export function buildShoptetStockItem(
  productCode: string,
  item: FeedItem | undefined,
  action: PushAction,
  field: ShoptetStockField,
): PayloadResult<ShoptetStockItem> {
  if (action.kind === 'remove') return { kind: 'skip', reason: 'removed: Shoptet stock cannot delete a product' };
  if (item === undefined) return { kind: 'skip', reason: 'item not in the served version' };
  if (!item.isStockItem) return { kind: 'skip', reason: 'not a stock item' };
  if (item.stock === undefined || !Number.isFinite(item.stock)) return { kind: 'skip', reason: 'stock unknown' };
  const amount = Math.max(0, item.stock);
  const payload: ShoptetStockItem =
    field === 'realStock' ? { productCode, realStock: amount } : { productCode, quantity: amount };
  return { kind: 'send', payload };
}

/**
 * Cuts stock items into request bodies of at most `size` (≤ 300) items, in order. A product code appears at
 * most once per body: the outbox holds one row per target, so a duplicate is a caller's bug and is refused.
 */
export function cutShoptetBatches(
  items: readonly ShoptetStockItem[],
  size: number = SHOPTET_MAX_BATCH,
): ShoptetStockMovementsBody[] {
  if (!Number.isInteger(size) || size < 1 || size > SHOPTET_MAX_BATCH) {
    throw new RangeError(`Shoptet batch size must be an integer 1..${SHOPTET_MAX_BATCH}, got ${size}`);
  }
  const codes = new Set<string>();
  for (const item of items) {
    if (codes.has(item.productCode)) throw new Error(`product code sent twice in one round: ${item.productCode}`);
    codes.add(item.productCode);
  }
  const bodies: ShoptetStockMovementsBody[] = [];
  for (let start = 0; start < items.length; start += size) bodies.push({ data: items.slice(start, start + size) });
  return bodies;
}
