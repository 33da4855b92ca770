import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ArticleDescription, packArticleDescriptions } from '../../../../src/core/catalog/article-descriptions.js';

const text = fc.string({ unit: 'binary', maxLength: 12 });
const optionalText = fc.option(
  text.filter((value) => value !== ''),
  { nil: undefined },
);

/** Descriptions as `describeArticle` makes them: optional texts absent or non-empty, a PLU finite. */
const description: fc.Arbitrary<ArticleDescription> = fc
  .record({
    id: text,
    name: text,
    groupId: optionalText,
    ean: optionalText,
    plu: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: undefined }),
    internalIdentifier: optionalText,
    measureUnit: optionalText,
  })
  .map(({ id, name, groupId, ean, plu, internalIdentifier, measureUnit }) => ({
    id,
    name,
    ...(groupId === undefined ? {} : { groupId }),
    ...(ean === undefined ? {} : { ean }),
    ...(plu === undefined ? {} : { plu }),
    ...(internalIdentifier === undefined ? {} : { internalIdentifier }),
    ...(measureUnit === undefined ? {} : { measureUnit }),
  }));

function expectSame(list: readonly ArticleDescription[]): void {
  const packed = packArticleDescriptions(list.length, (position) => list[position] as ArticleDescription);
  expect(packed.length).toBe(list.length);
  for (const [position, original] of list.entries()) {
    const made = packed.at(position);
    expect(made).toStrictEqual(original);
    // The same keys in the same order: the products' JSON (and the catalog's fingerprint) depend on it.
    expect(JSON.stringify(made)).toBe(JSON.stringify(original));
    expect(packed.idAt(position)).toBe(original.id);
  }
}

describe('core/catalog/article-descriptions', () => {
  it('gives back every description as it was, keys in the same order', () => {
    fc.assert(
      fc.property(fc.array(description, { maxLength: 40 }), (list) => expectSame(list)),
      { numRuns: 300 },
    );
  });

  it('keeps the texts of articles past a block of 65,536 apart', () => {
    const list = Array.from(
      { length: 70_000 },
      (_, position): ArticleDescription => ({
        id: `a-${position}`,
        name: position % 3 === 0 ? '' : `Zboží ${position}`,
        ...(position % 2 === 0 ? { ean: `859${position}` } : {}),
        ...(position % 5 === 0 ? { plu: position } : {}),
      }),
    );
    const packed = packArticleDescriptions(list.length, (position) => list[position] as ArticleDescription);
    for (const position of [0, 1, 65_535, 65_536, 65_537, 69_999]) {
      expect(packed.at(position)).toStrictEqual(list[position]);
    }
  });

  it('starts a block early when its texts grow long, and keeps them apart', () => {
    const long = (letter: string) => letter.repeat(30_000_000);
    const list: ArticleDescription[] = [
      { id: 'a-1', name: long('a') },
      { id: 'a-2', name: long('b'), ean: '1' },
      { id: 'a-3', name: long('c') },
      { id: 'a-4', name: 'd' },
    ];
    const packed = packArticleDescriptions(list.length, (position) => list[position] as ArticleDescription);
    for (const [position, original] of list.entries()) expect(packed.at(position)).toStrictEqual(original);
  });

  it('refuses a position it does not hold', () => {
    const packed = packArticleDescriptions(1, () => ({ id: 'a', name: 'b' }));
    expect(() => packed.at(1)).toThrow(RangeError);
    expect(() => packed.at(-1)).toThrow(RangeError);
    expect(() => packed.at(0.5)).toThrow(RangeError);
  });
});
