import type { StockColumnOverride, StockDelimiter } from '../../core/catalog/pos-documents.js';
import { StockExportParseError } from './parse-errors.js';
import { type Mapping, mapHeader, SYNONYMS } from './stock-export-columns.js';
import { detach, readRecords, type TextRecord } from './stock-export-records.js';

/** How a stock export is laid out: an Excel `sep=` hint, the delimiter and which line is the header. */

const CANDIDATE_DELIMITERS: readonly StockDelimiter[] = [';', '\t', ',', '|'];

function isDelimiter(value: string): value is StockDelimiter {
  return (CANDIDATE_DELIMITERS as readonly string[]).includes(value);
}
/** Title lines tolerated above the header. */
const HEADER_SEARCH_RECORDS = 5;
/** Data records after a candidate header used to judge a delimiter and the `unit` column. */
const SAMPLE_RECORDS = 20;

export interface Layout {
  readonly delimiter: StockDelimiter;
  readonly header: TextRecord;
  readonly mapping: Mapping;
  /** Records above the header (title lines). */
  readonly above: readonly TextRecord[];
  /** How many sampled data records have as many fields as the header. */
  readonly consistency: number;
}

/**
 * Tries every delimiter and each of the first few records as the header; the winner is the earliest
 * header that maps, then the delimiter whose data rows agree best with the header's width.
 */
export function sniffLayout(
  text: string,
  start: number,
  startLine: number,
  override: StockColumnOverride,
  forced: StockDelimiter | undefined,
  final = true,
): Layout | undefined {
  let best: { layout: Layout; headerIndex: number; priority: number } | undefined;
  const delimiters = forced === undefined ? CANDIDATE_DELIMITERS : [forced];
  for (const [priority, delimiter] of delimiters.entries()) {
    const records = readRecords(text, delimiter, start, startLine, HEADER_SEARCH_RECORDS + SAMPLE_RECORDS, final);
    for (let headerIndex = 0; headerIndex < Math.min(HEADER_SEARCH_RECORDS, records.length); headerIndex += 1) {
      const header = records[headerIndex];
      if (header === undefined || header.fields.length < 2) continue;
      const sample = records.slice(headerIndex + 1, headerIndex + 1 + SAMPLE_RECORDS);
      const mapping = mapHeader(header.fields, override, sample);
      if (mapping.problems.length > 0) continue;
      let consistency = 0;
      for (const record of sample) if (record.fields.length === header.fields.length) consistency += 1;
      const layout = { delimiter, header, mapping, above: records.slice(0, headerIndex), consistency };
      if (best === undefined || isBetter(headerIndex, layout, priority, best)) best = { layout, headerIndex, priority };
      break;
    }
  }
  return best?.layout;
}

function isBetter(
  headerIndex: number,
  layout: Layout,
  priority: number,
  best: { layout: Layout; headerIndex: number; priority: number },
): boolean {
  if (headerIndex !== best.headerIndex) return headerIndex < best.headerIndex;
  if (layout.consistency !== best.layout.consistency) return layout.consistency > best.layout.consistency;
  if (layout.header.fields.length !== best.layout.header.fields.length) {
    return layout.header.fields.length > best.layout.header.fields.length;
  }
  return priority < best.priority;
}

/** Builds the error for a document none of whose first lines is a usable header. */
export function headerError(
  text: string,
  start: number,
  startLine: number,
  override: StockColumnOverride,
  final = true,
): StockExportParseError {
  // Show the first line as the delimiter that splits it most would: that is what the operator should recognise.
  let shown: TextRecord | undefined;
  for (const delimiter of CANDIDATE_DELIMITERS) {
    const [first] = readRecords(text, delimiter, start, startLine, 1, final);
    if (first !== undefined && (shown === undefined || first.fields.length > shown.fields.length)) shown = first;
  }
  const header = (shown?.fields ?? []).map((cell) => detach(cell.trim()));
  const problems = mapHeader(header, override, []).problems;
  const accepted = [
    `quantity: ${SYNONYMS.quantity.join(', ')}`,
    `code: ${SYNONYMS.code.join(', ')}`,
    `PLU: ${SYNONYMS.plu.join(', ')}`,
    `EAN: ${SYNONYMS.ean.join(', ')}`,
  ].join('; ');
  const message =
    `stock export has no usable header: line ${shown?.line ?? startLine} reads ${JSON.stringify(header)} ` +
    `(${problems.join(', ')}). Accepted column names (case and diacritics ignored) - ${accepted}. ` +
    'Other names can be configured with POS_STOCK_COLUMNS, e.g. code=Kód,quantity=Množství.';
  return new StockExportParseError(message, { line: shown?.line ?? startLine, header });
}

/** Excel's "sep=;" hint line names the delimiter and is not part of the data: where the data starts, and the delimiter. */
export function readSepHint(text: string): { start: number; startLine: number; forced?: StockDelimiter } {
  const hint = /^sep=(.)[ \t]*(\r\n|\r|\n|$)/i.exec(text);
  const hinted = hint?.[1];
  if (hint !== null && hinted !== undefined && isDelimiter(hinted))
    return { start: hint[0].length, startLine: 2, forced: hinted };
  return { start: 0, startLine: 1 };
}
