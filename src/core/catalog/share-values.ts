import type { AvailabilityTexts, Offer, Product } from './catalog.js';

/**
 * Parsing a serialized catalog gives every offer its own copy of values that a few units share:
 *
 * - each offer's availability labels (`Skladem na prodejně`) become an object and two strings of their own,
 *   ~150 bytes an offer, and Czech text is stored two bytes a character. A merged catalog shares them (the
 *   merge keeps one object per unit's labels); parsed products are given them back, one object per distinct
 *   pair, so that 100,000 products × 6 offers do not hold 600,000 copies;
 * - each offer's prices and stock become boxed numbers of their own, 16 bytes each plus the pointer, even a
 *   whole stock once any stock in the catalog had a fraction: V8 keeps a field that ever held a fraction as a
 *   box per object. A field that also held another value (here `undefined`, for a moment) keeps its numbers
 *   as plain references instead: a whole number then costs nothing and equal prices share one box. ~200 bytes
 *   a product of ~900 (bench/full-sync.ts, the `publish` phase; docs/decisions/0022-shared-numbers.md).
 *
 * The values read the same; only what holds them changes.
 */
export interface SharedValues {
  /** Replaces, in place, each offer's labels and numbers of freshly parsed products with shared ones. */
  share(products: readonly Product[]): void;
}

/** Distinct fractions shared per parse, at most (~3 MB of map). */
const MAX_SHARED_NUMBERS = 65_536;

/** An offer's fields as the parse left them: written, and briefly `undefined`, while its values are shared. */
type Writable<T> = { -readonly [K in keyof T]: T[K] | undefined };

export function createSharedValues(): SharedValues {
  const texts = new Map<string, AvailabilityTexts>();
  const numbers = new Map<number, number>();
  function sharedTexts(value: AvailabilityTexts): AvailabilityTexts {
    const key = `${value.inStock ?? ''}\u0000${value.outOfStock ?? ''}\u0000${value.inStock === undefined ? 0 : 1}${value.outOfStock === undefined ? 0 : 1}`;
    const known = texts.get(key);
    if (known !== undefined) return known;
    texts.set(key, value);
    return value;
  }
  function sharedNumber(value: number): number {
    // A whole number in a plain field is no box at all.
    if (Number.isInteger(value) && Math.abs(value) < 2 ** 30) return value;
    const known = numbers.get(value);
    if (known !== undefined) return known;
    // Prices repeat; fractions that do not (weighed stock) would only grow the map: past its cap each keeps its own.
    if (numbers.size < MAX_SHARED_NUMBERS) numbers.set(value, value);
    return value;
  }
  function shareOffer(offer: Offer): void {
    // Parsed objects are the caller's own: replacing a field keeps the object's shape. Each field by name, not
    // one helper looping over the names: a store site per field took half the time (BENCHMARKS.md, "Memory at
    // the publish").
    const writable = offer as Writable<Offer>;
    const { availabilityTexts, price, salePrice, standardPrice, stock } = offer;
    if (availabilityTexts !== undefined) writable.availabilityTexts = sharedTexts(availabilityTexts);
    // `undefined` for a moment turns a field of boxes into one of references (once per shape; a plain store
    // after that), so the shared number is stored as it is.
    if (price !== undefined) {
      const shared = sharedNumber(price);
      writable.price = undefined;
      writable.price = shared;
    }
    if (salePrice !== undefined) {
      const shared = sharedNumber(salePrice);
      writable.salePrice = undefined;
      writable.salePrice = shared;
    }
    if (standardPrice !== undefined) {
      const shared = sharedNumber(standardPrice);
      writable.standardPrice = undefined;
      writable.standardPrice = shared;
    }
    if (stock !== undefined) {
      const shared = sharedNumber(stock);
      writable.stock = undefined;
      writable.stock = shared;
    }
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
