/**
 * Number formatting for feeds: always plain decimal notation (never `1e21` or `1e-7`, which no channel
 * reads as a price or quantity), with a chosen decimal separator (`,` for the Czech Excel profile).
 */

function plainDigits(value: number): string {
  const text = String(value);
  if (!text.includes('e')) return text;
  // Exponent forms only occur below 1e-6 or from 1e21 up; both are rendered in full.
  if (Math.abs(value) >= 1) return BigInt(value).toString();
  return value.toFixed(20).replace(/\.?0+$/, '');
}

/**
 * `value` in plain decimal notation, `undefined` when it is not finite.
 *
 * @example formatPlainNumber(2.5, ',') // '2,5'
 */
export function formatPlainNumber(value: number, decimalSeparator = '.'): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  const text = plainDigits(value === 0 ? 0 : value);
  return decimalSeparator === '.' ? text : text.replace('.', decimalSeparator);
}

/**
 * Money with exactly two decimals, rounded half away from zero on the decimal digits as written (so
 * 1.005 gives 1.01, where `toFixed` would give 1.00). Prices are never recomputed (docs/catalog-rules.md rule 6): the
 * POS's amount is only written out. `undefined` when `value` is not finite.
 *
 * @example formatMoney(129) // '129.00'
 */
export function formatMoney(value: number, decimalSeparator = '.'): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  const magnitude = Math.abs(value);
  // Beyond 2^53 cents a double has no cents left to round; such amounts are whole numbers anyway.
  if (magnitude >= 2 ** 53 / 100) return `${value < 0 ? '-' : ''}${plainDigits(Math.round(magnitude))}${decimalSeparator}00`;
  const text = String(magnitude);
  // Shifting the decimal exponent in text keeps 1.005 as 100.5 rather than 100.49999….
  const cents = text.includes('e') ? Math.round(magnitude * 100) : Math.round(Number(`${text}e2`));
  const whole = Math.floor(cents / 100);
  const fraction = cents - whole * 100;
  const sign = value < 0 && cents !== 0 ? '-' : '';
  return `${sign}${plainDigits(whole)}${decimalSeparator}${fraction < 10 ? '0' : ''}${fraction}`;
}
