import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PriceListParseError } from '../../../../src/adapters/pos/parse-errors.js';
import {
  createPriceListParser,
  MAX_REPORTED,
  type PriceListSummary,
  parsePriceListXml,
} from '../../../../src/adapters/pos/price-list-xml.js';
import type { PriceListRow } from '../../../../src/core/catalog/source.js';

function fixture(name: string): Buffer {
  return readFileSync(new URL(`../../../fixtures/pos/${name}`, import.meta.url));
}

function parseInChunks(chunks: readonly (string | Uint8Array)[]): { rows: PriceListRow[]; summary: PriceListSummary } {
  const rows: PriceListRow[] = [];
  const parser = createPriceListParser((row) => {
    rows.push(row);
  });
  for (const chunk of chunks) parser.write(chunk);
  return { rows, summary: parser.end() };
}

function splitEvery<T extends string | Uint8Array>(input: T, size: number): T[] {
  const parts: T[] = [];
  for (let start = 0; start < input.length; start += size) parts.push(input.slice(start, start + size) as T);
  return parts;
}

/** Deterministic pseudo-random cut points (mulberry32), so a failure reproduces. */
function splitRandomly(bytes: Uint8Array, seed: number): Uint8Array[] {
  let state = seed;
  function next(): number {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  const parts: Uint8Array[] = [];
  let start = 0;
  while (start < bytes.length) {
    const size = 1 + Math.floor(next() * 40);
    parts.push(bytes.subarray(start, start + size));
    start += size;
  }
  return parts;
}

function parseError(action: () => unknown): PriceListParseError {
  try {
    action();
  } catch (error) {
    if (error instanceof PriceListParseError) return error;
    throw new Error(`expected a PriceListParseError, got ${String(error)}`);
  }
  throw new Error('expected a PriceListParseError, nothing was thrown');
}

const SHOP_ROWS: PriceListRow[] = [
  {
    code: '1001',
    ean: '8594000000017',
    priceVat: 129,
    standardPrice: 149,
    actionPrice: 99,
    currency: 'CZK',
    stock: 12,
    availabilityInStock: 'Skladem',
    availabilityOutOfStock: 'Na dotaz',
    position: 1,
  },
  {
    code: '2002',
    priceVat: 54.9,
    stock: 0,
    availabilityInStock: 'Skladem',
    availabilityOutOfStock: 'Vyprodáno',
    position: 2,
  },
  { code: '3003-M', priceVat: 399, stock: 2, position: 3 },
];

const MIXED_ROWS: PriceListRow[] = [
  {
    code: 'KAV&1',
    priceNet: 82.64,
    currency: 'EUR',
    stock: -1.5,
    availabilityInStock: 'Skladem – ihned',
    availabilityOutOfStock: 'Na dotaz <3 dny>',
    position: 1,
  },
  { code: '8594000000024', ean: '8594000000024', priceVat: 1299, stock: 3.5, position: 2 },
  { code: 'B-3', stock: 3, position: 3 },
  { code: 'BAD-1', standardPrice: 20, position: 5 },
  { code: 'SHIRT-S', priceVat: 499, currency: 'CZK', stock: 4, availabilityInStock: 'Skladem', position: 6 },
  {
    code: 'SHIRT-M',
    ean: '8594000000031',
    priceVat: 549,
    currency: 'CZK',
    stock: 3,
    availabilityInStock: 'Skladem',
    position: 6,
  },
];

describe('adapters/pos/price-list-xml', () => {
  describe('documents of every shape docs/pos-interface.md describes', () => {
    it('reads the reconstructed SHOP example: simple items, empty elements, a variant product', () => {
      const { rows, summary } = parsePriceListXml(fixture('price-list-shop.xml'));

      // toStrictEqual: absent values are omitted, never present as `undefined`.
      expect(rows).toStrictEqual(SHOP_ROWS);
      expect(summary).toStrictEqual({
        rootElement: 'SHOP',
        encoding: 'utf-8',
        itemsSeen: 3,
        rowsEmitted: 3,
        skipped: [],
        skippedCount: 0,
        warnings: [],
        warningCount: 0,
      });
    });

    it.each([
      ['<?xml version="1.0" encoding="utf-8"?>\n<root/>\n', 'root'],
      ['<SHOP/>', 'SHOP'],
      ['<SHOP></SHOP>', 'SHOP'],
      ['<SHOP>\n  <!-- nothing today -->\n</SHOP>', 'SHOP'],
    ])('reads %j as a valid document with zero rows', (xml, root) => {
      const { rows, summary } = parsePriceListXml(xml);

      expect(rows).toEqual([]);
      expect(summary.rootElement).toBe(root);
      expect(summary.itemsSeen).toBe(0);
    });

    it('reads the empty <root/> fixture as bytes', () => {
      expect(parsePriceListXml(fixture('price-list-root-empty.xml')).rows).toEqual([]);
    });

    it('reads items nested anywhere, shuffled children, PRICE only, entities, CDATA, prefixes, warehouses and variants', () => {
      const { rows, summary } = parsePriceListXml(fixture('price-list-mixed.xml'));

      expect(rows).toStrictEqual(MIXED_ROWS);
      expect(summary.rootElement).toBe('export');
      expect(summary.itemsSeen).toBe(6);
      expect(summary.rowsEmitted).toBe(6);
      expect(summary.skipped).toEqual([
        { position: 4, message: 'SHOPITEM has neither CODE nor EAN' },
        { position: 6, variant: 3, message: 'VARIANT has neither CODE nor EAN' },
      ]);
      expect(summary.warnings).toEqual([
        { position: 5, code: 'BAD-1', message: 'PRICE_VAT "zdarma" is not a number, ignored' },
        { position: 5, code: 'BAD-1', message: 'ACTION_PRICE "-5.00" is negative, ignored' },
      ]);
    });

    it('never takes fields from nested structures (price lists, related products, parameters, logistics)', () => {
      const xml = `<SHOP><SHOPITEM>
        <PRICELISTS><PRICELIST><TITLE>VIP</TITLE><PRICE_VAT>1</PRICE_VAT><CURRENCY>EUR</CURRENCY></PRICELIST></PRICELISTS>
        <RELATED_PRODUCTS><CODE>R-1</CODE></RELATED_PRODUCTS>
        <LOGISTIC><WEIGHT>2</WEIGHT></LOGISTIC>
        <STOCK><MINIMAL_AMOUNT>5</MINIMAL_AMOUNT></STOCK>
        <CODE>A</CODE>
      </SHOPITEM></SHOP>`;

      expect(parsePriceListXml(xml).rows).toStrictEqual([{ code: 'A', position: 1 }]);
    });

    it.each([
      [
        'STOCK/AMOUNT wins over warehouses and bare text',
        '<STOCK>9<AMOUNT>2</AMOUNT><WAREHOUSES><WAREHOUSE><VALUE>5</VALUE></WAREHOUSE></WAREHOUSES></STOCK>',
        2,
      ],
      [
        'warehouses are summed',
        '<STOCK><WAREHOUSES><WAREHOUSE><VALUE>0.1</VALUE></WAREHOUSE><WAREHOUSE><VALUE>0.2</VALUE></WAREHOUSE></WAREHOUSES></STOCK>',
        0.3,
      ],
      ['a bare number is the stock', '<STOCK>\n 3.000 \n</STOCK>', 3],
      [
        'an empty AMOUNT falls back to warehouses',
        '<STOCK><AMOUNT/><WAREHOUSES><WAREHOUSE><VALUE>4</VALUE></WAREHOUSE></WAREHOUSES></STOCK>',
        4,
      ],
      ['an empty STOCK is no stock', '<STOCK/>', undefined],
      [
        'empty warehouse values are no stock',
        '<STOCK><WAREHOUSES><WAREHOUSE><VALUE/></WAREHOUSE></WAREHOUSES></STOCK>',
        undefined,
      ],
      ['negative stock is kept', '<STOCK><AMOUNT>-2.5</AMOUNT></STOCK>', -2.5],
    ])('stock: %s', (_, stockXml, expected) => {
      const [row] = parsePriceListXml(`<SHOP><SHOPITEM><CODE>A</CODE>${stockXml}</SHOPITEM></SHOP>`).rows;

      expect(row?.stock).toBe(expected);
    });

    it('reports an unreadable warehouse value and gives no stock rather than a partial sum', () => {
      const xml =
        '<SHOP><SHOPITEM><CODE>A</CODE><STOCK><WAREHOUSES><WAREHOUSE><VALUE>1</VALUE></WAREHOUSE>' +
        '<WAREHOUSE><VALUE>many</VALUE></WAREHOUSE></WAREHOUSES></STOCK></SHOPITEM></SHOP>';

      const { rows, summary } = parsePriceListXml(xml);

      expect(rows).toStrictEqual([{ code: 'A', position: 1 }]);
      expect(summary.warnings).toEqual([
        { position: 1, code: 'A', message: 'STOCK/WAREHOUSES/WAREHOUSE/VALUE "many" is not a number, stock ignored' },
      ]);
    });

    it('keys by CODE, falls back to EAN, keeps PLU', () => {
      const xml = `<SHOP>
        <SHOPITEM><CODE>C</CODE><EAN>E1</EAN><PLU>12</PLU></SHOPITEM>
        <SHOPITEM><EAN>E2</EAN></SHOPITEM>
        <SHOPITEM><CODE>  </CODE><EAN>E3</EAN></SHOPITEM>
      </SHOP>`;

      expect(parsePriceListXml(xml).rows).toStrictEqual([
        { code: 'C', ean: 'E1', plu: '12', position: 1 },
        { code: 'E2', ean: 'E2', position: 2 },
        { code: 'E3', ean: 'E3', position: 3 },
      ]);
    });

    it('reads prices with dot, comma, grouped thousands and NBSP', () => {
      const xml =
        '<SHOP><SHOPITEM><CODE>A</CODE><PRICE_VAT>1 234,50</PRICE_VAT><PRICE>1\u00A0020.25</PRICE>' +
        '<ACTION_PRICE>999,9</ACTION_PRICE><STANDARD_PRICE>1.500,00</STANDARD_PRICE></SHOPITEM></SHOP>';

      expect(parsePriceListXml(xml).rows).toStrictEqual([
        { code: 'A', priceVat: 1234.5, priceNet: 1020.25, actionPrice: 999.9, standardPrice: 1500, position: 1 },
      ]);
    });

    it('keeps the first of duplicated elements and reports the others', () => {
      const { rows, summary } = parsePriceListXml(
        '<SHOP><SHOPITEM><CODE>A</CODE><CODE>B</CODE><PRICE_VAT>1</PRICE_VAT><PRICE_VAT>2</PRICE_VAT></SHOPITEM></SHOP>',
      );

      expect(rows).toStrictEqual([{ code: 'A', priceVat: 1, position: 1 }]);
      expect(summary.warnings.map((warning) => warning.message)).toEqual([
        'duplicate CODE "B" ignored',
        'duplicate PRICE_VAT "2" ignored',
      ]);
    });

    it('matches element names case-insensitively and without namespace prefixes', () => {
      const xml = '<x:shop xmlns:x="urn:x"><x:shopitem><x:code>a</x:code><Price_Vat>5</Price_Vat></x:shopitem></x:shop>';

      expect(parsePriceListXml(xml).rows).toStrictEqual([{ code: 'a', priceVat: 5, position: 1 }]);
    });

    it('treats an empty VARIANTS as a simple item, and variants with their own identity', () => {
      const xml = `<SHOP>
        <SHOPITEM><CODE>A</CODE><VARIANTS/></SHOPITEM>
        <SHOPITEM><CODE>B</CODE><EAN>EB</EAN><PLU>7</PLU><VARIANTS><VARIANT><CODE>B-1</CODE></VARIANT></VARIANTS></SHOPITEM>
      </SHOP>`;

      // Item-level identity is not inherited: B-1 has neither B's EAN nor its PLU.
      expect(parsePriceListXml(xml).rows).toStrictEqual([
        { code: 'A', position: 1 },
        { code: 'B-1', position: 2 },
      ]);
    });

    it('reports an over-long field instead of keeping it', () => {
      const long = 'x'.repeat(5000);

      const { rows, summary } = parsePriceListXml(
        `<SHOP><SHOPITEM><CODE>A</CODE><AVAILABILITY_IN_STOCK>${long}</AVAILABILITY_IN_STOCK></SHOPITEM></SHOP>`,
      );

      expect(rows).toStrictEqual([{ code: 'A', position: 1 }]);
      expect(summary.warnings[0]?.message).toBe('AVAILABILITY_IN_STOCK is longer than 1000 characters, ignored');
    });

    it('caps the reported issues but counts them all', () => {
      const xml = `<SHOP>${'<SHOPITEM><PRICE_VAT>1</PRICE_VAT></SHOPITEM>'.repeat(MAX_REPORTED + 500)}</SHOP>`;

      const { summary } = parsePriceListXml(xml);

      expect(summary.skipped).toHaveLength(MAX_REPORTED);
      expect(summary.skippedCount).toBe(MAX_REPORTED + 500);
      expect(summary.itemsSeen).toBe(MAX_REPORTED + 500);
    });
  });

  describe('encodings and chunking', () => {
    it('strips a BOM from text and from bytes', () => {
      const xml = '<SHOP><SHOPITEM><CODE>Č</CODE></SHOPITEM></SHOP>';
      const expected = [{ code: 'Č', position: 1 }];

      expect(parsePriceListXml(`\uFEFF${xml}`).rows).toStrictEqual(expected);
      expect(parsePriceListXml(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml)])).rows).toStrictEqual(expected);
    });

    it('decodes bytes in the encoding the XML declaration names', () => {
      const head = Buffer.from('<?xml version="1.0" encoding="windows-1250"?>\n<SHOP><SHOPITEM><CODE>');
      const bytes = Buffer.concat([head, Buffer.from([0xe8, 0x9a]), Buffer.from('</CODE></SHOPITEM></SHOP>')]);

      const { rows, summary } = parsePriceListXml(bytes);

      expect(rows).toStrictEqual([{ code: 'čš', position: 1 }]);
      expect(summary.encoding).toBe('windows-1250');
    });

    it('decodes UTF-16 with a BOM', () => {
      const bytes = Buffer.from('\uFEFF<SHOP><SHOPITEM><CODE>Ž</CODE></SHOPITEM></SHOP>', 'utf16le');

      expect(parsePriceListXml(bytes).rows).toStrictEqual([{ code: 'Ž', position: 1 }]);
    });

    it('gives the same rows whatever the chunking: 1-byte chunks, random chunks, 1-character chunks', () => {
      const bytes = fixture('price-list-mixed.xml');
      const whole = parsePriceListXml(bytes);

      expect(parseInChunks(splitEvery(bytes, 1))).toEqual(whole);
      for (const seed of [1, 2, 3, 4, 5]) expect(parseInChunks(splitRandomly(bytes, seed))).toEqual(whole);
      expect(parseInChunks(splitEvery(bytes.toString('utf8'), 1))).toEqual({
        rows: whole.rows,
        summary: { ...whole.summary, encoding: undefined },
      });
    });

    it('decodes a multi-byte character split across chunks', () => {
      const bytes = Buffer.from('<SHOP><SHOPITEM><CODE>ž😀</CODE></SHOPITEM></SHOP>');
      const at = bytes.indexOf(0xc5) + 1; // between the two bytes of "ž"

      const { rows } = parseInChunks([bytes.subarray(0, at), bytes.subarray(at, at + 2), bytes.subarray(at + 2)]);

      expect(rows).toStrictEqual([{ code: 'ž😀', position: 1 }]);
    });

    it('emits each row as soon as its SHOPITEM closes, before the document ends', () => {
      const rows: PriceListRow[] = [];
      const parser = createPriceListParser((row) => {
        rows.push(row);
      });

      parser.write('<SHOP><SHOPITEM><CODE>A</CODE></SHOPITEM><SHOPITEM><CO');

      expect(rows).toStrictEqual([{ code: 'A', position: 1 }]);
      parser.write('DE>B</CODE></SHOPITEM></SHOP>');
      expect(parser.end().rowsEmitted).toBe(2);
    });
  });

  describe('documents that are not well-formed', () => {
    it.each([
      ['an empty document', '', /must contain a root element/],
      ['whitespace only', '  \n ', /must contain a root element/],
      ['garbage', 'this is not XML', /text data outside of root node/],
      ['an unclosed tag', '<SHOP><SHOPITEM><CODE>A</CODE></SHOPITEM>', /unclosed tag: SHOP/],
      ['a document truncated mid-tag', '<SHOP><SHOPITEM><CODE>A</CO', /unclosed tag/],
      ['a mismatched close tag', '<SHOP><SHOPITEM></SHOP>', /unexpected close tag/],
      ['two roots', '<SHOP/><SHOP/>', /only one root/],
      ['text before the root', 'x<SHOP/>', /text data outside of root node/],
      ['an undefined entity', '<SHOP><SHOPITEM><CODE>&nbsp;</CODE></SHOPITEM></SHOP>', /undefined entity/],
      ['a bare ampersand', '<SHOP>a & b</SHOP>', /./],
      ['a forbidden character', '<SHOP>\u0001</SHOP>', /disallowed character/],
      ['an HTML error page', '<html><body><p>502 Bad Gateway</body></html>', /unexpected close tag/],
      ['a JSON error body', '{"isValid":false}', /text data outside of root node/],
    ])('rejects %s with PriceListParseError', (_, xml, problem) => {
      const error = parseError(() => parsePriceListXml(xml));

      expect(error.code).toBe('PRICE_LIST_INVALID');
      expect(error.name).toBe('PriceListParseError');
      expect(error.message).toMatch(problem);
      expect(error.line).toBeGreaterThanOrEqual(1);
      expect(error.column).toBeGreaterThanOrEqual(1);
    });

    it('names the line and column of the problem', () => {
      const error = parseError(() => parsePriceListXml('<SHOP>\n  <SHOPITEM>\n    <CODE>A&bad;</CODE>\n'));

      expect(error.line).toBe(3);
      expect(error.column).toBe(16);
      expect(error.message).toBe('price-list XML is not well-formed: undefined entity (line 3, column 16)');
    });

    it('fails on every later call once the document was found broken', () => {
      const parser = createPriceListParser(() => {});

      const first = parseError(() => parser.write('<SHOP></WRONG>'));

      expect(parseError(() => parser.write('<more/>'))).toBe(first);
      expect(parseError(() => parser.end())).toBe(first);
    });

    it('lets an error of the row callback through unchanged', () => {
      const failure = new Error('store is full');
      const parser = createPriceListParser(() => {
        throw failure;
      });

      expect(() => parser.write('<SHOP><SHOPITEM><CODE>A</CODE></SHOPITEM></SHOP>')).toThrow(failure);
      expect(() => parser.end()).toThrow(failure);
    });
  });
});
