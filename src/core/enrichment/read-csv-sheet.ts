import { CsvError, parse } from 'csv-parse/sync';
import type { EnrichmentCollector } from './collect-enrichment-rows.js';
import { quoteValue } from './enrichment-problems.js';
import { type SheetCell, textCell } from './sheet-cells.js';

/**
 * A CSV enrichment sheet, any dialect Excel or Google Sheets writes (docs/enrichment.md#formats): the
 * delimiter sniffed from the header line, quoted fields with line breaks in them, CRLF, LF or CR, an
 * Excel `sep=;` first line honoured. Records go to the collector as they are parsed (none are kept).
 */

export type CsvDelimiter = ';' | ',' | '\t';

export type CsvSheetRead =
  | { readonly ok: true; readonly delimiter: CsvDelimiter }
  | { readonly ok: false; readonly error: string };

/** Ties go to the earlier: `;` is what Czech Excel writes, `,` Google Sheets. */
const DELIMITERS: readonly CsvDelimiter[] = [';', ',', '\t'];

const CR = 0x0d;
const LF = 0x0a;
const QUOTE = 0x22;
const EQUALS = 0x3d;

/** Thrown from inside the parser to stop it early: the collector has what it needs. */
const STOP = new Error('enrichment sheet: reading stopped');

/**
 * Parses `utf8` (the sheet as UTF-8 bytes, no BOM) and hands each record to `collector` with the 1-based
 * line where it starts. `ok: false` when the text is not CSV (an unclosed quote).
 */
export function readCsvSheet(utf8: Buffer, collector: EnrichmentCollector, maxCellChars: number): CsvSheetRead {
  const sep = readSepLine(utf8);
  const text = utf8.subarray(sep.start);
  const delimiter = sep.delimiter ?? sniffDelimiter(text);
  const lines = createLineCounter(text, sep.lines);
  let recordEnd = 0;
  try {
    parse(text, {
      delimiter,
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      on_record: (record: string[], context) => {
        const line = lines.lineAt(skipLineBreaks(text, recordEnd));
        recordEnd = context.bytes;
        const cells = record.map((raw) => csvCell(raw, maxCellChars));
        if (!collector.record(line, cells)) throw STOP;
        return null;
      },
    });
  } catch (error) {
    if (error === STOP) return { ok: true, delimiter };
    if (!(error instanceof CsvError)) throw error;
    const line = lines.lineAt(skipLineBreaks(text, recordEnd));
    if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
      return {
        ok: false,
        error: `the CSV cannot be read: a quote opened in the record starting on line ${line} is never closed`,
      };
    }
    return { ok: false, error: `the CSV cannot be read after the record starting on line ${line}: ${error.message}` };
  }
  return { ok: true, delimiter };
}

/**
 * A cell's text. `="…"` is Excel's idiom for text that must stay text (codes with leading zeros, which this
 * bridge's own CSV feeds write too): its literal counts. Any other formula is not evaluated.
 */
function csvCell(raw: string, maxCellChars: number): SheetCell {
  const cell = textCell(raw, maxCellChars);
  if (typeof cell !== 'string' || cell.charCodeAt(0) !== EQUALS) return cell;
  const literal = formulaText(cell);
  if (literal === undefined) return { issue: 'formula', message: `a formula is not evaluated: ${quoteValue(cell)}` };
  const trimmed = literal.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** The text of `="…"` (quotes doubled inside), or `undefined` for any other formula (`="a"&B2`). */
function formulaText(cell: string): string | undefined {
  if (cell.length < 3 || cell.charCodeAt(1) !== QUOTE || cell.charCodeAt(cell.length - 1) !== QUOTE) return undefined;
  const inner = cell.slice(2, -1);
  for (let index = 0; index < inner.length; index += 1) {
    if (inner.charCodeAt(index) !== QUOTE) continue;
    if (inner.charCodeAt(index + 1) !== QUOTE) return undefined;
    index += 1;
  }
  return inner.replaceAll('""', '"');
}

/** Excel's `sep=;` hint line: its delimiter, and where the sheet starts after it. */
function readSepLine(bytes: Buffer): { delimiter?: CsvDelimiter; start: number; lines: number } {
  if (bytes.length < 5 || bytes.subarray(0, 4).toString('latin1').toLowerCase() !== 'sep=') return { start: 0, lines: 0 };
  const delimiter = DELIMITERS.find((candidate) => candidate.charCodeAt(0) === bytes[4]);
  const after = bytes[5];
  if (delimiter === undefined || (after !== undefined && after !== CR && after !== LF)) return { start: 0, lines: 0 };
  const start = after === CR && bytes[6] === LF ? 7 : after === undefined ? 5 : 6;
  return { delimiter, start, lines: 1 };
}

/** The delimiter that occurs most often outside quotes in the first non-blank line. */
function sniffDelimiter(text: Buffer): CsvDelimiter {
  const counts = new Map<number, number>(DELIMITERS.map((delimiter) => [delimiter.charCodeAt(0), 0]));
  let quoted = false;
  for (let index = skipLineBreaks(text, 0); index < text.length; index += 1) {
    const byte = text[index] as number;
    if (byte === QUOTE) quoted = !quoted;
    else if (!quoted && (byte === CR || byte === LF)) break;
    else if (!quoted && counts.has(byte)) counts.set(byte, (counts.get(byte) ?? 0) + 1);
  }
  let best: CsvDelimiter = ';';
  for (const delimiter of DELIMITERS) {
    if ((counts.get(delimiter.charCodeAt(0)) ?? 0) > (counts.get(best.charCodeAt(0)) ?? 0)) best = delimiter;
  }
  return best;
}

/** The first offset from `from` that is not a line break: where a record starts after skipped blank lines. */
function skipLineBreaks(text: Buffer, from: number): number {
  let index = from;
  while (index < text.length && (text[index] === CR || text[index] === LF)) index += 1;
  return index;
}

/**
 * 1-based line numbers of offsets asked in increasing order, counted in one pass over the text. CRLF, LF
 * and a lone CR each end a line, as they do for the parser.
 */
function createLineCounter(text: Buffer, linesBefore: number) {
  let offset = 0;
  let breaks = linesBefore;
  return {
    lineAt(target: number): number {
      for (; offset < target && offset < text.length; offset += 1) {
        const byte = text[offset];
        if (byte === CR || (byte === LF && text[offset - 1] !== CR)) breaks += 1;
      }
      return breaks + 1;
    },
  };
}
