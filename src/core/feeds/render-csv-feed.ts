import { cleanText } from './clean-text.js';
import { CSV_DIALECTS, type CsvDialect } from './csv-dialect.js';
import type { FeedContext, FeedItem } from './feed-item.js';
import { createFeedReporter, FEED_CHUNK_SIZE, type FeedChunks } from './feed-report.js';
import { formatMoney, formatPlainNumber } from './format-number.js';
import { type ProductColumn, productColumns } from './product-columns.js';

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

type CellWriter = (item: FeedItem, context: FeedContext) => string;

/**
 * How the dialect writes a column (product-columns.ts): codes stay text in Excel, money has two
 * decimals, numbers are plain; numeric cells are never quoted or neutralised, so they sum in Excel.
 */
function cellWriter(dialect: CsvDialect, column: ProductColumn): CellWriter {
  const { value } = column;
  switch (column.type) {
    case 'code':
    case 'text': {
      const write = column.type === 'code' ? dialect.code : dialect.text;
      return (item, context) => {
        const text = value(item, context);
        return text === undefined ? '' : write(cleanText(String(text)));
      };
    }
    case 'money':
      return (item, context) => {
        const amount = value(item, context);
        return typeof amount === 'number' ? (formatMoney(amount, dialect.decimalSeparator) ?? '') : '';
      };
    case 'numberCode':
    case 'quantity':
      return (item, context) => {
        const number = value(item, context);
        return typeof number === 'number' ? (formatPlainNumber(number, dialect.decimalSeparator) ?? '') : '';
      };
  }
}

/**
 * The catalog as CSV (docs/http-interface.md, `products.csv`): a header row, then one row per item, in the
 * columns of product-columns.ts. Text is cleaned of the characters `cleanText` removes (C0/C1 controls,
 * lone surrogates, U+FFFE/U+FFFF); in the `excel` profile text cells are neutralised and codes kept as
 * text (csv-dialect.ts).
 *
 * @example collectFeed(renderCsvFeed(context, items, { profile: 'excel' })).body
 */
export function* renderCsvFeed(context: FeedContext, items: Iterable<FeedItem>, options: CsvFeedOptions = {}): FeedChunks {
  const dialect = CSV_DIALECTS[options.profile ?? 'rfc4180'];
  const { delimiter: d, newline } = dialect;
  const columns = productColumns(options.unitColumns);
  const cells = columns.map((column) => cellWriter(dialect, column));
  const reporter = createFeedReporter(options.profile === 'excel' ? `${CSV_FEED_NAME}?profile=excel` : CSV_FEED_NAME);
  let out = dialect.preamble + columns.map((column) => dialect.text(cleanText(column.header))).join(d) + newline;
  for (const item of items) {
    let row = '';
    for (let i = 0; i < cells.length; i++) row += (i === 0 ? '' : d) + (cells[i] as CellWriter)(item, context);
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
