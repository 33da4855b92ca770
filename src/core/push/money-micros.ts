import { formatMoney } from '../feeds/format-number.js';

/**
 * A price as the Merchant API's `amountMicros` (int64 text, 1 unit = 1,000,000 micros), computed from the
 * feeds' own two-decimal text so it never passes through floating point (`15.99 * 1e6` is 15990000.000000002):
 * docs/decisions/0013-channel-push.md, "Money". Throws on a non-finite price: a caller must skip such an item.
 *
 * @example toAmountMicros(15.99) // '15990000'
 */
export function toAmountMicros(price: number): string {
  const text = formatMoney(price);
  if (text === undefined) throw new RangeError(`price is not a finite number: ${price}`);
  const negative = text.startsWith('-');
  const [whole = '0', cents = '00'] = (negative ? text.slice(1) : text).split('.');
  const micros = BigInt(whole) * 1_000_000n + BigInt(cents) * 10_000n;
  return (negative ? -micros : micros).toString();
}
