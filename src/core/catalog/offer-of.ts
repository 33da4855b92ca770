import type { Availability, AvailabilityTexts, Offer } from './catalog.js';

/** An offer's values besides its unit and availability; absent ones are left out. */
export interface OfferValues {
  readonly price?: number | undefined;
  readonly salePrice?: number | undefined;
  readonly standardPrice?: number | undefined;
  readonly stock?: number | undefined;
  readonly availabilityTexts?: AvailabilityTexts | undefined;
}

/**
 * An offer with its fields always in one order (unit, availability, price, sale price, "was" price, stock,
 * labels), absent ones omitted. The order is part of the serialized text and so of the content fingerprint:
 * an offer a sale changed must serialize as a full sync would make it, or the next sync of an unchanged
 * POS publishes a new version (new ETags, every feed rendered and fetched again).
 */
export function offerOf(unit: string, availability: Availability, values: OfferValues): Offer {
  // Built by assignment rather than conditional spreads: this runs once per product and unit.
  const offer: { -readonly [K in keyof Offer]: Offer[K] } = { unit, availability };
  if (values.price !== undefined) offer.price = values.price;
  if (values.salePrice !== undefined) offer.salePrice = values.salePrice;
  if (values.standardPrice !== undefined) offer.standardPrice = values.standardPrice;
  if (values.stock !== undefined) offer.stock = values.stock;
  if (values.availabilityTexts !== undefined) offer.availabilityTexts = values.availabilityTexts;
  return offer;
}
