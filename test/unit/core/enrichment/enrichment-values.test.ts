import { describe, expect, it } from 'vitest';
import type { EnrichmentValues } from '../../../../src/core/enrichment/enrichment-types.js';
import { problemKeys, readSheet } from './enrichment-fixtures.js';

/** The values of one `id;{column}` row holding `cell` (written as a quoted CSV field). */
async function valuesOf(column: string, cell: string): Promise<{ values: EnrichmentValues | undefined; problems: string[] }> {
  const sheet = await readSheet(`id;${column}\n1;"${cell.replaceAll('"', '""')}"\n`);
  return { values: sheet.rows[0]?.values, problems: sheet.problems.map((problem) => `${problem.code}: ${problem.message}`) };
}

describe('core/enrichment: values', () => {
  it.each<[string, string, EnrichmentValues]>([
    ['title', '  Káva\t\r\nzrnková   1 kg ', { title: 'Káva zrnková 1 kg' }],
    ['title', 'Ká\u0001va', { title: 'Ká va' }],
    ['description', ' Řádek 1\r\nŘádek 2\rŘádek\t3\u0007 ', { description: 'Řádek 1\nŘádek 2\nŘádek 3' }],
    ['brand', 'Orion', { brand: 'Orion' }],
    ['category', ' Potraviny >Káva| Zrnková >> ', { category: 'Potraviny > Káva > Zrnková' }],
    ['google_product_category', ' 499972 ', { googleProductCategory: '499972' }],
    [
      'google_product_category',
      'Food, Beverages & Tobacco>Beverages',
      { googleProductCategory: 'Food, Beverages & Tobacco > Beverages' },
    ],
    ['heureka_category', 'Heureka.cz |Jídlo|  Káva ', { heurekaCategory: 'Heureka.cz | Jídlo | Káva' }],
    ['zbozi_category', 'Jídlo > Káva', { zboziCategory: 'Jídlo > Káva' }],
    ['custom_label_4', 'výprodej', { customLabel4: 'výprodej' }],
    ['link', 'https://shop.example.cz/káva zrnková', { link: 'https://shop.example.cz/k%C3%A1va%20zrnkov%C3%A1' }],
    ['image_link', 'http://cdn.example.cz/a.jpg', { imageLink: 'http://cdn.example.cz/a.jpg' }],
    [
      'additional_image_link',
      'https://x.cz/1.jpg, https://x.cz/2.jpg;https://x.cz/3.jpg|https://x.cz/4.jpg\nhttps://x.cz/5.jpg',
      { additionalImageLinks: [1, 2, 3, 4, 5].map((n) => `https://x.cz/${n}.jpg`) },
    ],
    [
      // A CDN's parameters hold commas: only a comma before the next http(s):// separates links.
      'additional_image_link',
      'https://res.cloudinary.com/shop/image/upload/w_500,h_500/a.jpg,https://x.cz/b.jpg',
      { additionalImageLinks: ['https://res.cloudinary.com/shop/image/upload/w_500,h_500/a.jpg', 'https://x.cz/b.jpg'] },
    ],
  ])('%s %j', async (column, cell, expected) => {
    const { values, problems } = await valuesOf(column, cell);

    expect(values).toEqual(expected);
    expect(problems).toEqual([]);
  });

  describe('exclude', () => {
    it.each<[string, readonly string[] | undefined]>([
      ['yes', ['*']],
      ['TRUE', ['*']],
      ['1', ['*']],
      ['x', ['*']],
      ['Ano', ['*']],
      ['y', ['*']],
      ['*', ['*']],
      ['no', undefined],
      ['false', undefined],
      ['0', undefined],
      ['ne', undefined],
      ['N', undefined],
      ['google', ['google']],
      ['Google, heureka;zbozi  google-local-inventory', ['google', 'heureka', 'zbozi', 'google-local-inventory']],
      ['google google', ['google']],
    ])('%j → %j', async (cell, expected) => {
      const { values, problems } = await valuesOf('exclude', cell);

      expect(values?.exclude).toEqual(expected);
      expect(problems).toEqual([]);
    });

    it('reports a name that cannot be a feed name and keeps the others', async () => {
      const { values, problems } = await valuesOf('exclude', 'google, heureka.cz, -meta');

      expect(values).toEqual({ exclude: ['google'] });
      expect(problems).toEqual([
        'invalid-value: not a feed name (a-z, 0-9 and -, at most 64 characters): "heureka.cz"',
        'invalid-value: not a feed name (a-z, 0-9 and -, at most 64 characters): "-meta"',
      ]);
    });
  });

  describe('refused values (reported, the cell ignored, never cut)', () => {
    it.each([
      ['title', 'a'.repeat(151), /^too-long: title has 151 characters, at most 150: "a{60}"…$/],
      ['brand', 'b'.repeat(71), /^too-long: brand has 71/],
      ['description', 'd'.repeat(5001), /^too-long: description has 5001/],
      ['custom_label_0', 'c'.repeat(101), /^too-long: custom_label_0 has 101/],
      ['heureka_category', `Heureka.cz | ${'h'.repeat(260)}`, /^too-long: heureka_category has 273/],
      ['heureka_category', 'Potraviny > Káva', /^invalid-value: a Heureka category starts with "Heureka.cz \| "/],
      ['link', `https://x.cz/${'p'.repeat(2000)}`, /^too-long: link has 2013/],
      ['link', 'www.example.cz/kava', /^invalid-value: not an absolute http\(s\) URL: "www.example.cz\/kava"$/],
      ['image_link', 'ftp://example.cz/a.jpg', /^invalid-value: not an absolute http\(s\) URL/],
      ['image_link', 'javascript:alert(1)', /^invalid-value: not an absolute http\(s\) URL/],
      ['link', 'https://', /^invalid-value/],
    ])('%s %#', async (column, cell, message) => {
      const { values, problems } = await valuesOf(column, cell);

      expect(values).toEqual({});
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(message);
    });

    it('counts characters (code points), not UTF-16 units', async () => {
      const valid = await valuesOf('title', '🍫'.repeat(150));
      const over = await valuesOf('title', '🍫'.repeat(151));

      expect(valid.values?.title).toBe('🍫'.repeat(150));
      expect(over.problems).toHaveLength(1);
      expect(over.problems[0]).toMatch(/^too-long: title has 151 characters/);
    });

    it('keeps the valid image links, reports an invalid one and more than 10', async () => {
      const links = Array.from({ length: 12 }, (_, n) => `https://x.cz/${n}.jpg`);

      const { values, problems } = await valuesOf(
        'additional_image_link',
        [...links.slice(0, 2), 'nope', ...links.slice(2)].join(' '),
      );

      expect(values?.additionalImageLinks).toEqual(links.slice(0, 10));
      expect(problems).toEqual([
        'invalid-value: not an absolute http(s) URL: "nope"',
        'too-many-images: 2 more image links than the 10 allowed are ignored',
      ]);
    });
  });

  describe('rows, keys and columns', () => {
    it('reports unknown columns and later key columns once each, and reads on', async () => {
      const sheet = await readSheet('Colour;EAN;title;id;Colour;title\nred;1;A;x;blue;B\nred;2;C;y;blue;D\n');

      expect(sheet.keyColumn).toBe('ean');
      expect(sheet.rows.map((row) => [row.key, row.values])).toEqual([
        ['1', { title: 'A' }],
        ['2', { title: 'C' }],
      ]);
      expect(problemKeys(sheet)).toEqual([
        'unknown-column@1:Colour',
        'ignored-key-column@1:id',
        'unknown-column@1:Colour',
        'unknown-column@1:title',
      ]);
    });

    it('reports an empty key; a group row needs an id', async () => {
      const sheet = await readSheet('id;title\n;A\ngroup: ;B\n  ;C\n');

      expect(sheet.rows).toEqual([]);
      expect(problemKeys(sheet)).toEqual(['empty-key@2:id', 'empty-key@3:id', 'empty-key@4:id']);
    });

    it('keeps the first of duplicate keys: EANs without leading zeros, PLUs as numbers, groups by id', async () => {
      const eans = await readSheet('ean;title\n0012345678905;A\n12345678905;B\ngroup:G1;x\nGROUP: G1 ;y\n');
      const plus = await readSheet('plu;title\n12;A\n0012;B\n12.0;C\n13;D\n');
      const ids = await readSheet('id;title\nA-1;A\na-1;B\nA-1;C\n');

      expect(eans.rows.map((row) => row.values.title)).toEqual(['A']);
      expect(eans.groups).toEqual([{ line: 4, key: 'G1', values: {} }]);
      expect(problemKeys(eans)).toEqual(['duplicate-key@3:ean', 'group-column@4:title', 'duplicate-key@5:ean']);
      expect(eans.problems[0]?.message).toBe('"12345678905" was already on line 2; the first row wins');
      expect(plus.rows.map((row) => row.key)).toEqual(['12', '13']);
      expect(plus.problemCounts).toEqual({ 'duplicate-key': 2 });
      expect(ids.rows.map((row) => row.key)).toEqual(['A-1', 'a-1']);
    });

    it('lets a group row set everything but title, link, image_link and additional_image_link', async () => {
      const header = 'id;title;description;brand;link;image_link;additional_image_link;category;exclude';
      const sheet = await readSheet(
        `${header}\ngroup:KAVA;T;D;B;https://x.cz;https://x.cz/a.jpg;https://x.cz/b.jpg;Káva;google\n`,
      );

      expect(sheet.groups).toEqual([
        { line: 2, key: 'KAVA', values: { description: 'D', brand: 'B', category: 'Káva', exclude: ['google'] } },
      ]);
      expect(problemKeys(sheet)).toEqual([
        'group-column@2:title',
        'group-column@2:link',
        'group-column@2:image_link',
        'group-column@2:additional_image_link',
      ]);
    });

    it('counts a row whose values are all refused as a row', async () => {
      const sheet = await readSheet('id;link\n1;not a link\n');

      expect(sheet.rows).toEqual([{ line: 2, key: '1', values: {} }]);
    });
  });

  describe('limits', () => {
    it('refuses a 1 MB cell before reading it, quoting 60 characters of it', async () => {
      const huge = 'x'.repeat(1024 * 1024);

      const sheet = await readSheet(`id;title;description\n1;"${huge}";ok\n`);

      expect(sheet.rows).toEqual([{ line: 2, key: '1', values: { description: 'ok' } }]);
      expect(problemKeys(sheet)).toEqual(['too-long@2:title']);
      const message = sheet.problems[0]?.message ?? '';
      expect(message).toContain('1048576 characters, more than the limit of 100000');
      expect(message.length).toBeLessThan(200);
    });

    it('reads at most maxRows rows and says where it stopped', async () => {
      const sheet = await readSheet('id;title\n1;A\n2;B\n\n3;C\n4;D\n', {}, { maxRows: 2 });

      expect(sheet.rows.map((row) => row.key)).toEqual(['1', '2']);
      expect(problemKeys(sheet)).toEqual(['too-many-rows@5:-']);
    });

    it('keeps the first maxProblemExamples problems and counts all', async () => {
      const rows = Array.from({ length: 300 }, (_, n) => `${n};bad link`).join('\n');

      const sheet = await readSheet(`id;link\n${rows}\n`, {}, { maxProblemExamples: 200 });

      expect(sheet.problems).toHaveLength(200);
      expect(sheet.problemCount).toBe(300);
      expect(sheet.problemCounts).toEqual({ 'invalid-value': 300 });
      expect(sheet.rows).toHaveLength(300);
    });
  });
});
