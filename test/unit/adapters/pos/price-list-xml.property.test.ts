import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PriceListParseError } from '../../../../src/adapters/pos/parse-errors.js';
import {
  createPriceListParser,
  forbiddenCharacterProblem,
  parsePriceListXml,
} from '../../../../src/adapters/pos/price-list-xml.js';
import type { PriceListRow } from '../../../../src/core/catalog/source.js';

/**
 * Any code point, lone surrogates included, biased to ASCII markup. (fast-check's `unit: 'binary'` costs
 * over a second of one-time set-up, which is most of this file's run time.)
 */
const anyCharacter = fc.oneof(
  fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
);

/** Either a result or the typed error: anything else (another exception type, a hang) fails the property. */
function parseOrTypedError(input: string | Uint8Array): void {
  try {
    parsePriceListXml(input);
  } catch (error) {
    if (!(error instanceof PriceListParseError)) throw error;
    expect(error.code).toBe('PRICE_LIST_INVALID');
  }
}

// ---- generating valid documents ---------------------------------------------------------------

/** Text pieces that need care in XML: markup characters, a CDATA terminator, non-BMP, Czech, quotes. */
const TEXT_PIECES = ['a', 'Z', '0', '9', '-', '_', '/', ' ', '&', '<', '>', '"', "'", ']]>', 'č', 'Ž', '€', '😀', '\u00A0', ';'];

const textValue = fc
  .array(fc.constantFrom(...TEXT_PIECES), { minLength: 1, maxLength: 10 })
  .map((pieces) => pieces.join('').trim())
  .filter((text) => text !== '');

type TextMode = 'entities' | 'numeric' | 'cdata';

function escapeText(value: string, mode: TextMode): string {
  if (mode === 'cdata') return `<![CDATA[${value.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
  if (mode === 'numeric') return [...value].map((char) => (/[a-z0-9]/i.test(char) ? char : `&#${char.codePointAt(0)};`)).join('');
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

type StockForm =
  | { readonly kind: 'amount' | 'bare'; readonly milli: number }
  | { readonly kind: 'warehouses'; readonly parts: readonly number[] };

const stockForm: fc.Arbitrary<StockForm> = fc.oneof(
  fc.record({ kind: fc.constantFrom('amount' as const, 'bare' as const), milli: fc.integer({ min: -100_000, max: 10_000_000 }) }),
  fc.record({
    kind: fc.constant('warehouses' as const),
    parts: fc.array(fc.integer({ min: -5_000, max: 1_000_000 }), { minLength: 1, maxLength: 4 }),
  }),
);

const cents = fc.integer({ min: 0, max: 100_000_000 });

/** The detail group of a simple item or a variant, as generated values. */
const details = fc.record(
  {
    priceVat: cents,
    priceNet: cents,
    actionPrice: cents,
    standardPrice: cents,
    currency: fc.constantFrom('CZK', 'EUR', 'PLN'),
    stock: stockForm,
    availabilityInStock: textValue,
    availabilityOutOfStock: textValue,
  },
  { requiredKeys: [] },
);

const identity = fc.oneof(
  fc.record({ code: textValue }, { requiredKeys: ['code'] }),
  fc.record({ code: textValue, ean: fc.stringMatching(/^\d{8,13}$/) }, { requiredKeys: ['code', 'ean'] }),
  fc.record({ ean: fc.stringMatching(/^\d{8,13}$/) }, { requiredKeys: ['ean'] }),
  fc.record({ code: textValue, plu: fc.stringMatching(/^\d{1,6}$/) }, { requiredKeys: ['code', 'plu'] }),
);

interface GeneratedItem {
  readonly own: Record<string, unknown>;
  readonly variants: readonly Record<string, unknown>[];
}

const item: fc.Arbitrary<GeneratedItem> = fc.oneof(
  fc.record({ own: fc.tuple(identity, details).map(([id, d]) => ({ ...id, ...d })), variants: fc.constant([]) }),
  fc.record({
    own: details,
    variants: fc.array(
      fc.tuple(identity, details).map(([id, d]) => ({ ...id, ...d })),
      { minLength: 1, maxLength: 3 },
    ),
  }),
);

const ELEMENT: Record<string, string> = {
  code: 'CODE',
  ean: 'EAN',
  plu: 'PLU',
  priceVat: 'PRICE_VAT',
  priceNet: 'PRICE',
  actionPrice: 'ACTION_PRICE',
  standardPrice: 'STANDARD_PRICE',
  currency: 'CURRENCY',
  availabilityInStock: 'AVAILABILITY_IN_STOCK',
  availabilityOutOfStock: 'AVAILABILITY_OUT_OF_STOCK',
};

/** Serialisation choices fast-check varies: text escaping, whitespace, empty elements, child order. */
interface Style {
  readonly mode: TextMode;
  readonly pad: string;
  readonly emptyExtras: boolean;
  readonly reverse: boolean;
}

const style: fc.Arbitrary<Style> = fc.record({
  mode: fc.constantFrom<TextMode>('entities', 'numeric', 'cdata'),
  pad: fc.constantFrom('', ' ', '\n  ', '\t'),
  emptyExtras: fc.boolean(),
  reverse: fc.boolean(),
});

function serializeStock(stock: StockForm, pad: string): string {
  if (stock.kind === 'warehouses') {
    const warehouses = stock.parts
      .map((part, index) => `<WAREHOUSE><NAME>W${index}</NAME><VALUE>${(part / 1000).toFixed(3)}</VALUE></WAREHOUSE>`)
      .join(pad);
    return `<STOCK><WAREHOUSES>${pad}${warehouses}${pad}</WAREHOUSES></STOCK>`;
  }
  const amount = (stock.milli / 1000).toFixed(3);
  if (stock.kind === 'amount') return `<STOCK>${pad}<AMOUNT>${amount}</AMOUNT><MINIMAL_AMOUNT/>${pad}</STOCK>`;
  return `<STOCK>${pad}${amount}${pad}</STOCK>`;
}

function serializeFields(fields: Record<string, unknown>, s: Style): string[] {
  const elements: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'stock') {
      elements.push(serializeStock(value as StockForm, s.pad));
    } else if (typeof value === 'number') {
      elements.push(`<${ELEMENT[key]}>${s.pad}${(value / 100).toFixed(2)}${s.pad}</${ELEMENT[key]}>`);
    } else {
      elements.push(`<${ELEMENT[key]}>${escapeText(String(value), s.mode)}</${ELEMENT[key]}>`);
    }
  }
  if (s.emptyExtras) {
    for (const name of Object.values(ELEMENT)) {
      if (!elements.some((element) => element.startsWith(`<${name}>`))) elements.push(`<${name}/>`);
    }
    elements.push(
      '<NAME>Unknown &amp; ignored</NAME>',
      '<PRICELISTS><PRICELIST><PRICE_VAT>1.00</PRICE_VAT></PRICELIST></PRICELISTS>',
    );
  }
  return s.reverse ? elements.reverse() : elements;
}

function serializeItem(generated: GeneratedItem, s: Style): string {
  const children = serializeFields(generated.own, s);
  if (generated.variants.length > 0) {
    const variants = generated.variants.map((variant) => `<VARIANT>${serializeFields(variant, s).join(s.pad)}</VARIANT>`);
    children.push(`<VARIANTS>${s.pad}${variants.join(s.pad)}${s.pad}</VARIANTS>`);
    if (s.reverse) children.reverse();
  }
  return `<SHOPITEM>${s.pad}${children.join(s.pad)}${s.pad}</SHOPITEM>`;
}

function stockValue(stock: StockForm): number {
  if (stock.kind !== 'warehouses') return stock.milli / 1000;
  const milli = stock.parts.reduce((sum, part) => sum + part, 0);
  return milli / 1000;
}

function expectedValues(fields: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'stock') values[key] = stockValue(value as StockForm);
    else if (typeof value === 'number') values[key] = value / 100;
    else values[key] = value;
  }
  return values;
}

function expectedRows(items: readonly GeneratedItem[]): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const [index, generated] of items.entries()) {
    const own = expectedValues(generated.own);
    const scopes =
      generated.variants.length === 0 ? [own] : generated.variants.map((variant) => ({ ...own, ...expectedValues(variant) }));
    for (const scope of scopes) rows.push({ ...scope, code: scope['code'] ?? scope['ean'], position: index + 1 });
  }
  return rows;
}

interface GeneratedDocument {
  readonly items: readonly GeneratedItem[];
  readonly style: Style;
  readonly root: string;
  readonly wrappers: readonly string[];
  readonly declaration: boolean;
  readonly bom: boolean;
}

const document: fc.Arbitrary<GeneratedDocument> = fc.record({
  items: fc.array(item, { maxLength: 6 }),
  style,
  root: fc.constantFrom('SHOP', 'root', 'export'),
  wrappers: fc.array(fc.constantFrom('unit', 'items', 'DATA'), { maxLength: 2 }),
  declaration: fc.boolean(),
  bom: fc.boolean(),
});

function serializeDocument(doc: GeneratedDocument): string {
  const open = doc.wrappers.map((name) => `<${name}>`).join('');
  const close = [...doc.wrappers]
    .reverse()
    .map((name) => `</${name}>`)
    .join('');
  const items = doc.items.map((generated) => serializeItem(generated, doc.style)).join('\n');
  const declaration = doc.declaration ? '<?xml version="1.0" encoding="UTF-8"?>\n' : '';
  return `${doc.bom ? '\uFEFF' : ''}${declaration}<${doc.root}>${open}${items}${close}</${doc.root}>\n`;
}

/** Cut points for feeding bytes in chunks. */
const cuts = fc.array(fc.nat(), { maxLength: 12 });

function feedInChunks(bytes: Uint8Array, cutPoints: readonly number[]): PriceListRow[] {
  const rows: PriceListRow[] = [];
  const parser = createPriceListParser((row) => {
    rows.push(row);
  });
  const points = [...new Set(cutPoints.map((point) => point % (bytes.length + 1)))].sort((a, b) => a - b);
  let start = 0;
  for (const point of [...points, bytes.length]) {
    parser.write(bytes.subarray(start, point));
    start = point;
  }
  parser.end();
  return rows;
}

describe('adapters/pos/price-list-xml (properties)', () => {
  it('round-trips generated rows through a valid Shoptet document', () => {
    fc.assert(
      fc.property(document, (doc) => {
        const xml = serializeDocument(doc);

        const { rows, summary } = parsePriceListXml(xml);

        expect(rows).toEqual(expectedRows(doc.items));
        expect(summary.itemsSeen).toBe(doc.items.length);
        expect(summary.skippedCount).toBe(0);
        expect(summary.warningCount).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it('gives the same rows for the same bytes in any chunking', () => {
    fc.assert(
      fc.property(document, cuts, (doc, cutPoints) => {
        const bytes = new TextEncoder().encode(serializeDocument(doc));

        expect(feedInChunks(bytes, cutPoints)).toEqual(parsePriceListXml(bytes).rows);
      }),
      { numRuns: 100 },
    );
  });

  it('reads generated documents with a character XML forbids in item names: the same rows, each such item reported', () => {
    const forbidden = fc.constantFrom('\u0000', '\u0001', '\u0008', '\u000B', '\u000C', '\u000E', '\u001F', '\uFFFE', '\uFFFF');
    fc.assert(
      fc.property(
        document,
        fc.array(fc.option(forbidden, { nil: undefined }), { maxLength: 6 }),
        cuts,
        (doc, chars, cutPoints) => {
          const [head = '', ...items] = serializeDocument(doc).split('<SHOPITEM>');
          const xml =
            head +
            items
              .map((rest, index) => `<SHOPITEM>${chars[index] === undefined ? '' : `<NAME>a${chars[index]}b</NAME>`}${rest}`)
              .join('');
          const affected = items.flatMap((_, index) => (chars[index] === undefined ? [] : [index + 1]));
          const bytes = new TextEncoder().encode(xml);

          const { rows, summary } = parsePriceListXml(bytes);

          expect(rows).toEqual(expectedRows(doc.items));
          expect(summary.warnings.map((warning) => warning.position)).toEqual(affected);
          expect(summary.warnings.map((warning) => warning.message)).toEqual(
            affected.map((position) => forbiddenCharacterProblem(1, chars[position - 1]?.charCodeAt(0) ?? -1)),
          );
          expect(summary.forbiddenCharacters).toBe(affected.length === 0 ? undefined : affected.length);
          expect(feedInChunks(bytes, cutPoints)).toEqual(rows);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('answers arbitrary text with a result or PriceListParseError', () => {
    fc.assert(fc.property(fc.string({ unit: anyCharacter, maxLength: 300 }), parseOrTypedError), { numRuns: 200 });
  });

  it('answers XML-like token soup with a result or PriceListParseError', () => {
    const token = fc.constantFrom(
      '<SHOP>',
      '</SHOP>',
      '<SHOPITEM>',
      '</SHOPITEM>',
      '<CODE>',
      '</CODE>',
      '<STOCK>',
      '</STOCK>',
      '<VARIANTS>',
      '<VARIANT>',
      '</VARIANT>',
      '<AMOUNT/>',
      '<![CDATA[',
      ']]>',
      '<!--',
      '-->',
      '<?xml version="1.0"?>',
      '<!DOCTYPE x>',
      '&amp;',
      '&#x1F600;',
      '&#0;',
      '&',
      '<',
      '>',
      '"',
      '12.5',
      'ž',
      '\uFEFF',
      '\u0000',
      ' ',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }), (tokens) => parseOrTypedError(tokens.join(''))),
      { numRuns: 300 },
    );
  });

  it('answers arbitrary bytes with a result or PriceListParseError', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), parseOrTypedError), { numRuns: 200 });
  });

  it('answers truncated and mutated valid documents with a result or PriceListParseError', () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 8 }) }),
      fc.record({
        kind: fc.constant('insert' as const),
        at: fc.nat(),
        text: fc.constantFrom('<', '>', '&', '</SHOPITEM>', '<X>', '\u0001', '"'),
      }),
      fc.record({ kind: fc.constant('byte' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
    );
    fc.assert(
      fc.property(document, fc.array(mutation, { minLength: 1, maxLength: 3 }), (doc, mutations) => {
        const bytes = new TextEncoder().encode(serializeDocument(doc));
        let mutated = Buffer.from(bytes);
        for (const change of mutations) {
          const at = change.at % (mutated.length + 1);
          if (change.kind === 'truncate') mutated = mutated.subarray(0, at);
          else if (change.kind === 'delete')
            mutated = Buffer.concat([mutated.subarray(0, at), mutated.subarray(at + change.length)]);
          else if (change.kind === 'insert')
            mutated = Buffer.concat([mutated.subarray(0, at), Buffer.from(change.text), mutated.subarray(at)]);
          else if (at < mutated.length) mutated[at] = change.value;
        }

        parseOrTypedError(mutated);
      }),
      { numRuns: 200 },
    );
  });
});
