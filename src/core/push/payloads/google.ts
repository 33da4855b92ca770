import type { FeedItem, FeedOffer } from '../../feeds/feed-item.js';
import { normalizeGtin } from '../../feeds/normalize-gtin.js';
import { quantityOf } from '../../feeds/stock-policy.js';
import { truncateText } from '../../feeds/truncate-text.js';
import type { PayloadResult, PushAction, PushField } from '../channel-client.js';
import {
  feedMoney,
  type GoogleAvailability,
  type GoogleFeedItemValues,
  type GoogleLocalAvailability,
  localAvailabilityOf,
  productAvailabilityOf,
} from '../google-feed-values.js';
import {
  GoogleNameError,
  productInputName as googleProductInputName,
  productName as googleProductName,
  productId,
} from '../google-offer-id.js';
import { toAmountMicros } from '../money-micros.js';

/**
 * Merchant API v1 request parts (docs/decisions/0013-channel-push.md, "Google Merchant API v1"): the
 * `productInputs` insert / patch / delete and the `localInventories` insert. Shapes follow the official
 * client's `Schema$ProductInput`, `Schema$ProductAttributes`, `Schema$Price`, `Schema$LocalInventory`.
 * Values are the Google feed template's (`templates/google.json`), money as exact `amountMicros`.
 */

export interface GooglePrice {
  /** int64 as text; 1 unit = 1,000,000 micros. */
  readonly amountMicros: string;
  readonly currencyCode: string;
}

export interface GoogleProductAttributes {
  readonly title?: string;
  readonly description?: string;
  readonly link?: string;
  readonly imageLink?: string;
  readonly availability?: GoogleAvailability;
  readonly price?: GooglePrice;
  readonly salePrice?: GooglePrice;
  readonly gtins?: readonly string[];
  readonly brand?: string;
  readonly condition?: 'NEW';
}

export interface GoogleProductInput {
  readonly offerId: string;
  readonly contentLanguage: string;
  readonly feedLabel: string;
  readonly productAttributes: GoogleProductAttributes;
}

export interface GoogleLocalInventory {
  readonly storeCode: string;
  readonly localInventoryAttributes: {
    readonly availability: GoogleLocalAvailability;
    /** int64 text, ≥ 0; absent when the unit's stock is unknown. */
    readonly quantity?: string;
    readonly price?: GooglePrice;
    readonly salePrice?: GooglePrice;
  };
}

/** One call: `productInputs.insert`, `.patch` (with its update mask) or `.delete`, addressed by `name`. */
export type GoogleProductRequest =
  | { readonly method: 'insert'; readonly body: GoogleProductInput }
  | { readonly method: 'patch'; readonly name: string; readonly updateMask: string; readonly body: GoogleProductInput }
  | { readonly method: 'delete'; readonly name: string };

export interface GooglePayloadOptions {
  /** GOOGLE_MERCHANT_ACCOUNT_ID. */
  readonly account: string;
  /** GOOGLE_CONTENT_LANGUAGE, e.g. `cs`. */
  readonly contentLanguage: string;
  /** GOOGLE_FEED_LABEL, e.g. `CZ`. */
  readonly feedLabel: string;
  readonly currency: string;
  /** FEED_BRAND, used when the enrichment sheet has none. */
  readonly brand?: string;
}

/**
 * Why an offer id cannot be pushed (empty, over the Google feed's 50 characters in code points, not
 * well-formed Unicode), or `undefined`: such an item is skipped, as the Google feed leaves it out.
 */
export function offerIdProblem(options: Pick<GooglePayloadOptions, 'contentLanguage' | 'feedLabel'>, offerId: string) {
  try {
    productId({ contentLanguage: options.contentLanguage, feedLabel: options.feedLabel, offerId });
    return undefined;
  } catch (error) {
    if (error instanceof GoogleNameError) return error.message;
    throw error;
  }
}

const AVAILABILITY: Record<FeedItem['availability'], GoogleAvailability> = { in_stock: 'IN_STOCK', out_of_stock: 'OUT_OF_STOCK' };

/** Patchable top-level attributes by changed field; `stock` has no product attribute (local inventory carries it). */
const MASK_PATHS: Partial<Record<PushField, 'price' | 'salePrice' | 'availability'>> = {
  price: 'price',
  salePrice: 'salePrice',
  availability: 'availability',
};

/** `accounts/{a}/productInputs/{x}` (`google-offer-id.ts`: the unpadded base64url of the product key). */
export function productInputName(
  options: Pick<GooglePayloadOptions, 'account' | 'contentLanguage' | 'feedLabel'>,
  offerId: string,
) {
  return googleProductInputName(options.account, { ...keyParts(options), offerId });
}

/** The product name `localInventories` are addressed under: `accounts/{a}/products/{same key}`. */
export function productName(options: Pick<GooglePayloadOptions, 'account' | 'contentLanguage' | 'feedLabel'>, offerId: string) {
  return googleProductName(options.account, { ...keyParts(options), offerId });
}

function keyParts(options: Pick<GooglePayloadOptions, 'contentLanguage' | 'feedLabel'>) {
  return { contentLanguage: options.contentLanguage, feedLabel: options.feedLabel };
}

function price(value: number | undefined, currency: string): GooglePrice | undefined {
  if (value === undefined || !Number.isFinite(value)) return undefined;
  return { amountMicros: toAmountMicros(value), currencyCode: currency };
}

function insertAttributes(item: FeedItem, options: GooglePayloadOptions): GoogleProductAttributes | string {
  // The Google template's lengths: title 150, description 5000, brand 70 cut; links over 2000 drop the item.
  const title = truncateText(item.enrichment?.title ?? item.name, 150);
  const brandText = item.enrichment?.brand ?? options.brand;
  const brand = brandText === undefined ? undefined : truncateText(brandText, 70);
  const gtin = item.ean === undefined ? undefined : normalizeGtin(item.ean);
  const itemPrice = price(item.price, options.currency);
  const salePrice = price(item.salePrice, options.currency);
  // The template's required elements: without them the feed drops the item, so it is not pushed either.
  if (itemPrice === undefined) return 'no price';
  if (item.link === undefined) return 'no link';
  if (item.imageLink === undefined) return 'no image link';
  if (item.link.length > 2000 || item.imageLink.length > 2000) return 'link longer than 2000 characters';
  return {
    title,
    description: truncateText(item.enrichment?.description ?? title, 5000),
    link: item.link,
    imageLink: item.imageLink,
    availability: AVAILABILITY[item.availability],
    price: itemPrice,
    ...(salePrice === undefined ? {} : { salePrice }),
    ...(gtin === undefined ? {} : { gtins: [gtin] }),
    ...(brand === undefined ? {} : { brand }),
    condition: 'NEW',
  };
}

function identity(item: FeedItem, options: GooglePayloadOptions) {
  return { offerId: item.id, contentLanguage: options.contentLanguage, feedLabel: options.feedLabel };
}

function patchRequest(
  item: FeedItem,
  fields: readonly PushField[],
  options: GooglePayloadOptions,
): GoogleProductRequest | undefined {
  const itemPrice = price(item.price, options.currency);
  const salePrice = price(item.salePrice, options.currency);
  const values: GoogleProductAttributes = {
    availability: AVAILABILITY[item.availability],
    ...(itemPrice === undefined ? {} : { price: itemPrice }),
    ...(salePrice === undefined ? {} : { salePrice }),
  };
  return patchOf(item.id, values, fields, options);
}

/** A patch of the changed fields' attributes, with `values` the item's whole attributes. */
function patchOf(
  offerId: string,
  values: GoogleProductAttributes,
  fields: readonly PushField[],
  options: GooglePayloadOptions,
): GoogleProductRequest | undefined {
  const paths = [...new Set(fields.flatMap((field) => MASK_PATHS[field] ?? []))];
  if (paths.length === 0) return undefined;
  // "Attributes specified in the update mask without a value … will be deleted": an ended sale is in the
  // mask and absent from the body.
  const attributes = Object.fromEntries(paths.flatMap((path) => (values[path] === undefined ? [] : [[path, values[path]]])));
  return {
    method: 'patch',
    name: productInputName(options, offerId),
    updateMask: paths.map((path) => `productAttributes.${path}`).join(','),
    body: { offerId, contentLanguage: options.contentLanguage, feedLabel: options.feedLabel, productAttributes: attributes },
  };
}

/**
 * The attributes of an item as the served Google feed writes it (`google-feed-values.ts`): the template's
 * own lengths, required elements, stock policy and availability, money as exact micros of its text.
 */
export function attributesFromFeed(values: GoogleFeedItemValues, currency: string): GoogleProductAttributes | string {
  const itemPrice = feedMoney(values.price);
  const salePrice = feedMoney(values.salePrice);
  const availability = productAvailabilityOf(values.availability);
  if (itemPrice === undefined) return `the feed's price "${values.price ?? ''}" is not an amount and currency`;
  if (availability === undefined) return `the feed's availability "${values.availability ?? ''}" has no Merchant API value`;
  const gtin = values.gtin;
  return {
    ...(values.title === undefined ? {} : { title: values.title }),
    ...(values.description === undefined ? {} : { description: values.description }),
    ...(values.link === undefined ? {} : { link: values.link }),
    ...(values.imageLink === undefined ? {} : { imageLink: values.imageLink }),
    availability,
    price: { amountMicros: toAmountMicros(itemPrice.amount), currencyCode: itemPrice.currency || currency },
    ...(salePrice === undefined
      ? {}
      : { salePrice: { amountMicros: toAmountMicros(salePrice.amount), currencyCode: salePrice.currency || currency } }),
    ...(gtin === undefined ? {} : { gtins: [gtin] }),
    ...(values.brand === undefined ? {} : { brand: values.brand }),
    condition: 'NEW',
  };
}

/**
 * `buildGoogleProductRequest` with the item's attributes read from the served Google feed: insert (create)
 * sends them all, an update patches the changed ones. Removal never comes here (the item is in the feed).
 */
export function buildGoogleRequestFromFeed(
  offerId: string,
  values: GoogleFeedItemValues,
  action: Exclude<PushAction, { kind: 'remove' }>,
  options: GooglePayloadOptions,
): PayloadResult<GoogleProductRequest> {
  const problem = offerIdProblem(options, offerId);
  if (problem !== undefined) return { kind: 'skip', reason: problem };
  const attributes = attributesFromFeed(values, options.currency);
  if (typeof attributes === 'string') return { kind: 'skip', reason: attributes };
  if (action.kind === 'update') {
    const request = patchOf(offerId, attributes, action.fields, options);
    return request === undefined ? { kind: 'skip', reason: 'no product attribute changed' } : { kind: 'send', payload: request };
  }
  const identityOf = { offerId, contentLanguage: options.contentLanguage, feedLabel: options.feedLabel };
  return { kind: 'send', payload: { method: 'insert', body: { ...identityOf, productAttributes: attributes } } };
}

/**
 * The `localInventories:insert` body from a row of the served local inventory feed (store_code, quantity,
 * price, sale_price, availability), or why it cannot be sent.
 */
export function localInventoryFromFeed(row: Readonly<Record<string, string>>): GoogleLocalInventory | string {
  const storeCode = row['store_code'];
  const availability = localAvailabilityOf(row['availability']);
  if (storeCode === undefined) return 'the local inventory row has no store code';
  if (availability === undefined)
    return `the local inventory availability "${row['availability'] ?? ''}" has no Merchant API value`;
  const quantityText = row['quantity'];
  const quantityValue = quantityText === undefined ? undefined : Number(quantityText);
  const quantity =
    quantityValue === undefined || !Number.isFinite(quantityValue) ? undefined : String(Math.max(0, Math.floor(quantityValue)));
  const money = (value: string | undefined) => {
    const read = feedMoney(value);
    return read === undefined ? undefined : { amountMicros: toAmountMicros(read.amount), currencyCode: read.currency };
  };
  const offerPrice = money(row['price']);
  const salePrice = money(row['sale_price']);
  return {
    storeCode,
    localInventoryAttributes: {
      availability,
      ...(quantity === undefined ? {} : { quantity }),
      ...(offerPrice === undefined ? {} : { price: offerPrice }),
      ...(salePrice === undefined ? {} : { salePrice }),
    },
  };
}

/**
 * The `productInputs` call for a target `p:{id}`: insert for a new item (or a full re-send), patch of the
 * changed price / sale price / availability, delete for a removed one. A supplemental data source only
 * patches; the caller passes `update` actions only then.
 */
export function buildGoogleProductRequest(
  offerId: string,
  item: FeedItem | undefined,
  action: PushAction,
  options: GooglePayloadOptions,
): PayloadResult<GoogleProductRequest> {
  const problem = offerIdProblem(options, offerId);
  if (problem !== undefined) return { kind: 'skip', reason: problem };
  if (action.kind === 'remove') return { kind: 'send', payload: { method: 'delete', name: productInputName(options, offerId) } };
  if (item === undefined) return { kind: 'skip', reason: 'item not in the served version' };
  if (action.kind === 'update') {
    const request = patchRequest(item, action.fields, options);
    return request === undefined ? { kind: 'skip', reason: 'no product attribute changed' } : { kind: 'send', payload: request };
  }
  const attributes = insertAttributes(item, options);
  if (typeof attributes === 'string') return { kind: 'skip', reason: attributes };
  return { kind: 'send', payload: { method: 'insert', body: { ...identity(item, options), productAttributes: attributes } } };
}

/**
 * The `localInventories:insert` body for a target `l:{id}:{unit}`: the unit's offer, its store code
 * (UNIT_STORE_CODES), availability, quantity as the int64 text of the whole pieces (omitted when unknown).
 */
export function buildGoogleLocalInventory(offer: FeedOffer, currency: string): GoogleLocalInventory {
  const offerPrice = price(offer.price, currency);
  const salePrice = price(offer.salePrice, currency);
  // The feeds' whole-piece rule (0.5 kg left is 1 piece, not 0 beside IN_STOCK).
  const pieces = quantityOf(offer.stock);
  const quantity = pieces === undefined ? undefined : String(pieces);
  return {
    storeCode: offer.storeCode,
    localInventoryAttributes: {
      availability: AVAILABILITY[offer.availability],
      ...(quantity === undefined ? {} : { quantity }),
      ...(offerPrice === undefined ? {} : { price: offerPrice }),
      ...(salePrice === undefined ? {} : { salePrice }),
    },
  };
}
