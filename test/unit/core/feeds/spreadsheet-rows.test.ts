import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { collectFeed } from '../../../../src/core/feeds/collect-feed.js';
import type { FeedItem } from '../../../../src/core/feeds/feed-item.js';
import { PRODUCT_COLUMNS, productColumns } from '../../../../src/core/feeds/product-columns.js';
import { renderCsvFeed } from '../../../../src/core/feeds/render-csv-feed.js';
import {
  MAX_CELL_TEXT,
  quantityFormat,
  type SheetCell,
  sheetColumns,
  sheetRow,
} from '../../../../src/core/feeds/spreadsheet-rows.js';
import { FIXTURE_CONTEXT, FIXTURE_ITEMS } from './feed-fixture.js';

const UNITS = ['PRG', 'BRN'];
const columns = productColumns(UNITS);

function item(id: string): FeedItem {
  const found = FIXTURE_ITEMS.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`no fixture item ${id}`);
  return found;
}

/** The row of an item as a record by header, so the assertions read like the sheet. */
function rowOf(feedItem: FeedItem): Record<string, SheetCell> {
  const cells = sheetRow(columns, feedItem, FIXTURE_CONTEXT);
  return Object.fromEntries(columns.map((column, index) => [column.header, cells[index]]));
}

describe('core/feeds/spreadsheet-rows', () => {
  it('has the columns of products.csv, in its order, with the per-unit stock of the all view', () => {
    const csv = collectFeed(renderCsvFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS, { unitColumns: UNITS })).body;
    const [csvHeader] = parse(csv, { to_line: 1 }) as string[][];

    expect(sheetColumns(columns).map((column) => column.header)).toEqual(csvHeader);
    expect(sheetColumns(productColumns()).map((column) => column.header)).toEqual(PRODUCT_COLUMNS.map((column) => column.header));
  });

  it('formats codes and text as text, money as money and stock by its decimals, with a width for every column', () => {
    const layout = Object.fromEntries(sheetColumns(columns).map((column) => [column.header, column]));

    for (const header of ['id', 'name', 'ean', 'plu', 'internalIdentifier', 'groupId', 'currency', 'availability', 'link']) {
      expect(layout[header]?.format, header).toBe('text');
    }
    for (const header of ['price', 'salePrice', 'standardPrice']) expect(layout[header]?.format, header).toBe('money');
    for (const header of ['stock', 'stock:PRG', 'stock:BRN']) expect(layout[header]?.format, header).toBe('quantity');
    for (const column of sheetColumns(columns)) expect(column.width).toBeGreaterThanOrEqual(column.header.length);
  });

  it('keeps an EAN with a leading zero, the PLU and the codes as strings; money and stock as numbers', () => {
    expect(rowOf(item('a-1002'))).toMatchObject({
      id: 'a-1002',
      ean: '0036000291452',
      currency: 'CZK',
      stock: 3,
      'stock:PRG': 3,
      'stock:BRN': 0,
      availability: 'in_stock',
    });
    expect(rowOf(item('a-1001'))).toMatchObject({
      ean: '8594000000013',
      plu: '1001',
      internalIdentifier: 'KAV-1',
      groupId: 'g-7',
      price: 129,
      salePrice: 99,
      standardPrice: 149,
      stock: 12,
    });
    expect(rowOf(item('a-1008'))).toMatchObject({ price: 1234.5, stock: 0.5, 'stock:PRG': 0.5 });
  });

  it('leaves absent values as no cell (not an empty string, not 0)', () => {
    const row = rowOf(item('a-1003'));

    expect(row['ean']).toBeUndefined();
    expect(row['plu']).toBeUndefined();
    expect(row['salePrice']).toBeUndefined();
    expect(row['stock:BRN']).toBeUndefined();
  });

  it('writes formula-like text as the same string (a string cell is never evaluated) and cleans control characters', () => {
    expect(rowOf(item('a-1009'))).toMatchObject({
      name: '=HYPERLINK("http://evil.example";"klik")',
      ean: '+420123',
      internalIdentifier: '-5',
      groupId: '@g',
    });
    expect(rowOf(item('a-1003'))['name']).toBe('Hrnek modrý s potiskem');
    expect(rowOf(item('a-1004'))['name']).toBe('Dort &eacute;clair 🎂 ☕');
  });

  it('gives only finite numbers, and 0 for -0', () => {
    const base = item('a-1001');
    const row = rowOf({ ...base, price: Number.NaN, stock: -0, salePrice: Number.POSITIVE_INFINITY, plu: Number.NaN });

    expect(row['price']).toBeUndefined();
    expect(row['salePrice']).toBeUndefined();
    expect(Object.is(row['stock'], 0)).toBe(true);
    expect(row['plu']).toBeUndefined();
  });

  it('cuts text to what a cell holds, never through a surrogate pair', () => {
    const base = item('a-1001');
    const long = rowOf({ ...base, name: 'x'.repeat(MAX_CELL_TEXT + 10) })['name'];
    const emojiAtTheEdge = rowOf({ ...base, name: `${'x'.repeat(MAX_CELL_TEXT - 1)}🎂tail` })['name'];

    expect(long).toHaveLength(MAX_CELL_TEXT);
    expect(emojiAtTheEdge).toBe('x'.repeat(MAX_CELL_TEXT - 1));
  });

  it('never has a purchase price column', () => {
    expect(columns.map((column) => column.header).join(' ')).not.toMatch(/purchase/i);
  });

  it.each([
    [12, '#,##0'],
    [0, '#,##0'],
    [-3, '#,##0'],
    [76.131, '#,##0.000'],
    [0.5, '#,##0.0'],
    [0.1 + 0.2, '#,##0.0'],
    [1.23456789, '#,##0.000000'],
    [0.0000001, '#,##0'],
  ])('formats a stock of %d as %s', (value, format) => {
    expect(quantityFormat(value)).toBe(format);
  });
});
