/**
 * Number parsing shared by the tolerant POS parsers (price-list XML and stock export).
 *
 * Shoptet XML writes dot decimals, while Czech spreadsheets and CSV exports write decimal commas and
 * group thousands with spaces (often NBSP or narrow NBSP) or dots (docs/pos-interface.md, quirk 8). The
 * stock export's layout is undocumented, so every common spelling is accepted, but a spelling that is
 * ambiguous in a way that could silently scale a value (`12 34`, `1.23.4`) is rejected instead.
 */

/** Characters used to group thousands: space, NBSP, narrow NBSP, thin space, figure space. */
const GROUP_SPACES = '[ \\u00A0\\u202F\\u2009\\u2007]';

/** At most one separator: it is always the decimal one (`1.234` is 1.234, `1,5` is 1.5). */
const PLAIN = /^(\d*)(?:[.,](\d*))?$/;

/**
 * Grouped forms: the thousands separator repeats in groups of exactly three digits, and the decimal
 * separator, if any, is the other character. Tried only after PLAIN, so a single `.` or `,` never
 * counts as grouping.
 */
const GROUPED: readonly { readonly pattern: RegExp; readonly group: RegExp }[] = [
  { pattern: new RegExp(`^(\\d{1,3}(?:${GROUP_SPACES}\\d{3})+)(?:[.,](\\d*))?$`), group: new RegExp(GROUP_SPACES, 'g') },
  { pattern: /^(\d{1,3}(?:\.\d{3})+)(?:,(\d*))?$/, group: /\./g },
  { pattern: /^(\d{1,3}(?:,\d{3})+)(?:\.(\d*))?$/, group: /,/g },
];

/**
 * Parses a decimal number as POS exports and e-shop feeds write it.
 *
 * Accepts an optional sign (`+`, `-`, U+2212), dot or comma decimals and thousands grouped by spaces
 * (incl. NBSP / narrow NBSP), dots (with a comma decimal) or commas (with a dot decimal). Returns
 * `undefined` for empty text, anything else and values outside the finite double range.
 *
 * @example
 * parseDecimal('1 234,50'); // 1234.5
 * parseDecimal('1.234,50'); // 1234.5
 * parseDecimal('12.000'); // 12 (Shoptet writes amounts with 3 decimals)
 * parseDecimal('12 ks'); // undefined
 */
export function parseDecimal(text: string): number | undefined {
  const digits = plainDecimal(text);
  if (digits !== undefined) return digits;
  let rest = text.trim();
  let sign = 1;
  const first = rest.charAt(0);
  if (first === '+' || first === '-' || first === '\u2212') {
    sign = first === '+' ? 1 : -1;
    rest = rest.slice(1);
  }
  const plain = PLAIN.exec(rest);
  if (plain !== null) {
    const integer = plain[1] ?? '';
    const fraction = plain[2] ?? '';
    return toNumber(sign, integer, fraction);
  }
  for (const { pattern, group } of GROUPED) {
    const grouped = pattern.exec(rest);
    if (grouped === null) continue;
    return toNumber(sign, (grouped[1] ?? '').replace(group, ''), grouped[2] ?? '');
  }
  return undefined;
}

/**
 * Digits with at most one `.` (how every price and amount of a Shoptet price list is written): the same
 * number as the general path gives, without its regular expression (measured: parsed a few million times
 * per sync). `undefined` for anything else, which the general path then reads.
 */
function plainDecimal(text: string): number | undefined {
  const length = text.length;
  if (length === 0 || length > 300) return undefined;
  let dot = -1;
  for (let index = 0; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x2e && dot < 0) dot = index;
    else if (code < 0x30 || code > 0x39) return undefined;
  }
  if (length === 1 && dot === 0) return undefined;
  const value = Number(text);
  return value === 0 ? 0 : value;
}

function toNumber(sign: number, integer: string, fraction: string): number | undefined {
  if (integer === '' && fraction === '') return undefined;
  const value = sign * Number(`${integer === '' ? '0' : integer}.${fraction === '' ? '0' : fraction}`);
  // `-0` would print as 0 but compare unequal with Object.is; stock and prices never mean "negative zero".
  if (value === 0) return 0;
  return Number.isFinite(value) ? value : undefined;
}
