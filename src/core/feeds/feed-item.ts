import type { AvailabilityTexts, ProductEnrichment } from '../catalog/catalog.js';

/**
 * What every feed renders: one product as seen from one view (a unit code, or `all`), in the shape of
 * the JSON feed's items (docs/http-interface.md). Optional fields are absent when the POS has no value.
 * Never carries purchase prices.
 */
export interface FeedOffer {
  /** POS unit code. */
  readonly unit: string;
  /** Channel store code of the unit (UNIT_STORE_CODES, default the unit code). */
  readonly storeCode: string;
  readonly unitName: string;
  readonly price?: number;
  readonly salePrice?: number;
  readonly standardPrice?: number;
  readonly stock?: number;
  readonly availability: 'in_stock' | 'out_of_stock';
  /** The unit's own labels for either state (its price list's `AVAILABILITY_IN_STOCK` / `_OUT_OF_STOCK`). Not in the JSON feed. */
  readonly availabilityTexts?: AvailabilityTexts;
}

export interface FeedItem {
  readonly id: string;
  readonly name: string;
  readonly groupId?: string;
  readonly ean?: string;
  readonly plu?: number;
  readonly internalIdentifier?: string;
  readonly measureUnit?: string;
  /** Gross price of the view (the primary unit's for `all`). */
  readonly price?: number;
  /** Only present when below `price`. */
  readonly salePrice?: number;
  /** The "was" price, only present when above `price`. */
  readonly standardPrice?: number;
  /** Summed over units for `all`; absent when unknown. */
  readonly stock?: number;
  readonly availability: 'in_stock' | 'out_of_stock';
  /** The view's availability labels (the primary unit's for `all`); shared with the catalog, not copied. Not in the JSON feed. */
  readonly availabilityTexts?: AvailabilityTexts;
  /** `false` for services (no stock kept). */
  readonly isStockItem: boolean;
  /** The enrichment sheet's link, else `FEED_PRODUCT_URL` filled in. */
  readonly link?: string;
  /** The enrichment sheet's image, else `FEED_IMAGE_URL` filled in. */
  readonly imageLink?: string;
  /** The marketer's values (docs/enrichment.md), shared with the catalog's product, never copied. */
  readonly enrichment?: ProductEnrichment;
  /** Every unit's offer for `all`, the one unit's offer for a unit view. */
  readonly offers: readonly FeedOffer[];
}

/** Feed-wide values a template may use in its head, tail and items. */
export interface FeedContext {
  readonly version: string;
  readonly generatedAt: string;
  /** The view: a unit code or `all`. */
  readonly unit: string;
  readonly unitName: string;
  readonly currency: string;
  readonly brand?: string;
  readonly baseUrl: string;
}
