import type { FeedItem } from '../../feeds/feed-item.js';
import { normalizeGtin } from '../../feeds/normalize-gtin.js';
import { truncateText } from '../../feeds/truncate-text.js';
import type { PayloadResult, PushAction } from '../channel-client.js';
import { metaPrice } from '../money-micros.js';

/**
 * Meta `items_batch` request bodies (docs/decisions/0013-channel-push.md, "Meta `items_batch`"). Values are
 * written as the Meta feed template writes them (`templates/meta.json`): price `"12.34 CZK"`, availability
 * `in stock` / `out of stock`, so a pushed item equals the next fetched file.
 */

export const META_AVAILABILITY = { in_stock: 'in stock', out_of_stock: 'out of stock' } as const;
export type MetaAvailability = (typeof META_AVAILABILITY)[keyof typeof META_AVAILABILITY];

/** Meta's hard limit per call ("up to 5000 items") and its recommendation ("under 3000"), the default. */
export const META_MAX_BATCH = 5000;
export const META_DEFAULT_BATCH = 3000;
/** Meta allows 28 MB per call; we cut at 20 MB of form-encoded `requests`, leaving room for the other fields. */
export const META_MAX_REQUESTS_BYTES = 20 * 1024 * 1024;

export interface MetaItemData {
  readonly id: string;
  readonly title?: string;
  readonly description?: string;
  readonly availability?: MetaAvailability;
  readonly condition?: 'new';
  readonly price?: string;
  /** `""` clears a sale that ended (unconfirmed in Meta's reference; see the decision). */
  readonly sale_price?: string;
  readonly link?: string;
  readonly image_link?: string;
  readonly brand?: string;
  readonly gtin?: string;
}

export interface MetaBatchRequest {
  readonly method: 'CREATE' | 'UPDATE' | 'DELETE';
  readonly data: MetaItemData;
  /**
   * Not sent: the call this request travels in. `true` for an UPDATE carrying the whole item (FULL), sent with
   * `allow_upsert=true` so that an item Meta does not hold is created; the others travel with `false`.
   */
  readonly upsert?: true;
}

/** A request as it goes in `requests` (without the bridge's `upsert` mark). */
export interface MetaWireRequest {
  readonly method: MetaBatchRequest['method'];
  readonly data: MetaItemData;
}

export interface MetaBatchBody {
  readonly item_type: 'PRODUCT_ITEM';
  /**
   * `false`: an UPDATE of an item Meta does not hold must not create a half item ("When allow_upsert is false,
   * update requests for items not existing in the catalog will not be completed. Otherwise, new items are
   * created.", Meta's guide "Send Product Updates"); `true` only for calls of whole items (FULL).
   */
  readonly allow_upsert: boolean;
  readonly requests: readonly MetaWireRequest[];
}

export interface MetaPayloadOptions {
  /** ISO 4217, as the feeds' `{currency}`. */
  readonly currency: string;
  /** FEED_BRAND, used when the enrichment sheet has none (as the Meta template's `{brand}`). */
  readonly brand?: string;
}

function moneyText(value: number | undefined, currency: string): string | undefined {
  return value === undefined ? undefined : metaPrice(value, currency);
}

function updateData(item: FeedItem, fields: readonly string[], options: MetaPayloadOptions): MetaItemData {
  const price = fields.includes('price') ? moneyText(item.price, options.currency) : undefined;
  // An ended sale must be cleared on Meta's copy, so a changed sale price without a value is sent empty.
  const salePrice = fields.includes('salePrice') ? (moneyText(item.salePrice, options.currency) ?? '') : undefined;
  const availability = fields.includes('availability') ? META_AVAILABILITY[item.availability] : undefined;
  return {
    id: item.id,
    ...(price === undefined ? {} : { price }),
    ...(salePrice === undefined ? {} : { sale_price: salePrice }),
    ...(availability === undefined ? {} : { availability }),
  };
}

function createData(item: FeedItem, options: MetaPayloadOptions): MetaItemData | string {
  // The Meta template's lengths: title 200, description 9999, brand 100, cut as the feed cuts them.
  const title = truncateText(item.enrichment?.title ?? item.name, 200);
  const price = moneyText(item.price, options.currency);
  const salePrice = moneyText(item.salePrice, options.currency);
  const brandText = item.enrichment?.brand ?? options.brand;
  const brand = brandText === undefined ? undefined : truncateText(brandText, 100);
  const gtin = item.ean === undefined ? undefined : normalizeGtin(item.ean);
  // The Meta template's `required` columns and its `brand|gtin` rule: the same items the feed drops are skipped.
  if (price === undefined) return 'no price';
  if (item.link === undefined) return 'no link';
  if (item.imageLink === undefined) return 'no image link';
  if (brand === undefined && gtin === undefined) return 'neither brand nor GTIN';
  return {
    id: item.id,
    title,
    description: truncateText(item.enrichment?.description ?? title, 9999),
    availability: META_AVAILABILITY[item.availability],
    condition: 'new',
    price,
    ...(salePrice === undefined ? {} : { sale_price: salePrice }),
    link: item.link,
    image_link: item.imageLink,
    ...(brand === undefined ? {} : { brand }),
    ...(gtin === undefined ? {} : { gtin }),
  };
}

/**
 * The one `requests[]` entry for a target `m:{id}`. `item` is the served version's (absent when removed);
 * `retailerId` is the target's id, used for DELETE when the item is gone.
 */
export function buildMetaRequest(
  retailerId: string,
  item: FeedItem | undefined,
  action: PushAction,
  options: MetaPayloadOptions,
): PayloadResult<MetaBatchRequest> {
  if (action.kind === 'remove') return { kind: 'send', payload: { method: 'DELETE', data: { id: retailerId } } };
  if (item === undefined) return { kind: 'skip', reason: 'item not in the served version' };
  if (retailerId.length > 100) return { kind: 'skip', reason: 'id longer than 100 characters' };
  if (action.kind === 'update') {
    const data = updateData(item, action.fields, options);
    if (Object.keys(data).length === 1) return { kind: 'skip', reason: 'no field Meta carries changed' };
    return { kind: 'send', payload: { method: 'UPDATE', data } };
  }
  const data = createData(item, options);
  return typeof data === 'string' ? { kind: 'skip', reason: data } : { kind: 'send', payload: { method: 'CREATE', data } };
}

/**
 * A FULL send of target `m:{id}` (first start, nightly reconciliation, a removal and re-addition): the whole
 * item as CREATE would carry it (the Meta template's required fields), as an UPDATE in an `allow_upsert=true`
 * call, so an item Meta holds is overwritten and one it does not hold is created (Meta's guide "Send Product
 * Updates": with upsert allowed, "new items are created"; a CREATE "must contain all the required fields").
 * An UPDATE rather than a CREATE because Meta's reference does not say what CREATE does with an existing item.
 * An item the feed leaves out is skipped, never half-created; a removed one is deleted.
 */
export function buildMetaFullRequest(
  retailerId: string,
  item: FeedItem | undefined,
  options: MetaPayloadOptions,
): PayloadResult<MetaBatchRequest> {
  if (item === undefined) return { kind: 'send', payload: { method: 'DELETE', data: { id: retailerId } } };
  if (retailerId.length > 100) return { kind: 'skip', reason: 'id longer than 100 characters' };
  const data = createData(item, options);
  if (typeof data === 'string') return { kind: 'skip', reason: data };
  // A sale that ended is cleared on Meta's copy, as a field update does.
  const full: MetaItemData = data.sale_price === undefined ? { ...data, sale_price: '' } : data;
  return { kind: 'send', payload: { method: 'UPDATE', data: full, upsert: true } };
}

/** The Meta feed columns a request carries (`templates/meta.json` headers are Meta's field names). */
const ROW_FIELDS = [
  'title',
  'description',
  'availability',
  'condition',
  'price',
  'sale_price',
  'link',
  'image_link',
  'brand',
  'gtin',
] as const;
const REQUIRED_ROW_FIELDS = ['title', 'description', 'availability', 'price', 'link', 'image_link'] as const;
const UPDATE_FIELDS: Readonly<Record<string, (typeof ROW_FIELDS)[number]>> = {
  price: 'price',
  salePrice: 'sale_price',
  availability: 'availability',
};

/**
 * The request of target `m:{id}` from the Meta feed's own row of the item (its CSV cells by header, empty ones
 * left out: `csvRowValues`), so the pushed values are the served feed's, stock policy included. `action`
 * `full` is the FULL send (see `buildMetaFullRequest`); a field update takes those fields' cells only (a sale
 * that ended is sent empty, clearing it).
 */
export function buildMetaRequestFromRow(
  retailerId: string,
  row: Readonly<Record<string, string>>,
  action: PushAction | { readonly kind: 'full' },
): PayloadResult<MetaBatchRequest> {
  if (action.kind === 'remove') return { kind: 'send', payload: { method: 'DELETE', data: { id: retailerId } } };
  if (action.kind === 'update') {
    const data: Record<string, string> = { id: retailerId };
    for (const field of action.fields) {
      const column = UPDATE_FIELDS[field];
      // Only an ended sale is sent empty (cleared); a price or availability the row lacks is not sent at all.
      const value = row[column ?? ''] ?? (column === 'sale_price' ? '' : undefined);
      if (column !== undefined && value !== undefined) data[column] = value;
    }
    if (Object.keys(data).length === 1) return { kind: 'skip', reason: 'no field Meta carries changed' };
    return { kind: 'send', payload: { method: 'UPDATE', data: data as unknown as MetaItemData } };
  }
  const missing = REQUIRED_ROW_FIELDS.filter((field) => row[field] === undefined);
  if (missing.length > 0) return { kind: 'skip', reason: `the feed row lacks ${missing.join(', ')}` };
  const data: Record<string, string> = { id: retailerId };
  for (const field of ROW_FIELDS) {
    const value = row[field];
    if (value !== undefined) data[field] = value;
  }
  if (action.kind === 'create') return { kind: 'send', payload: { method: 'CREATE', data: data as unknown as MetaItemData } };
  data.sale_price ??= '';
  return { kind: 'send', payload: { method: 'UPDATE', data: data as unknown as MetaItemData, upsert: true } };
}

/** The `items_batch` call for one batch of requests (all of one `upsert` kind: see `MetaBatchRequest.upsert`). */
export function buildMetaBatchBody(requests: readonly MetaBatchRequest[], allowUpsert = false): MetaBatchBody {
  return {
    item_type: 'PRODUCT_ITEM',
    allow_upsert: allowUpsert,
    requests: requests.map(({ method, data }) => ({ method, data })),
  };
}

/** The form Meta's examples send: `item_type`, `allow_upsert`, `requests` as JSON text. */
export function encodeMetaBatchForm(body: MetaBatchBody): string {
  return new URLSearchParams({
    item_type: body.item_type,
    allow_upsert: String(body.allow_upsert),
    requests: JSON.stringify(body.requests),
  }).toString();
}

/**
 * Cuts requests into batches of at most `size` (META_BATCH_SIZE, 1..5000) and at most `maxBytes` of the
 * form-encoded `requests` field, keeping their order. One request larger than `maxBytes` still travels alone.
 */
export function cutMetaBatches<T extends MetaBatchRequest>(
  requests: readonly T[],
  size: number = META_DEFAULT_BATCH,
  maxBytes: number = META_MAX_REQUESTS_BYTES,
): T[][] {
  if (!Number.isInteger(size) || size < 1 || size > META_MAX_BATCH) {
    throw new RangeError(`Meta batch size must be an integer 1..${META_MAX_BATCH}, got ${size}`);
  }
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 6; // the array's brackets, encoded
  for (const request of requests) {
    // Counted as the form sends it: percent-encoding can triple JSON (quotes, braces, non-ASCII).
    const itemBytes = encodeURIComponent(JSON.stringify(request)).length + 3;
    if (current.length > 0 && (current.length === size || bytes + itemBytes > maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 6;
    }
    current.push(request);
    bytes += itemBytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
