import fc from 'fast-check';
import type { FeedContext, FeedItem, FeedOffer } from '../../../../src/core/feeds/feed-item.js';

/** Pieces that break naive feed writers: markup, entity-like text, CDATA ends, controls, lone surrogates, CSV specials. */
const HOSTILE_PIECES = [
  '&',
  '<',
  '>',
  '"',
  "'",
  ']]>',
  '<![CDATA[',
  '&amp;',
  '&eacute;',
  '&#1;',
  '&#xD800;',
  '\u0000',
  '\u0001',
  '\u0008',
  '\u000B',
  '\u001F',
  '\u007F',
  '\u0085',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\uD800',
  '\uDBFF',
  '\uDC00',
  '\uFFFE',
  '\uFFFF',
  '\uFEFF',
  '😀',
  '👩‍👩‍👧',
  'č',
  'Ž',
  '=',
  '+',
  '-',
  '@',
  ';',
  ',',
  ' ',
  '{id}',
  '%',
  '%zz',
  '0',
];

/** Any UTF-16 code unit, lone surrogates included. */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

/** Hostile text: full Unicode, lone surrogates, controls and the pieces above, mixed. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.string({
    unit: fc.oneof(fc.constantFrom(...HOSTILE_PIECES), anyCodeUnit, fc.string({ unit: 'binary', maxLength: 1 })),
    maxLength: 40,
  }),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
);

/** Long hostile text, to cross the truncation limits (150, 200, 255 characters). */
const longText = fc
  .tuple(hostileText, fc.integer({ min: 0, max: 300 }))
  .map(([text, repeat]) => text + 'ř'.repeat(repeat) + text);

const money = fc.integer({ min: 0, max: 100_000_000 }).map((cents) => cents / 100);
const stock = fc.oneof(
  fc.integer({ min: -5, max: 500 }),
  fc.double({ min: -10, max: 1000, noNaN: true, noDefaultInfinity: true }),
);
const availability = fc.constantFrom('in_stock' as const, 'out_of_stock' as const);
const url = fc.oneof(
  hostileText,
  hostileText.map((text) => `https://shop.example.cz/${text}`),
);
const ean = fc.oneof(
  hostileText,
  fc.constantFrom('8594000000013', '0036000291452', '8594000000018', '96385074', '2000000000008'),
);

function optional<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.option(arbitrary, { nil: undefined });
}

/** `T` with properties that may be `undefined` turned into optional ones (exactOptionalPropertyTypes). */
type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** Copies `value` without its `undefined` properties. */
function defined<T extends object>(value: T): Defined<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Defined<T>;
}

/** A unit's availability labels, hostile like every POS text. */
const availabilityTexts = fc.record({ inStock: hostileText, outOfStock: hostileText }, { requiredKeys: [] }).map(defined);

const offer: fc.Arbitrary<FeedOffer> = fc
  .record({
    unit: hostileText,
    storeCode: hostileText,
    unitName: hostileText,
    price: optional(money),
    salePrice: optional(money),
    standardPrice: optional(money),
    stock: optional(stock),
    availability,
    availabilityTexts: optional(availabilityTexts),
  })
  .map(defined);

/** Enrichment-sheet values as hostile as the POS's: the renderers must clean them the same way. */
const enrichment = fc
  .record({
    title: optional(fc.oneof(hostileText, longText)),
    description: optional(fc.oneof(hostileText, longText)),
    brand: optional(hostileText),
    category: optional(hostileText),
    googleProductCategory: optional(hostileText),
    heurekaCategory: optional(hostileText),
    zboziCategory: optional(hostileText),
    additionalImageLinks: optional(fc.array(url, { minLength: 1, maxLength: 3 })),
    customLabel0: optional(hostileText),
    exclude: optional(fc.constantFrom(['*'], ['google'], ['heureka', 'meta'])),
  })
  .map(defined);

/**
 * A catalog of up to 12 items with hostile text everywhere. With `safeIds`, ids are unique and valid for
 * every channel (so the test can find each item again); otherwise ids are hostile too.
 */
export function catalog(safeIds: boolean): fc.Arbitrary<FeedItem[]> {
  const item = fc
    .record({
      id: safeIds ? fc.stringMatching(/^[A-Za-z0-9_-]{0,10}$/) : hostileText,
      name: fc.oneof(hostileText, longText),
      groupId: optional(hostileText),
      ean: optional(ean),
      plu: optional(fc.integer({ min: 0, max: 1_000_000 })),
      internalIdentifier: optional(hostileText),
      measureUnit: optional(hostileText),
      price: optional(money),
      salePrice: optional(money),
      standardPrice: optional(money),
      stock: optional(stock),
      availability,
      availabilityTexts: optional(availabilityTexts),
      isStockItem: fc.boolean(),
      link: optional(url),
      imageLink: optional(url),
      enrichment: optional(enrichment),
      offers: fc.array(offer, { maxLength: 3 }),
    })
    .map(defined);
  return fc
    .array(item, { maxLength: 12 })
    .map((items) => (safeIds ? items.map((entry, index) => ({ ...entry, id: `i${index}_${entry.id}` })) : items));
}

export const hostileContext: fc.Arbitrary<FeedContext> = fc
  .record({
    version: hostileText,
    generatedAt: hostileText,
    unit: fc.constant('all'),
    unitName: hostileText,
    currency: fc.constantFrom('CZK', 'EUR'),
    brand: optional(hostileText),
    baseUrl: hostileText,
  })
  .map(defined);
