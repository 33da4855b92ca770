import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPriceListParser, createSaxesPriceListParser } from '../../../../src/adapters/pos/price-list-xml.js';
import type { PriceListSummary } from '../../../../src/core/catalog/pos-documents.js';
import type { PriceListRow } from '../../../../src/core/catalog/source.js';
import { type PriceListParserFactory, readPriceList } from '../../../helpers/price-list-reads.js';

/**
 * The byte scanner against saxes (docs/decisions/0021-price-list-byte-scanner.md): for any document, well-
 * formed or not, in any chunking, both paths give the same rows and summary, or the same error at the
 * same line and column.
 */

type Outcome =
  | { readonly rows: PriceListRow[]; readonly summary: PriceListSummary }
  | { readonly problem: string; readonly position?: { readonly line?: number; readonly column?: number } };

/**
 * Problems saxes places where it noticed them (the end of a text run, which moves with the chunking), not at
 * the character: the scanner names the character, so only the problem is compared.
 */
const NOTICED_LATER = new Set(['text data outside of root node']);
/**
 * A `&` with no `;` before the next tag: saxes reads a reference's name on to the next `;` across tags and
 * fails there (or at the end, on an unclosed tag); the scanner names the `&`'s text. Both fail.
 */
const BARE_AMPERSAND = 'price-list XML is not well-formed: disallowed character in entity name';

function expectSameOutcome(actual: Outcome, expected: Outcome): void {
  if ('problem' in actual && actual.problem === BARE_AMPERSAND && 'problem' in expected) return;
  expect(actual).toEqual(expected);
}

function outcome(create: PriceListParserFactory, chunks: readonly Uint8Array[]): Outcome {
  const read = readPriceList(create, chunks);
  if (!('error' in read)) return read;
  const { error } = read;
  const problem = error.message.replace(/ \(line \d+, column \d+\)$/, '');
  const known = problem.replace('price-list XML is not well-formed: ', '');
  return NOTICED_LATER.has(known) ? { problem } : { problem, position: { line: error.line ?? 0, column: error.column ?? 0 } };
}

function split(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(from, point));
    from = point;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

/** Pieces of price lists, well-formed and broken, biased to what the scanner treats specially. */
const PIECES = [
  '<SHOP>',
  '</SHOP>',
  '<SHOPITEM>',
  '</SHOPITEM>',
  '<CODE>',
  '</CODE>',
  '<EAN>',
  '</EAN>',
  '<PRICE_VAT>',
  '</PRICE_VAT>',
  '<STOCK><AMOUNT>',
  '</AMOUNT></STOCK>',
  '<VARIANTS>',
  '</VARIANTS>',
  '<VARIANT>',
  '</VARIANT>',
  '<AVAILABILITY_IN_STOCK>',
  '</AVAILABILITY_IN_STOCK>',
  '<NAME>',
  '</NAME>',
  '<X/>',
  '<x:SHOPITEM>',
  '</x:SHOPITEM>',
  'A-1',
  '12.50',
  '1 234,5',
  ' ',
  '\n',
  '\r\n',
  '\r',
  '\t',
  'č',
  'Ž€',
  '😀',
  '\u00a0',
  '&amp;',
  '&lt;',
  '&#65;',
  '&#x10FFFF;',
  '&#1;',
  '&bad;',
  '&',
  '&#;',
  ';',
  ']]>',
  ']]',
  '>',
  '<![CDATA[x<y]]>',
  '<![CDATA[',
  '<!-- c -->',
  '<!-- a -- b -->',
  '<!--\u0001-->',
  '<?pi data?>',
  '<?xml x?>',
  '<a b="1">',
  '<a b="1" b="2">',
  '<a b="<">',
  "<a b='&amp;\u0002'>",
  '<a b="1"c="2">',
  '<a b=1>',
  '</a>',
  '<a / >',
  '</ a>',
  '</a >',
  '\u0001',
  '\u0007',
  '\u001f',
  '\uffff',
  '\ufffe',
  '<',
  '</',
  '<!',
  '<!DOCTYPE shop>',
  '<SHOP\u0001ITEM>',
  '</SH\u0002OP>',
  '<čip>',
  '</čip>',
  '<1a>',
  '\u0000',
  '<a\nb="x\r\ny">',
  '</a\n>',
  '<?pi\u0001?>',
  '&#x;',
  '&#13;',
  '&#xD;',
  '<![CDATA[\r\n\u0001]]>',
  '<p:CODE>',
  '</p:CODE>',
  '<a b="&bad;">',
  '<a b="&#0;">',
  '<!--->',
  '<!---->',
  '<!-- x --->',
  '<?xml-stylesheet x?>',
  '<a\u00a0b>',
  '<Ω>',
  '</Ω>',
  '<a b\n=\r\n"1">',
  "<a b = '1'>",
  '<A A',
  '<a b c="1">',
];

const document = fc
  .tuple(
    fc.constantFrom('', '<?xml version="1.0" encoding="UTF-8"?>\n', "<?xml version='1.0'?>", '\ufeff', '<?xml version="1.1"?>'),
    fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }),
  )
  .map(([start, pieces]) => start + pieces.join(''));

/** Mostly well-formed documents: items of pieces inside a root, so rows and summaries are compared too. */
const wellFormedish = fc
  .array(
    fc.tuple(
      fc.constantFrom('CODE', 'EAN', 'PRICE_VAT', 'AVAILABILITY_IN_STOCK', 'NAME', 'CURRENCY'),
      fc.array(fc.constantFrom('A', '1', '.', ' ', 'č', '&amp;', '&#1;', '\u0003', '<![CDATA[b]]>', '<!--\u0004-->', '\r\n'), {
        maxLength: 6,
      }),
    ),
    { maxLength: 8 },
  )
  .map((fields) => {
    const inner = fields.map(([name, parts]) => `<${name}>${parts.join('')}</${name}>`).join('\n');
    return `<?xml version="1.0"?>\n<SHOP>\n<SHOPITEM>${inner}</SHOPITEM>\n<!--\u0005--><SHOPITEM a="\u0006"><CODE>Z</CODE></SHOPITEM></SHOP>\n`;
  });

describe('adapters/pos/xml-byte-scanner against saxes', () => {
  it.each([
    ['random pieces', document],
    ['items with special texts', wellFormedish],
  ])('gives what saxes gives for %s, in any chunking', (_, documents) => {
    fc.assert(
      fc.property(documents, fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const bytes = new TextEncoder().encode(text);
        const expected = outcome(createSaxesPriceListParser, [bytes]);
        expectSameOutcome(outcome(createPriceListParser, split(bytes, cuts)), expected);
      }),
      { numRuns: 1000 },
    );
  });
});
