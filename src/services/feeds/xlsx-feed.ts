import { Writable } from 'node:stream';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type ExcelJS from 'exceljs';
import type { CollectedFeed } from '../../core/feeds/collect-feed.js';
import type { FeedContext, FeedItem } from '../../core/feeds/feed-item.js';
import { createFeedReporter } from '../../core/feeds/feed-report.js';
import { productColumns } from '../../core/feeds/product-columns.js';
import {
  MONEY_FORMAT,
  quantityFormat,
  type SheetColumn,
  type SheetColumnFormat,
  sheetColumns,
  sheetRow,
  TEXT_FORMAT,
} from '../../core/feeds/spreadsheet-rows.js';

/** The workbook feed's file (URL segment and report name). */
export const XLSX_FEED_FILE = 'products.xlsx';
export const XLSX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export interface XlsxFeedOptions {
  /** Unit codes that get a `stock:{unit}` column each, as in products.csv (the `all` view). */
  readonly unitColumns?: readonly string[];
  /**
   * Let the event loop run after this much work (ms): for the calling thread's renderer. Whatever it
   * says, the writer waits for the zip stream every ROWS_PER_TURN rows, so the sheet's XML is
   * compressed as it is written instead of piling up in memory.
   */
  readonly sliceMs?: number;
}

/** Rows written between two waits for the zip stream. */
const ROWS_PER_TURN = 500;
const SHEET_NAME = 'products';

type CellStyle = Partial<ExcelJS.Style>;

/**
 * One style object per format, shared by every cell: exceljs looks styles up by object identity first,
 * so shared objects cost nothing per cell.
 */
function createStyles() {
  const quantity = new Map<string, CellStyle>();
  return {
    text: { numFmt: TEXT_FORMAT } satisfies CellStyle,
    money: { numFmt: MONEY_FORMAT } satisfies CellStyle,
    header: { font: { bold: true }, numFmt: TEXT_FORMAT } satisfies CellStyle,
    quantity(value: number): CellStyle {
      const format = quantityFormat(value);
      let style = quantity.get(format);
      if (style === undefined) {
        style = { numFmt: format };
        quantity.set(format, style);
      }
      return style;
    },
  };
}

/** `A`, `B`, …, `Z`, `AA`, … for 1, 2, …, 26, 27, … */
function columnLetter(index: number): string {
  let letters = '';
  for (let n = index; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** Collects the zip's bytes. */
function createSink(): { stream: Writable; body(): Buffer } {
  const parts: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      parts.push(chunk);
      callback();
    },
  });
  return { stream, body: () => Buffer.concat(parts) };
}

type ZipAppend = (source: unknown, data: object) => unknown;

/**
 * exceljs's streaming writer, with every zip entry dated at the workbook's `created` time (the catalog's
 * time) instead of the moment it was written: the same catalog version gives the same bytes, so a
 * render repeated in a worker or after a cache eviction matches the ETag already given out. The
 * constructor creates the zip and then adds the theme and the package relationships through these two
 * methods, so they are where the archiver's `append` can be wrapped before the first entry. Checked by
 * the unit test (every entry's date, two renders byte for byte).
 *
 * exceljs (about 800 modules with its dependencies) is loaded on the first workbook, not with this module:
 * every render thread and the main thread import this module, and most never write a workbook.
 */
function defineReproducibleWriter(excel: typeof ExcelJS) {
  return class ReproducibleWorkbookWriter extends excel.stream.xlsx.WorkbookWriter {
    override addThemes(): Promise<void> {
      this.stampZipEntries();
      return super.addThemes();
    }

    override addOfficeRels(): Promise<void> {
      this.stampZipEntries();
      return super.addOfficeRels();
    }

    private stampZipEntries(): void {
      const zip = (this as unknown as { zip?: { append?: ZipAppend; stamped?: true } }).zip;
      const append = zip?.append;
      if (zip === undefined || typeof append !== 'function' || zip.stamped === true) return;
      const date = this.created;
      zip.append = (source, data) => append.call(zip, source, { ...data, date });
      zip.stamped = true;
    }
  };
}

type ReproducibleWriterClass = ReturnType<typeof defineReproducibleWriter>;
let writerClass: Promise<ReproducibleWriterClass> | undefined;

function loadWriterClass(): Promise<ReproducibleWriterClass> {
  writerClass ??= import('exceljs').then(({ default: excel }) => defineReproducibleWriter(excel));
  return writerClass;
}

type Styles = ReturnType<typeof createStyles>;

/** The style of a cell of a column; a quantity's format follows its value. */
function styleOf(styles: Styles, format: SheetColumnFormat | undefined, value: string | number): CellStyle {
  if (format === 'money') return styles.money;
  if (format === 'quantity' && typeof value === 'number') return styles.quantity(value);
  return format === 'quantity' ? {} : styles.text;
}

/** The workbook and its one sheet, with column widths and formats and the bold, frozen header row written. */
function openWorkbook(
  Writer: ReproducibleWriterClass,
  layout: readonly SheetColumn[],
  styles: Styles,
  date: Date,
  stream: Writable,
) {
  // The document properties are read by the constructor (exceljs's typings do not list them).
  const writerOptions = {
    stream,
    useStyles: true,
    useSharedStrings: false,
    zip: { zlib: { level: 6 } },
    creator: 'catalog-bridge',
    lastModifiedBy: 'catalog-bridge',
    created: date,
    modified: date,
  };
  const workbook = new Writer(writerOptions);
  const sheet = workbook.addWorksheet(SHEET_NAME, {
    views: [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2', activeCell: 'A2' }],
  });
  sheet.columns = layout.map((column) => ({
    width: column.width,
    style: column.format === 'quantity' ? {} : styleOf(styles, column.format, ''),
  }));
  const header = sheet.addRow([]);
  for (const [index, column] of layout.entries()) {
    const cell = header.getCell(index + 1);
    cell.value = column.header;
    cell.style = styles.header;
  }
  header.commit();
  return { workbook, sheet };
}

/**
 * The catalog as an Excel workbook (`products.xlsx`): one sheet, a bold header row that stays in view
 * (frozen) with an autofilter, column widths, then one row per item in the columns of products.csv,
 * typed and formatted by spreadsheet-rows.ts. Written by exceljs's streaming writer: rows are zipped as
 * they are written, so memory holds the compressed body, not the sheet's XML.
 */
export async function renderXlsxFeed(
  context: FeedContext,
  items: Iterable<FeedItem>,
  options: XlsxFeedOptions = {},
): Promise<CollectedFeed> {
  const columns = productColumns(options.unitColumns);
  const layout = sheetColumns(columns);
  const styles = createStyles();
  const sink = createSink();
  const { workbook, sheet } = openWorkbook(await loadWriterClass(), layout, styles, new Date(context.generatedAt), sink.stream);
  const reporter = createFeedReporter(XLSX_FEED_FILE);
  const sliceMs = options.sliceMs ?? Number.POSITIVE_INFINITY;
  let slice = performance.now();
  for (const item of items) {
    const row = sheet.addRow([]);
    for (const [index, value] of sheetRow(columns, item, context).entries()) {
      if (value === undefined) continue;
      const cell = row.getCell(index + 1);
      cell.value = value;
      cell.style = styleOf(styles, layout[index]?.format, value);
    }
    row.commit();
    reporter.items++;
    if (reporter.items % ROWS_PER_TURN === 0 || performance.now() - slice > sliceMs) {
      await yieldToEventLoop();
      slice = performance.now();
    }
  }
  reporter.records = reporter.items;
  sheet.autoFilter = `A1:${columnLetter(layout.length)}${reporter.items + 1}`;
  sheet.commit();
  await workbook.commit();
  return { body: sink.body(), report: reporter.report() };
}
