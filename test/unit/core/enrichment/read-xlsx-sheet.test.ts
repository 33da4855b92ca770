import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { readEnrichmentSheet } from '../../../../src/core/enrichment/enrichment-sheet.js';
import { problemKeys, readSheet, utf8 } from './enrichment-fixtures.js';

async function xlsxBytes(build: (workbook: ExcelJS.Workbook) => void): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  build(workbook);
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

/** A marketer's workbook: numeric EANs, rich text, a hyperlink, formulas with and without a cached value. */
async function marketerWorkbook(): Promise<Uint8Array> {
  return xlsxBytes((workbook) => {
    const sheet = workbook.addWorksheet('Produkty');
    sheet.addRow([]);
    sheet.addRow(['EAN', 'title', 'link', 'custom_label_0', 'custom_label_1', 'custom_label_2', 'description']);
    sheet.addRow([
      8594001234567,
      { richText: [{ text: 'Čokoláda ', font: { bold: true } }, { text: 'hořká' }] },
      { text: 'https://shop.example.cz/cokolada', hyperlink: 'https://shop.example.cz/cokolada' },
      { formula: 'A3*2', result: 17188002469134 },
      { formula: 'NOW()' },
      0.1 + 0.2,
      new Date(Date.UTC(2026, 2, 1)),
    ]);
    sheet.addRow([
      40000001454,
      'Káva',
      // A formatted hyperlink's text is rich text.
      {
        text: { richText: [{ text: 'https://shop.example.cz/kava' }] } as unknown as string,
        hyperlink: 'https://shop.example.cz/kava',
      },
      true,
      { error: '#N/A' },
      { sharedFormula: 'D3', result: 'sdílený' },
      1e21,
    ]);
  });
}

describe('core/enrichment: .xlsx sheets', () => {
  it('reads each kind of cell as the text a marketer sees', async () => {
    const sheet = await readSheet(await marketerWorkbook());

    expect(sheet).toMatchObject({ format: 'xlsx', keyColumn: 'ean' });
    expect(sheet.encoding).toBeUndefined();
    expect(sheet.rows).toEqual([
      {
        line: 3,
        key: '8594001234567',
        values: {
          title: 'Čokoláda hořká',
          link: 'https://shop.example.cz/cokolada',
          customLabel0: '17188002469134',
          customLabel2: '0.3',
          description: '2026-03-01',
        },
      },
      {
        line: 4,
        key: '40000001454',
        values: {
          title: 'Káva',
          link: 'https://shop.example.cz/kava',
          customLabel0: 'true',
          customLabel2: 'sdílený',
          description: '1000000000000000000000',
        },
      },
    ]);
    expect(problemKeys(sheet)).toEqual(['formula@3:custom_label_1', 'invalid-value@4:custom_label_1']);
    expect(sheet.problems.map((problem) => problem.message)).toEqual([
      'a formula without a value (the workbook was saved without calculating it); the cell is ignored',
      'the cell holds the error #N/A; the cell is ignored',
    ]);
  });

  it('reads the worksheet named "enrichment" when there is one, else the first', async () => {
    const bytes = await xlsxBytes((workbook) => {
      workbook.addWorksheet('Notes').addRow(['nothing here']);
      const sheet = workbook.addWorksheet('Enrichment');
      sheet.addRow(['plu', 'brand']);
      sheet.addRow([12, 'Orion']);
    });

    const sheet = await readSheet(bytes);

    expect(sheet.rows).toEqual([{ line: 2, key: '12', values: { brand: 'Orion' } }]);
  });

  it('takes a merged cell once, from its top-left cell', async () => {
    const bytes = await xlsxBytes((workbook) => {
      const sheet = workbook.addWorksheet('Sheet1');
      sheet.addRow(['id', 'brand', 'title']);
      sheet.addRow(['a-1', 'Orion', 'A']);
      sheet.addRow(['a-2', null, 'B']);
      sheet.mergeCells('B2:B3');
    });

    const sheet = await readSheet(bytes);

    expect(sheet.rows.map((row) => row.values)).toEqual([{ brand: 'Orion', title: 'A' }, { title: 'B' }]);
  });

  it('is chosen by name or content type too, and fails cleanly when the bytes are no workbook', async () => {
    const byName = await readEnrichmentSheet(utf8('id;title\n1;A\n'), { name: 'Enrichment.XLSX' });
    const byType = await readEnrichmentSheet(utf8('id;title\n1;A\n'), {
      contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet; charset=binary',
    });
    const brokenZip = await readEnrichmentSheet(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]), {});

    for (const result of [byName, byType, brokenZip]) {
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toMatch(/^the file is not a readable \.xlsx workbook/);
    }
  });

  it('fails without a key column and is ok with a header only', async () => {
    const noKey = await readEnrichmentSheet(
      await xlsxBytes((workbook) => workbook.addWorksheet('S').addRow(['sku', 'title'])),
      {},
    );
    const headerOnly = await readSheet(await xlsxBytes((workbook) => workbook.addWorksheet('S').addRow(['id', 'title'])));
    const empty = await readEnrichmentSheet(await xlsxBytes((workbook) => workbook.addWorksheet('S')), {});

    expect(noKey).toMatchObject({ ok: false, error: expect.stringContaining('"sku", "title"') });
    expect(headerOnly).toMatchObject({ keyColumn: 'id', rows: [], problemCount: 0 });
    expect(empty).toEqual({ ok: false, error: 'the sheet is empty: it has no header row' });
  });

  it('refuses a workbook that declares it unpacks to gigabytes, before unpacking it', async () => {
    const bytes = await xlsxBytes((workbook) => workbook.addWorksheet('enrichment').addRow(['id', 'title']));
    // Patch the central directory: the first entry now claims 2 GiB uncompressed (a ZIP bomb's signature).
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let header = -1;
    for (let at = bytes.length - 22; at >= 0; at -= 1) {
      if (view.getUint32(at, true) === 0x06054b50) {
        header = view.getUint32(at + 16, true);
        break;
      }
    }
    view.setUint32(header + 24, 0x7fffffff, true);
    const result = await readEnrichmentSheet(bytes, { name: 'sheet.xlsx' });
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.error).toMatch(/unpacks to 2048 MiB, more than the 512 MiB/);
  });
});
