/**
 * A GTIN as channels accept it, or `undefined`. Google and Heureka reject invalid GTINs, and Google
 * disapproves items whose GTIN is wrong, so a doubtful code is left out rather than sent.
 *
 * Accepted: 8, 12, 13 or 14 digits (spaces and dashes ignored, as Google does) with a correct GS1 check
 * digit, not all zeros, and not a restricted-circulation number: POS systems print those for weighed
 * goods and in-store labels (GTIN-13 prefixes 02, 04, 05, 2, 98, 99 — which include the GTIN-12 prefixes
 * 2, 4 and 5 — and GTIN-8 prefixes 0 and 2). They are not trade items' GTINs.
 *
 * @example normalizeGtin('8594000000013') // '8594000000013'
 */
export function normalizeGtin(value: string): string | undefined {
  const digits = /[\s-]/.test(value) ? value.replace(/[\s-]/g, '') : value;
  if (!/^(?:\d{8}|\d{12,14})$/.test(digits) || /^0+$/.test(digits)) return undefined;
  let sum = 0;
  let weight = 3;
  for (let i = digits.length - 2; i >= 0; i--) {
    sum += (digits.charCodeAt(i) - 48) * weight;
    weight = 4 - weight;
  }
  if ((10 - (sum % 10)) % 10 !== digits.charCodeAt(digits.length - 1) - 48) return undefined;
  if (digits.length === 8) return /^[02]/.test(digits) ? undefined : digits;
  if (digits.length === 14) return digits;
  const gtin13 = digits.length === 12 ? `0${digits}` : digits;
  return /^(?:0[245]|2|98|99)/.test(gtin13) ? undefined : digits;
}

/** Why a code is not a GTIN channels accept (`normalizeGtin` gives `undefined`), or `undefined` when it is one. */
export type GtinProblem = 'length' | 'zeros' | 'check-digit' | 'restricted';

export function gtinProblemOf(value: string): GtinProblem | undefined {
  if (normalizeGtin(value) !== undefined) return undefined;
  const digits = value.replace(/[\s-]/g, '');
  if (!/^(?:\d{8}|\d{12,14})$/.test(digits)) return 'length';
  if (/^0+$/.test(digits)) return 'zeros';
  // Same digits with the check digit made right: accepted unless the number is for in-store use only.
  const body = digits.slice(0, -1);
  for (let check = 0; check <= 9; check++) {
    if (normalizeGtin(`${body}${check}`) !== undefined) return 'check-digit';
  }
  return 'restricted';
}
