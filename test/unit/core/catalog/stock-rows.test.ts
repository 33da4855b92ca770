import { describe, expect, it } from 'vitest';
import { createRowCodes } from '../../../../src/core/catalog/row-codes.js';
import type { StockRow } from '../../../../src/core/catalog/source.js';
import { asStockRows, createStockRowCollector, stockRowsOf } from '../../../../src/core/catalog/stock-rows.js';

describe('core/catalog/row-codes', () => {
  it("gives back each row's present codes, absent ones absent, across pages and blocks", () => {
    const codes = createRowCodes();
    const rows = Array.from({ length: 10_000 }, (_, i) => ({
      code: i % 5 === 0 ? undefined : `Č-${i}`,
      ean: i % 3 === 0 ? `859${String(i).padStart(10, '0')}` : undefined,
      plu: i % 7 === 0 ? String(i) : undefined,
    }));
    for (const row of rows) codes.push(row.code, row.ean, row.plu);

    for (const index of [0, 1, 3, 4_095, 4_096, 9_999]) {
      const row = rows[index];
      const expected = Object.fromEntries(Object.entries(row ?? {}).filter(([, value]) => value !== undefined));
      expect(codes.readInto(index, {})).toStrictEqual(expected);
    }
  });

  it('keeps long and non-ASCII codes exactly; a code too long to store counts as absent', () => {
    const codes = createRowCodes();
    const long = `Ž${'x'.repeat(20_000)}€`;
    codes.push(long, '', 'ř');
    codes.push('A'.repeat(70_000), undefined, '1');

    expect(codes.readInto(0, {})).toStrictEqual({ code: long, ean: '', plu: 'ř' });
    expect(codes.readInto(1, {})).toStrictEqual({ plu: '1' });
    expect(codes.readInto(2, { code: 'kept' })).toStrictEqual({ code: 'kept' });
  });
});

describe('core/catalog/stock-rows', () => {
  const ROWS: StockRow[] = [
    { codes: { code: 'KAV-1', plu: '1', ean: '8594000000017' }, quantity: 12, line: 2, name: 'Káva', measureUnit: 'ks' },
    { codes: { ean: '8594000000024' }, quantity: -2.5, line: 3 },
    { codes: { plu: '7' }, quantity: Number.NaN, line: 5 },
  ];

  it('keeps codes, quantity and line of each row, whatever the quantity', () => {
    const collector = createStockRowCollector();
    for (const row of ROWS) collector.push(row);

    expect(collector.length).toBe(3);
    expect(collector.codes(0)).toStrictEqual({ code: 'KAV-1', ean: '8594000000017', plu: '1' });
    expect(collector.codes(1)).toStrictEqual({ ean: '8594000000024' });
    expect([0, 1, 2].map((index) => collector.quantity(index))).toStrictEqual([12, -2.5, Number.NaN]);
    expect([0, 1, 2].map((index) => collector.line(index))).toStrictEqual([2, 3, 5]);
    for (const index of [-1, 3]) {
      expect(collector.codes(index)).toBeUndefined();
      expect(collector.quantity(index)).toBeUndefined();
      expect(collector.line(index)).toBeUndefined();
    }
  });

  it('grows past a block', () => {
    const collector = createStockRowCollector();
    for (let i = 0; i < 9_000; i += 1) collector.push({ codes: { code: `C-${i}` }, quantity: i / 4, line: i + 2 });

    expect(collector.length).toBe(9_000);
    expect(collector.codes(8_999)).toStrictEqual({ code: 'C-8999' });
    expect(collector.quantity(8_999)).toBe(8_999 / 4);
    expect(collector.line(4_096)).toBe(4_098);
  });

  it('gives the same rows from its state posted to another thread (a structured clone), and goes on collecting there', () => {
    const collector = createStockRowCollector();
    for (let i = 0; i < 9_000; i += 1) {
      collector.push({ codes: { code: `C-${i}`, ...(i % 5 === 0 ? { ean: `859${i}` } : {}) }, quantity: i / 4, line: i + 2 });
    }

    const there = createStockRowCollector(structuredClone(collector.state()));
    there.push({ codes: { plu: '77' }, quantity: -1, line: 9_002 });

    expect(there.length).toBe(9_001);
    for (const index of [0, 5, 4_095, 4_096, 8_999]) {
      expect(there.codes(index)).toStrictEqual(collector.codes(index));
      expect(there.quantity(index)).toBe(collector.quantity(index));
      expect(there.line(index)).toBe(collector.line(index));
    }
    expect(there.codes(9_000)).toStrictEqual({ plu: '77' });
    expect(collector.length).toBe(9_000);
  });

  it('views an array of rows the same way, and leaves a view as it is', () => {
    const rows = stockRowsOf(ROWS);

    expect(rows.length).toBe(3);
    expect(rows.codes(0)).toBe(ROWS[0]?.codes);
    expect(rows.quantity(1)).toBe(-2.5);
    expect(rows.line(2)).toBe(5);
    expect(rows.codes(3)).toBeUndefined();
    expect(asStockRows(rows)).toBe(rows);
    expect(asStockRows(ROWS).length).toBe(3);
  });
});
