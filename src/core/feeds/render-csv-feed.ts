import { cleanText } from './clean-text.js';
import { CSV_DIALECTS, type CsvDialect } from './csv-dialect.js';
import type { FeedContext, FeedItem } from './feed-item.js';
import { createFeedReporter, FEED_CHUNK_SIZE, type FeedChunks } from './feed-report.js';
import { formatMoney, formatPlainNumber } from './format-number.js';

export type CsvProfile = 'rfc4180' | 'excel';

export interface CsvFeedOptions {
  /** `rfc4180` (default): `,`, CRLF, exact values. `excel`: BOM, `;`, decimal comma, Excel-safe cells. */
  readonly profile?: CsvProfile;
  /**
   * Unit codes that get a `stock:{unit}` column each (the `all` view: stock per unit side by side,
   * what the marketing team asks for). Empty or absent: no per-unit columns.
   */
  readonly unitColumns?: readonly string[];
}

/** Name of the CSV feed in reports. */
export const CSV_FEED_NAME = 'products.csv';

/**
 * The columns of products.csv, in order: the JSON feed's item fields (same names) plus `currency`.
 * `code` columns stay text in Excel; `money` has two decimals; `number` is plain.
 */
export const CSV_FEED_COLUMNS = [
  ['id', 'code'],
  ['name', 'text'],
  ['ean', 'code'],
  ['plu', 'number'],
  ['internalIdentifier', 'code'],
  ['groupId', 'code'],
  ['measureUnit', 'text'],
  ['price', 'money'],
  ['salePrice', 'money'],
  ['standardPrice', 'money'],
  ['currency', 'text'],
  ['stock', 'number'],
  ['availability', 'text'],
  ['link', 'text'],
  ['imageLink', 'text'],
] as const;

function textCell(dialect: CsvDialect, value: string | undefined): string {
  return value === undefined ? '' : dialect.text(cleanText(value));
}

function codeCell(dialect: CsvDialect, value: string | undefined): string {
  return value === undefined ? '' : dialect.code(cleanText(value));
}

function numberCell(dialect: CsvDialect, value: number | undefined): string {
  return value === undefined ? '' : (formatPlainNumber(value, dialect.decimalSeparator) ?? '');
}

function moneyCell(dialect: CsvDialect, value: number | undefined): string {
  return value === undefined ? '' : (formatMoney(value, dialect.decimalSeparator) ?? '');
}

/**
 * The catalog as CSV (docs/http-interface.md, `products.csv`): a header row, then one row per item. Text is cleaned of
 * the characters `cleanText` removes (C0/C1 controls, lone surrogates, U+FFFE/U+FFFF); in the `excel`
 * profile text cells are neutralised and codes kept as text (csv-dialect.ts).
 *
 * @example collectFeed(renderCsvFeed(context, items, { profile: 'excel' })).body
 */
export function* renderCsvFeed(context: FeedContext, items: Iterable<FeedItem>, options: CsvFeedOptions = {}): FeedChunks {
  const dialect = CSV_DIALECTS[options.profile ?? 'rfc4180'];
  const { delimiter: d, newline } = dialect;
  const units = options.unitColumns ?? [];
  const reporter = createFeedReporter(options.profile === 'excel' ? `${CSV_FEED_NAME}?profile=excel` : CSV_FEED_NAME);
  const headers = [...CSV_FEED_COLUMNS.map(([name]) => name), ...units.map((unit) => `stock:${unit}`)];
  let out = dialect.preamble + headers.map((header) => dialect.text(cleanText(header))).join(d) + newline;
  const currency = textCell(dialect, context.currency);
  for (const item of items) {
    let row =
      codeCell(dialect, item.id) +
      d +
      textCell(dialect, item.name) +
      d +
      codeCell(dialect, item.ean) +
      d +
      numberCell(dialect, item.plu) +
      d +
      codeCell(dialect, item.internalIdentifier) +
      d +
      codeCell(dialect, item.groupId) +
      d +
      textCell(dialect, item.measureUnit) +
      d +
      moneyCell(dialect, item.price) +
      d +
      moneyCell(dialect, item.salePrice) +
      d +
      moneyCell(dialect, item.standardPrice) +
      d +
      currency +
      d +
      numberCell(dialect, item.stock) +
      d +
      item.availability +
      d +
      textCell(dialect, item.link) +
      d +
      textCell(dialect, item.imageLink);
    for (const unit of units) {
      row += d + numberCell(dialect, item.offers.find((offer) => offer.unit === unit)?.stock);
    }
    out += row + newline;
    reporter.items++;
    if (out.length >= FEED_CHUNK_SIZE) {
      yield out;
      out = '';
    }
  }
  reporter.records = reporter.items;
  yield out;
  return reporter.report();
}
