/**
 * Domain types of the normalized catalog (docs/catalog-rules.md, docs/http-interface.md). Types only: the rules
 * that fill them live in `merge-catalog.ts`, `aggregate-offer.ts` and `apply-stock.ts`; `core/feeds/to-feed-item.ts`
 * turns a product into the public item of one feed view. Optional fields are omitted when there is no value, never `undefined`.
 *
 * Purchase prices are deliberately NOT part of `Product` (docs/catalog-rules.md rule 6): they live in
 * `InternalCatalog`, which only admin endpoints may read, so no public renderer can leak them by accident.
 */

export const AVAILABILITIES = ['in_stock', 'out_of_stock'] as const;

export type Availability = (typeof AVAILABILITIES)[number];

/** The aggregate view over every unit (docs/catalog-rules.md rule 7: stock summed, prices of the primary unit). */
export const ALL_UNITS = 'all';

/** Availability labels of the unit's price-list XML (`AVAILABILITY_IN_STOCK`, `AVAILABILITY_OUT_OF_STOCK`). */
export interface AvailabilityTexts {
  readonly inStock?: string;
  readonly outOfStock?: string;
}

/** What one unit (or the aggregate `all`) offers of one product. Money is gross (with VAT), 2 decimals. */
export interface Offer {
  /** Unit code, or `all` for the aggregate. */
  readonly unit: string;
  readonly price?: number;
  /** `ACTION_PRICE`, only when below `price`. */
  readonly salePrice?: number;
  /** `STANDARD_PRICE`, the "was" price, only when above `price`. */
  readonly standardPrice?: number;
  /** Absent when unknown. May be negative or fractional (kept as the POS says). */
  readonly stock?: number;
  readonly availability: Availability;
  /** Both labels are kept so that a stock change can pick the right one without the XML. */
  readonly availabilityTexts?: AvailabilityTexts;
}

/**
 * What the marketer's enrichment sheet adds to a product (docs/enrichment.md): its own row's values over its
 * article group's (`group:{id}` rows). Text the POS does not know; price and stock never come from it.
 * Every field is validated when the sheet is read (URLs absolute, lengths); absent when the sheet has no value.
 */
export interface ProductEnrichment {
  /** Replaces the POS name in channel feeds (`{title}`); the POS name stays `name`. */
  readonly title?: string;
  readonly description?: string;
  readonly brand?: string;
  /** Absolute http(s) URL; wins over `FEED_PRODUCT_URL`. */
  readonly link?: string;
  /** Absolute http(s) URL; wins over `FEED_IMAGE_URL`. */
  readonly imageLink?: string;
  /** Absolute http(s) URLs, at most 10, in sheet order. */
  readonly additionalImageLinks?: readonly string[];
  /** The shop's category path, parts joined by ` > ` (`Potraviny > Káva`). */
  readonly category?: string;
  /** Google's product category: a numeric id or a path of its taxonomy. */
  readonly googleProductCategory?: string;
  /** Heureka's CATEGORYTEXT (`Heureka.cz | Jídlo a nápoje | Káva`). */
  readonly heurekaCategory?: string;
  /** Zboží.cz's CATEGORYTEXT. */
  readonly zboziCategory?: string;
  readonly customLabel0?: string;
  readonly customLabel1?: string;
  readonly customLabel2?: string;
  readonly customLabel3?: string;
  readonly customLabel4?: string;
  /** Feed names (template `name`) the product is left out of; `*` for every template feed. Never empty. */
  readonly exclude?: readonly string[];
}

export interface Product {
  /** The article's `localId`. */
  readonly id: string;
  readonly name: string;
  readonly groupId?: string;
  readonly ean?: string;
  readonly plu?: number;
  readonly internalIdentifier?: string;
  readonly measureUnit?: string;
  /** `false` for services: always in stock. Absent `isStockItem` in the POS counts as `true`. */
  readonly isStockItem: boolean;
  /** One offer per unit, in the order of the snapshot's `units`. */
  readonly offers: readonly Offer[];
  /** The `all` offer, derived from `offers` by `aggregateOffer` and kept in step with them. */
  readonly aggregate: Offer;
  /** From the enrichment sheet (`ENRICHMENT_SOURCE`); absent when no row or group row names the product. */
  readonly enrichment?: ProductEnrichment;
}

export interface CatalogUnit {
  readonly code: string;
  readonly localId: string;
  readonly name: string;
}

/** One published catalog version: complete and immutable. */
export interface CatalogSnapshot {
  readonly version: string;
  /** ISO 8601, the `now` of the sync that built it. */
  readonly generatedAt: string;
  readonly currency: string;
  /** Unit code whose prices the aggregate shows; empty only when there are no units. */
  readonly primaryUnit: string;
  readonly units: readonly CatalogUnit[];
  readonly products: readonly Product[];
}

/** Admin-only data of one product (`ADMIN_TOKEN`): purchase prices never reach a public feed (docs/catalog-rules.md rule 6). */
export interface InternalProductData {
  readonly id: string;
  readonly purchasePrice?: number;
  readonly avgPurchasePrice?: number;
}

/** Stored apart from the public snapshot, under its own key; only products with a purchase price appear. */
export interface InternalCatalog {
  readonly version: string;
  readonly products: readonly InternalProductData[];
}
