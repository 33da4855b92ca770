import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { productColumns } from '../../../../src/core/feeds/product-columns.js';
import { MONEY_FORMAT, sheetRow, TEXT_FORMAT } from '../../../../src/core/feeds/spreadsheet-rows.js';
import { renderXlsxFeed, XLSX_FEED_FILE } from '../../../../src/services/feeds/xlsx-feed.js';
import { FIXTURE_CONTEXT, FIXTURE_ITEMS } from '../../core/feeds/feed-fixture.js';

const UNITS = ['PRG', 'BRN'];

async function readWorkbook(body: Buffer): Promise<ExcelJS.Worksheet> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(body as unknown as ExcelJS.Buffer);
  const sheet = workbook.worksheets[0];
  if (sheet === undefined) throw new Error('the workbook has no sheet');
  return sheet;
}

/** Name and DOS date/time of every entry in a zip's central directory (what `unzip -l` lists). */
function zipEntries(zip: Buffer): { name: string; date: number; time: number }[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  const entries: { name: string; date: number; time: number }[] = [];
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(offset)).toBe(0x02014b50);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    entries.push({
      name: zip.toString('utf8', offset + 46, offset + 46 + nameLength),
      time: zip.readUInt16LE(offset + 12),
      date: zip.readUInt16LE(offset + 14),
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

const rendered = await renderXlsxFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS, { unitColumns: UNITS });
const sheet = await readWorkbook(rendered.body);
const headers = productColumns(UNITS).map((column) => column.header);

function cellOf(itemId: string, header: string): ExcelJS.Cell {
  const row = FIXTURE_ITEMS.findIndex((item) => item.id === itemId);
  const column = headers.indexOf(header);
  if (row === -1 || column === -1) throw new Error(`no cell ${itemId}/${header}`);
  return sheet.getRow(row + 2).getCell(column + 1);
}

describe('services/feeds/xlsx-feed', () => {
  it('writes a header row, then one row per item, and reports them', () => {
    expect(sheet.actualRowCount).toBe(FIXTURE_ITEMS.length + 1);
    expect(sheet.getRow(1).values).toEqual([undefined, ...headers]);
    expect(rendered.report).toMatchObject({
      feed: XLSX_FEED_FILE,
      items: FIXTURE_ITEMS.length,
      records: FIXTURE_ITEMS.length,
      dropped: 0,
      filtered: 0,
    });
  });

  it('writes every cell as the mapping says: strings as strings, numbers as numbers, absent values as no cell', () => {
    const columns = productColumns(UNITS);
    for (const [index, item] of FIXTURE_ITEMS.entries()) {
      const expected = sheetRow(columns, item, FIXTURE_CONTEXT);
      const row = sheet.getRow(index + 2);
      for (const [column, value] of expected.entries()) {
        const cell = row.getCell(column + 1);
        expect(cell.value ?? undefined, `${item.id} ${headers[column]}`).toEqual(value);
      }
    }
  });

  it('keeps an EAN with a leading zero and the PLU as text cells, and the price as a number with two decimals', () => {
    const ean = cellOf('a-1002', 'ean');
    const plu = cellOf('a-1001', 'plu');
    const price = cellOf('a-1008', 'price');

    expect(ean.type).toBe(ExcelJS.ValueType.String);
    expect(ean.value).toBe('0036000291452');
    expect(ean.numFmt).toBe(TEXT_FORMAT);
    expect(plu.type).toBe(ExcelJS.ValueType.String);
    expect(plu.value).toBe('1001');
    expect(price.type).toBe(ExcelJS.ValueType.Number);
    expect(price.value).toBe(1234.5);
    expect(price.numFmt).toBe(MONEY_FORMAT);
  });

  it('formats stock with the decimals it has', () => {
    expect(cellOf('a-1008', 'stock')).toMatchObject({ type: ExcelJS.ValueType.Number, value: 0.5, numFmt: '#,##0.0' });
    expect(cellOf('a-1001', 'stock')).toMatchObject({ type: ExcelJS.ValueType.Number, value: 12, numFmt: '#,##0' });
    expect(cellOf('a-1006', 'stock:BRN')).toMatchObject({ type: ExcelJS.ValueType.Number, value: -1 });
  });

  it('stores formula-like text as a string, never as a formula', () => {
    for (const header of ['name', 'ean', 'internalIdentifier', 'groupId']) {
      const cell = cellOf('a-1009', header);
      expect(cell.type, header).toBe(ExcelJS.ValueType.String);
      expect(cell.formula, header).toBeUndefined();
    }
    expect(cellOf('a-1009', 'name').value).toBe('=HYPERLINK("http://evil.example";"klik")');
  });

  it('freezes the bold header row, filters it, and sets every column width', () => {
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(sheet.autoFilter).toBe(`A1:AE${FIXTURE_ITEMS.length + 1}`);
    for (const [index, column] of productColumns(UNITS).entries()) {
      expect(sheet.getColumn(index + 1).width, column.header).toBe(column.width);
    }
  });

  it('gives the same bytes for the same catalog version, every zip entry dated at the catalog time', async () => {
    const again = await renderXlsxFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS, { unitColumns: UNITS, sliceMs: 0 });
    // 2026-11-22T10:00:00Z in DOS form (UTC): the catalog's time, not the moment of the render.
    const dosDate = ((2026 - 1980) << 9) | (11 << 5) | 22;
    const dosTime = 10 << 11;

    expect(again.body.equals(rendered.body)).toBe(true);
    const entries = zipEntries(rendered.body);
    expect(entries.map((entry) => entry.name)).toContain('xl/worksheets/sheet1.xml');
    for (const entry of entries)
      expect({ name: entry.name, date: entry.date, time: entry.time }).toEqual({ ...entry, date: dosDate, time: dosTime });
  });

  it('writes an empty catalog as a header row alone', async () => {
    const empty = await renderXlsxFeed(FIXTURE_CONTEXT, []);
    const emptySheet = await readWorkbook(empty.body);

    expect(emptySheet.actualRowCount).toBe(1);
    expect(empty.report.items).toBe(0);
  });
});
