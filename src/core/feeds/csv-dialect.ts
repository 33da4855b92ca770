/**
 * The delimited-text dialects. Values reach them already cleaned (`cleanText`).
 *
 * - `rfc4180`: `,`, CRLF, no BOM, `"` quoting when a field holds `,` `"` CR or LF; values exact
 *   (machine consumers, Meta catalog CSV). A template may swap the delimiter (`rfc4180With`).
 * - `excel`: the marketing download for Excel/LibreOffice in a Czech locale (docs/decisions/0003-feed-templates.md):
 *   UTF-8 BOM (else Excel guesses Windows-1250 and garbles diacritics), `;` (Czech list separator),
 *   CRLF, decimal comma in number and money cells (Czech Excel reads `1.5` as the date 1 May),
 *   text cells starting with `= + - @` TAB or CR prefixed with `'` (formula injection, OWASP), and
 *   code cells that Excel would turn into numbers or dates (EAN `0012…` losing its zero, `8594…`
 *   shown as `8,59E+12`) written as a quoted field starting with a TAB: Excel then keeps the cell as
 *   text and shows the digits; `="0123"` would be a formula, and a plain quoted `"0123"` is still
 *   converted. See docs/decisions/0003-feed-templates.md.
 * - `tsv`: Google's tab-delimited form: TAB, LF, no quoting; TAB, CR and LF inside values become spaces.
 */
export type CsvDialectName = 'rfc4180' | 'excel' | 'tsv';

export interface CsvDialect {
  readonly name: CsvDialectName;
  readonly delimiter: string;
  readonly newline: string;
  /** Written once at the start of the body. */
  readonly preamble: string;
  readonly decimalSeparator: '.' | ',';
  /** A text cell. */
  readonly text: (value: string) => string;
  /** A cell holding a code (EAN, ids) that must stay text. */
  readonly code: (value: string) => string;
}

const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER_OR_DATE_LIKE = /^[0-9][0-9.,:/ eE+-]*$/;

function quoted(value: string): string {
  return `"${value.includes('"') ? value.replace(/"/g, '""') : value}"`;
}

function rfcText(value: string): string {
  return /[",\r\n]/.test(value) ? quoted(value) : value;
}

/** A value a spreadsheet would read as a formula (`= + - @` TAB or CR first), prefixed with `'` (OWASP's rule). */
export function withoutFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** The excel dialect's text cell: formula neutralisation, then quoting. Exported for tests and docs. */
export function excelText(value: string): string {
  const safe = withoutFormula(value);
  return /[";\r\n]/.test(safe) ? quoted(safe) : safe;
}

/** A formula character after a separator a spreadsheet may split on: `,` `;` TAB, CR or LF. */
const FORMULA_AFTER_SEPARATOR = /([,;\t\r\n])(?=[=+\-@])/g;

/**
 * `value` with no formula at its start nor after a separator inside it. A CSV opened in a spreadsheet of
 * another locale is split at that locale's list separator, quotes or not: a Czech Excel splits an RFC 4180
 * file at `;`, so `x;=1+1` inside one field became a cell `=1+1`.
 */
function withoutFormulas(value: string): string {
  return withoutFormula(value).replace(FORMULA_AFTER_SEPARATOR, "$1'");
}

/**
 * `dialect` for a file meant for people whatever its profile (the admin catalog with purchase prices, opened in
 * spreadsheets): no text or code cell starts a formula, wherever the spreadsheet splits the line.
 */
export function formulaSafe(dialect: CsvDialect): CsvDialect {
  return {
    ...dialect,
    text: (value) => dialect.text(withoutFormulas(value)),
    code: (value) => dialect.code(withoutFormulas(value)),
  };
}

/**
 * A code Excel would turn into a number or a date (`0040000001454`, `8594000000013`) as the constant
 * formula `="…"`: Excel and LibreOffice show it as text, zeros kept, and its value is exactly the digits
 * (decision 0003). Safe as a formula: the value holds only digits and `. , : / space e E + -`.
 */
function excelCode(value: string): string {
  return NUMBER_OR_DATE_LIKE.test(value) ? quoted(`="${value}"`) : excelText(value);
}

function tsvText(value: string): string {
  return /[\t\r\n]/.test(value) ? value.replace(/[\t\r\n]/g, ' ') : value;
}

/** Field delimiters a `csv` template may choose (`"delimiter"`); `,` is RFC 4180's own. */
export const CSV_DELIMITERS = [',', ';', '|'] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

/**
 * The rfc4180 dialect with another field delimiter: the same rules (CRLF, no BOM, values exact), a field
 * quoted when it holds the delimiter, `"`, CR or LF. For importers whose default is not `,` (PrestaShop
 * reads `;`). Numbers keep the dot: only the excel dialect writes a decimal comma.
 */
export function rfc4180With(delimiter: CsvDelimiter): CsvDialect {
  if (delimiter === ',') return CSV_DIALECTS.rfc4180;
  // `;` and `|` are literal inside a character class.
  const special = new RegExp(`["\r\n${delimiter}]`);
  const text = (value: string): string => (special.test(value) ? quoted(value) : value);
  return { ...CSV_DIALECTS.rfc4180, delimiter, text, code: text };
}

export const CSV_DIALECTS: Readonly<Record<CsvDialectName, CsvDialect>> = {
  rfc4180: {
    name: 'rfc4180',
    delimiter: ',',
    newline: '\r\n',
    preamble: '',
    decimalSeparator: '.',
    text: rfcText,
    code: rfcText,
  },
  excel: {
    name: 'excel',
    delimiter: ';',
    newline: '\r\n',
    preamble: '\uFEFF',
    decimalSeparator: ',',
    text: excelText,
    code: excelCode,
  },
  tsv: { name: 'tsv', delimiter: '\t', newline: '\n', preamble: '', decimalSeparator: '.', text: tsvText, code: tsvText },
};
