import { ALL_UNITS, type Availability, type Offer } from './catalog.js';
import { offerOf } from './offer-of.js';
import { roundQuantity } from './round-money.js';

/**
 * docs/catalog-rules.md rule 7: quantity > 0 → in stock; ≤ 0 → out of stock; services (`isStockItem: false`) are
 * always in stock; unknown stock → the operator's choice (`UNKNOWN_STOCK_AVAILABILITY`).
 */
export function computeAvailability(
  stock: number | undefined,
  isStockItem: boolean,
  unknownStockAvailability: Availability,
): Availability {
  if (!isStockItem) return 'in_stock';
  if (stock === undefined) return unknownStockAvailability;
  return stock > 0 ? 'in_stock' : 'out_of_stock';
}

/** The label of the offer's own availability, when the price list gave one. */
export function availabilityTextOf(offer: Offer): string | undefined {
  const texts = offer.availabilityTexts;
  if (texts === undefined) return undefined;
  return offer.availability === 'in_stock' ? texts.inStock : texts.outOfStock;
}

/**
 * Sums the known stocks of the offers, each floored at 0; `undefined` when every stock is unknown (or there
 * are no offers). A unit's negative stock (sold before it was received) has nothing a buyer could get: it
 * must not cancel another unit's pieces, which are on its shelf (docs/catalog-rules.md rule 7).
 */
export function sumStock(offers: readonly Offer[]): number | undefined {
  let sum: number | undefined;
  for (const offer of offers) {
    if (offer.stock === undefined) continue;
    sum = (sum ?? 0) + Math.max(0, offer.stock);
  }
  return sum === undefined ? undefined : roundQuantity(sum);
}

/**
 * The aggregate `all` offer (docs/catalog-rules.md rule 7): stock = sum of the units' known stocks (unknown when all are
 * unknown); price, sale price, "was" price and availability labels of the primary unit's offer.
 * Availability follows the summed stock; when that sum is not positive but some unit's stock is
 * unknown, the unknown-stock policy decides (a unit of unknown stock might still have the goods).
 */
export function aggregateOffer(
  offers: readonly Offer[],
  primaryUnit: string,
  isStockItem: boolean,
  unknownStockAvailability: Availability,
): Offer {
  let primary: Offer | undefined;
  let someUnknown = offers.length === 0;
  for (const offer of offers) {
    if (offer.unit === primaryUnit) primary ??= offer;
    if (offer.stock === undefined) someUnknown = true;
  }
  const stock = sumStock(offers);
  let availability = computeAvailability(stock, isStockItem, unknownStockAvailability);
  if (availability === 'out_of_stock' && someUnknown) availability = unknownStockAvailability;
  return offerOf(ALL_UNITS, availability, {
    price: primary?.price,
    salePrice: primary?.salePrice,
    standardPrice: primary?.standardPrice,
    stock,
    availabilityTexts: primary?.availabilityTexts,
  });
}
