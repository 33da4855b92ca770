import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PriceListParseError } from '../../../../src/adapters/pos/parse-errors.js';
import {
  createPriceListParser,
  forbiddenCharacterProblem,
  MAX_REPORTED,
  parsePriceListXml,
} from '../../../../src/adapters/pos/price-list-xml.js';
import type { PriceListSummary } from '../../../../src/core/catalog/pos-documents.js';
import type { PriceListRow } from '../../../../src/core/catalog/source.js';

/** The summary of a clean three-item SHOP document: nothing skipped, nothing to warn about. */
const CLEAN_THREE_ROW_SUMMARY = {
  rootElement: 'SHOP',
  encoding: 'utf-8',
  itemsSeen: 3,
  rowsEmitted: 3,
  skipped: [],
  skippedCount: 0,
  warnings: [],
  warningCount: 0,
};

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
      expect(summary).toStrictEqual(CLEAN_THREE_ROW_SUMMARY);
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

  describe('characters XML forbids (a real POS writes control characters into article names)', () => {
    const CLEAN = `<?xml version="1.0" encoding="UTF-8"?>
<SHOP>
  <SHOPITEM id="1"><NAME>Káva zrnková</NAME><CODE>K-1</CODE><PRICE_VAT>129.00</PRICE_VAT><STOCK><AMOUNT>3.000</AMOUNT></STOCK></SHOPITEM>
  <SHOPITEM id="2"><NAME>Čaj černý</NAME><CODE>C-2</CODE><PRICE_VAT>59.90</PRICE_VAT><AVAILABILITY_IN_STOCK>Skladem</AVAILABILITY_IN_STOCK></SHOPITEM>
  <SHOPITEM id="3"><NAME>Hrnek</NAME><CODE>H-3</CODE><PRICE_VAT>99.00</PRICE_VAT></SHOPITEM>
</SHOP>
`;
    const CLEAN_ROWS: PriceListRow[] = [
      { code: 'K-1', priceVat: 129, stock: 3, position: 1 },
      { code: 'C-2', priceVat: 59.9, availabilityInStock: 'Skladem', position: 2 },
      { code: 'H-3', priceVat: 99, position: 3 },
    ];

    it('reads a well-formed document exactly as before: no warning, no count', () => {
      const { rows, summary } = parsePriceListXml(Buffer.from(CLEAN));

      expect(rows).toStrictEqual(CLEAN_ROWS);
      expect(summary).toStrictEqual(CLEAN_THREE_ROW_SUMMARY);
      expect(summary).not.toHaveProperty('forbiddenCharacters');
    });

    it.each([
      ['U+0001', '\u0001'],
      ['U+000B', '\u000B'],
      ['U+001F', '\u001F'],
      ['U+0000', '\u0000'],
      ['U+FFFF', '\uFFFF'],
    ])('reads a document with %s in one article name: all rows, that row reported', (code, char) => {
      const xml = CLEAN.replace('Čaj černý', `Čaj${char}černý`);

      for (const input of [xml, Buffer.from(xml)]) {
        const { rows, summary } = parsePriceListXml(input);

        expect(rows).toStrictEqual(CLEAN_ROWS);
        expect(summary.warnings).toStrictEqual([
          { position: 2, code: 'C-2', message: `1 character that XML forbids (${code}) replaced` },
        ]);
        expect(summary.warningCount).toBe(1);
        expect(summary.forbiddenCharacters).toBe(1);
        expect(summary.skippedCount).toBe(0);
      }
    });

    it('replaces them with U+FFFD in codes and amounts, removes them from availability texts, reports each row once', () => {
      const xml = CLEAN.replace('<CODE>K-1</CODE>', '<CODE>K\u0001-1</CODE>')
        .replace('<AVAILABILITY_IN_STOCK>Skladem', '<AVAILABILITY_IN_STOCK>Sk\u001Fla\u0002dem')
        .replace('<PRICE_VAT>99.00', '<PRICE_VAT>9\u00079.00');

      const { rows, summary } = parsePriceListXml(xml);

      // Not deleted from codes and amounts: `K-1` could be an article the POS did not name, `9\u00079` is no price of 99.
      expect(rows).toStrictEqual([
        { code: 'K\uFFFD-1', priceVat: 129, stock: 3, position: 1 },
        { code: 'C-2', priceVat: 59.9, availabilityInStock: 'Skladem', position: 2 },
        { code: 'H-3', position: 3 },
      ]);
      expect(summary.warnings).toStrictEqual([
        { position: 1, code: 'K\uFFFD-1', message: '1 character that XML forbids (U+0001) replaced' },
        { position: 2, code: 'C-2', message: '2 characters that XML forbids (first U+001F) replaced' },
        { position: 3, code: 'H-3', message: '1 character that XML forbids (U+0007) replaced' },
        { position: 3, code: 'H-3', message: 'PRICE_VAT "9\uFFFD9.00" is not a number, ignored' },
      ]);
      expect(summary.forbiddenCharacters).toBe(4);
    });

    it('replaces a vertical tab or form feed around a value too (XML has no such whitespace)', () => {
      const { rows } = parsePriceListXml(
        '<SHOP><SHOPITEM><CODE>\u000BA\u000C</CODE><AVAILABILITY_OUT_OF_STOCK> \u000B </AVAILABILITY_OUT_OF_STOCK></SHOPITEM></SHOP>',
      );

      // An availability text left empty is absent, as any empty element.
      expect(rows).toStrictEqual([{ code: '\uFFFDA\uFFFD', position: 1 }]);
    });

    it('reads them in attribute values and gives them to the element the attribute is on', () => {
      const xml = `<SHOP>
        <SHOPITEM id="1\u0001"><CODE>A</CODE></SHOPITEM>
        <SHOPITEM><CODE type="x\u0002">B</CODE></SHOPITEM>
        <SHOPITEM><CODE>C</CODE><VARIANTS><VARIANT label="\u0003"><CODE>C-1</CODE></VARIANT><VARIANT><CODE>C-2</CODE></VARIANT></VARIANTS></SHOPITEM>
      </SHOP>`;

      const { rows, summary } = parsePriceListXml(xml);

      expect(rows).toStrictEqual([
        { code: 'A', position: 1 },
        { code: 'B', position: 2 },
        { code: 'C-1', position: 3 },
        { code: 'C-2', position: 3 },
      ]);
      expect(summary.warnings).toStrictEqual([
        { position: 1, code: 'A', message: '1 character that XML forbids (U+0001) replaced' },
        { position: 2, code: 'B', message: '1 character that XML forbids (U+0002) replaced' },
        { position: 3, variant: 1, code: 'C-1', message: '1 character that XML forbids (U+0003) replaced' },
      ]);
    });

    it('reports a variant product once for its own fields and once per variant that had them', () => {
      const xml =
        '<SHOP><SHOPITEM><NAME>Tričko\u0001</NAME><PRICE_VAT>10</PRICE_VAT><VARIANTS>' +
        '<VARIANT><CODE>T-S</CODE></VARIANT><VARIANT><CODE>T-M</CODE><PARAMETERS><PARAMETER><VALUE>M\u0008</VALUE></PARAMETER></PARAMETERS></VARIANT>' +
        '</VARIANTS></SHOPITEM></SHOP>';

      const { rows, summary } = parsePriceListXml(xml);

      expect(rows).toStrictEqual([
        { code: 'T-S', priceVat: 10, position: 1 },
        { code: 'T-M', priceVat: 10, position: 1 },
      ]);
      expect(summary.warnings).toStrictEqual([
        { position: 1, message: '1 character that XML forbids (U+0001) replaced' },
        { position: 1, variant: 2, code: 'T-M', message: '1 character that XML forbids (U+0008) replaced' },
      ]);
    });

    it('reads them in CDATA and comments; between items they are counted for the document only', () => {
      const xml =
        '<SHOP>\u0001<SHOPITEM><CODE><![CDATA[A\u0005]]></CODE><!-- \u0006 --></SHOPITEM>\n\u0007 <SHOPITEM><CODE>B</CODE></SHOPITEM></SHOP>';

      const { rows, summary } = parsePriceListXml(xml);

      expect(rows).toStrictEqual([
        { code: 'A\uFFFD', position: 1 },
        { code: 'B', position: 2 },
      ]);
      expect(summary.warnings).toStrictEqual([
        { position: 1, code: 'A\uFFFD', message: '2 characters that XML forbids (first U+0005) replaced' },
      ]);
      expect(summary.forbiddenCharacters).toBe(4);
    });

    it('gives the same result whatever the chunking, the character split from its text or not', () => {
      const bytes = Buffer.from(CLEAN.replace('Čaj černý', 'Čaj\u0001\u0002černý').replace('<CODE>H-3', '<CODE>H\u001F-3'));
      const whole = parsePriceListXml(bytes);

      expect(whole.summary.warningCount).toBe(2);
      expect(parseInChunks(splitEvery(bytes, 1))).toEqual(whole);
      for (const seed of [1, 2, 3]) expect(parseInChunks(splitRandomly(bytes, seed))).toEqual(whole);
    });

    it('names the count and the first character in its message', () => {
      expect(forbiddenCharacterProblem(1, 0x1f)).toBe('1 character that XML forbids (U+001F) replaced');
      expect(forbiddenCharacterProblem(3, 0xfffe)).toBe('3 characters that XML forbids (first U+FFFE) replaced');
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
      ['a forbidden character in a tag name', '<SHOP><SHOP\u0001ITEM/></SHOP>', /disallowed character in tag name/],
      ['a forbidden character in a close tag', '<SHOP></SH\u0001OP>', /disallowed character in closing tag/],
      ['a forbidden character before the root', '\u0001<SHOP/>', /text data outside of root node/],
      ['NUL padding after the root', '<SHOP/>\u0000\u0000', /text data outside of root node/],
      ['a "<" in an attribute value', '<SHOP><SHOPITEM id="a<b"><CODE>A</CODE></SHOPITEM></SHOP>', /disallowed character/],
      [
        'a reference to a forbidden character',
        '<SHOP><SHOPITEM><CODE>A&#1;</CODE></SHOPITEM></SHOP>',
        /malformed character entity/,
      ],
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
