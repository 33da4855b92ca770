/**
 * Rounds a given amount to 2 decimals, half away from zero, without the binary-float trap of
 * `Math.round(x * 100) / 100` (which turns 1.005 into 1). This is representation hygiene only:
 * prices are never recomputed (docs/catalog-rules.md rule 6); the POS's value is kept up to float noise.
 *
 * @example roundMoney(1.005) // 1.01
 */
export function roundMoney(value: number): number {
  return roundTo(value, 2);
}

/**
 * Rounds a stock quantity to 6 decimals: enough for any POS quantity (Shoptet allows 3), and it
 * removes the float noise of sums such as 0.1 + 0.2.
 */
export function roundQuantity(value: number): number {
  return roundTo(value, 6);
}

/** A usable amount of money: finite and not negative, rounded; otherwise `undefined`. */
export function toMoney(value: number | undefined): number | undefined {
  if (value === undefined || !Number.isFinite(value) || value < 0) return undefined;
  return roundMoney(value);
}

function roundTo(value: number, decimals: number): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** decimals;
  // Beyond 2^53 / factor a double has no room for those decimals: there is nothing to round.
  if (Math.abs(value) * factor >= Number.MAX_SAFE_INTEGER) return value;
  // Fast path: a value that already has at most `decimals` decimals (nearly every POS amount) is kept.
  if (Math.round(value * factor) / factor === value) return value === 0 ? 0 : value;
  const magnitude = Math.abs(value);
  const text = String(magnitude);
  // Shifting through the decimal exponent keeps 1.005 as "1.005e2" = 100.5 rather than 100.49999….
  // Numbers already printed in exponent form (tiny or huge) take the plain arithmetic path.
  const rounded = text.includes('e')
    ? Math.round(magnitude * factor) / factor
    : Number(`${Math.round(Number(`${text}e${decimals}`))}e-${decimals}`);
  if (rounded === 0) return 0;
  return value < 0 ? -rounded : rounded;
}
