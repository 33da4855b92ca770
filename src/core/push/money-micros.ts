/**
 * Money for the channels' push APIs (docs/decisions/0013-channel-push.md, "Money"): Google's Merchant API
 * takes `amountMicros` (an int64 as a string), Meta's `items_batch` takes `"12.34 CZK"`. Integrators moving
 * to the Merchant API report silent mispricing from `price * 1e6` (15.99 * 1e6 = 15989999.999999998), so
 * micros are computed from the price's decimal text with BigInt, never through floating point.
 */

import { formatMoney } from '../feeds/format-number.js';

const MICROS_PER_UNIT = 1_000_000n;
const MICROS_PER_CENT = 10_000n;
// `amountMicros` is an int64 in the Merchant API (Schema$Price); a larger amount cannot be sent.
const MAX_INT64 = 2n ** 63n - 1n;

/** Thrown for an amount no channel can be sent: not finite, negative, finer than a cent, or too large. */
export class MoneyError extends RangeError {
  override readonly name = 'MoneyError';
}

/** Whole and cent parts of a validated two-decimal amount, read from its shortest decimal text. */
function centsOf(price: number): { whole: bigint; cents: bigint } {
  if (typeof price !== 'number' || !Number.isFinite(price)) throw new MoneyError(`price must be a finite number, got ${price}`);
  if (price < 0) throw new MoneyError(`price must not be negative, got ${price}`);
  // String() is the shortest text that reads back as the same double, so 15.99 is "15.99", not 15.98999….
  const text = String(price === 0 ? 0 : price);
  if (text.includes('e')) {
    // Exponent forms occur from 1e21 up (whole numbers) and below 1e-6 (finer than a cent).
    if (price >= 1) return { whole: BigInt(price), cents: 0n };
    throw new MoneyError(`price must have at most 2 decimals, got ${text}`);
  }
  const [whole = '0', fraction = ''] = text.split('.');
  // Prices are rounded to two decimals when the catalog is built (docs/catalog-rules.md, rule 6), so more
  // decimals here are a bug upstream: refusing beats rounding silently to a different price than the feed's.
  if (fraction.length > 2) throw new MoneyError(`price must have at most 2 decimals, got ${text}`);
  return { whole: BigInt(whole), cents: BigInt(fraction.padEnd(2, '0')) };
}

/**
 * The Merchant API's `amountMicros` for a two-decimal price, exact: 15.99 → "15990000", 0.1 → "100000".
 *
 * @throws MoneyError when `price` is NaN, infinite, negative, has more than 2 decimals, or exceeds int64 micros.
 */
export function toAmountMicros(price: number): string {
  const { whole, cents } = centsOf(price);
  const micros = whole * MICROS_PER_UNIT + cents * MICROS_PER_CENT;
  if (micros > MAX_INT64) throw new MoneyError(`price ${price} exceeds the largest amount in micros (int64)`);
  return micros.toString();
}

/**
 * A price as Meta's `items_batch` takes it, the same text as the Meta feed's `{price|money} {currency}`
 * (templates/meta.json): two decimals, a space, the ISO 4217 code, e.g. "15.99 CZK", "129.00 CZK".
 *
 * @throws MoneyError for an amount `toAmountMicros` refuses, or a currency that is not three capital letters.
 */
export function metaPrice(price: number, currency: string): string {
  if (!/^[A-Z]{3}$/.test(currency))
    throw new MoneyError(`currency must be an ISO 4217 code (3 capital letters), got "${currency}"`);
  centsOf(price);
  return `${formatMoney(price)} ${currency}`;
}
