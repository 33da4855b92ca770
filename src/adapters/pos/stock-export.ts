import type { StockColumn, StockColumnOverride, StockExportSkip, StockExportSummary } from '../../core/catalog/pos-documents.js';
import type { StockRow } from '../../core/catalog/source.js';
import { parseDecimal } from './parse-number.js';
import { headerError, type Layout, readSepHint, sniffLayout } from './stock-export-layout.js';
import { createRecordReader, detach, isBlank, NEEDS_MORE_TEXT, readRecords, type TextRecord } from './stock-export-records.js';
import { openStockText, STOCK_TEXT_PIECE_BYTES, type StockText } from './stock-export-text.js';

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
  /** Bytes decoded at a time (`STOCK_TEXT_PIECE_BYTES`); tests read across many small pieces. */
  readonly pieceBytes?: number;
}

/** The skip list keeps at most this many entries (the count stays exact), so memory stays bounded. */
export const MAX_SKIPS_REPORTED = 1000;

/** Bound of the table of repeated short values (`createValueSharing`). */
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
 * caller can keep them compactly (`createStockRowCollector`); each row object dies young. Bytes are decoded
 * a piece at a time (`stock-export-text.ts`): the rows are those of the whole text read at once.
 *
 * @throws StockExportParseError as `parseStockExport`.
 */
export function readStockExport(
  input: string | Uint8Array,
  onRow: (row: StockRow) => void,
  options: StockExportOptions = {},
): StockExportSummary {
  const override = options.columns ?? {};
  const document = openStockText(input);
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
    if (document.encoding !== undefined) summary.encoding = document.encoding;
    if (layout !== undefined) {
      summary.delimiter = layout.delimiter;
      summary.headerLine = layout.header.line;
    }
    return summary;
  }

  const pieceBytes = options.pieceBytes ?? STOCK_TEXT_PIECE_BYTES;
  const head = readHead(document, override, pieceBytes);
  // Blank lines only (or nothing at all): a valid export of nothing.
  if (head.layout === undefined) return summarize(undefined, 0);
  const { layout } = head;
  for (const record of layout.above) skip(record.line, 'line above the header');

  const readRow = createRowReader(layout.mapping.columns, skip, onRow);
  let rowsRead = 0;
  let { text, final } = head;
  let { offset, line } = layout.header.next;
  for (;;) {
    const reader = createRecordReader(text, layout.delimiter, offset, line, final);
    for (let record = reader.next(); record !== undefined; record = reader.next()) {
      if (isBlank(record.fields)) continue;
      rowsRead += 1;
      readRow(record);
    }
    if (final) break;
    // A record the piece did not hold whole is read again with the next piece after it.
    const resume = reader.resume();
    // As much again as the record left over, at least a piece: a quote that never closes is carried to the
    // end in a few steps, not re-read a piece at a time.
    const piece = document.next(Math.max(pieceBytes, text.length - resume.offset));
    text = text.slice(resume.offset) + piece.text;
    final = piece.final;
    offset = 0;
    line = resume.line;
  }
  return summarize(layout, rowsRead);
}

/** The start of the document, read until its layout is known: `layout` is absent for a document of blank lines. */
interface Head {
  readonly text: string;
  readonly final: boolean;
  readonly layout: Layout | undefined;
}

/**
 * The layout (an Excel `sep=` hint, the header, the delimiter) found in the first piece of the document, or
 * in more of it when the records it looks at run past the piece (a long title, a quoted field across lines).
 */
function readHead(document: StockText, override: StockColumnOverride, pieceBytes: number): Head {
  let piece = document.next(pieceBytes);
  let { text, final } = piece;
  for (;;) {
    try {
      const { start, startLine, forced } = readSepHint(text);
      if (readRecords(text, forced ?? ';', start, startLine, 1, final).length === 0) return { text, final, layout: undefined };
      const layout = sniffLayout(text, start, startLine, override, forced, final);
      if (layout === undefined) throw headerError(text, start, startLine, override, final);
      return { text, final, layout };
    } catch (error) {
      if (error !== NEEDS_MORE_TEXT) throw error;
      // As much again as read so far.
      piece = document.next(Math.max(pieceBytes, text.length));
      text += piece.text;
      final = piece.final;
    }
  }
}

/** Shared copies of short repeated values, bounded so that a hostile export cannot grow the table without limit. */
function createValueSharing(): (value: string) => string {
  const shared = new Map<string, string>();
  return (value) => {
    const known = shared.get(value);
    if (known !== undefined) return known;
    const copy = detach(value);
    if (shared.size < SHARED_VALUES_LIMIT) shared.set(copy, copy);
    return copy;
  };
}

/** Makes a row of each data record and hands it to `onRow`, or skips the record with the reason. */
function createRowReader(
  columns: Layout['mapping']['columns'],
  skip: (line: number, reason: string) => void,
  onRow: (row: StockRow) => void,
): (record: TextRecord) => void {
  // Row values outlive the text, so they must not be slices of it (see `detach`); values of the
  // low-cardinality columns (unit, measure unit) are shared instead of copied 100k times.
  const share = createValueSharing();
  return (record) => {
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
      return;
    }
    const rawQuantity = cell('quantity');
    if (rawQuantity === undefined) {
      skip(record.line, 'quantity is empty');
      return;
    }
    const quantity = parseDecimal(rawQuantity);
    if (quantity === undefined) {
      skip(record.line, `quantity ${JSON.stringify(rawQuantity)} is not a number`);
      return;
    }
    const row: { -readonly [K in keyof StockRow]: StockRow[K] } = { codes, quantity, line: record.line };
    const name = cell('name');
    if (name !== undefined) row.name = name;
    const measureUnit = cell('measureUnit');
    if (measureUnit !== undefined) row.measureUnit = measureUnit;
    const unit = cell('unit');
    if (unit !== undefined) row.unit = unit;
    onRow(row);
  };
}
