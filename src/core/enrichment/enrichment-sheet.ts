import type { ProductEnrichment } from '../catalog/catalog.js';
import { createEnrichmentCollector } from './collect-enrichment-rows.js';
import { decodeSheetText } from './decode-sheet-text.js';
import type { EnrichmentRowSink } from './enrichment-table.js';
import { readCsvSheet } from './read-csv-sheet.js';
import { readXlsxSheet } from './read-xlsx-sheet.js';

/**
 * The marketer's enrichment sheet (docs/enrichment.md): a CSV or .xlsx of extra product data keyed by an
 * identifying column, read into validated values per product row and per article group (`group:{id}` rows).
 * Pure: bytes in, values and problems out. Hostile input gives `ok: false` or problems, never a throw.
 */

export const ENRICHMENT_KEY_COLUMNS = ['id', 'ean', 'plu', 'internalIdentifier', 'code'] as const;

export type EnrichmentKeyColumn = (typeof ENRICHMENT_KEY_COLUMNS)[number];

export type EnrichmentValues = ProductEnrichment;

export interface EnrichmentRow {
  /** 1-based: the CSV line where the record starts, or the sheet row number of an .xlsx. */
  readonly line: number;
  /** The key cell, trimmed (for a group row: the `localGroupId` after `group:`). */
  readonly key: string;
  readonly values: EnrichmentValues;
}

export type EnrichmentProblemCode =
  | 'unknown-column'
  | 'ignored-key-column'
  | 'empty-key'
  | 'duplicate-key'
  | 'group-column'
  | 'invalid-value'
  | 'too-long'
  | 'formula'
  | 'too-many-images'
  | 'too-many-rows';

export interface EnrichmentProblem {
  readonly code: EnrichmentProblemCode;
  readonly line?: number;
  /** The column's header as written in the sheet. */
  readonly column?: string;
  readonly message: string;
}

export interface EnrichmentSheet {
  readonly format: 'csv' | 'xlsx';
  readonly encoding?: 'utf-8' | 'utf-16le' | 'windows-1250';
  readonly delimiter?: ';' | ',' | '\t';
  readonly keyColumn: EnrichmentKeyColumn;
  /** The recognised value columns (not the key column), canonical names (`image_link`), in sheet order. */
  readonly columns: readonly string[];
  /** Product rows, sheet order, duplicates removed. */
  readonly rows: readonly EnrichmentRow[];
  /** Group rows (key = the localGroupId). */
  readonly groups: readonly EnrichmentRow[];
  readonly problemCount: number;
  readonly problemCounts: Partial<Record<EnrichmentProblemCode, number>>;
  /** The first `maxProblemExamples` problems. */
  readonly problems: readonly EnrichmentProblem[];
}

export type EnrichmentSheetResult = ({ readonly ok: true } & EnrichmentSheet) | { readonly ok: false; readonly error: string };

export interface EnrichmentLimits {
  /** A larger sheet fails as a whole. */
  readonly maxBytes: number;
  /** Data rows read; later rows are ignored (`too-many-rows`). */
  readonly maxRows: number;
  /** A longer cell is a problem and ignored, checked before any work on its value. */
  readonly maxCellChars: number;
  /** Problems kept as examples (all are counted). */
  readonly maxProblemExamples: number;
}

export const DEFAULT_ENRICHMENT_LIMITS: EnrichmentLimits = {
  maxBytes: 64 * 1024 * 1024,
  maxRows: 1_000_000,
  maxCellChars: 100_000,
  maxProblemExamples: 200,
};

export interface EnrichmentSheetHint {
  readonly name?: string;
  readonly contentType?: string;
}

const XLSX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const ZIP_SIGNATURE = [0x50, 0x4b, 0x03, 0x04] as const;
/** An OLE2 compound file: the Excel 97-2003 `.xls` format. */
const OLE2_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0] as const;

/**
 * Reads an enrichment sheet: `.xlsx` when the bytes are a ZIP (or the hint says xlsx), else CSV in any
 * dialect Excel or Google Sheets writes (docs/enrichment.md#formats).
 *
 * @example
 * const sheet = await readEnrichmentSheet(bytes, { name: 'enrichment.csv' });
 * if (sheet.ok) console.log(sheet.rows.length, sheet.problemCounts);
 */
export async function readEnrichmentSheet(
  bytes: Uint8Array,
  hint: EnrichmentSheetHint,
  limits?: Partial<EnrichmentLimits>,
  /** Takes the product rows as they are read (the result's `rows` is then empty): `compile-enrichment.ts`. */
  sink?: EnrichmentRowSink,
): Promise<EnrichmentSheetResult> {
  const resolved: EnrichmentLimits = { ...DEFAULT_ENRICHMENT_LIMITS, ...limits };
  if (bytes.byteLength > resolved.maxBytes) {
    return { ok: false, error: `the sheet has ${bytes.byteLength} bytes, more than the limit of ${resolved.maxBytes}` };
  }
  if (startsWith(bytes, OLE2_SIGNATURE)) {
    return { ok: false, error: 'an Excel 97-2003 workbook (.xls) cannot be read: save it as .xlsx or CSV' };
  }
  const collector = createEnrichmentCollector(resolved, sink);
  if (isXlsx(bytes, hint)) {
    const error = await readXlsxSheet(bytes, collector, resolved.maxCellChars);
    return error === undefined ? collector.finish({ format: 'xlsx' }) : { ok: false, error };
  }
  const decoded = decodeSheetText(bytes);
  if (!decoded.ok) return decoded;
  const read = readCsvSheet(decoded.utf8, collector, resolved.maxCellChars);
  if (!read.ok) return read;
  return collector.finish({ format: 'csv', encoding: decoded.encoding, delimiter: read.delimiter });
}

function isXlsx(bytes: Uint8Array, hint: EnrichmentSheetHint): boolean {
  if (startsWith(bytes, ZIP_SIGNATURE)) return true;
  if (hint.name?.trim().toLowerCase().endsWith('.xlsx') === true) return true;
  return hint.contentType?.split(';')[0]?.trim().toLowerCase() === XLSX_CONTENT_TYPE;
}

function startsWith(bytes: Uint8Array, signature: readonly number[]): boolean {
  return signature.every((byte, index) => bytes[index] === byte);
}
