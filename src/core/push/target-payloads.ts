import { ALL_UNITS, type CatalogSnapshot, type Product } from '../catalog/catalog.js';
import type { FeedItem } from '../feeds/feed-item.js';
import { type FeedItemOptions, toFeedItem } from '../feeds/to-feed-item.js';
import type { PayloadResult, PushAction } from './channel-client.js';
import { actionOf } from './derive-updates.js';
import { csvRowValues, type FeedLens, type FeedLensResult, xmlAmountOf } from './feed-lens.js';
import type { GoogleDataSourceKind } from './google-data-source.js';
import { googleItemValues, tsvRows } from './google-feed-values.js';
import { PUSH_MASK } from './outbox.js';
import {
  buildGoogleLocalInventory,
  buildGoogleProductRequest,
  buildGoogleRequestFromFeed,
  type GoogleLocalInventory,
  type GooglePayloadOptions,
  type GoogleProductRequest,
  localInventoryFromFeed,
} from './payloads/google.js';
import {
  buildMetaFullRequest,
  buildMetaRequest,
  buildMetaRequestFromRow,
  type MetaBatchRequest,
  type MetaPayloadOptions,
} from './payloads/meta.js';
import { buildShoptetStockItem, type ShoptetStockField, type ShoptetStockItem } from './payloads/shoptet.js';
import { productByCode, productById } from './product-lookup.js';

/**
 * A claimed row's payload from the version served at send time (docs/decisions/0013-channel-push.md, section
 * 1, "Same item, same values as the feed"): the target's product through `toFeedItem`, then the channel's
 * builder in `payloads/`. Pure; the worker passes one of these as its `buildPayload`.
 */

/** The part of a claimed row a builder reads. */
export interface TargetRow {
  readonly target: string;
  readonly mask: number;
}

export type PayloadBuilder<Payload> = (row: TargetRow, snapshot: CatalogSnapshot | undefined) => PayloadResult<Payload>;

/** A Google call: a product input, or one unit's local inventory of product `offerId`. */
export type GooglePayload =
  | { readonly kind: 'product'; readonly request: GoogleProductRequest }
  | { readonly kind: 'local'; readonly offerId: string; readonly inventory: GoogleLocalInventory }
  /** `localInventories.delete`: the unit no longer offers the product (or the product is gone). */
  | { readonly kind: 'localDelete'; readonly offerId: string; readonly storeCode: string };

interface Index {
  readonly byId: { get(id: string): Product | undefined };
  readonly byCode: { get(code: string): Product | undefined };
}

// A batch of 3,000 targets must not scan 100,000 products each: the lookups go through indexes built once
// per catalog family (`product-lookup.ts`), not once per version (a sale a second made two 100k maps each).
function indexOf(snapshot: CatalogSnapshot): Index {
  return {
    byId: { get: (id) => productById(snapshot, id) },
    byCode: { get: (code) => productByCode(snapshot, code) },
  };
}

/** Google `l:{id}:{unit}`: the id may hold `:`, the unit code is after the last one. */
export function splitLocalTarget(target: string): { readonly id: string; readonly unit: string } {
  const body = target.slice(2);
  const at = body.lastIndexOf(':');
  return { id: body.slice(0, at), unit: body.slice(at + 1) };
}

/**
 * Google `p:{id}` and `l:{id}:{unit}`. `dataSource` says what GOOGLE_MERCHANT_DATA_SOURCE_ID takes (read at
 * start): a supplemental source only patches, so new and removed items are left to the feed file (skipped)
 * and a full re-send patches price, sale price and availability.
 */
export function googlePayloads(
  options: GooglePayloadOptions,
  feed: FeedItemOptions,
  dataSource: () => GoogleDataSourceKind = () => 'primary',
  lenses: GoogleLenses = {},
): PayloadBuilder<GooglePayload> {
  return (row, snapshot) => {
    if (row.target.startsWith('l:')) {
      const { id, unit } = splitLocalTarget(row.target);
      const product = snapshot === undefined ? undefined : indexOf(snapshot).byId.get(id);
      if (lenses.local !== undefined && snapshot !== undefined && product !== undefined) {
        return localFromFeed(lenses.local, snapshot, product, id, feed.storeCodes[unit] ?? unit);
      }
      const offer = product === undefined ? undefined : toFeedItem(product, unit, feed)?.offers[0];
      if (offer === undefined) {
        // The unit no longer offers it (or the product is gone): its local inventory goes.
        if (snapshot === undefined) return { kind: 'skip', reason: 'no version served yet' };
        return { kind: 'send', payload: { kind: 'localDelete', offerId: id, storeCode: feed.storeCodes[unit] ?? unit } };
      }
      return {
        kind: 'send',
        payload: { kind: 'local', offerId: id, inventory: buildGoogleLocalInventory(offer, options.currency) },
      };
    }
    const id = row.target.slice(2);
    // A stock change reaches a product only when its feed's policy can make it another availability: send that.
    const mask = (row.mask & PUSH_MASK.STOCK) === 0 ? row.mask : row.mask | PUSH_MASK.AVAIL;
    const product = snapshot === undefined ? undefined : indexOf(snapshot).byId.get(id);
    const seen =
      lenses.product === undefined || snapshot === undefined || product === undefined
        ? undefined
        : lenses.product(snapshot, product, ALL_UNITS);
    const item = product === undefined ? undefined : seen === undefined ? toFeedItem(product, ALL_UNITS, feed) : itemOfSeen(seen);
    let action = actionOf(mask, item !== undefined);
    if (dataSource() === 'supplemental' && action.kind !== 'update') {
      const fullResend = item !== undefined && (mask & PUSH_MASK.FULL) !== 0 && (mask & PUSH_MASK.ADDED) === 0;
      if (!fullResend)
        return { kind: 'skip', reason: 'supplemental data source: new and removed items are left to the feed file' };
      action = { kind: 'update', fields: ['price', 'salePrice', 'availability'] };
    }
    let result: PayloadResult<GoogleProductRequest>;
    if (seen?.kind === 'included' && action.kind !== 'remove') {
      const values = googleItemValues(seen.text);
      if (values === undefined) return { kind: 'skip', reason: 'the Google feed item could not be read' };
      result = buildGoogleRequestFromFeed(id, values, action, options);
    } else if (seen?.kind === 'left-out' && action.kind === 'create') {
      // An item the Google feed leaves out is never inserted; a patch of one Google holds goes as before.
      return { kind: 'skip', reason: seen.reason };
    } else {
      result = buildGoogleProductRequest(id, item, action, options);
    }
    return result.kind === 'send' ? { kind: 'send', payload: { kind: 'product', request: result.payload } } : result;
  };
}

/** The Google feeds' lenses (`google`, `google-local-inventory` templates); absent: the plain feed item. */
export interface GoogleLenses {
  readonly product?: FeedLens;
  readonly local?: FeedLens;
}

function itemOfSeen(seen: FeedLensResult): FeedItem | undefined {
  return seen.kind === 'not-offered' ? undefined : seen.item;
}

/**
 * One unit's local inventory as the served local inventory feed's row of its store: the row's values (its
 * stock policy: limited availability, sold-out rows); no row for the store (the unit does not offer it, or
 * the feed leaves the item out) deletes it, as the feed no longer lists it.
 */
function localFromFeed(
  lens: FeedLens,
  snapshot: CatalogSnapshot,
  product: Product,
  id: string,
  storeCode: string,
): PayloadResult<GooglePayload> {
  const seen = lens(snapshot, product, ALL_UNITS);
  const row =
    seen.kind === 'included'
      ? tsvRows(seen.head, seen.text).find((candidate) => candidate['store_code'] === storeCode)
      : undefined;
  if (row === undefined) return { kind: 'send', payload: { kind: 'localDelete', offerId: id, storeCode } };
  const inventory = localInventoryFromFeed(row);
  if (typeof inventory === 'string') return { kind: 'skip', reason: inventory };
  return { kind: 'send', payload: { kind: 'local', offerId: id, inventory } };
}

/** The field bits a Meta UPDATE carries (price, sale price, availability). */
const META_FIELD_BITS = PUSH_MASK.PRICE | PUSH_MASK.SALE | PUSH_MASK.AVAIL;

/**
 * Meta per row (decision 0013, "Meta items_batch"): FULL (first start, reconciliation, removed and re-added)
 * sends the whole item with upsert allowed, so one Meta lacks is created; ADDED a CREATE; field changes an
 * UPDATE of those fields only (upsert refused: never a half item); REMOVED a DELETE.
 */
export function metaPayloads(
  options: MetaPayloadOptions,
  feed: FeedItemOptions,
  lens?: FeedLens,
): PayloadBuilder<MetaBatchRequest> {
  return (claimed, snapshot) => {
    // A stock change reaches Meta only when its feed's policy can make it another availability: send that.
    const row = (claimed.mask & PUSH_MASK.STOCK) === 0 ? claimed : { ...claimed, mask: claimed.mask | PUSH_MASK.AVAIL };
    const id = row.target.slice(2);
    const full = (row.mask & PUSH_MASK.FULL) !== 0;
    const product = snapshot === undefined ? undefined : indexOf(snapshot).byId.get(id);
    if (lens !== undefined && snapshot !== undefined && product !== undefined) {
      const seen = lens(snapshot, product, ALL_UNITS);
      // An item the Meta feed leaves out is never created (FULL, ADDED); a field update of it (an item Meta
      // already holds, e.g. from before it lost its image) goes as before: `allow_upsert=false` creates nothing.
      if (seen.kind === 'left-out' && (full || (row.mask & PUSH_MASK.ADDED) !== 0)) {
        // A field change merged into the FULL/ADDED row (a sale during a reconciliation) still reaches an item
        // Meta may hold: as that field update alone (`allow_upsert=false`), never as a creation.
        const fields = row.mask & META_FIELD_BITS;
        if (fields === 0) return { kind: 'skip', reason: seen.reason };
        return buildMetaRequest(id, toFeedItem(product, ALL_UNITS, feed), actionOf(fields, true), options);
      }
      if (seen.kind === 'included') {
        const values = csvRowValues(seen.head, seen.text);
        if (values === undefined) return { kind: 'skip', reason: 'the Meta feed row could not be read' };
        if (id.length > 100) return { kind: 'skip', reason: 'id longer than 100 characters' };
        return buildMetaRequestFromRow(id, values, full ? { kind: 'full' } : actionOf(row.mask, true));
      }
    }
    const item = product === undefined ? undefined : toFeedItem(product, ALL_UNITS, feed);
    if (full) return buildMetaFullRequest(id, item, options);
    return buildMetaRequest(id, item, actionOf(row.mask, item !== undefined), options);
  };
}

/** Shoptet `s:{code}` from SHOPTET_STOCK_UNIT's view: every change is an absolute stock (or nothing). */
export function shoptetPayloads(
  unit: string,
  field: ShoptetStockField,
  feed: FeedItemOptions,
  lens?: FeedLens,
): PayloadBuilder<ShoptetStockItem> {
  return (row, snapshot) => {
    const code = row.target.slice(2);
    const product = snapshot === undefined ? undefined : indexOf(snapshot).byCode.get(code);
    if (lens !== undefined && snapshot !== undefined && product !== undefined) {
      const seen = lens(snapshot, product, unit);
      if (seen.kind === 'left-out') return { kind: 'skip', reason: seen.reason };
      if (seen.kind === 'included') {
        if (!seen.item.isStockItem) return { kind: 'skip', reason: 'not a stock item' };
        // The feed's STOCK/AMOUNT: the view's stock with the template's buffers; left out when unknown.
        const amount = xmlAmountOf(seen.text);
        if (amount === undefined) return { kind: 'skip', reason: 'stock unknown' };
        return buildShoptetStockItem(code, { ...seen.item, stock: amount }, { kind: 'update', fields: ['stock'] }, field);
      }
    }
    const item = product === undefined ? undefined : toFeedItem(product, unit, feed);
    const action: PushAction = item === undefined ? { kind: 'remove' } : { kind: 'update', fields: ['stock'] };
    return buildShoptetStockItem(code, item, action, field);
  };
}
