import { cleanText } from './clean-text.js';
import type { FeedContext, FeedItem } from './feed-item.js';
import { formatPlainNumber } from './format-number.js';
import type { ProductColumn } from './product-columns.js';

/**
 * The catalog as spreadsheet cells (`products.xlsx`): the columns of products.csv (product-columns.ts),
 * but typed, so that the workbook opens the same in every locale. A CSV cell is text that Excel parses
 * with the locale's separators (the Excel CSV is right only in a Czech one); a workbook cell is a number
 * or a string, and only its display follows the locale.
 *
 * - Codes (id, EAN, PLU, internal identifier, group) and text are **strings**: `0036000291452` keeps its
 *   zero and `8594000000013` is never `8,59E+12`. A string cell is never a formula, whatever it starts
 *   with (`=`, `+`, `@`): the writer stores it as a string value, so no apostrophe is needed.
 * - Money and stock are **numbers**, with a number format: money `#,##0.00`; stock `#,##0` with the
 *   decimals the value has (at most six), so `76.131` kg reads `76,131` in Czech and `76.131` in English
 *   and an integer never shows a stray separator.
 *
 * Pure: the writer (services/feeds/xlsx-feed.ts) turns these into a workbook.
 */

/** One cell: a string cell, a number cell, or no cell. */
export type SheetCell = string | number | undefined;

/** How a column's cells are shown: `text` (format `@`), `money`, or `quantity` (decimals per value). */
export type SheetColumnFormat = 'text' | 'money' | 'quantity';

export interface SheetColumn {
  readonly header: string;
  readonly format: SheetColumnFormat;
  /** In characters. */
  readonly width: number;
}

/** Number format of money cells: thousands grouped, two decimals (the separators are the reader's locale's). */
export const MONEY_FORMAT = '#,##0.00';
/** Number format of text cells: what a user types into them stays text too. */
export const TEXT_FORMAT = '@';
/** Excel keeps at most this many characters in a cell; a longer one makes it report the file as damaged. */
export const MAX_CELL_TEXT = 32_767;
/** Decimals a stock cell shows at most (the value itself is kept exactly). */
const MAX_QUANTITY_DECIMALS = 6;

/**
 * The number format of a stock cell: grouped thousands and exactly the decimals of `value` (rounded to
 * six places first, so binary noise such as `0.30000000000000004` shows as `0.3`).
 *
 * @example quantityFormat(76.131) // '#,##0.000'
 */
export function quantityFormat(value: number): string {
  if (Number.isInteger(value)) return '#,##0';
  const text = formatPlainNumber(Number(value.toFixed(MAX_QUANTITY_DECIMALS))) ?? '';
  const point = text.indexOf('.');
  const decimals = point === -1 ? 0 : text.length - point - 1;
  return decimals === 0 ? '#,##0' : `#,##0.${'0'.repeat(decimals)}`;
}

/** The text as a cell holds it: cleaned (cleanText), at most MAX_CELL_TEXT UTF-16 units, a surrogate pair never cut. */
function cellText(value: string): string | undefined {
  const text = cleanText(value);
  if (text === '') return undefined;
  if (text.length <= MAX_CELL_TEXT) return text;
  const last = text.charCodeAt(MAX_CELL_TEXT - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_CELL_TEXT - 1 : MAX_CELL_TEXT);
}

function finite(value: string | number | undefined): number | undefined {
  // `+ 0` turns -0 into 0: a sheet would show "-0".
  return typeof value === 'number' && Number.isFinite(value) ? value + 0 : undefined;
}

const FORMAT_OF_TYPE: Readonly<Record<ProductColumn['type'], SheetColumnFormat>> = {
  code: 'text',
  numberCode: 'text',
  text: 'text',
  money: 'money',
  quantity: 'quantity',
};

/** The workbook's columns for `columns` (product-columns.ts), in the same order. */
export function sheetColumns(columns: readonly ProductColumn[]): SheetColumn[] {
  return columns.map((column) => ({ header: column.header, format: FORMAT_OF_TYPE[column.type], width: column.width }));
}

/** One cell of `column` for `item`. */
export function sheetCell(column: ProductColumn, item: FeedItem, context: FeedContext): SheetCell {
  const value = column.value(item, context);
  switch (column.type) {
    case 'code':
    case 'text':
      return value === undefined ? undefined : cellText(String(value));
    case 'numberCode': {
      const number = finite(value);
      return number === undefined ? (typeof value === 'string' ? cellText(value) : undefined) : formatPlainNumber(number);
    }
    case 'money':
    case 'quantity':
      return finite(value);
  }
}

/** The row of `item`: one cell per column, in order. */
export function sheetRow(columns: readonly ProductColumn[], item: FeedItem, context: FeedContext): SheetCell[] {
  return columns.map((column) => sheetCell(column, item, context));
}
