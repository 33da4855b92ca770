import { describe, expect, it } from 'vitest';
import { fixture, problemKeys, readSheet, sheetError, utf8, utf16le, windows1250 } from './enrichment-fixtures.js';

describe('core/enrichment: CSV sheets', () => {
  describe('dialects', () => {
    it('reads Excel "CSV UTF-8": BOM, semicolons, CRLF, ="…" codes, a blank ;;; line, a group row', async () => {
      const sheet = await readSheet(await fixture('excel-semicolon-bom.csv'), { name: 'enrichment.csv' });

      expect(sheet).toMatchObject({ format: 'csv', encoding: 'utf-8', delimiter: ';', keyColumn: 'ean' });
      expect(sheet.columns).toEqual(['title', 'description', 'brand', 'image_link', 'category', 'exclude']);
      expect(sheet.rows).toEqual([
        {
          line: 2,
          key: '8594001234567',
          values: {
            title: 'Čokoláda hořká 70 %',
            description: 'Hořká čokoláda; 100 g',
            brand: 'Orion',
            imageLink: 'https://shop.example.cz/img/cokolada.jpg',
            category: 'Potraviny > Sladkosti',
          },
        },
        {
          line: 3,
          key: '0040000001454',
          values: { title: 'Káva zrnková', category: 'Potraviny > Káva', exclude: ['google', 'heureka'] },
        },
      ]);
      expect(sheet.groups).toEqual([
        { line: 5, key: 'KAVA', values: { description: 'Výběrová káva z jedné farmy', brand: 'Lavazza' } },
      ]);
      expect(sheet.problemCount).toBe(0);
    });

    it('reads Czech Excel\'s windows-1250 "CSV (oddělený středníkem)"', async () => {
      const bytes = windows1250('plu;title;brand\r\n12;Čokoláda hořká;Orion\r\n0013;Žitný chléb;Penam\r\n');

      const sheet = await readSheet(bytes);

      expect(sheet).toMatchObject({ encoding: 'windows-1250', delimiter: ';', keyColumn: 'plu' });
      expect(sheet.rows.map((row) => [row.key, row.values.title, row.values.brand])).toEqual([
        ['12', 'Čokoláda hořká', 'Orion'],
        ['0013', 'Žitný chléb', 'Penam'],
      ]);
    });

    it('reads Excel\'s "Unicode text": UTF-16LE with BOM, tab-separated', async () => {
      const bytes = utf16le('code\ttitle\tcustom_label_1\r\nKAV-1\tKáva "Espresso"\tzima\r\n');

      const sheet = await readSheet(bytes);

      expect(sheet).toMatchObject({ encoding: 'utf-16le', delimiter: '\t', keyColumn: 'code' });
      expect(sheet.rows).toEqual([{ line: 2, key: 'KAV-1', values: { title: 'Káva "Espresso"', customLabel1: 'zima' } }]);
    });

    it('reads Google Sheets "publish as CSV": commas, quoted line breaks, doubled quotes; lines are where records start', async () => {
      const sheet = await readSheet(await fixture('google-sheets.csv'));

      expect(sheet).toMatchObject({ encoding: 'utf-8', delimiter: ',', keyColumn: 'id' });
      expect(sheet.rows.map((row) => row.line)).toEqual([2, 6, 7]);
      expect(sheet.rows[0]?.values).toEqual({
        title: 'Mléko, plnotučné',
        description: 'Čerstvé mléko.\nChlaďte.\n\nSpotřebujte do 3 dnů.',
        link: 'https://shop.example.cz/mleko',
        additionalImageLinks: ['https://cdn.example.cz/m1.jpg', 'https://cdn.example.cz/m2.jpg'],
        googleProductCategory: 'Food > Dairy',
        customLabel0: 'akce',
      });
      expect(sheet.rows[1]?.values).toEqual({ title: 'Rohlík "tukový"', googleProductCategory: '499972' });
      expect(sheet.rows[2]?.values).toEqual({ title: 'Chléb', description: 'Kváskový\nchléb' });
    });

    it.each([
      ['LF', 'id;title\n1;A\n\n2;B\n', [2, 4]],
      ['CR', 'id;title\r1;A\r\r2;B\r', [2, 4]],
      ['CRLF with a quoted CRLF', 'id;title\r\n1;"A\r\nA"\r\n2;B', [2, 4]],
      ['blank lines before the header', '\n\nid;title\n1;A\n2;B\n', [4, 5]],
      ['an Excel sep= line', 'sep=,\r\nid,title\r\n1,A\r\n2,B\r\n', [3, 4]],
    ])('counts physical lines with %s', async (_name, text, lines) => {
      const sheet = await readSheet(text);

      expect(sheet.rows.map((row) => row.line)).toEqual(lines);
    });

    it.each([
      ['semicolons', 'id;title,x;brand\n1;A,B;C\n', ';'],
      ['commas', 'id,title,brand\n1,"A;B",C\n', ','],
      ['tabs', 'id\ttitle\tbrand\n1\tA\tC\n', '\t'],
      ['a tie (one of each) goes to ;', 'id;title,brand\tx\n', ';'],
      ['delimiters inside quotes do not count', 'id;"title, short, long"\n', ';'],
    ])('sniffs the delimiter: %s', async (_name, text, delimiter) => {
      const sheet = await readSheet(text);

      expect(sheet.delimiter).toBe(delimiter);
    });

    it('accepts header names in any case, with spaces or dashes for underscores', async () => {
      const sheet = await readSheet(
        'Internal Identifier;IMAGE-LINK; Custom Label 2 ;Google_Product_Category\nKAV-1;https://x.cz/a.jpg;b;1\n',
      );

      expect(sheet.keyColumn).toBe('internalIdentifier');
      expect(sheet.columns).toEqual(['image_link', 'custom_label_2', 'google_product_category']);
    });

    it('reads rows shorter or longer than the header', async () => {
      const sheet = await readSheet('id;title;brand\n1;A\n2;B;C;extra\n');

      expect(sheet.rows.map((row) => row.values)).toEqual([{ title: 'A' }, { title: 'B', brand: 'C' }]);
      expect(problemKeys(sheet)).toEqual(['unknown-column@3:']);
    });
  });

  describe('formulas', () => {
    it('takes ="…" as its text and reports every other formula, ignoring the cell', async () => {
      const text = 'ean;title;brand\n="0040000001454";="Káva ""Gold""";=A1&B1\n=SUM(1;2);x;y\n';

      const sheet = await readSheet(text);

      expect(sheet.rows).toEqual([{ line: 2, key: '0040000001454', values: { title: 'Káva "Gold"' } }]);
      expect(problemKeys(sheet)).toEqual(['formula@2:brand', 'formula@3:ean']);
      expect(sheet.problems[0]?.message).toContain('=A1&B1');
    });
  });

  describe('whole-sheet failures', () => {
    it('fails on an unclosed quote, naming the line where the record starts', async () => {
      const error = await sheetError('id;title\n1;A\n2;"B\nstill B\n');

      expect(error).toMatch(/quote .* line 3 is never closed/);
    });

    it('fails without a key column, naming the headers found and the accepted ones', async () => {
      const error = await sheetError('sku;title\n1;A\n');

      expect(error).toContain('"sku", "title"');
      expect(error).toContain('id, ean, plu, internalIdentifier');
    });

    it('fails on an empty sheet, and on one of blank lines only', async () => {
      expect(await sheetError('')).toMatch(/empty/);
      expect(await sheetError('\r\n\r\n;;;\r\n')).toMatch(/empty/);
    });

    it('fails on a sheet over maxBytes without reading it', async () => {
      const error = await sheetError('id;title\n1;A\n', { maxBytes: 8 });

      expect(error).toMatch(/13 bytes, more than the limit of 8/);
    });

    it('fails on UTF-16 big-endian and on an .xls workbook, saying what to save instead', async () => {
      expect(await sheetError(new Uint8Array([0xfe, 0xff, 0, 0x69, 0, 0x64]))).toMatch(/big-endian/);
      expect(await sheetError(new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))).toMatch(/\.xls\b/);
    });

    it('is ok with a header and no data rows', async () => {
      const sheet = await readSheet('ean;title\r\n');

      expect(sheet).toMatchObject({ keyColumn: 'ean', rows: [], groups: [], problemCount: 0 });
    });
  });

  it('decodes bytes that are not UTF-8 as windows-1250 even without Czech letters in the header', async () => {
    const sheet = await readSheet(new Uint8Array([...utf8('id;title\n1;'), 0x8a, 0x9d, 0x61, 0x76, 0x61, 0x0a]));

    expect(sheet.encoding).toBe('windows-1250');
    expect(sheet.rows[0]?.values.title).toBe('Šťava');
  });
});
