import type { FeedContext, FeedItem, FeedOffer } from './feed-item.js';
import {
  itemAvailabilityOf,
  itemPiecesOf,
  itemStockOf,
  offerAvailabilityOf,
  offerStockOf,
  quantityOf,
  type StockState,
} from './stock-policy.js';
import { productCode } from './to-feed-item.js';

export { quantityOf } from './stock-policy.js';

/** A value inside a template expression: text, a number, or nothing (absent/empty). */
export type FeedValue = string | number | undefined;

/**
 * What an expression reads. One mutable scope is reused for a whole render (no allocation per item):
 * the renderer sets `item` per item and `offer` per repetition of an `each: offers` element.
 */
export interface RenderScope {
  context: FeedContext;
  item: FeedItem | undefined;
  offer: FeedOffer | undefined;
  /** The additional image link of this repetition of an `each: images` element. */
  image?: string | undefined;
  /** The feed's stock policy applied to the item in scope (stock-policy.ts). */
  readonly stock: StockState;
}

/**
 * Where a field may be used: `context` anywhere, `item` inside `items`, `offer` inside `each: offers`,
 * `image` inside `each: images`.
 */
export type FieldScope = 'context' | 'item' | 'offer' | 'image';

export interface FieldSpec {
  readonly scope: FieldScope;
  readonly get: (scope: RenderScope) => FeedValue;
  readonly description: string;
}

/** The sale price only when it is below the price: a `sale_price` equal to `price` gets items disapproved (docs/channels.md). */
function salePriceOf(price: number | undefined, salePrice: number | undefined): number | undefined {
  return salePrice !== undefined && price !== undefined && salePrice < price ? salePrice : undefined;
}

/**
 * What a buyer pays: the sale price when one applies, else the price. A price of 0 or less is a
 * placeholder in the POS, never an offer: it counts as no price, so a channel's required price leaves the
 * item out (reported as missing) instead of advertising it for nothing.
 */
function finalPriceOf(price: number | undefined, salePrice: number | undefined): number | undefined {
  const final = salePriceOf(price, salePrice) ?? price;
  return final !== undefined && final > 0 ? final : undefined;
}

/** A price a channel may show: a price of 0 or less (a placeholder in the POS) counts as none. */
function offeredPrice(price: number | undefined): number | undefined {
  return price !== undefined && price > 0 ? price : undefined;
}

function standardPriceOf(price: number | undefined, standardPrice: number | undefined): number | undefined {
  return standardPrice !== undefined && price !== undefined && standardPrice > price ? standardPrice : undefined;
}

function flag(value: boolean | undefined): FeedValue {
  return value === true ? 'true' : undefined;
}

/** The enrichment sheet's text fields (docs/enrichment.md); absent when the sheet has no value for the item. */
const ENRICHMENT_FIELDS: Readonly<Record<string, FieldSpec>> = {
  description: {
    scope: 'item',
    get: (s) => s.item?.enrichment?.description,
    description: 'description from the enrichment sheet',
  },
  category: {
    scope: 'item',
    get: (s) => s.item?.enrichment?.category,
    description: "the shop's category path from the enrichment sheet (`Potraviny > Káva`)",
  },
  googleProductCategory: {
    scope: 'item',
    get: (s) => s.item?.enrichment?.googleProductCategory,
    description: "Google's product category (id or path) from the enrichment sheet",
  },
  heurekaCategory: {
    scope: 'item',
    get: (s) => s.item?.enrichment?.heurekaCategory,
    description: "Heureka's CATEGORYTEXT from the enrichment sheet",
  },
  zboziCategory: {
    scope: 'item',
    get: (s) => s.item?.enrichment?.zboziCategory,
    description: "Zboží.cz's CATEGORYTEXT from the enrichment sheet",
  },
  additionalImageLinks: {
    scope: 'item',
    // Comma-separated, so a comma inside a link (CDN parameters) is percent-encoded, as URLs allow.
    get: (s) => s.item?.enrichment?.additionalImageLinks?.map((link) => link.replaceAll(',', '%2C')).join(','),
    description: 'the additional image links, comma-separated (XML: repeat an element with `each: images`)',
  },
  customLabel0: { scope: 'item', get: (s) => s.item?.enrichment?.customLabel0, description: 'custom label 0' },
  customLabel1: { scope: 'item', get: (s) => s.item?.enrichment?.customLabel1, description: 'custom label 1' },
  customLabel2: { scope: 'item', get: (s) => s.item?.enrichment?.customLabel2, description: 'custom label 2' },
  customLabel3: { scope: 'item', get: (s) => s.item?.enrichment?.customLabel3, description: 'custom label 3' },
  customLabel4: { scope: 'item', get: (s) => s.item?.enrichment?.customLabel4, description: 'custom label 4' },
};

/**
 * Every field a template may name. Context fields have no prefix (`{currency}`), offer fields the
 * `offer.` prefix. `inStock` and `isStockItem` give `true` or nothing, for `when`/`unless`.
 */
export const FEED_FIELDS: Readonly<Record<string, FieldSpec>> = {
  version: { scope: 'context', get: (s) => s.context.version, description: 'catalog version id' },
  generatedAt: { scope: 'context', get: (s) => s.context.generatedAt, description: 'ISO time the catalog was built' },
  unit: { scope: 'context', get: (s) => s.context.unit, description: 'the view: a unit code or `all`' },
  unitName: { scope: 'context', get: (s) => s.context.unitName, description: 'name of the view' },
  currency: { scope: 'context', get: (s) => s.context.currency, description: 'ISO 4217 code of all prices' },
  brand: {
    scope: 'context',
    get: (s) => s.item?.enrichment?.brand ?? s.context.brand,
    description: "the enrichment sheet's brand, else FEED_BRAND (in a feed's head: FEED_BRAND)",
  },
  baseUrl: { scope: 'context', get: (s) => s.context.baseUrl, description: 'public base URL of the bridge' },

  id: { scope: 'item', get: (s) => s.item?.id, description: 'article localId' },
  name: { scope: 'item', get: (s) => s.item?.name, description: 'article name (as the POS has it)' },
  title: {
    scope: 'item',
    get: (s) => s.item?.enrichment?.title ?? s.item?.name,
    description: "the enrichment sheet's title, else the article name",
  },
  ...ENRICHMENT_FIELDS,
  groupId: { scope: 'item', get: (s) => s.item?.groupId, description: 'article group id' },
  ean: { scope: 'item', get: (s) => s.item?.ean, description: 'EAN as the POS has it (use `|gtin` for channels)' },
  plu: { scope: 'item', get: (s) => s.item?.plu, description: 'PLU' },
  internalIdentifier: { scope: 'item', get: (s) => s.item?.internalIdentifier, description: 'internal code' },
  code: {
    scope: 'item',
    get: (s) => (s.item === undefined ? undefined : productCode(s.item)),
    description: 'the code e-shops pair on: internal identifier, else PLU, else id',
  },
  measureUnit: { scope: 'item', get: (s) => s.item?.measureUnit, description: 'measure unit' },
  price: { scope: 'item', get: (s) => offeredPrice(s.item?.price), description: 'gross price of the view (none when 0)' },
  finalPrice: {
    scope: 'item',
    get: (s) => finalPriceOf(s.item?.price, s.item?.salePrice),
    description: 'what a buyer pays: the sale price when one applies, else the price (none when 0)',
  },
  salePrice: {
    scope: 'item',
    get: (s) => salePriceOf(s.item?.price, s.item?.salePrice),
    description: 'sale price, only when below price',
  },
  standardPrice: {
    scope: 'item',
    get: (s) => standardPriceOf(s.item?.price, s.item?.standardPrice),
    description: '"was" price, only when above price',
  },
  stock: { scope: 'item', get: (s) => s.item?.stock, description: 'stock as the POS says (may be fractional)' },
  advertisedStock: {
    scope: 'item',
    get: (s) => (s.item === undefined ? undefined : itemStockOf(s.stock, s.item)),
    description: "stock as this feed advertises it: the stock policy's buffers applied, fractions kept (kg)",
  },
  quantity: {
    scope: 'item',
    get: (s) => (s.item === undefined ? undefined : itemPiecesOf(s.stock, s.item)),
    description:
      "advertised stock in whole units, never negative (the feed's stock policy applied); in the all view the sum of the units' whole units",
  },
  availability: {
    scope: 'item',
    get: (s) => (s.item === undefined ? undefined : itemAvailabilityOf(s.stock, s.item)),
    description: '`in_stock` or `out_of_stock` (`limited_availability` too when the stock policy sets `limitedBelow`)',
  },
  availabilityInStockText: {
    scope: 'item',
    get: (s) => s.item?.availabilityTexts?.inStock,
    description: "the view's label for goods in stock (its price list's AVAILABILITY_IN_STOCK)",
  },
  availabilityOutOfStockText: {
    scope: 'item',
    get: (s) => s.item?.availabilityTexts?.outOfStock,
    description: "the view's label for sold-out goods (its price list's AVAILABILITY_OUT_OF_STOCK)",
  },
  inStock: {
    scope: 'item',
    get: (s) => flag(s.item !== undefined && itemAvailabilityOf(s.stock, s.item) !== 'out_of_stock'),
    description: '`true` when in stock (limited included)',
  },
  isStockItem: { scope: 'item', get: (s) => flag(s.item?.isStockItem), description: '`true` unless a service' },
  link: { scope: 'item', get: (s) => s.item?.link, description: 'product page URL' },
  imageLink: { scope: 'item', get: (s) => s.item?.imageLink, description: 'image URL' },

  image: { scope: 'image', get: (s) => s.image, description: 'one additional image link (inside `each: images`)' },

  'offer.unit': { scope: 'offer', get: (s) => s.offer?.unit, description: 'POS unit code' },
  'offer.storeCode': { scope: 'offer', get: (s) => s.offer?.storeCode, description: 'channel store code of the unit' },
  'offer.unitName': { scope: 'offer', get: (s) => s.offer?.unitName, description: 'unit name' },
  'offer.price': {
    scope: 'offer',
    get: (s) => offeredPrice(s.offer?.price),
    description: "the unit's gross price (none when 0)",
  },
  'offer.finalPrice': {
    scope: 'offer',
    get: (s) => finalPriceOf(s.offer?.price, s.offer?.salePrice),
    description: 'what a buyer pays in the unit: its sale price when one applies, else its price',
  },
  'offer.salePrice': {
    scope: 'offer',
    get: (s) => salePriceOf(s.offer?.price, s.offer?.salePrice),
    description: "the unit's sale price, only when below its price",
  },
  'offer.standardPrice': {
    scope: 'offer',
    get: (s) => standardPriceOf(s.offer?.price, s.offer?.standardPrice),
    description: 'the unit\'s "was" price',
  },
  'offer.stock': { scope: 'offer', get: (s) => s.offer?.stock, description: "the unit's stock" },
  'offer.advertisedStock': {
    scope: 'offer',
    get: (s) => (s.offer === undefined ? undefined : offerStockOf(s.stock, s.offer, s.item?.isStockItem ?? true)),
    description: "the unit's stock as this feed advertises it (its buffers applied, fractions kept)",
  },
  'offer.quantity': {
    scope: 'offer',
    get: (s) => (s.offer === undefined ? undefined : quantityOf(offerStockOf(s.stock, s.offer, s.item?.isStockItem ?? true))),
    description: "the unit's advertised stock in whole units",
  },
  'offer.availability': {
    scope: 'offer',
    get: (s) => (s.offer === undefined ? undefined : offerAvailabilityOf(s.stock, s.offer, s.item?.isStockItem ?? true)),
    description: "the unit's availability (the stock policy applied)",
  },
  'offer.availabilityInStockText': {
    scope: 'offer',
    get: (s) => s.offer?.availabilityTexts?.inStock,
    description: "the unit's label for goods in stock",
  },
  'offer.availabilityOutOfStockText': {
    scope: 'offer',
    get: (s) => s.offer?.availabilityTexts?.outOfStock,
    description: "the unit's label for sold-out goods",
  },
  'offer.inStock': {
    scope: 'offer',
    get: (s) =>
      flag(s.offer !== undefined && offerAvailabilityOf(s.stock, s.offer, s.item?.isStockItem ?? true) !== 'out_of_stock'),
    description: '`true` when the unit has it in stock (limited included)',
  },
};
