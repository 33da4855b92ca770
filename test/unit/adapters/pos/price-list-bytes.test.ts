import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  createPriceListParser,
  createSaxesPriceListParser,
  parsePriceListXml,
} from '../../../../src/adapters/pos/price-list-xml.js';
import { type PriceListParserFactory, readPriceList } from '../../../helpers/price-list-reads.js';

/**
 * The price list read from UTF-8 bytes by the byte scanner (docs/decisions/0021-price-list-byte-scanner.md):
 * the same result as saxes on every fixture and broken document, the hand-over of prologs it leaves to
 * saxes, and tokens longer than a chunk.
 */

const FIXTURES = new URL('../../../fixtures/pos/', import.meta.url);

function read(create: PriceListParserFactory, chunks: readonly Uint8Array[]): unknown {
  const result = readPriceList(create, chunks);
  if (!('error' in result)) return result;
  const { error } = result;
  return { message: error.message, line: error.line, column: error.column };
}

function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('adapters/pos/price-list-bytes', () => {
  const fixtures = readdirSync(FIXTURES).filter((name) => name.startsWith('price-list') && name.endsWith('.xml'));

  it.each(fixtures)('reads the fixture %s as saxes does, in any chunking', (name) => {
    const bytes = readFileSync(new URL(name, FIXTURES));
    const expected = read(createSaxesPriceListParser, [bytes]);

    for (const size of [1, 7, 64, bytes.length]) expect(read(createPriceListParser, chunksOf(bytes, size))).toEqual(expected);
  });

  it.each([
    ['an empty document', ''],
    ['an unclosed tag', '<SHOP><SHOPITEM><CODE>A</CODE></SHOPITEM>'],
    ['a document truncated mid-tag', '<SHOP><SHOPITEM><CODE>A</CO'],
    ['a mismatched close tag', '<SHOP><SHOPITEM></SHOP>'],
    ['two roots', '<SHOP/><SHOP/>'],
    ['an undefined entity', '<SHOP>\n  <SHOPITEM>\n    <CODE>A&bad;</CODE>\n'],
    ['a forbidden character in a tag name', '<SHOP><SHOP\u0001ITEM/></SHOP>'],
    ['a forbidden character in a close tag', '<SHOP></SH\u0001OP>'],
    ['a "<" in an attribute value', '<SHOP><SHOPITEM id="a<b"><CODE>A</CODE></SHOPITEM></SHOP>'],
    ['a reference to a forbidden character', '<SHOP><SHOPITEM><CODE>A&#1;</CODE></SHOPITEM></SHOP>'],
    ['an HTML error page', '<html><body><p>502 Bad Gateway</body></html>'],
    ['a duplicate attribute', '<SHOP a="1" a="2"/>'],
    ['a double dash in a comment', '<SHOP><!-- a -- b --></SHOP>'],
    ['"]]>" in text', '<SHOP>a]]>b</SHOP>'],
    ['an XML declaration inside the root', '<SHOP><?xml version="1.0"?></SHOP>'],
  ])('rejects %s with the error saxes gives, at the same line and column', (_, xml) => {
    const expected = read(createSaxesPriceListParser, [encode(xml)]);

    expect(expected).toHaveProperty('message');
    expect(read(createPriceListParser, [encode(xml)])).toEqual(expected);
  });

  it.each([
    ['garbage', 'this is not XML', 1, 1],
    ['NUL padding after the root', '<SHOP/>\u0000\u0000', 1, 8],
    ['text after the root on a later line', '<SHOP/>\n\n  x\n', 3, 3],
  ])('rejects %s as saxes does, naming the first character outside the root', (_, xml, line, column) => {
    const expected = read(createSaxesPriceListParser, [encode(xml)]);

    expect(read(createPriceListParser, [encode(xml)])).toEqual({
      message: `price-list XML is not well-formed: text data outside of root node (line ${line}, column ${column})`,
      line,
      column,
    });
    expect(expected).toMatchObject({ message: expect.stringContaining('text data outside of root node') });
  });

  describe('prologs the scanner leaves to saxes', () => {
    const ITEM = '<SHOP><SHOPITEM><CODE>Č-1</CODE><PRICE_VAT>10</PRICE_VAT></SHOPITEM></SHOP>';

    it.each([
      ['a DOCTYPE', `<?xml version="1.0"?>\n<!DOCTYPE SHOP>\n${ITEM}`],
      ['a DOCTYPE with an internal subset', `<!DOCTYPE SHOP [ <!ELEMENT SHOP ANY> ]>${ITEM}`],
      ['a processing instruction', `<?xml-stylesheet href="a.xsl"?>${ITEM}`],
      ['an XML 1.1 declaration', `<?xml version="1.1"?>${ITEM}`],
      ['a declaration with the attributes out of order', `<?xml encoding="UTF-8" version="1.0"?>${ITEM}`],
    ])('hands %s over to saxes with every byte read so far', (_, xml) => {
      const bytes = encode(xml);
      const expected = read(createSaxesPriceListParser, [bytes]);

      for (const size of [1, 5, bytes.length]) expect(read(createPriceListParser, chunksOf(bytes, size))).toEqual(expected);
    });

    it('reads the rows after a DOCTYPE', () => {
      expect(parsePriceListXml(encode(`<!DOCTYPE SHOP>${ITEM}`)).rows).toStrictEqual([
        { code: 'Č-1', priceVat: 10, position: 1 },
      ]);
    });

    it('names a DOCTYPE after more than 1 MiB of prolog read in chunks, which it no longer holds', () => {
      const bytes = encode(`${'<!-- a comment -->\n'.repeat(60_000)}<!DOCTYPE SHOP>${ITEM}`);

      expect(read(createPriceListParser, chunksOf(bytes, 65_536))).toMatchObject({
        message: expect.stringMatching(/a DOCTYPE or processing instruction after more than 1 MiB of prolog is not supported/),
      });
    });
  });

  it.each([
    ['a name with a stray continuation byte, closed by another', [0x3c, 0x53, 0x80, 0x3e, 0x3c, 0x2f, 0x53, 0x81, 0x3e]],
    ['a name cut by an invalid sequence', [0x3c, 0x53, 0xc3, 0x3e, 0x3c, 0x2f, 0x53, 0x3e]],
    [
      'invalid bytes before a problem on the same line',
      [0x3c, 0x53, 0x3e, 0x80, 0xe2, 0x82, 0x26, 0x62, 0x3b, 0x3c, 0x2f, 0x53, 0x3e],
    ],
  ])('reads invalid UTF-8 as saxes reads its U+FFFD: %s', (_, codes) => {
    const bytes = Uint8Array.from(codes);

    for (const size of [1, bytes.length]) {
      expect(read(createPriceListParser, chunksOf(bytes, size))).toEqual(read(createSaxesPriceListParser, [bytes]));
    }
  });

  it('hands over a DOCTYPE in one chunk of any size', () => {
    const items = '<SHOPITEM><CODE>A</CODE></SHOPITEM>'.repeat(40_000);
    const bytes = encode(`<?xml version="1.0"?>\n<!DOCTYPE SHOP>\n<SHOP>${items}</SHOP>`);

    expect(bytes.length).toBeGreaterThan(1 << 20);
    expect(read(createPriceListParser, [bytes])).toEqual(read(createSaxesPriceListParser, [bytes]));
  });

  it('reads a text much longer than a chunk, in small chunks', () => {
    const name = 'Ž'.repeat(1_000_000);
    const xml = encode(`<SHOP><SHOPITEM><NAME>${name}</NAME><CODE>A</CODE><![CDATA[${name}]]></SHOPITEM></SHOP>`);

    expect(read(createPriceListParser, chunksOf(xml, 4096))).toEqual(read(createSaxesPriceListParser, [xml]));
  });

  it('reads text written after bytes as UTF-8', () => {
    const parser = createPriceListParser(() => {});

    parser.write(encode('<SHOP><SHOPITEM><CODE>A</CODE></SHOPITEM>'));
    parser.write('<SHOPITEM><CODE>Ř</CODE></SHOPITEM></SHOP>');

    expect(parser.end()).toMatchObject({ rowsEmitted: 2, encoding: 'utf-8' });
  });
});
