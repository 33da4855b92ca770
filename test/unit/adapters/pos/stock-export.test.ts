import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StockExportParseError } from '../../../../src/adapters/pos/parse-errors.js';
import {
  MAX_SKIPS_REPORTED,
  parseStockExport,
  readStockExport,
  type StockExportOptions,
} from '../../../../src/adapters/pos/stock-export.js';
import { headerKey } from '../../../../src/adapters/pos/stock-export-columns.js';

function fixture(name: string): Buffer {
  return readFileSync(new URL(`../../../fixtures/pos/${name}`, import.meta.url));
}

function parseError(text: string | Uint8Array, options?: StockExportOptions): StockExportParseError {
  try {
    parseStockExport(text, options);
  } catch (error) {
    if (error instanceof StockExportParseError) return error;
    throw new Error(`expected a StockExportParseError, got ${String(error)}`);
  }
  throw new Error('expected a StockExportParseError, nothing was thrown');
}

describe('adapters/pos/stock-export', () => {
  it('hands the rows one by one (`readStockExport`) exactly as `parseStockExport` collects them', () => {
    for (const name of ['stock-cs-semicolon.csv', 'stock-en-tab.txt']) {
      const parsed = parseStockExport(fixture(name));
      const handed: unknown[] = [];
      const summary = readStockExport(fixture(name), (row) => handed.push(row));

      expect(handed).toStrictEqual(parsed.rows);
      expect(summary).toStrictEqual(parsed.summary);
    }
    expect(() => readStockExport('no;header\n1;2\n', () => undefined)).toThrow(StockExportParseError);
  });

  describe('layouts', () => {
    it('reads `;` + decimal comma + CRLF + BOM with a Czech header', () => {
      const { rows, summary } = parseStockExport(fixture('stock-cs-semicolon.csv'));

      expect(rows).toStrictEqual([
        { codes: { code: '1001' }, name: 'Káva zrnková 1 kg', quantity: 1234.5, measureUnit: 'ks', line: 2 },
        { codes: { code: '2002' }, name: 'Čaj "zelený"; 50 g', quantity: -3, measureUnit: 'ks', line: 3 },
        { codes: { code: '3003' }, name: 'Mouka', quantity: 12, measureUnit: 'kg', line: 5 },
      ]);
      expect(summary).toStrictEqual({
        encoding: 'utf-8',
        delimiter: ';',
        headerLine: 1,
        header: ['Kód', 'Název', 'Množství', 'MJ'],
        mapping: {
          code: { index: 0, header: 'Kód' },
          name: { index: 1, header: 'Název' },
          quantity: { index: 2, header: 'Množství' },
          measureUnit: { index: 3, header: 'MJ' },
        },
        rowsRead: 5,
        skipped: [
          { line: 6, reason: 'no code, PLU or EAN' },
          { line: 7, reason: 'quantity "n/a" is not a number' },
        ],
        skippedCount: 2,
      });
    });

    it('reads tab + dot decimals + LF with an English header (`unit` holding measure units)', () => {
      const { rows, summary } = parseStockExport(fixture('stock-en-tab.txt'));

      expect(summary.delimiter).toBe('\t');
      expect(rows).toStrictEqual([
        { codes: { code: '1001', ean: '8594000000017' }, name: 'Coffee beans', quantity: 12.5, measureUnit: 'pcs', line: 2 },
        { codes: { code: '2002' }, name: 'Green tea', quantity: 2, measureUnit: 'pcs', line: 3 },
        { codes: { ean: '8594000000024' }, name: 'Flour', quantity: 0.25, measureUnit: 'kg', line: 4 },
      ]);
    });

    it('reads `,` with RFC 4180 quoted fields (delimiters, doubled quotes, line breaks)', () => {
      const { rows, summary } = parseStockExport(fixture('stock-comma-quoted.csv'));

      expect(summary.delimiter).toBe(',');
      expect(rows).toStrictEqual([
        { codes: { code: 'A1' }, name: 'Coffee, beans 1kg', quantity: 12, line: 2 },
        { codes: { code: 'A2' }, name: 'Tea "green"', quantity: 3.5, line: 3 },
        { codes: { code: 'A3' }, name: 'Multi\nline name', quantity: -1, line: 4 },
      ]);
    });

    it('falls back to windows-1250 for bytes that are not UTF-8', () => {
      const { rows, summary } = parseStockExport(fixture('stock-cp1250.csv'));

      expect(summary.encoding).toBe('windows-1250');
      expect(summary.header).toEqual(['Kód zboží', 'Název', 'Stav zásob', 'Měrná jednotka']);
      expect(rows).toStrictEqual([
        { codes: { code: 'KAV-1' }, name: 'Káva zrnková', quantity: 12.5, measureUnit: 'ks', line: 2 },
        { codes: { code: 'ČAJ-2' }, name: 'Čaj šípkový', quantity: 1000, measureUnit: 'ks', line: 3 },
      ]);
    });

    it('reads the all-units export with a unit (středisko) column and PLU/EAN identity', () => {
      const { rows, summary } = parseStockExport(fixture('stock-all-units.csv'));

      expect(summary.mapping.unit).toEqual({ index: 0, header: 'Středisko' });
      expect(rows).toStrictEqual([
        { codes: { plu: '1001', ean: '8594000000017' }, name: 'Káva', quantity: 5, unit: 'U1', line: 2 },
        { codes: { plu: '1001', ean: '8594000000017' }, name: 'Káva', quantity: 7.5, unit: 'U2', line: 3 },
        { codes: { plu: '1002' }, name: 'Čaj', quantity: 0, unit: 'U1', line: 4 },
        { codes: { ean: '8594000000031' }, name: 'Mouka', quantity: 1234.5, unit: 'U2', line: 5 },
      ]);
    });

    it.each([
      ['CRLF', '\r\n'],
      ['LF', '\n'],
      ['CR', '\r'],
    ])('accepts %s line ends and counts lines by them', (_, eol) => {
      const text = ['code;qty', 'A;1', '', 'B;2', ''].join(eol);

      expect(parseStockExport(text).rows).toStrictEqual([
        { codes: { code: 'A' }, quantity: 1, line: 2 },
        { codes: { code: 'B' }, quantity: 2, line: 4 },
      ]);
    });

    it('sniffs `|` and ignores lines that are blank or only delimiters', () => {
      const { rows, summary } = parseStockExport('PLU|Stav|Název\n12|3|Rohlík\n||\n   \n13|4,5|Chléb\n');

      expect(summary.delimiter).toBe('|');
      expect(summary.rowsRead).toBe(2);
      expect(rows.map((row) => [row.codes.plu, row.quantity])).toEqual([
        ['12', 3],
        ['13', 4.5],
      ]);
    });

    it('prefers the delimiter that fits the header when decimal commas would split data rows', () => {
      const text = 'Kód;Množství\nA;1,5\nB;2,25\nC;3\n';

      const { rows, summary } = parseStockExport(text);

      expect(summary.delimiter).toBe(';');
      expect(rows.map((row) => row.quantity)).toEqual([1.5, 2.25, 3]);
    });

    it('honours an Excel `sep=` line', () => {
      const { rows, summary } = parseStockExport('sep=,\r\ncode,qty\r\nA,1\r\n');

      expect(summary.delimiter).toBe(',');
      expect(summary.headerLine).toBe(2);
      expect(rows).toStrictEqual([{ codes: { code: 'A' }, quantity: 1, line: 3 }]);
    });

    it('finds the header below title lines and reports those lines', () => {
      const text = 'Stav skladu k 22. 11. 2026\nProdejna Brno\n\nKód;Název;Množství (ks)\nA;Káva;2\n';

      const { rows, summary } = parseStockExport(text);

      expect(summary.headerLine).toBe(4);
      expect(summary.mapping.quantity).toEqual({ index: 2, header: 'Množství (ks)' });
      expect(summary.skipped).toEqual([
        { line: 1, reason: 'line above the header' },
        { line: 2, reason: 'line above the header' },
      ]);
      expect(rows).toStrictEqual([{ codes: { code: 'A' }, name: 'Káva', quantity: 2, line: 5 }]);
    });

    it.each([
      ['1234.5', 1234.5],
      ['1234,5', 1234.5],
      ['1 234,50', 1234.5],
      ['1\u00A0234,50', 1234.5],
      ['1\u202F234,50', 1234.5],
      ['-3', -3],
      ['1.234,50', 1234.5],
      ['+2', 2],
      ['" 7 "', 7],
    ])('reads the quantity %j', (quantity, expected) => {
      expect(parseStockExport(`code;qty\nA;${quantity}\n`).rows[0]?.quantity).toBe(expected);
    });

    it('skips and reports rows without a code or with an unreadable quantity', () => {
      const text = 'code;ean;qty\nA;;1\n;;2\nB;;\nC;;12 ks\nD\n;E1;3\n';

      const { rows, summary } = parseStockExport(text);

      expect(rows.map((row) => row.codes)).toEqual([{ code: 'A' }, { ean: 'E1' }]);
      expect(summary.rowsRead).toBe(6);
      expect(summary.skipped).toEqual([
        { line: 3, reason: 'no code, PLU or EAN' },
        { line: 4, reason: 'quantity is empty' },
        { line: 5, reason: 'quantity "12 ks" is not a number' },
        { line: 6, reason: 'quantity is empty' },
      ]);
    });

    it('reads a stray or unterminated quote as a literal character instead of swallowing the rest', () => {
      const text = 'code;name;qty\nA;Disk 5" floppy;1\nB;"unterminated;2\nC;ok;3\n';

      const { rows } = parseStockExport(text);

      expect(rows.map((row) => [row.codes.code, row.name, row.quantity])).toEqual([
        ['A', 'Disk 5" floppy', 1],
        ['B', '"unterminated', 2],
        ['C', 'ok', 3],
      ]);
    });

    it('caps the skip list but counts every skipped row', () => {
      const text = `code;qty\n${'A;x\n'.repeat(MAX_SKIPS_REPORTED + 10)}`;

      const { summary } = parseStockExport(text);

      expect(summary.skipped).toHaveLength(MAX_SKIPS_REPORTED);
      expect(summary.skippedCount).toBe(MAX_SKIPS_REPORTED + 10);
    });

    it.each([
      ['an empty document', ''],
      ['a BOM only', '\uFEFF'],
      ['blank lines only', '\r\n\r\n  \n'],
    ])('reads %s as zero rows', (_, text) => {
      const { rows, summary } = parseStockExport(text);

      expect(rows).toEqual([]);
      expect(summary.rowsRead).toBe(0);
      expect(summary.delimiter).toBeUndefined();
    });

    it('reads a header without data as zero rows', () => {
      const { rows, summary } = parseStockExport('Kód;Množství\r\n');

      expect(rows).toEqual([]);
      expect(summary.header).toEqual(['Kód', 'Množství']);
    });
  });

  describe('header mapping', () => {
    it.each([
      ['Množství', 'mnozstvi'],
      ['MNOŽSTVÍ', 'mnozstvi'],
      ['measureUnit', 'measureunit'],
      ['Measure unit', 'measureunit'],
      ['MEASURE_UNIT', 'measureunit'],
      ['M.J.', 'mj'],
      ['Čárový kód', 'carovykod'],
    ])('compares %j as %j', (name, key) => {
      expect(headerKey(name)).toBe(key);
    });

    it.each([
      ['kod;mnozstvi', 'code', 'quantity'],
      ['SKU;Qty', 'code', 'quantity'],
      ['Katalogové číslo;Zásoba', 'code', 'quantity'],
      ['internalIdentifier;count', 'code', 'quantity'],
      ['Interní kód;stock', 'code', 'quantity'],
      ['PLU;ks', 'plu', 'quantity'],
      ['GTIN;amount', 'ean', 'quantity'],
      ['Čárový kód;Stav', 'ean', 'quantity'],
      ['barcode;quantity', 'ean', 'quantity'],
    ])('maps %j', (header, first, second) => {
      const { summary } = parseStockExport(`${header}\nA;1\n`);

      expect(summary.mapping).toEqual({
        [first]: { index: 0, header: header.split(';')[0] },
        [second]: { index: 1, header: header.split(';')[1] },
      });
    });

    it('prefers the stronger name when several columns could be the code, and the leftmost on a tie', () => {
      const { summary } = parseStockExport('ID;SKU;Kód;Množství;Stav\n1;S;K;2;3\n');

      expect(summary.mapping.code).toEqual({ index: 2, header: 'Kód' });
      expect(summary.mapping.quantity).toEqual({ index: 3, header: 'Množství' });
    });

    it('rejects two overrides naming the same column', () => {
      const error = parseError('Kód;Množství\nA;1\n', { columns: { code: 'Kód', plu: 'kod' } });

      expect(error.message).toContain('the configured plu column "kod" is configured for another field too');
    });

    it('maps every synonym group: name, measure unit and sales point', () => {
      const { rows } = parseStockExport('Položka;Kód;Jednotka;Prodejna;Stav\nRohlík;R1;ks;P1;10\n');

      expect(rows).toStrictEqual([
        { codes: { code: 'R1' }, name: 'Rohlík', measureUnit: 'ks', unit: 'P1', quantity: 10, line: 2 },
      ]);
    });

    it.each([
      ['values that are sales points', 'code;qty;unit\nA;1;U1\nB;2;PRAHA\n', 'unit', 'U1'],
      ['values that are measure units', 'code;qty;unit\nA;1;ks\nB;2;KG\n', 'measureUnit', 'ks'],
      ['another column already being the sales point', 'code;qty;unit;store\nA;1;U1;S1\n', 'measureUnit', 'U1'],
      ['another column already being the measure unit', 'code;qty;MJ;unit\nA;1;ks;kg\n', 'unit', 'kg'],
    ])('resolves the ambiguous `unit` header by %s', (_, text, column, value) => {
      const [row] = parseStockExport(text).rows;

      expect(column === 'unit' ? row?.unit : row?.measureUnit).toBe(value);
    });

    it('lets the operator override win, also over the `unit` heuristics', () => {
      const text = 'Artikl;Kód;Zůstatek ks;Unit;Množství objednané\nKáva;K1;3,5;U1;100\n';

      const { rows, summary } = parseStockExport(text, {
        columns: { code: 'artikl', quantity: 'Zůstatek ks', measureUnit: 'UNIT', name: 'Kód' },
      });

      expect(summary.mapping).toEqual({
        code: { index: 0, header: 'Artikl' },
        name: { index: 1, header: 'Kód' },
        quantity: { index: 2, header: 'Zůstatek ks' },
        measureUnit: { index: 3, header: 'Unit' },
      });
      expect(rows).toStrictEqual([{ codes: { code: 'Káva' }, name: 'K1', quantity: 3.5, measureUnit: 'U1', line: 2 }]);
    });

    it('makes a header usable that has only unknown names when the override names its columns', () => {
      const text = 'Artikl;Zůstatek\nK1;3\n';

      expect(() => parseStockExport(text)).toThrow(StockExportParseError);
      expect(parseStockExport(text, { columns: { code: 'Artikl', quantity: 'Zůstatek' } }).rows).toStrictEqual([
        { codes: { code: 'K1' }, quantity: 3, line: 2 },
      ]);
    });
  });

  describe('exports that cannot be read', () => {
    it('rejects a header without a quantity column, naming the header and the accepted names', () => {
      const error = parseError('Kód;Název;Cena\nA;Káva;129\n');

      expect(error.code).toBe('STOCK_EXPORT_INVALID');
      expect(error.name).toBe('StockExportParseError');
      expect(error.line).toBe(1);
      expect(error.header).toEqual(['Kód', 'Název', 'Cena']);
      expect(error.message).toContain('["Kód","Název","Cena"]');
      expect(error.message).toContain('no quantity column');
      expect(error.message).toContain('quantity: množství, stav');
      expect(error.message).toContain('POS_STOCK_COLUMNS');
    });

    it('rejects a header without an identifying column', () => {
      const error = parseError('Název;Množství\nKáva;1\n');

      expect(error.message).toContain('no identifying column (code, PLU or EAN)');
      expect(error.header).toEqual(['Název', 'Množství']);
    });

    it('rejects an override that names a column the header lacks', () => {
      const error = parseError('Kód;Množství\nA;1\n', { columns: { quantity: 'Zůstatek' } });

      expect(error.message).toContain('the configured quantity column "Zůstatek" is not in the header');
    });

    it.each([
      ['a headerless export', '1001;12,5\n1002;3\n'],
      ['a single column', 'code\nA\n'],
      ['an HTML error page', '<html><body>502 Bad Gateway</body></html>'],
      ['a JSON error body', '{"isValid":false,"errors":["unknown type"]}'],
      ['binary noise', new Uint8Array([0, 159, 146, 150, 255, 1, 2, 10, 13])],
    ])('rejects %s with StockExportParseError', (_, text) => {
      expect(parseError(text).code).toBe('STOCK_EXPORT_INVALID');
    });
  });
});
