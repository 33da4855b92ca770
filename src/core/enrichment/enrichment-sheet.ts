import { createEnrichmentCollector } from './collect-enrichment-rows.js';
import { decodeSheetText } from './decode-sheet-text.js';
import type { EnrichmentRowSink } from './enrichment-table.js';
import {
  DEFAULT_ENRICHMENT_LIMITS,
  type EnrichmentLimits,
  type EnrichmentSheetHint,
  type EnrichmentSheetResult,
} from './enrichment-types.js';
import { readCsvSheet } from './read-csv-sheet.js';
import { readXlsxSheet } from './read-xlsx-sheet.js';

/**
 * The marketer's enrichment sheet (docs/enrichment.md): a CSV or .xlsx of extra product data keyed by an
 * identifying column, read into validated values per product row and per article group (`group:{id}` rows).
 * Pure: bytes in, values and problems out. Hostile input gives `ok: false` or problems, never a throw.
 */

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
