/** GS1 check digit of the first 12 digits of an EAN-13 (weights 1,3,1,3,… from the left). */
export function ean13CheckDigit(first12: string): number {
  if (!/^\d{12}$/.test(first12)) throw new Error(`EAN-13 body must be 12 digits, got "${first12}"`);
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(first12.charAt(i)) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10;
}

/** Completes 12 digits to a valid EAN-13. */
export function toEan13(first12: string): string {
  return `${first12}${ean13CheckDigit(first12)}`;
}

export function isValidEan13(code: string): boolean {
  return /^\d{13}$/.test(code) && ean13CheckDigit(code.slice(0, 12)) === Number(code.charAt(12));
}
