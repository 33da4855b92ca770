import { describe, expect, it } from 'vitest';
import type { Product } from '../../../../src/core/catalog/catalog.js';
import { applyEnrichment } from '../../../../src/core/enrichment/apply-enrichment.js';
import { product, readSheet } from './enrichment-fixtures.js';

const PRODUCTS: readonly Product[] = [
  product('a-1', { groupId: 'KAVA', ean: '8594001234567', plu: 12, internalIdentifier: 'KAV-1' }),
  product('a-2', { groupId: 'KAVA', ean: '0040000001454', plu: 13 }),
  product('a-3', { groupId: 'CAJ', ean: '8594000000099' }),
  // Same EAN as a-3: a duplicate EAN in the POS.
  product('a-4', { ean: '8594000000099', plu: 15 }),
  product('a-5', { enrichment: { title: 'From an earlier sheet' } }),
];

describe('core/enrichment/apply-enrichment', () => {
  it('overlays a row on its group field by field; POS data and order stay', async () => {
    const sheet = await readSheet(
      [
        'id;title;description;brand;custom_label_0;exclude',
        'group:KAVA;;Výběrová káva;Lavazza;káva;google',
        'a-1;Espresso;;Illy;;',
        'a-3;Čaj;;;;',
      ].join('\n'),
    );

    const { products, report } = applyEnrichment(PRODUCTS, sheet);

    expect(products.map((item) => [item.id, item.enrichment])).toEqual([
      // Its own title and brand; description, label and exclusion inherited from the group.
      ['a-1', { title: 'Espresso', brand: 'Illy', description: 'Výběrová káva', customLabel0: 'káva', exclude: ['google'] }],
      // No row of its own: the group's values.
      ['a-2', { description: 'Výběrová káva', brand: 'Lavazza', customLabel0: 'káva', exclude: ['google'] }],
      ['a-3', { title: 'Čaj' }],
      ['a-4', undefined],
      ['a-5', undefined],
    ]);
    for (const [position, item] of products.entries()) {
      const { enrichment: _after, ...rest } = item;
      const { enrichment: _before, ...original } = PRODUCTS[position] as Product;
      expect(rest).toEqual(original);
    }
    expect(products[0]?.aggregate).toBe(PRODUCTS[0]?.aggregate);
    expect(products[0]?.offers).toBe(PRODUCTS[0]?.offers);
    expect(products[3]).toBe(PRODUCTS[3]);
    expect('enrichment' in (products[4] as Product)).toBe(false);
    expect(report).toEqual({
      keyColumn: 'id',
      rows: 2,
      groups: 1,
      matched: 2,
      unmatched: 0,
      ambiguous: 0,
      duplicates: 0,
      groupsUnmatched: 0,
      enrichedProducts: 3,
      fields: { title: 2, description: 2, brand: 2, customLabel0: 2, exclude: 2 },
      problemCount: 0,
      problemCounts: {},
      problems: [],
    });
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it('never guesses: an EAN two products share, unknown keys and a group no product is in are reported', async () => {
    const sheet = await readSheet(
      [
        'ean;title;brand',
        'x;;',
        '8594000000099;Shared;',
        '4006381333931;Unknown;',
        '8594001234567;First;',
        'group:NOPE;;B',
        '40000001454;Second;',
      ].join('\n'),
    );

    const { products, report } = applyEnrichment(PRODUCTS, sheet);

    expect(products.map((item) => item.enrichment?.title)).toEqual(['First', 'Second', undefined, undefined, undefined]);
    expect(report).toMatchObject({ rows: 5, matched: 2, unmatched: 2, ambiguous: 1, duplicates: 0, groupsUnmatched: 1 });
    expect(report.problems).toEqual([
      { code: 'unmatched', line: 2, key: 'x', message: 'no product has the ean "x"' },
      {
        code: 'ambiguous',
        line: 3,
        key: '8594000000099',
        message: '"8594000000099" names 2 products (a-3, a-4): the row is applied to none',
      },
      { code: 'unmatched', line: 4, key: '4006381333931', message: 'no product has the ean "4006381333931"' },
      { code: 'group-unmatched', line: 6, key: 'NOPE', message: 'no product is in the group "NOPE"' },
    ]);
  });

  it('reports a row that reaches a product another row already took (key "code", matched by different keys)', async () => {
    const sheet = await readSheet('code;title\nKAV-1;By identifier\n12;By PLU\na-2;By id\n');

    const { products, report } = applyEnrichment(PRODUCTS, sheet);

    expect(products.map((item) => item.enrichment?.title)).toEqual(['By identifier', 'By id', undefined, undefined, undefined]);
    expect(report).toMatchObject({ matched: 2, duplicates: 1 });
    expect(report.problems).toEqual([
      {
        code: 'duplicate',
        line: 3,
        key: '12',
        message: '"12" names product a-1, which the row on line 2 already enriches: the first row wins',
      },
    ]);
  });

  it('applies a "code" that is one product\'s id and another\'s PLU to neither, and says so', async () => {
    const clash = [product('12', { plu: 99 }), product('50', { plu: 12 }), product('60', { plu: 60 })];
    const sheet = await readSheet('code;title\n12;Which one?\n60;Sixty\n');

    const { products, report } = applyEnrichment(clash, sheet);

    expect(products.map((item) => item.enrichment?.title)).toEqual([undefined, undefined, 'Sixty']);
    expect(report).toMatchObject({ matched: 1, ambiguous: 1 });
    expect(report.problems).toEqual([
      expect.objectContaining({ code: 'ambiguous', line: 2, key: '12', message: expect.stringContaining('applied to neither') }),
    ]);
  });

  it.each([
    ['plu', '0012', 'a-1'],
    ['plu', '15', 'a-4'],
    ['internalIdentifier', 'KAV-1', 'a-1'],
    ['ean', '40000001454', 'a-2'],
    ['id', 'a-3', 'a-3'],
    ['code', '8594001234567', 'a-1'],
  ])('matches by the key column %s (%s → %s)', async (column, key, id) => {
    const sheet = await readSheet(`${column};brand\n${key};B\n`);

    const { products } = applyEnrichment(PRODUCTS, sheet);

    expect(products.filter((item) => item.enrichment !== undefined).map((item) => item.id)).toEqual([id]);
  });

  it('a fixed key does not try the others: an internalIdentifier sheet does not match by id', async () => {
    const sheet = await readSheet('internalIdentifier;brand\na-1;B\n');

    const { report } = applyEnrichment(PRODUCTS, sheet);

    expect(report).toMatchObject({ matched: 0, unmatched: 1 });
  });

  it('puts the sheet problems first in the examples, counts all, and caps them at maxExamples', async () => {
    const rows = Array.from({ length: 5 }, (_, n) => `u-${n};not a link`);
    const sheet = await readSheet(`id;link\n${rows.join('\n')}\n`);

    const { report } = applyEnrichment(PRODUCTS, sheet, { maxExamples: 7 });

    expect(report.problemCount).toBe(10);
    expect(report.problemCounts).toEqual({ 'invalid-value': 5, unmatched: 5 });
    expect(report.problems.map((problem) => problem.code)).toEqual([
      ...Array.from({ length: 5 }, () => 'invalid-value'),
      'unmatched',
      'unmatched',
    ]);
  });

  it('gives no product an enrichment of nothing: rows and groups without valid values', async () => {
    const sheet = await readSheet('id;link\ngroup:KAVA;x\na-1;not a link\n');

    const { products, report } = applyEnrichment(PRODUCTS, sheet);

    expect(products.slice(0, 4)).toEqual(PRODUCTS.slice(0, 4));
    expect(products[0]).toBe(PRODUCTS[0]);
    expect(report).toMatchObject({ matched: 1, enrichedProducts: 0, fields: {} });
  });

  // Its time is measured by bench/full-sync.ts (BENCHMARKS.md), not asserted here.
  it('puts 100,000 rows onto 100,000 products, each row on its own product', { timeout: 60_000 }, async () => {
    const count = 100_000;
    const many = Array.from({ length: count }, (_, n) =>
      product(`p-${n}`, { ean: String(8_590_000_000_000 + n), groupId: `g-${n % 100}` }),
    );
    const lines = Array.from({ length: count }, (_, n) => `${8_590_000_000_000 + count - 1 - n};Title ${n};Brand ${n % 7}`);
    const groups = Array.from({ length: 100 }, (_, n) => `group:g-${n};;Group brand ${n}`);
    const sheet = await readSheet(`ean;title;brand\n${[...groups, ...lines].join('\n')}\n`);

    const result = applyEnrichment(many, sheet);

    expect(result.report).toMatchObject({ rows: count, groups: 100, matched: count, enrichedProducts: count });
    expect(result.products[0]?.enrichment).toEqual({ title: `Title ${count - 1}`, brand: `Brand ${(count - 1) % 7}` });
    expect(result.products[1]?.enrichment).toEqual({ title: `Title ${count - 2}`, brand: `Brand ${(count - 2) % 7}` });
  });
});
