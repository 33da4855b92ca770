import { toMoney } from './round-money.js';
import type { PriceListRow } from './source.js';

/** Why a price-list row's money was not (all) used; each becomes a report entry. */
export type PriceNote =
  /** `PRICE` (net) without `PRICE_VAT`: not a gross price, the article's `salesPrice` stays. */
  | 'net-price-only'
  /** The row's `CURRENCY` differs from the feed currency: none of its money is used. */
  | 'currency-mismatch'
  /** A negative or non-finite amount, or a sale price of 0: ignored. */
  | 'invalid-price'
  /** `ACTION_PRICE` equal to or above the price: not a sale. */
  | 'action-price-not-below'
  /** `STANDARD_PRICE` equal to or below the price: no "was" price. */
  | 'standard-price-not-above';

export type PriceSource = 'price-list' | 'article' | 'none';

export interface OfferPrices {
  readonly price?: number;
  readonly salePrice?: number;
  readonly standardPrice?: number;
  readonly source: PriceSource;
  readonly notes: readonly PriceNote[];
}

export interface OfferPriceInput {
  /** The article's gross `salesPrice`, already validated (`toMoney`); `undefined` when it has none. */
  readonly salesPrice: number | undefined;
  /** The unit's price-list row matched to the article; `undefined` when none matched. */
  readonly row: PriceListRow | undefined;
  /** The feed currency (`FEED_CURRENCY`). */
  readonly currency: string;
}

/**
 * The prices of one offer (docs/catalog-rules.md rules 3 and 6), taken as given and never recomputed:
 * - price: the row's `PRICE_VAT`, else the article's `salesPrice`; a net `PRICE` alone is no gross price;
 * - sale price: the row's `ACTION_PRICE` when above 0 and below the price;
 * - "was" price: the row's `STANDARD_PRICE` when above the price.
 * `ACTION_PRICE` and `STANDARD_PRICE` are used only on a gross basis: when the row gives `PRICE_VAT`, or
 * no price at all. Next to a net `PRICE` they may well be net too, and a net "sale" below a gross price
 * would advertise a discount that does not exist, so they are dropped with the row's `net-price-only`.
 * A row in another currency (`CURRENCY`) gives no money at all.
 */
export function resolveOfferPrices(input: OfferPriceInput): OfferPrices {
  const { salesPrice, row, currency } = input;
  const fallback: OfferPrices =
    salesPrice === undefined ? { source: 'none', notes: [] } : { price: salesPrice, source: 'article', notes: [] };
  if (row === undefined) return fallback;

  const notes: PriceNote[] = [];
  if (row.currency !== undefined && row.currency.trim().toUpperCase() !== currency.trim().toUpperCase()) {
    return { ...fallback, notes: ['currency-mismatch'] };
  }

  const priceVat = checked(row.priceVat, notes);
  let price = salesPrice;
  let source: PriceSource = salesPrice === undefined ? 'none' : 'article';
  let grossBasis = true;
  if (priceVat !== undefined) {
    price = priceVat;
    source = 'price-list';
  } else if (row.priceNet !== undefined) {
    notes.push('net-price-only');
    grossBasis = false;
  }
  if (price === undefined || !grossBasis) return { ...(price === undefined ? {} : { price }), source, notes };

  let salePrice: number | undefined;
  const action = checked(row.actionPrice, notes);
  if (action === 0) {
    notes.push('invalid-price');
  } else if (action !== undefined && action < price) {
    salePrice = action;
  } else if (action !== undefined) {
    notes.push('action-price-not-below');
  }

  let standardPrice: number | undefined;
  const standard = checked(row.standardPrice, notes);
  if (standard !== undefined && standard > price) {
    standardPrice = standard;
  } else if (standard !== undefined) {
    notes.push('standard-price-not-above');
  }

  return {
    price,
    ...(salePrice === undefined ? {} : { salePrice }),
    ...(standardPrice === undefined ? {} : { standardPrice }),
    source,
    notes,
  };
}

/** The amount as money, or `undefined`; a present but unusable amount adds an `invalid-price` note. */
function checked(value: number | undefined, notes: PriceNote[]): number | undefined {
  if (value === undefined) return undefined;
  const money = toMoney(value);
  if (money === undefined) notes.push('invalid-price');
  return money;
}
