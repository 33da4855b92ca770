import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CodeRange,
  IDENTITY_KEYS,
  type IdentityArticle,
  normalizeCode,
  normalizeCodeUnits,
} from '../../../../src/core/catalog/identity-codes.js';
import { createIdentityIndex, type IdentityIndex } from '../../../../src/core/catalog/identity-index.js';
import {
  type IdentityCandidates,
  type IdentityKeyChoice,
  RANKING_SAMPLE_ROWS,
  resolveIdentity,
} from '../../../../src/core/catalog/resolve-identity.js';
import { createRowCodes } from '../../../../src/core/catalog/row-codes.js';
import type { IdentityKey } from '../../../../src/core/catalog/source.js';

const ARTICLES: readonly IdentityArticle[] = [
  { localId: 'a-1', internalIdentifier: 'KAV-1', plu: 1001, ean: '8594000000017' },
  { localId: 'a-2', plu: 12, ean: '8594000000024' },
  { localId: 'a-3', internalIdentifier: 'CAJ-3', plu: 1003, ean: '8594000000099' },
  // Same EAN as a-3: a duplicate EAN in the POS.
  { localId: 'a-4', internalIdentifier: 'MLK-4', plu: 1004, ean: '8594000000099' },
  { localId: 'a-5', ean: '0012345678905' },
];

function matchesOf(rows: readonly IdentityCandidates[], choice: IdentityKeyChoice = 'auto') {
  const result = resolveIdentity(createIdentityIndex(ARTICLES), rows, choice);
  return result.matches.map((match) => [match.row, match.articleId, match.key]);
}

describe('core/catalog/resolve-identity', () => {
  describe('normalizeCode', () => {
    it.each<[IdentityKey, string, string | undefined]>([
      ['plu', ' 0012 ', '12'],
      ['plu', '0', '0'],
      ['plu', '000', '0'],
      ['plu', '12.0', '12'],
      ['plu', '12,00', '12'],
      ['plu', '12.5', undefined],
      ['plu', 'A12', undefined],
      ['plu', '   ', undefined],
      ['ean', ' 0012345678905', '12345678905'],
      ['ean', 'ABC-1', 'ABC-1'],
      ['internalIdentifier', ' KAV-1 ', 'KAV-1'],
      ['internalIdentifier', 'kav-1', 'kav-1'],
      ['localId', '', undefined],
    ])('%s %j → %j', (key, raw, expected) => {
      const result = normalizeCode(key, raw);

      expect(result).toBe(expected);
    });
  });

  describe('matching', () => {
    it.each<[string, readonly IdentityCandidates[], IdentityKeyChoice, readonly (string | number)[][]]>([
      [
        'internalIdentifier in CODE',
        [{ code: 'KAV-1' }, { code: 'CAJ-3' }],
        'auto',
        [
          [0, 'a-1', 'internalIdentifier'],
          [1, 'a-3', 'internalIdentifier'],
        ],
      ],
      ['localId in CODE', [{ code: 'a-2' }], 'auto', [[0, 'a-2', 'localId']]],
      [
        'plu in CODE with leading zeros',
        [{ code: '01001' }, { code: '0012' }],
        'auto',
        [
          [0, 'a-1', 'plu'],
          [1, 'a-2', 'plu'],
        ],
      ],
      ['plu column of a stock export', [{ plu: '1003' }], 'auto', [[0, 'a-3', 'plu']]],
      ['ean column of a stock export', [{ ean: '8594000000017' }], 'auto', [[0, 'a-1', 'ean']]],
      ['EAN that lost its leading zeros', [{ code: '12345678905' }], 'auto', [[0, 'a-5', 'ean']]],
      [
        'mixed keys in one document: a-2 has no internalIdentifier and is keyed by its PLU',
        [{ code: 'KAV-1' }, { code: 'CAJ-3' }, { code: '12' }],
        'auto',
        [
          [0, 'a-1', 'internalIdentifier'],
          [1, 'a-3', 'internalIdentifier'],
          [2, 'a-2', 'plu'],
        ],
      ],
      ['duplicate EAN disambiguated by the PLU column', [{ code: '8594000000099', plu: '1003' }], 'auto', [[0, 'a-3', 'plu']]],
      ['codes are trimmed', [{ code: '  KAV-1\t' }], 'auto', [[0, 'a-1', 'internalIdentifier']]],
      ['operator-fixed plu ignores other keys', [{ code: 'KAV-1' }, { code: '1001' }], 'plu', [[1, 'a-1', 'plu']]],
      [
        'operator-fixed internalIdentifier',
        [{ code: 'KAV-1' }, { code: '12' }],
        'internalIdentifier',
        [[0, 'a-1', 'internalIdentifier']],
      ],
    ])('%s', (_name, rows, choice, expected) => {
      const result = matchesOf(rows, choice);

      expect(result).toEqual(expected);
    });
  });

  it('ranks keys by how many rows they name uniquely', () => {
    const rows = [{ code: '1001' }, { code: '12' }, { code: '1004' }, { code: 'CAJ-3' }];

    const result = resolveIdentity(createIdentityIndex(ARTICLES), rows, 'auto');

    expect(result.keyOrder).toEqual(['plu', 'internalIdentifier', 'localId', 'ean']);
    expect(result.sample).toEqual({ rows: 4, keyCounts: { localId: 0, internalIdentifier: 1, plu: 3, ean: 0 } });
    expect(result.keyCounts).toEqual({ localId: 0, internalIdentifier: 1, plu: 3, ean: 0 });
  });

  it('reports per-key counts even when the operator fixed a key', () => {
    const rows = [{ code: 'KAV-1' }, { code: 'CAJ-3' }];

    const result = resolveIdentity(createIdentityIndex(ARTICLES), rows, 'plu');

    expect(result.keyOrder).toEqual(['plu']);
    expect(result.sample.keyCounts.internalIdentifier).toBe(2);
    expect(result.keyCounts).toEqual({ localId: 0, internalIdentifier: 0, plu: 0, ean: 0 });
    expect(result.unmatched).toEqual([
      { row: 0, code: 'KAV-1' },
      { row: 1, code: 'CAJ-3' },
    ]);
  });

  it.each<[string, IdentityCandidates, IdentityKeyChoice]>([
    ['auto', { code: '8594000000099' }, 'auto'],
    ['fixed ean', { code: '8594000000099' }, 'ean'],
    ['EAN column', { ean: '8594000000099' }, 'auto'],
  ])('a duplicate EAN is ambiguous and matched to neither article (%s)', (_name, row, choice) => {
    const result = resolveIdentity(createIdentityIndex(ARTICLES), [row], choice);

    expect(result.matches).toEqual([]);
    expect(result.ambiguous).toEqual([{ row: 0, code: '8594000000099', key: 'ean', articleIds: ['a-3', 'a-4'] }]);
  });

  it('two fields of one row naming different articles under one key are ambiguous', () => {
    const rows = [{ code: '8594000000017', ean: '8594000000024' }];

    const result = resolveIdentity(createIdentityIndex(ARTICLES), rows, 'ean');

    expect(result.matches).toEqual([]);
    expect(result.ambiguous).toEqual([{ row: 0, code: '8594000000017', key: 'ean', articleIds: ['a-1', 'a-2'] }]);
  });

  it.each<[string, IdentityCandidates, string]>([
    ['unknown code', { code: 'NOPE' }, 'NOPE'],
    ['no code at all', {}, ''],
    ['blank code', { code: '   ' }, ''],
    ['non-numeric PLU column', { plu: 'X1' }, 'X1'],
  ])('reports rows that match nothing (%s)', (_name, row, code) => {
    const result = resolveIdentity(createIdentityIndex(ARTICLES), [row], 'auto');

    expect(result.matches).toEqual([]);
    expect(result.unmatched).toEqual([{ row: 0, code }]);
  });

  it('two rows naming one article: the first wins, the second is a duplicate', () => {
    const rows = [{ code: 'KAV-1' }, { code: '1001' }];

    const result = resolveIdentity(createIdentityIndex(ARTICLES), rows, 'auto');

    expect(result.matches.map((match) => match.row)).toEqual([0]);
    expect(result.duplicates).toEqual([{ row: 1, code: '1001', articleId: 'a-1', firstRow: 0 }]);
  });

  it('a row whose keys name different articles is matched by the top key and reported as a conflict', () => {
    const articles = [
      { localId: '7', plu: 8 },
      { localId: '8', plu: 7 },
    ];

    const result = resolveIdentity(createIdentityIndex(articles), [{ code: '7' }, { code: '8' }], 'auto');

    expect(result.matches.map((match) => [match.articleId, match.key])).toEqual([
      ['7', 'localId'],
      ['8', 'localId'],
    ]);
    expect(result.conflicts).toEqual([
      { row: 0, code: '7', key: 'localId', articleId: '7', otherKey: 'plu', otherArticleId: '8' },
      { row: 1, code: '8', key: 'localId', articleId: '8', otherKey: 'plu', otherArticleId: '7' },
    ]);
  });

  it('rows naming a not-for-sale article are reported apart from unmatched rows', () => {
    const excluded = createIdentityIndex([{ localId: 'x-1', ean: '111' }]);

    const result = resolveIdentity(createIdentityIndex(ARTICLES), [{ code: '111' }, { code: '222' }], 'auto', excluded);

    expect(result.notForSale).toEqual([{ row: 0, code: '111', articleId: 'x-1' }]);
    expect(result.unmatched).toEqual([{ row: 1, code: '222' }]);
  });

  it('ranks large documents on a sample and still resolves rows of a minority key', () => {
    const articles = Array.from({ length: 10_003 }, (_, i) =>
      i < 10_000 ? { localId: `a-${i}`, internalIdentifier: `ID-${i}`, plu: i } : { localId: `a-${i}`, plu: i },
    );
    const rows = articles.map((item) => ({ code: item.internalIdentifier ?? String(item.plu) }));

    const result = resolveIdentity(createIdentityIndex(articles), rows, 'auto');

    expect(result.sample.rows).toBeLessThanOrEqual(RANKING_SAMPLE_ROWS);
    expect(result.keyOrder[0]).toBe('internalIdentifier');
    expect(result.keyCounts).toEqual({ localId: 0, internalIdentifier: 10_000, plu: 3, ean: 0 });
    expect(result.unmatched).toEqual([]);
  });

  it('indexes 100,000 articles and resolves 100,000 rows without quadratic work', () => {
    const articles = Array.from({ length: 100_000 }, (_, i) => ({
      localId: `a-${i}`,
      plu: i,
      ean: `859${String(i).padStart(10, '0')}`,
    }));
    const rows = articles.map((item, i) => (i % 2 === 0 ? { code: String(item.plu) } : { ean: item.ean }));

    const result = resolveIdentity(createIdentityIndex(articles), rows, 'auto');

    expect(result.matches).toHaveLength(100_000);
  });

  describe('rows read by index, matches through onMatch', () => {
    const rows: IdentityCandidates[] = [
      { code: 'KAV-1' },
      { code: 'nothing' },
      { code: '8594000000099' },
      { code: '1003', ean: '8594000000099' },
      { code: 'KAV-1' },
      { ean: '12345678905' },
    ];

    it('resolves rows built on demand exactly as an array of them', () => {
      const index = createIdentityIndex(ARTICLES);
      const built: number[] = [];
      const byIndex = resolveIdentity(
        index,
        {
          length: rows.length,
          candidates: (row) => {
            built.push(row);
            return rows[row] === undefined ? undefined : { ...rows[row] };
          },
        },
        'auto',
      );

      expect(byIndex).toEqual(resolveIdentity(index, rows, 'auto'));
      expect(built.length).toBeGreaterThanOrEqual(rows.length);
    });

    it('hands each match to onMatch instead of collecting it, with the same counts', () => {
      const index = createIdentityIndex(ARTICLES);
      const collected = resolveIdentity(index, rows, 'auto');
      const handed: [number, number][] = [];
      const streamed = resolveIdentity(index, rows, 'auto', undefined, (row, article) => handed.push([row, article]));

      expect(handed).toEqual(collected.matches.map((match) => [match.row, match.article]));
      expect(streamed.matches).toEqual([]);
      expect(streamed.keyCounts).toEqual(collected.keyCounts);
      expect({ ...streamed, matches: collected.matches }).toEqual(collected);
    });
  });

  describe('codes read as code units', () => {
    // What a code may hold around and inside it: every character `trim` removes, two it keeps (U+180E, U+200B),
    // digits and zeros, the separators of a PLU's fraction, letters, a non-Latin-1 letter.
    const unitsOfCodes = fc.constantFrom(
      ...' \t\n\u000b\f\r\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\u180e\u200b',
      ...'0000123456789.,AKV-ř',
    );
    const codeText = fc.array(unitsOfCodes, { maxLength: 16 }).map((chars) => chars.join(''));

    it('finds the comparable form where normalizeCode finds it, under every key, whatever lies around it', () => {
      const range: CodeRange = { start: 0, end: 0 };
      fc.assert(
        fc.property(codeText, fc.constantFrom(...IDENTITY_KEYS), codeText, codeText, (text, key, before, after) => {
          const units = new Uint16Array(before.length + text.length + after.length);
          const whole = before + text + after;
          for (let at = 0; at < whole.length; at += 1) units[at] = whole.charCodeAt(at);
          const found = normalizeCodeUnits(key, units, before.length, before.length + text.length, range);
          const expected = normalizeCode(key, text);
          expect(found ? String.fromCharCode(...units.subarray(range.start, range.end)) : undefined).toBe(expected);
        }),
        { numRuns: 2_000 },
      );
    });

    /** The resolution of `rows` read as code units, with how many rows were read so (each once). */
    function resolveAsUnits(
      index: IdentityIndex,
      rows: readonly IdentityCandidates[],
      choice: IdentityKeyChoice,
      excluded?: IdentityIndex,
      onMatch?: (row: number, article: number, key: IdentityKey) => void,
    ) {
      const codes = createRowCodes();
      for (const each of rows) codes.push(each.code, each.ean, each.plu);
      let unitReads = 0;
      const resolution = resolveIdentity(
        index,
        {
          length: rows.length,
          candidates: (at) => codes.readInto(at, {}),
          unitsInto: (at, into) => {
            unitReads += 1;
            return codes.unitsInto(at, into);
          },
        },
        choice,
        excluded,
        onMatch,
      );
      return { resolution, unitReads };
    }

    // Codes outside Latin-1 make a table of UTF-16 code units (the others are bytes).
    const WIDE: readonly IdentityArticle[] = [
      { localId: 'w-1', internalIdentifier: 'KÁVA-ř-1', plu: 77, ean: '8594000000123' },
      { localId: 'w-2', internalIdentifier: 'ČAJ-2' },
    ];
    const NOT_FOR_SALE: readonly IdentityArticle[] = [
      { localId: 'n-1', internalIdentifier: 'STARÉ-1', plu: 5, ean: '8594000000017' },
    ];

    it('resolves rows read as code units exactly as the same rows read as strings, reports and matches alike', () => {
      const articles = [...ARTICLES, ...WIDE];
      const index = createIdentityIndex(articles);
      const excluded = createIdentityIndex(NOT_FOR_SALE);
      const known = [...articles, ...NOT_FOR_SALE].flatMap((article) => [
        article.localId,
        article.internalIdentifier,
        article.ean,
        article.plu === undefined ? undefined : String(article.plu),
      ]);
      const code = fc.oneof(
        fc.constantFrom(...known.filter((value): value is string => value !== undefined)),
        codeText,
        fc.constantFrom(' 0012 ', '0012345678905 ', '12.0', 'KAV-1\u00a0', '8594000000099', ' ČAJ-2', '077'),
      );
      const row = fc.record({ code, ean: code, plu: code }, { requiredKeys: [] });
      fc.assert(
        fc.property(
          fc.array(row, { maxLength: 12 }),
          fc.constantFrom<IdentityKeyChoice>('auto', ...IDENTITY_KEYS),
          fc.boolean(),
          (rows, choice, withExcluded) => {
            const notForSale = withExcluded ? excluded : undefined;
            const handed: [number, number, IdentityKey][] = [];
            const { resolution, unitReads } = resolveAsUnits(index, rows, choice, notForSale, (...match) => handed.push(match));
            const asStrings = resolveIdentity(index, rows, choice, notForSale);
            expect(unitReads).toBe(rows.length);
            expect(handed).toEqual(asStrings.matches.map((match) => [match.row, match.article, match.key]));
            expect({ ...resolution, matches: asStrings.matches }).toEqual(asStrings);
          },
        ),
        { numRuns: 1_000 },
      );
    });

    it('ranks and checks a document larger than the sample alike, read as code units or as strings', () => {
      const articles = Array.from(
        { length: 3_000 },
        (_, i): IdentityArticle => ({
          localId: `a-${i}`,
          ...(i % 3 === 0 ? {} : { internalIdentifier: `KÓD-${i}` }),
          plu: 10_000 + i,
          ...(i % 5 === 0 ? { ean: '8594000000017' } : { ean: String(8_594_000_100_000 + i) }),
        }),
      );
      const index = createIdentityIndex(articles);
      // Every article twice (duplicates), keyed by its code, its PLU with zeros or its EAN; some by nothing.
      const rows: IdentityCandidates[] = [];
      for (let round = 0; round < 2; round += 1) {
        for (let i = 0; i < articles.length; i += 1) {
          const article = articles[i] as IdentityArticle;
          if (i % 7 === 0) rows.push({ code: ` 00${article.plu} `, ean: article.ean ?? '' });
          else if (i % 11 === 0) rows.push({ code: `X-${i}` });
          else rows.push({ code: article.internalIdentifier ?? String(article.plu), plu: `${article.plu}.0` });
        }
      }
      expect(rows.length).toBeGreaterThan(RANKING_SAMPLE_ROWS);
      const { resolution, unitReads } = resolveAsUnits(index, rows, 'auto');
      expect(unitReads).toBe(rows.length);
      expect(resolution).toEqual(resolveIdentity(index, rows, 'auto'));
      expect(resolution.duplicates.length).toBeGreaterThan(0);
      expect(resolution.sample.rows).toBeLessThan(rows.length);
    });
  });
});
