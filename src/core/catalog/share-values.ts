import type { AvailabilityTexts, Offer, Product } from './catalog.js';

/**
 * Parsing a serialized catalog gives every offer its own copy of values that a few units share: each offer's
 * availability labels (`Skladem na prodejně`) become an object and two strings of their own, ~150 bytes an
 * offer, and Czech text is stored two bytes a character. A merged catalog shares them (the merge keeps one
 * object per unit's labels); parsed products are given them back, one object per distinct pair, so that
 * 100,000 products × 6 offers do not hold 600,000 copies (bench/full-sync.ts, the `publish` phase).
 */
export interface SharedValues {
  /** Replaces, in place, each offer's labels of freshly parsed products with the one shared copy. */
  share(products: readonly Product[]): void;
}

export function createSharedValues(): SharedValues {
  const texts = new Map<string, AvailabilityTexts>();
  function shared(value: AvailabilityTexts): AvailabilityTexts {
    const key = `${value.inStock ?? ''}\u0000${value.outOfStock ?? ''}\u0000${value.inStock === undefined ? 0 : 1}${value.outOfStock === undefined ? 0 : 1}`;
    const known = texts.get(key);
    if (known !== undefined) return known;
    texts.set(key, value);
    return value;
  }
  function shareOffer(offer: Offer): void {
    const value = offer.availabilityTexts;
    // Parsed objects are the caller's own: replacing a field keeps the object's shape.
    if (value !== undefined) (offer as { availabilityTexts?: AvailabilityTexts }).availabilityTexts = shared(value);
  }
  return {
    share(products) {
      for (const product of products) {
        for (const offer of product.offers) shareOffer(offer);
        shareOffer(product.aggregate);
      }
    },
  };
}
