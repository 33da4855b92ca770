import { ALL_UNITS, type Offer, type Product } from '../catalog/catalog.js';
import type { FeedItem, FeedOffer } from './feed-item.js';

/** Placeholders of FEED_PRODUCT_URL / FEED_IMAGE_URL. `{code}` is the internal identifier, else the PLU, else the id. */
export const LINK_PLACEHOLDERS = ['id', 'ean', 'plu', 'code', 'internalIdentifier'] as const;
type LinkPlaceholder = (typeof LINK_PLACEHOLDERS)[number];

export interface FeedItemOptions {
  readonly productUrl?: string;
  readonly imageUrl?: string;
  /** Unit code → channel store code (UNIT_STORE_CODES); unmapped units use their code. */
  readonly storeCodes: Readonly<Record<string, string>>;
  /** Unit code → unit name. */
  readonly unitNames: ReadonlyMap<string, string>;
}

/**
 * The product code e-shops pair on: the internal identifier, else the PLU, else the id (the POS writes the
 * first two as `CODE` in its own Shoptet-form price list). `{code}` of link templates and the feed field `code`.
 */
export function productCode(product: Pick<Product, 'id' | 'plu' | 'internalIdentifier'>): string {
  return product.internalIdentifier ?? (product.plu === undefined ? product.id : String(product.plu));
}

function placeholderValue(product: Product, name: LinkPlaceholder): string | undefined {
  switch (name) {
    case 'id':
      return product.id;
    case 'ean':
      return product.ean;
    case 'plu':
      return product.plu === undefined ? undefined : String(product.plu);
    case 'internalIdentifier':
      return product.internalIdentifier;
    case 'code':
      return productCode(product);
  }
}

/**
 * Fills a link template. A placeholder without a value gives no link at all (channels then report the
 * item) rather than a link to the wrong page; values are percent-encoded as one path segment.
 */
export function fillLinkTemplate(template: string, product: Product): string | undefined {
  let missing = false;
  const link = template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    if (!(LINK_PLACEHOLDERS as readonly string[]).includes(name)) return whole;
    const value = placeholderValue(product, name as LinkPlaceholder);
    if (value === undefined) {
      missing = true;
      return '';
    }
    return encodeURIComponent(value);
  });
  return missing ? undefined : link;
}

function toFeedOffer(offer: Offer, options: FeedItemOptions): FeedOffer {
  return {
    unit: offer.unit,
    storeCode: options.storeCodes[offer.unit] ?? offer.unit,
    unitName: options.unitNames.get(offer.unit) ?? offer.unit,
    ...(offer.price === undefined ? {} : { price: offer.price }),
    ...(offer.salePrice === undefined ? {} : { salePrice: offer.salePrice }),
    ...(offer.standardPrice === undefined ? {} : { standardPrice: offer.standardPrice }),
    ...(offer.stock === undefined ? {} : { stock: offer.stock }),
    availability: offer.availability,
    ...(offer.availabilityTexts === undefined ? {} : { availabilityTexts: offer.availabilityTexts }),
  };
}

/**
 * The item every feed renders for `product` in `view` (a unit code or `all`), or `undefined` when the
 * product has no offer there. Carries no purchase prices: `Product` has none.
 */
export function toFeedItem(product: Product, view: string, options: FeedItemOptions): FeedItem | undefined {
  const offer = view === ALL_UNITS ? product.aggregate : product.offers.find((candidate) => candidate.unit === view);
  if (offer === undefined) return undefined;
  const offers = view === ALL_UNITS ? product.offers : [offer];
  const enrichment = product.enrichment;
  // The marketer's own URL wins over one derived from a template (docs/enrichment.md).
  const link = enrichment?.link ?? (options.productUrl === undefined ? undefined : fillLinkTemplate(options.productUrl, product));
  const imageLink =
    enrichment?.imageLink ?? (options.imageUrl === undefined ? undefined : fillLinkTemplate(options.imageUrl, product));
  return {
    id: product.id,
    name: product.name,
    ...(product.groupId === undefined ? {} : { groupId: product.groupId }),
    ...(product.ean === undefined ? {} : { ean: product.ean }),
    ...(product.plu === undefined ? {} : { plu: product.plu }),
    ...(product.internalIdentifier === undefined ? {} : { internalIdentifier: product.internalIdentifier }),
    ...(product.measureUnit === undefined ? {} : { measureUnit: product.measureUnit }),
    ...(offer.price === undefined ? {} : { price: offer.price }),
    ...(offer.salePrice === undefined ? {} : { salePrice: offer.salePrice }),
    ...(offer.standardPrice === undefined ? {} : { standardPrice: offer.standardPrice }),
    ...(offer.stock === undefined ? {} : { stock: offer.stock }),
    availability: offer.availability,
    ...(offer.availabilityTexts === undefined ? {} : { availabilityTexts: offer.availabilityTexts }),
    isStockItem: product.isStockItem,
    ...(link === undefined ? {} : { link }),
    ...(imageLink === undefined ? {} : { imageLink }),
    ...(enrichment === undefined ? {} : { enrichment }),
    offers: offers.map((item) => toFeedOffer(item, options)),
  };
}
