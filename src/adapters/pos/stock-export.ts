import type { StockColumn, StockColumnOverride, StockExportSkip, StockExportSummary } from '../../core/catalog/pos-documents.js';
import type { StockRow } from '../../core/catalog/source.js';
import { parseDecimal } from './parse-number.js';
import { decode, headerError, type Layout, readSepHint, sniffLayout } from './stock-export-layout.js';
import { createRecordReader, detach, isBlank, readRecords } from './stock-export-records.js';

/**
 * Tolerant parser of the POS stock export (interface 4.6/4.7, `text/plain`). Nothing public describes
 * its layout (docs/pos-interface.md, the stock export), so the parser assumes only "delimited text with a header row" and
 * discovers the rest (docs/catalog-rules.md rule 4):
 * - bytes are UTF-8, else windows-1250 (what Czech Windows tools write); a BOM is dropped;
 * - CRLF, LF and CR line ends; RFC 4180 quoting (`"a;b"`, `"say ""hi"""`);
 * - the delimiter is sniffed among `;` `\t` `,` `|` (an Excel `sep=;` first line is honoured);
 * - the header is found among the first lines (title lines above it are reported and skipped) and its
 *   columns are mapped by name, case- and diacritics-insensitively, from Czech and English synonyms;
 *   the operator's override (`POS_STOCK_COLUMNS`) wins;
 * - quantities in any common spelling (`parseDecimal`).
 *
 * The bare English header `unit` is ambiguous: the POS API calls a sales point (středisko) a "unit",
 * while exports often label the measure unit so. It is read as the sales point, except when another
 * column already is the sales point, or when every sampled value looks like a measure unit (`ks`, `kg`,
 * `pcs`, ...), in which case it is the measure unit. An override settles it for good.
 *
 * A bad row (no code, unreadable quantity) is skipped and reported; only a document without a usable
 * header throws, always as `StockExportParseError`. Layout detection is `stock-export-layout.ts`, column
 * naming `stock-export-columns.ts`, record splitting `stock-export-records.ts`; the rows are read here.
 */

export interface StockExportOptions {
  readonly columns?: StockColumnOverride;
}

/** The skip list keeps at most this many entries (the count stays exact), so memory stays bounded. */
export const MAX_SKIPS_REPORTED = 1000;

/** Bound of the table of repeated short values, so a hostile export cannot grow it without limit. */
const SHARED_VALUES_LIMIT = 10_000;

/**
 * Parses a stock export into rows, one per data record with a code and a readable quantity.
 *
 * @throws StockExportParseError when none of the first lines is a header with a quantity column and an
 *   identifying (code, PLU or EAN) column, or when an override names a column the header lacks.
 * @example
 * const { rows, summary } = parseStockExport(body, { columns: { quantity: 'Zůstatek' } });
 */
export function parseStockExport(
  input: string | Uint8Array,
  options: StockExportOptions = {},
): { rows: StockRow[]; summary: StockExportSummary } {
  const rows: StockRow[] = [];
  const summary = readStockExport(input, (row) => rows.push(row), options);
  return { rows, summary };
}

/**
 * `parseStockExport` that hands each row to `onRow` as it is read instead of collecting them, so that a
 * caller can keep them compactly (`createStockRowCollector`); each row object dies young.
 *
 * @throws StockExportParseError as `parseStockExport`.
 */
export function readStockExport(
  input: string | Uint8Array,
  onRow: (row: StockRow) => void,
  options: StockExportOptions = {},
): StockExportSummary {
  const override = options.columns ?? {};
  const { text, encoding } = decode(input);
  const skipped: StockExportSkip[] = [];
  let skippedCount = 0;
  function skip(line: number, reason: string): void {
    skippedCount += 1;
    if (skipped.length < MAX_SKIPS_REPORTED) skipped.push({ line, reason });
  }
  function summarize(layout: Layout | undefined, rowsRead: number): StockExportSummary {
    const summary: { -readonly [K in keyof StockExportSummary]: StockExportSummary[K] } = {
      header: layout?.header.fields.map((field) => detach(field.trim())) ?? [],
      mapping: layout?.mapping.columns ?? {},
      rowsRead,
      skipped,
      skippedCount,
    };
    if (encoding !== undefined) summary.encoding = encoding;
    if (layout !== undefined) {
      summary.delimiter = layout.delimiter;
      summary.headerLine = layout.header.line;
    }
    return summary;
  }

  const { start, startLine, forced } = readSepHint(text);

  // Blank lines only (or nothing at all): a valid export of nothing.
  if (readRecords(text, forced ?? ';', start, startLine, 1).length === 0) return summarize(undefined, 0);

  const layout = sniffLayout(text, start, startLine, override, forced);
  if (layout === undefined) throw headerError(text, start, startLine, override);
  for (const record of layout.above) skip(record.line, 'line above the header');

  const columns = layout.mapping.columns;
  const reader = createRecordReader(text, layout.delimiter, layout.header.next.offset, layout.header.next.line);

  // Row values outlive the text, so they must not be slices of it (see `detach`); values of the
  // low-cardinality columns (unit, measure unit) are shared instead of copied 100k times.
  const shared = new Map<string, string>();
  function share(value: string): string {
    const known = shared.get(value);
    if (known !== undefined) return known;
    const copy = detach(value);
    if (shared.size < SHARED_VALUES_LIMIT) shared.set(copy, copy);
    return copy;
  }

  let rowsRead = 0;
  for (let record = reader.next(); record !== undefined; record = reader.next()) {
    if (isBlank(record.fields)) continue;
    rowsRead += 1;
    const cell = (column: StockColumn): string | undefined => {
      const match = columns[column];
      if (match === undefined) return undefined;
      const value = record.fields[match.index]?.trim();
      if (value === undefined || value === '') return undefined;
      if (column === 'quantity') return value; // parsed, never kept
      return column === 'unit' || column === 'measureUnit' ? share(value) : detach(value);
    };
    const codes: { code?: string; plu?: string; ean?: string } = {};
    const code = cell('code');
    if (code !== undefined) codes.code = code;
    const plu = cell('plu');
    if (plu !== undefined) codes.plu = plu;
    const ean = cell('ean');
    if (ean !== undefined) codes.ean = ean;
    if (code === undefined && plu === undefined && ean === undefined) {
      skip(record.line, 'no code, PLU or EAN');
      continue;
    }
    const rawQuantity = cell('quantity');
    if (rawQuantity === undefined) {
      skip(record.line, 'quantity is empty');
      continue;
    }
    const quantity = parseDecimal(rawQuantity);
    if (quantity === undefined) {
      skip(record.line, `quantity ${JSON.stringify(rawQuantity)} is not a number`);
      continue;
    }
    const row: { -readonly [K in keyof StockRow]: StockRow[K] } = { codes, quantity, line: record.line };
    const name = cell('name');
    if (name !== undefined) row.name = name;
    const measureUnit = cell('measureUnit');
    if (measureUnit !== undefined) row.measureUnit = measureUnit;
    const unit = cell('unit');
    if (unit !== undefined) row.unit = unit;
    onRow(row);
  }

  return summarize(layout, rowsRead);
}
