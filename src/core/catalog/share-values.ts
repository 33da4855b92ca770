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

/**
 * Offer places (an offer's index in its product, the aggregate after them) that remember the labels they last
 * shared: a product's offers come in the same unit order, so the labels are most often those of the same place
 * in the product before, and two string comparisons then replace building a key and a map lookup.
 */
const REMEMBERED_PLACES = 64;

export function createSharedValues(): SharedValues {
  const texts = new Map<string, AvailabilityTexts>();
  const numbers = new Map<number, number>();
  const lastTexts: (AvailabilityTexts | undefined)[] = new Array<AvailabilityTexts | undefined>(REMEMBERED_PLACES + 1).fill(
    undefined,
  );
  function sharedTexts(value: AvailabilityTexts, place: number): AvailabilityTexts {
    const slot = Math.min(place, REMEMBERED_PLACES);
    const last = lastTexts[slot];
    if (last !== undefined && last.inStock === value.inStock && last.outOfStock === value.outOfStock) return last;
    const key = `${value.inStock ?? ''}\u0000${value.outOfStock ?? ''}\u0000${value.inStock === undefined ? 0 : 1}${value.outOfStock === undefined ? 0 : 1}`;
    let known = texts.get(key);
    if (known === undefined) {
      texts.set(key, value);
      known = value;
    }
    lastTexts[slot] = known;
    return known;
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
  /**
   * Shares `offer`'s values; `previous`, the product's offer shared before it, is asked first: a product's
   * units mostly sell at one price, and reading its field (already shared) is cheaper than the map.
   */
  function shareOffer(offer: Offer, previous: Offer | undefined, place: number): void {
    // Parsed objects are the caller's own: replacing a field keeps the object's shape. Each field by name, not
    // one helper looping over the names: a store site per field took half the time (BENCHMARKS.md, "Memory at
    // the publish").
    const writable = offer as Writable<Offer>;
    const { availabilityTexts, price, salePrice, standardPrice, stock } = offer;
    if (availabilityTexts !== undefined) writable.availabilityTexts = sharedTexts(availabilityTexts, place);
    // `undefined` for a moment turns a field of boxes into one of references (once per shape; a plain store
    // after that), so the shared number is stored as it is.
    if (price !== undefined) {
      const same = previous?.price;
      const shared = same === price ? same : sharedNumber(price);
      writable.price = undefined;
      writable.price = shared;
    }
    if (salePrice !== undefined) {
      const same = previous?.salePrice;
      const shared = same === salePrice ? same : sharedNumber(salePrice);
      writable.salePrice = undefined;
      writable.salePrice = shared;
    }
    if (standardPrice !== undefined) {
      const same = previous?.standardPrice;
      const shared = same === standardPrice ? same : sharedNumber(standardPrice);
      writable.standardPrice = undefined;
      writable.standardPrice = shared;
    }
    if (stock !== undefined) {
      const same = previous?.stock;
      const shared = same === stock ? same : sharedNumber(stock);
      writable.stock = undefined;
      writable.stock = shared;
    }
  }
  return {
    share(products) {
      for (const product of products) {
        const offers = product.offers;
        let previous: Offer | undefined;
        for (let place = 0; place < offers.length; place += 1) {
          const offer = offers[place] as Offer;
          shareOffer(offer, previous, place);
          previous = offer;
        }
        shareOffer(product.aggregate, previous, offers.length);
      }
    },
  };
}
