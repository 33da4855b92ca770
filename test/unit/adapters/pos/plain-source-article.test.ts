import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PosArticleSchema, plainSourceArticle, SourceArticleSchema } from '../../../../src/adapters/pos/pos-catalog-schema.js';

/**
 * The article list's fast path must give exactly what `SourceArticleSchema` gives, or nothing (the schema then
 * decides): same fields, same values, same key order.
 */

/** The schema's own fields: one it gains is drawn here too, and fails the tests until the fast path reads it. */
const FIELDS = Object.keys(PosArticleSchema.in.shape);

/** Whatever a POS might put in a field: text of every kind, numbers of every kind, and the wrong types. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom('', ' ', '\t\n', 'a-1', ' x ', '12.5', '-2', '1e3', '0x10', 'Káva zrnková', '8594000000017'),
  fc.string(),
  fc.double(),
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.constantFrom(null, undefined, true, false, Number.NaN, Number.POSITIVE_INFINITY, -0),
  fc.constant({}),
  fc.constant([]),
  fc.constant(['a']),
);

const nonBlank = fc.string({ minLength: 1 }).filter((text) => text.trim() !== '');
const optional = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: null });

/** An item as the sandbox and a well-behaved POS write one: text as text, numbers as numbers. */
const plainItem = fc.record(
  {
    localId: nonBlank,
    name: nonBlank,
    localGroupId: optional(fc.string()),
    ean: optional(fc.string()),
    plu: optional(fc.integer({ min: 0, max: 99_999 })),
    internalIdentifier: optional(fc.string()),
    measureUnit: optional(fc.string()),
    isSalesItem: optional(fc.boolean()),
    isStockItem: optional(fc.boolean()),
    isQuick: optional(fc.boolean()),
    salesPrice: optional(fc.double({ noNaN: true, noDefaultInfinity: true })),
    purchasePrice: optional(fc.double({ noNaN: true, noDefaultInfinity: true })),
    avgPurchasePrice: optional(fc.double({ noNaN: true, noDefaultInfinity: true })),
    colour: fc.string(),
  },
  { requiredKeys: ['localId', 'name'] },
);

/** Plain items with up to two fields set to anything, fields of anything, and things that are no items. */
const anyItem: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .tuple(plainItem, fc.dictionary(fc.constantFrom(...FIELDS), anyValue, { maxKeys: 2 }))
    .map(([item, patch]) => ({ ...item, ...patch })),
  fc.dictionary(fc.constantFrom(...FIELDS, 'colour', '__proto__'), anyValue),
  fc.record(Object.fromEntries(FIELDS.map((field) => [field, anyValue])), { requiredKeys: [] }),
  fc.constantFrom(null, undefined, 'article', 7, [], [{ localId: 'a', name: 'b' }]),
);

function expectSameAsSchema(raw: unknown, plain: unknown): void {
  const parsed = SourceArticleSchema.safeParse(raw);
  expect(parsed.success).toBe(true);
  if (!parsed.success) return;
  expect(plain).toStrictEqual(parsed.data);
  expect(Object.keys(plain as object)).toEqual(Object.keys(parsed.data));
}

describe('adapters/pos/plainSourceArticle', () => {
  it('gives what the schema gives, or leaves the item to the schema', () => {
    fc.assert(
      fc.property(anyItem, (raw) => {
        const plain = plainSourceArticle(raw);
        if (plain !== undefined) expectSameAsSchema(raw, plain);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes every plainly written article itself', () => {
    fc.assert(
      fc.property(plainItem, (raw) => {
        const plain = plainSourceArticle(raw);
        expect(plain).toBeDefined();
        expectSameAsSchema(raw, plain);
      }),
      { numRuns: 1000 },
    );
  });

  it('leaves ids given as numbers, numbers given as text and wrong types to the schema', () => {
    for (const patch of [
      { localId: 17 },
      { localGroupId: 3 },
      { salesPrice: '129.90' },
      { plu: '12' },
      { isSalesItem: 'false' },
      { ean: 8594000000017 },
      { name: '  ' },
      { salesPrice: Number.POSITIVE_INFINITY },
    ]) {
      expect(plainSourceArticle({ localId: 'a-1', name: 'Čaj', ...patch })).toBeUndefined();
    }
  });
});
