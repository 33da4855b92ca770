import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { articleCode, IDENTITY_KEYS, type IdentityArticle } from '../../../../src/core/catalog/identity-codes.js';
import {
  createIdentityIndex,
  createIdentityIndexBuilder,
  findIdentityCode,
  hasIdentityKey,
  identityIdAt,
  identityPositions,
  NO_ARTICLE,
  SHARED_CODE,
} from '../../../../src/core/catalog/identity-index.js';

/** What the tables must answer, from a plain `Map` per key. */
function expectedLookups(articles: readonly IdentityArticle[]) {
  const byKey = new Map(IDENTITY_KEYS.map((key) => [key, new Map<string, number[]>()]));
  articles.forEach((article, position) => {
    for (const key of IDENTITY_KEYS) {
      const code = articleCode(key, article);
      if (code === undefined) continue;
      const positions = byKey.get(key)?.get(code) ?? [];
      byKey.get(key)?.set(code, [...positions, position]);
    }
  });
  return byKey;
}

const article = fc.record(
  {
    localId: fc.string({ minLength: 1, maxLength: 6 }).filter((id) => !id.includes('\u0000')),
    internalIdentifier: fc.constantFrom('A', 'B', 'KAV-1', 'ČAJ', ' A ', '😀', 'x'.repeat(40)),
    plu: fc.integer({ min: 0, max: 30 }),
    ean: fc.constantFrom('8594000000017', '08594000000017', '8594000000024', 'abc'),
  },
  { requiredKeys: ['localId'] },
);

describe('core/catalog/identity-index', () => {
  it('answers every code as maps of the same articles would, through its growth and shared codes', () => {
    fc.assert(
      fc.property(fc.array(article, { maxLength: 300 }), fc.boolean(), (articles, known) => {
        // Without the expected size the tables start small and grow many times.
        const builder = createIdentityIndexBuilder(known ? { expected: articles.length } : {});
        for (const each of articles) builder.add(each);
        const index = builder.finish();

        expect(index.size).toBe(articles.length);
        articles.forEach((each, position) => {
          expect(identityIdAt(index, position)).toBe(each.localId);
        });
        for (const [key, codes] of expectedLookups(articles)) {
          expect(hasIdentityKey(index, key)).toBe(codes.size > 0);
          for (const [code, positions] of codes) {
            expect(findIdentityCode(index, key, code)).toBe(positions.length === 1 ? positions[0] : SHARED_CODE);
            expect(identityPositions(index, key, code)).toEqual(positions);
          }
          // Of a length some codes have, so that the table is probed, not skipped by the length check.
          expect(findIdentityCode(index, key, '\u0000')).toBe(NO_ARTICLE);
          expect(identityPositions(index, key, '\u0000')).toEqual([]);
        }
      }),
    );
  });

  it('tells apart codes of the same length and compares them exactly (case, accents, surrogate pairs)', () => {
    const index = createIdentityIndex([
      { localId: 'a-1', internalIdentifier: 'kav-1' },
      { localId: 'a-2', internalIdentifier: 'KAV-1' },
      { localId: 'a-3', internalIdentifier: 'čaj' },
      { localId: 'a-4', internalIdentifier: '😀' },
    ]);

    expect(findIdentityCode(index, 'internalIdentifier', 'KAV-1')).toBe(1);
    expect(findIdentityCode(index, 'internalIdentifier', 'kav-1')).toBe(0);
    expect(findIdentityCode(index, 'internalIdentifier', 'caj')).toBe(NO_ARTICLE);
    expect(findIdentityCode(index, 'internalIdentifier', 'čaj')).toBe(2);
    expect(findIdentityCode(index, 'internalIdentifier', '😀')).toBe(3);
    expect(findIdentityCode(index, 'internalIdentifier', '😁')).toBe(NO_ARTICLE);
  });

  it('keeps a table of Latin-1 codes in bytes and one with any other character in UTF-16, answering the same', () => {
    const index = createIdentityIndex([
      { localId: 'café-1', internalIdentifier: 'ČAJ-1', ean: '8594000000017' },
      { localId: 'cafe-1', internalIdentifier: 'CAJ-1', ean: '8594000000024' },
    ]);

    expect(index.tables.localId.chars).toBeInstanceOf(Uint8Array);
    expect(index.idChars).toBeInstanceOf(Uint8Array);
    expect(index.tables.ean.chars).toBeInstanceOf(Uint8Array);
    expect(index.tables.internalIdentifier.chars).toBeInstanceOf(Uint16Array);
    expect(findIdentityCode(index, 'localId', 'café-1')).toBe(0);
    expect(findIdentityCode(index, 'localId', 'cafe-1')).toBe(1);
    expect(findIdentityCode(index, 'localId', 'cafč-1')).toBe(NO_ARTICLE);
    expect(identityIdAt(index, 0)).toBe('café-1');
    expect(findIdentityCode(index, 'internalIdentifier', 'ČAJ-1')).toBe(0);
    expect(findIdentityCode(index, 'internalIdentifier', 'CAJ-1')).toBe(1);
  });

  it('indexes only the keys asked for', () => {
    const index = createIdentityIndex([{ localId: 'a-1', plu: 7, ean: '8594000000017' }], ['plu']);

    expect(findIdentityCode(index, 'plu', '7')).toBe(0);
    expect(hasIdentityKey(index, 'ean')).toBe(false);
    expect(findIdentityCode(index, 'ean', '8594000000017')).toBe(NO_ARTICLE);
    expect(findIdentityCode(index, 'localId', 'a-1')).toBe(NO_ARTICLE);
    expect(identityIdAt(index, 0)).toBe('a-1');
  });

  it('is plain data: a structured clone (what a worker thread receives) answers the same, sharing its memory', () => {
    const builder = createIdentityIndexBuilder({ shared: true });
    for (let position = 0; position < 5_000; position += 1) builder.add({ localId: `a-${position}`, plu: position % 4_000 });
    const index = structuredClone(builder.finish());

    expect(index.tables.plu.slots.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(findIdentityCode(index, 'localId', 'a-4321')).toBe(4_321);
    expect(findIdentityCode(index, 'plu', '3999')).toBe(3_999);
    expect(identityPositions(index, 'plu', '5')).toEqual([5, 4_005]);
    expect(identityIdAt(index, 4_999)).toBe('a-4999');
    expect(identityIdAt(index, 5_000)).toBe('');
  });
});
