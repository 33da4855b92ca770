import { TextDecoder } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StockExportParseError } from '../../../../src/adapters/pos/parse-errors.js';
import { parseStockExport } from '../../../../src/adapters/pos/stock-export.js';
import type { StockColumnOverride } from '../../../../src/core/catalog/pos-documents.js';

/**
 * Any code point, lone surrogates included, biased to ASCII markup. (fast-check's `unit: 'binary'` costs
 * over a second of one-time set-up, which is most of this file's run time.)
 */
const anyCharacter = fc.oneof(
  fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
);

/** Either a result or the typed error: anything else (another exception type, a hang) fails the property. */
function parseOrTypedError(input: string | Uint8Array, columns?: StockColumnOverride): void {
  try {
    parseStockExport(input, columns === undefined ? {} : { columns });
  } catch (error) {
    if (!(error instanceof StockExportParseError)) throw error;
    expect(error.code).toBe('STOCK_EXPORT_INVALID');
  }
}

/** windows-1250 encoder for the characters the generators use (TextEncoder only writes UTF-8). */
const CP1250: ReadonlyMap<string, number> = (() => {
  const decoder = new TextDecoder('windows-1250');
  const table = new Map<string, number>();
  for (let byte = 0; byte < 256; byte += 1) table.set(decoder.decode(Uint8Array.of(byte)), byte);
  return table;
})();

function encodeCp1250(text: string): Uint8Array {
  return Uint8Array.from([...text].map((char) => CP1250.get(char) ?? 0x3f));
}

type Column = 'code' | 'plu' | 'ean' | 'name' | 'measureUnit' | 'unit' | 'quantity';

/** Header names as an export might write them; all of them are windows-1250 characters. */
const HEADER_NAMES: Readonly<Record<Column, readonly string[]>> = {
  code: ['Kód', 'kod', 'SKU', 'Katalogové číslo', 'internalIdentifier', 'Interní kód'],
  plu: ['PLU', 'plu'],
  ean: ['EAN', 'GTIN', 'Čárový kód', 'barcode'],
  name: ['Název', 'name', 'Položka'],
  measureUnit: ['MJ', 'Měrná jednotka', 'measureUnit'],
  unit: ['Středisko', 'Prodejna', 'store'],
  quantity: ['Množství', 'Stav', 'Zásoba', 'quantity', 'qty', 'Množství (ks)'],
};

/** Pieces of cell values: every delimiter, quotes, line breaks, Czech letters (cp1250-safe). */
const VALUE_PIECES = ['A', 'b', '7', '-', '/', ' ', ';', ',', '\t', '|', '"', '\n', '\r\n', 'č', 'Ř', 'ů', '\u00A0', "'", '€'];

const cellValue = fc
  .array(fc.constantFrom(...VALUE_PIECES), { minLength: 1, maxLength: 8 })
  .map((pieces) => pieces.join('').trim())
  .filter((text) => text !== '');

const optionalCell = fc.option(cellValue, { nil: undefined });

type QuantityStyle = 'dot' | 'comma' | 'space-comma' | 'space-dot' | 'dot-comma';

interface GeneratedRow {
  readonly code: string;
  readonly plu: string | undefined;
  readonly ean: string | undefined;
  readonly name: string | undefined;
  readonly measureUnit: string | undefined;
  readonly unit: string | undefined;
  readonly milli: number;
}

interface ExportDoc {
  readonly delimiter: ';' | ',' | '\t' | '|';
  readonly eol: string;
  readonly finalEol: boolean;
  readonly encoding: 'utf-8' | 'utf-8-bom' | 'windows-1250' | 'string';
  readonly quantityStyle: QuantityStyle;
  readonly groupSpace: string;
  readonly plusSign: boolean;
  readonly quoteAll: boolean;
  readonly identity: readonly ('code' | 'plu' | 'ean')[];
  readonly extras: readonly ('name' | 'measureUnit' | 'unit')[];
  readonly order: readonly number[];
  readonly names: readonly number[];
  readonly rows: readonly GeneratedRow[];
}

const exportDoc: fc.Arbitrary<ExportDoc> = fc.record({
  delimiter: fc.constantFrom<ExportDoc['delimiter']>(';', ',', '\t', '|'),
  eol: fc.constantFrom('\r\n', '\n', '\r'),
  finalEol: fc.boolean(),
  encoding: fc.constantFrom<ExportDoc['encoding']>('utf-8', 'utf-8-bom', 'windows-1250', 'string'),
  quantityStyle: fc.constantFrom<QuantityStyle>('dot', 'comma', 'space-comma', 'space-dot', 'dot-comma'),
  groupSpace: fc.constantFrom(' ', '\u00A0'),
  plusSign: fc.boolean(),
  quoteAll: fc.boolean(),
  identity: fc.subarray<'code' | 'plu' | 'ean'>(['code', 'plu', 'ean'], { minLength: 1 }),
  extras: fc.subarray<'name' | 'measureUnit' | 'unit'>(['name', 'measureUnit', 'unit']),
  order: fc.array(fc.nat(), { minLength: 7, maxLength: 7 }),
  names: fc.array(fc.nat(), { minLength: 7, maxLength: 7 }),
  rows: fc.array(
    fc.record({
      code: cellValue,
      plu: optionalCell,
      ean: optionalCell,
      name: optionalCell,
      measureUnit: optionalCell,
      unit: optionalCell,
      milli: fc.integer({ min: -10_000_000, max: 10_000_000_000 }),
    }),
    { maxLength: 8 },
  ),
});

function formatQuantity(milli: number, doc: ExportDoc): string {
  const sign = milli < 0 ? '-' : doc.plusSign ? '+' : '';
  const [integer = '', fraction = ''] = Math.abs(milli / 1000)
    .toFixed(3)
    .split('.');
  const trimmed = fraction.replace(/0+$/, '');
  const group = (separator: string) => integer.replace(/\B(?=(\d{3})+$)/g, separator);
  switch (doc.quantityStyle) {
    case 'dot':
      return `${sign}${integer}${trimmed === '' ? '' : `.${trimmed}`}`;
    case 'comma':
      return `${sign}${integer},${fraction}`;
    case 'space-comma':
      return `${sign}${group(doc.groupSpace)},${fraction}`;
    case 'space-dot':
      return `${sign}${group(doc.groupSpace)}${trimmed === '' ? '' : `.${trimmed}`}`;
    case 'dot-comma':
      // Always with decimals: "1.234" alone reads as 1.234, which is the documented reading.
      return `${sign}${group('.')},${fraction}`;
  }
}

function quote(value: string, doc: ExportDoc): string {
  const needs = value.includes(doc.delimiter) || value.includes('"') || value.includes('\n') || value.includes('\r');
  return needs || doc.quoteAll ? `"${value.replaceAll('"', '""')}"` : value;
}

function lineBreaks(text: string): number {
  return text.match(/\r\n|\r|\n/g)?.length ?? 0;
}

function columnsOf(doc: ExportDoc): Column[] {
  const columns: Column[] = [...doc.identity, ...doc.extras, 'quantity'];
  // A permutation driven by the generated numbers (stable sort on random keys).
  return columns
    .map((column, index) => ({ column, key: doc.order[index] ?? 0 }))
    .sort((a, b) => a.key - b.key)
    .map((entry) => entry.column);
}

function serialize(doc: ExportDoc): { input: string | Uint8Array; expected: Record<string, unknown>[] } {
  const columns = columnsOf(doc);
  const header = columns.map((column, index) => {
    // windows-1250 bytes of "ž" followed by ASCII are never valid UTF-8, so the fallback is certain.
    if (column === 'quantity' && doc.encoding === 'windows-1250') return 'Množství';
    const names = HEADER_NAMES[column];
    return names[(doc.names[index] ?? 0) % names.length] ?? column;
  });
  const lines = [header.map((name) => quote(name, doc)).join(doc.delimiter)];
  const expected: Record<string, unknown>[] = [];
  let line = 2;
  for (const row of doc.rows) {
    const first = doc.identity[0] ?? 'code';
    // The first identity column always has a value, so every row has a code.
    const values: Record<Column, string | undefined> = {
      ...row,
      [first]: row[first] ?? row.code,
      quantity: formatQuantity(row.milli, doc),
    };
    const record = columns.map((column) => quote(values[column] ?? '', doc)).join(doc.delimiter);
    lines.push(record);
    const codes: Record<string, string> = {};
    for (const column of doc.identity) {
      const value = values[column];
      if (value !== undefined) codes[column] = value;
    }
    const row_: Record<string, unknown> = { codes, quantity: row.milli / 1000, line };
    for (const column of doc.extras) if (values[column] !== undefined) row_[column] = values[column];
    expected.push(row_);
    line += 1 + lineBreaks(record);
  }
  const text = lines.join(doc.eol) + (doc.finalEol ? doc.eol : '');
  if (doc.encoding === 'string') return { input: text, expected };
  if (doc.encoding === 'windows-1250') return { input: encodeCp1250(text), expected };
  const bytes = new TextEncoder().encode(text);
  return { input: doc.encoding === 'utf-8-bom' ? Uint8Array.from([0xef, 0xbb, 0xbf, ...bytes]) : bytes, expected };
}

/** What a parse gives: the rows and summary, or the error's message. */
function outcomeOf(input: string | Uint8Array, options: Parameters<typeof parseStockExport>[1]): unknown {
  try {
    return parseStockExport(input, options);
  } catch (error) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

describe('adapters/pos/stock-export (properties)', () => {
  it('reads bytes decoded in pieces as it reads them decoded at once', () => {
    const token = fc.constantFrom(';', '\t', '"', '""', '\r', '\n', '\r\n', 'Kód', 'Množství', 'EAN', '1,5', 'č', ' ', 'x', '7');
    const soup = fc.array(token, { maxLength: 200 }).map((tokens) => new TextEncoder().encode(tokens.join('')));
    // More rows than the header's sniffing reads (25 records), so that the rest is read piece by piece.
    const generated = exportDoc.map((doc) => serialize({ ...doc, rows: Array.from({ length: 6 }, () => doc.rows).flat() }).input);
    fc.assert(
      fc.property(fc.oneof(generated, soup), fc.integer({ min: 1, max: 48 }), (input, pieceBytes) => {
        expect(outcomeOf(input, { pieceBytes })).toEqual(outcomeOf(input, { pieceBytes: Number.POSITIVE_INFINITY }));
      }),
      { numRuns: 400 },
    );
  });

  it('round-trips generated rows in any delimiter, decimal style, line end, quoting, BOM and encoding', () => {
    fc.assert(
      fc.property(exportDoc, (doc) => {
        const { input, expected } = serialize(doc);

        const { rows, summary } = parseStockExport(input);

        expect(summary.delimiter).toBe(doc.delimiter);
        expect(summary.skippedCount).toBe(0);
        expect(rows).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('answers arbitrary text with a result or StockExportParseError', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyCharacter, maxLength: 200 }), (text) => parseOrTypedError(text)),
      { numRuns: 200 },
    );
  });

  it('answers arbitrary bytes with a result or StockExportParseError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => parseOrTypedError(bytes)),
      { numRuns: 200 },
    );
  });

  it('answers delimiter-and-quote soup and arbitrary overrides with a result or StockExportParseError', () => {
    const token = fc.constantFrom(
      ';',
      ',',
      '\t',
      '|',
      '"',
      '""',
      '\r',
      '\n',
      '\r\n',
      'Kód',
      'Množství',
      'unit',
      'ks',
      '1,5',
      '-',
      'sep=',
      '\uFEFF',
      ' ',
      'x',
    );
    const override = fc.record(
      { code: fc.string({ maxLength: 6 }), quantity: fc.string({ maxLength: 6 }), unit: fc.string({ maxLength: 6 }) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 60 }), fc.option(override, { nil: undefined }), (tokens, columns) =>
        parseOrTypedError(tokens.join(''), columns),
      ),
      { numRuns: 300 },
    );
  });

  it('answers truncated and mutated valid exports with a result or StockExportParseError', () => {
    fc.assert(
      fc.property(exportDoc, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat(), (doc, at, value, cut) => {
        const { input } = serialize(doc);
        const bytes = Buffer.from(typeof input === 'string' ? new TextEncoder().encode(input) : input);
        if (bytes.length > 0) bytes[at % bytes.length] = value;

        parseOrTypedError(bytes.subarray(0, cut % (bytes.length + 1)));
      }),
      { numRuns: 200 },
    );
  });
});
