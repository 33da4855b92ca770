import type { AvailabilityTexts, Offer } from './catalog.js';
import { offerOf } from './offer-of.js';

/**
 * One unit's offers of every product during a merge, by product position, in typed arrays. Held as
 * 500,000 objects at 100,000 articles × 5 units they were ~60 MB of a sync's heap (each offer an object,
 * an out-of-object property array and a boxed number per price and stock; bench/full-sync.ts); as
 * columns they are ~4 MB per unit, and each product's offers are made only when it is serialized.
 * An absent price or stock is `NaN` (no merged value is ever `NaN`: prices are rounded money,
 * non-finite quantities are refused).
 */
export interface OfferColumns {
  readonly price: Float64Array;
  readonly salePrice: Float64Array;
  readonly standardPrice: Float64Array;
  readonly stock: Float64Array;
  /** 1: `in_stock`, 0: `out_of_stock`. */
  readonly inStock: Uint8Array;
  /** Shared label objects (a catalog has a handful of pairs; see `build-offer.ts`). */
  readonly texts: (AvailabilityTexts | undefined)[];
}

export function createOfferColumns(length: number): OfferColumns {
  return {
    price: new Float64Array(length).fill(Number.NaN),
    salePrice: new Float64Array(length).fill(Number.NaN),
    standardPrice: new Float64Array(length).fill(Number.NaN),
    stock: new Float64Array(length).fill(Number.NaN),
    inStock: new Uint8Array(length),
    texts: new Array<AvailabilityTexts | undefined>(length),
  };
}

const orNaN = (value: number | undefined): number => value ?? Number.NaN;

/** Keeps `offer` (its unit is the columns') at `position`. */
export function storeOffer(columns: OfferColumns, position: number, offer: Offer): void {
  columns.price[position] = orNaN(offer.price);
  columns.salePrice[position] = orNaN(offer.salePrice);
  columns.standardPrice[position] = orNaN(offer.standardPrice);
  columns.stock[position] = orNaN(offer.stock);
  columns.inStock[position] = offer.availability === 'in_stock' ? 1 : 0;
  columns.texts[position] = offer.availabilityTexts;
}

export function hasPrice(columns: OfferColumns, position: number): boolean {
  return !Number.isNaN(columns.price[position] ?? Number.NaN);
}

function valueAt(column: Float64Array, position: number): number | undefined {
  const value = column[position] ?? Number.NaN;
  return Number.isNaN(value) ? undefined : value;
}

/** The offer at `position`, a new object (fields in `offerOf`'s order). */
export function offerAt(columns: OfferColumns, unit: string, position: number): Offer {
  return offerOf(unit, columns.inStock[position] === 1 ? 'in_stock' : 'out_of_stock', {
    price: valueAt(columns.price, position),
    salePrice: valueAt(columns.salePrice, position),
    standardPrice: valueAt(columns.standardPrice, position),
    stock: valueAt(columns.stock, position),
    availabilityTexts: columns.texts[position],
  });
}
