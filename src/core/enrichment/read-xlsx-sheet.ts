import type ExcelJS from 'exceljs';
import type { EnrichmentCollector } from './collect-enrichment-rows.js';
import { type SheetCell, textCell } from './sheet-cells.js';
import { zipDeclaredSize } from './zip-declared-size.js';

/**
 * An .xlsx enrichment sheet (docs/enrichment.md#formats): the worksheet named `enrichment`, else the first;
 * each cell as the text a marketer sees in it (an EAN typed as a number is its digits, not `8.59E+12`).
 */

/** The worksheet read when a workbook has several. */
const SHEET_NAME = 'enrichment';

/** The most a workbook may unpack to (its XML is ~10× its ZIP): 100,000 rows of text fit well within. */
const MAX_UNPACKED_BYTES = 512 * 1_048_576;

/** Up to 15 significant digits (what Excel keeps), never an exponent, no grouping. */
const DECIMAL = new Intl.NumberFormat('en-US', { useGrouping: false, maximumSignificantDigits: 15 });

/** Hands each non-empty row of the sheet to `collector` with its row number; the error when it cannot. */
export async function readXlsxSheet(
  bytes: Uint8Array,
  collector: EnrichmentCollector,
  maxCellChars: number,
): Promise<string | undefined> {
  const declared = zipDeclaredSize(bytes);
  if (declared === undefined) return 'the file is not a readable .xlsx workbook (its ZIP directory cannot be read)';
  if (declared > MAX_UNPACKED_BYTES) {
    return `the workbook unpacks to ${Math.round(declared / 1_048_576)} MiB, more than the ${MAX_UNPACKED_BYTES / 1_048_576} MiB read; save only the enrichment sheet, without images`;
  }
  // Loaded on the first workbook only: exceljs is heavy, and most sheets are CSV (a worker thread starts faster).
  const { default: excel } = await import('exceljs');
  const workbook = new excel.Workbook();
  try {
    // exceljs declares a Buffer type of its own; a Node Buffer over the same bytes is what it reads (no copy).
    await workbook.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ExcelJS.Buffer);
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 200) : 'unknown error';
    return `the file is not a readable .xlsx workbook (${reason})`;
  }
  const sheet =
    workbook.worksheets.find((candidate) => candidate.name.trim().toLowerCase() === SHEET_NAME) ?? workbook.worksheets[0];
  if (sheet === undefined) return 'the workbook has no worksheet';
  let reading = true;
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    if (!reading) return;
    const cells: SheetCell[] = [];
    for (let column = 1; column <= row.cellCount; column += 1) cells.push(xlsxCell(row.getCell(column), maxCellChars));
    reading = collector.record(rowNumber, cells);
  });
  return undefined;
}

function xlsxCell(cell: ExcelJS.Cell, maxCellChars: number): SheetCell {
  // A merged range has its value in its top-left cell only, as Excel shows it.
  if (cell.isMerged && cell.master !== cell) return undefined;
  return cellValue(cell.value, maxCellChars);
}

function cellValue(value: ExcelJS.CellValue, maxCellChars: number): SheetCell {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return textCell(value, maxCellChars);
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) return dateText(value);
  if ('error' in value) return { issue: 'invalid-value', message: `the cell holds the error ${value.error}` };
  if ('richText' in value) return textCell(richText(value), maxCellChars);
  if ('hyperlink' in value) {
    // exceljs gives a hyperlink's text as rich text when it is formatted.
    const text = plainText(value.text as unknown);
    return textCell(text.trim() === '' ? value.hyperlink : text, maxCellChars);
  }
  if (value.result === undefined) {
    return { issue: 'formula', message: 'a formula without a value (the workbook was saved without calculating it)' };
  }
  return cellValue(value.result, maxCellChars);
}

function richText(value: ExcelJS.CellRichTextValue): string {
  return value.richText.map((run) => run.text).join('');
}

function plainText(text: unknown): string {
  if (typeof text === 'string') return text;
  if (typeof text === 'object' && text !== null && 'richText' in text && Array.isArray(text.richText)) {
    return text.richText
      .map((run: unknown) => (typeof run === 'object' && run !== null && 'text' in run ? String(run.text) : ''))
      .join('');
  }
  return '';
}

/** Integers as integers (an EAN typed as a number keeps every digit), other numbers without float noise. */
function numberText(value: number): SheetCell {
  if (!Number.isFinite(value)) return { issue: 'invalid-value', message: `the cell holds the number ${value}` };
  return Number.isSafeInteger(value) ? String(value) : DECIMAL.format(value);
}

/** A date as an ISO date (`2026-03-01`), with the time only when it has one. */
function dateText(value: Date): SheetCell {
  const time = value.getTime();
  if (Number.isNaN(time)) return { issue: 'invalid-value', message: 'the cell holds an invalid date' };
  const iso = value.toISOString();
  return time % 86_400_000 === 0 ? iso.slice(0, 10) : iso;
}
