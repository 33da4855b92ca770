import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot, Offer, Product } from '../../../../src/core/catalog/catalog.js';
import { buildFamilyIndex } from '../../../../src/core/catalog/family-index.js';
import { SEARCH_BOUNDS, searchWords } from '../../../../src/core/catalog/name-search.js';
import {
  buildProductSearchIndex,
  createProductSearchIndexes,
  foldSearchText,
  type ProductSearchIndex,
  searchProducts,
} from '../../../../src/core/catalog/product-search.js';

const offer = (unit: string): Offer => ({ unit, price: 10, stock: 1, availability: 'in_stock' });

function product(id: string, name: string, fields: Partial<Product> = {}): Product {
  return { id, name, isStockItem: true, offers: [offer('U1')], aggregate: offer('all'), ...fields };
}

function snapshotOf(products: readonly Product[]): CatalogSnapshot {
  return {
    version: 'v-1',
    generatedAt: '2026-11-22T10:00:00.000Z',
    currency: 'CZK',
    primaryUnit: 'U1',
    units: [{ code: 'U1', localId: 'u1', name: 'One' }],
    products,
  };
}

const PRODUCTS: readonly Product[] = [
  product('a-1', 'Káva zrnková Brazílie 1 kg', { ean: '8594000000017', plu: 1, internalIdentifier: 'KAV-1' }),
  product('a-2', 'Čokoláda hořká 70 %', { ean: '0012345678905', plu: 12 }),
  product('a-3', 'Ledová káva mletá', { internalIdentifier: 'KAV-3' }),
  product('a-4', 'Sada „Ranní KÁVA“ & hrnek'),
  product('a-5', 'Espresso káva směs', { ean: '8594000000024' }),
  product('a-6', 'Čaj zelený Sencha', { ean: '8594000000024', plu: 6 }),
  product('7', 'Rohlík máslový', { plu: 7 }),
];

/** The search index of `products`, over their family index. */
async function sourceOf(products: readonly Product[]): Promise<ProductSearchIndex> {
  const snapshot = snapshotOf(products);
  return buildProductSearchIndex(snapshot, await buildFamilyIndex(snapshot));
}

/** The ids `query` finds, best first, and the total. */
async function find(source: ProductSearchIndex, query: string, limit = 20) {
  const { hits, total } = await searchProducts(source, query, limit);
  return { ids: hits.map((hit) => PRODUCTS[hit.position]?.id), matchedBy: hits.map((hit) => hit.matchedBy), total };
}

describe('core/catalog/product-search', () => {
  it('folds text: lower case, without diacritics, dashes as "-", white space and controls as single spaces', () => {
    expect(foldSearchText('  Čokoláda  HOŘKÁ – 70 %\t\u0000x ')).toBe('cokolada horka - 70 % x');
    expect(foldSearchText('ŽLUŤOUČKÝ kůň úpěl ďábelské ódy')).toBe('zlutoucky kun upel dabelske ody');
    // Already decomposed input (a combining caron after the letter) folds the same.
    expect(foldSearchText('C\u030Cokola\u0301da')).toBe('cokolada');
    expect(foldSearchText('Plain ASCII')).toBe('plain ascii');
  });

  it('finds names diacritics- and case-insensitively', async () => {
    const source = await sourceOf(PRODUCTS);

    expect((await find(source, 'cokolada')).ids).toEqual(['a-2']);
    expect((await find(source, 'ČOKOLÁDA')).ids).toEqual(['a-2']);
    expect((await find(source, 'KAVA')).ids).toEqual(['a-1', 'a-3', 'a-4', 'a-5']);
    expect((await find(source, 'rohlík')).matchedBy).toEqual(['name']);
  });

  it('needs every word of the query in the name, in any order, as substrings', async () => {
    const source = await sourceOf(PRODUCTS);

    expect((await find(source, 'kava zrn')).ids).toEqual(['a-1']);
    expect((await find(source, 'zrnkova   kava')).ids).toEqual(['a-1']);
    expect((await find(source, 'kava mle')).ids).toEqual(['a-3']);
    expect((await find(source, 'kava caj')).ids).toEqual([]);
    expect((await find(source, 'ava')).ids).toEqual(['a-1', 'a-3', 'a-4', 'a-5']);
  });

  it('finds a product by its exact id, EAN, PLU or internal identifier', async () => {
    const source = await sourceOf(PRODUCTS);

    expect(await find(source, 'a-3')).toEqual({ ids: ['a-3'], matchedBy: ['id'], total: 1 });
    expect(await find(source, ' A-3 ')).toEqual({ ids: ['a-3'], matchedBy: ['id'], total: 1 });
    expect(await find(source, '8594000000017')).toEqual({ ids: ['a-1'], matchedBy: ['ean'], total: 1 });
    expect(await find(source, '12')).toEqual({ ids: ['a-2'], matchedBy: ['plu'], total: 1 });
    expect(await find(source, '0012')).toEqual({ ids: ['a-2'], matchedBy: ['plu'], total: 1 });
    expect(await find(source, 'kav-1')).toEqual({ ids: ['a-1'], matchedBy: ['internalIdentifier'], total: 1 });
    expect((await find(source, 'KAV-3')).matchedBy).toEqual(['internalIdentifier']);
  });

  it('compares EANs as GTINs: leading zeros dropped or added, spaces and dashes ignored', async () => {
    const source = await sourceOf(PRODUCTS);

    // The product's EAN-13 0012345678905 is the UPC-A 012345678905 and the GTIN-14 00012345678905.
    for (const code of ['0012345678905', '012345678905', '12345678905', '00012345678905', '0 012345 678905', '0012-3456-78905']) {
      expect((await find(source, code)).ids, code).toEqual(['a-2']);
    }
    expect((await find(source, '08594000000017')).ids).toEqual(['a-1']);
  });

  it('finds every product that shares a code, and each product once, by the first way it matched', async () => {
    const source = await sourceOf(PRODUCTS);

    expect(await find(source, '8594000000024')).toEqual({ ids: ['a-5', 'a-6'], matchedBy: ['ean', 'ean'], total: 2 });
    // Id "7" and PLU 7 are the same product; "7" is also in the name "… 70 %".
    expect(await find(source, '7')).toEqual({ ids: ['7', 'a-2'], matchedBy: ['id', 'name'], total: 2 });
  });

  it('finds every product sharing a PLU or an internal identifier, which the family index names none of', async () => {
    const products = [
      product('p-1', 'Jedna', { plu: 5, internalIdentifier: 'DUP-1' }),
      product('p-2', 'Dva', { plu: 5 }),
      product('p-3', 'Tři', { internalIdentifier: 'DUP-1' }),
    ];
    const source = await sourceOf(products);

    expect((await searchProducts(source, '5', 20)).hits.map((hit) => products[hit.position]?.id)).toEqual(['p-1', 'p-2']);
    expect((await searchProducts(source, 'dup-1', 20)).hits.map((hit) => products[hit.position]?.id)).toEqual(['p-1', 'p-3']);
    expect(source.shared.plu.get(5)).toEqual([0, 1]);
  });

  it('ranks code matches, then names starting with the query, then a word starting with it, then the rest', async () => {
    const products = [
      product('p-1', 'Horká čokoláda'),
      product('p-2', 'Mléčná čokoláda'),
      product('p-3', 'Čokoládová tyčinka'),
      product('p-4', 'Bonbóny s příchutí čokolády', { internalIdentifier: 'cokolad' }),
      product('p-5', 'Čokoládka mini'),
      product('p-6', 'Polevaxcokolady'),
      product('cokolad', 'Polevaxcokolad'),
    ];
    const source = await sourceOf(products);

    const { hits } = await searchProducts(source, 'cokolad', 20);

    expect(hits.map((hit) => products[hit.position]?.id)).toEqual(['p-4', 'cokolad', 'p-3', 'p-5', 'p-1', 'p-2', 'p-6']);
    expect(hits.map((hit) => hit.matchedBy)).toEqual(['internalIdentifier', 'id', 'name', 'name', 'name', 'name', 'name']);
  });

  it('ranks a multi-word query: the phrase at the start, then every word at a word start, then substrings', async () => {
    const products = [
      product('p-1', 'Káva mletá zrnková'),
      product('p-2', 'Mletá káva'),
      product('p-3', 'Káva mletá'),
      product('p-4', 'Kávamletá'),
    ];
    const source = await sourceOf(products);

    const { hits } = await searchProducts(source, 'kava mle', 20);

    expect(hits.map((hit) => products[hit.position]?.id)).toEqual(['p-1', 'p-3', 'p-2', 'p-4']);
  });

  it('returns at most `limit` products, the best ones, and counts them all', async () => {
    const products = Array.from({ length: 30 }, (_, i) => product(`p-${i}`, i % 3 === 0 ? `Káva ${i}` : `Sada káva ${i}`));
    const source = await sourceOf(products);

    const { hits, total } = await searchProducts(source, 'kava', 5);

    expect(total).toBe(30);
    expect(hits.map((hit) => products[hit.position]?.id)).toEqual(['p-0', 'p-3', 'p-6', 'p-9', 'p-12']);
  });

  it('finds nothing for a miss, a query of punctuation between names, or an empty catalog', async () => {
    const source = await sourceOf(PRODUCTS);
    const empty = await sourceOf([]);

    expect(await find(source, 'xyzzy')).toEqual({ ids: [], matchedBy: [], total: 0 });
    // Names are kept apart: the end of one and the start of the next are not one text.
    expect(await find(source, 'kg cokolada')).toEqual({ ids: [], matchedBy: [], total: 0 });
    expect(await find(source, '\u0301')).toEqual({ ids: [], matchedBy: [], total: 0 });
    expect(await searchProducts(empty, 'kava', 20)).toEqual({ hits: [], total: 0, complete: true });
  });

  it('joins the 8 longest words across all names and checks the rest in the names found: every word still counts', async () => {
    expect(searchWords('kava 1 l mleta')).toEqual({ joined: ['kava', '1', 'l', 'mleta'], checked: [] });
    expect(searchWords('aa bbbb c dd eeeee ff gg hh iii jj kk')).toEqual({
      joined: ['eeeee', 'bbbb', 'iii', 'aa', 'dd', 'ff', 'gg', 'hh'],
      checked: ['jj', 'kk', 'c'],
    });
    expect(SEARCH_BOUNDS.maxWords).toBe(8);
    const names = [
      'Sada abc def ghi jkl mno pqr stu vwx 12',
      'Sada abc def ghi jkl mno pqr stu vwx 2',
      'Sada abc def ghi jkl mno pqr stu vwx 3',
    ];
    const source = await sourceOf(names.map((name, i) => product(`s-${i}`, name)));
    // Ten words: "vwx" and the number are checked, not joined.
    const nine = 'abc def ghi jkl mno pqr stu vwx sada';
    expect(searchWords(`${nine} 2`).checked).toEqual(['vwx', '2']);
    expect((await searchProducts(source, `${nine} 12`, 20)).hits.map((hit) => hit.position)).toEqual([0]);
    // A checked word counts for the rank too: "2" starts a word in the second name, not in the first ("12").
    expect((await searchProducts(source, `${nine} 2`, 20)).hits.map((hit) => hit.position)).toEqual([1, 0]);
  });

  it('yields to the event loop while it searches, and stops at its time budget saying so', async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => product(`p-${i}`, `Zboží ${i % 97} abc ${i % 13} xyz`));
    const source = await sourceOf(many);
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const sliced = await searchProducts(source, 'zbozi abc xyz', 10, { sliceMs: 0 });
    ticking = false;
    expect(sliced).toMatchObject({ total: 20_000, complete: true });
    expect(turns).toBeGreaterThan(10);

    const cut = await searchProducts(source, 'zbozi abc xyz', 10, { sliceMs: 0, budgetMs: 0 });
    expect(cut.complete).toBe(false);
    expect(cut.total).toBeLessThan(20_000);
    expect(cut.hits.map((hit) => hit.position)).toEqual([...Array(cut.hits.length).keys()]);
  });

  it('builds once per catalog family and serves its later versions from the same index', async () => {
    const indexes = createProductSearchIndexes(buildFamilyIndex);
    const snapshot = snapshotOf(PRODUCTS);
    const later: CatalogSnapshot = { ...snapshot, version: 'v-2', products: [...PRODUCTS] };

    const first = await indexes.get(snapshot);

    expect(await indexes.get(later)).toBe(first);
    expect(indexes.peek(later)).toBe(first);
    expect(indexes.peek({ ...snapshot, units: [...snapshot.units] })).toBeUndefined();
  });

  it('always finds a product by its own id and by its own name (property)', async () => {
    const letters = fc.constantFrom(...'aábcčdďeéěfghiíjklmnňoópqrřsštťuúůvwxyýzžAÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ0123456789 -–%&",.\t'.split(''));
    const names = fc.array(letters, { minLength: 1, maxLength: 30 }).map((chars) => chars.join(''));
    const ids = fc.stringMatching(/^[A-Za-z0-9-]{1,10}$/);
    const catalogs = fc.uniqueArray(fc.record({ id: ids, name: names }), { minLength: 1, maxLength: 40, selector: (p) => p.id });

    await fc.assert(
      fc.asyncProperty(catalogs, async (entries) => {
        const products = entries.map((entry) => product(entry.id, entry.name));
        const source = await sourceOf(products);
        for (const [position, entry] of entries.entries()) {
          const byId = (await searchProducts(source, entry.id, products.length)).hits;
          expect(byId.find((hit) => hit.position === position)?.matchedBy).toBe('id');
          if (foldSearchText(entry.name) === '') continue;
          const byName = (await searchProducts(source, entry.name, products.length)).hits;
          expect(byName.map((hit) => hit.position)).toContain(position);
        }
      }),
    );
  });

  it('finds by name exactly what a plain scan of every name finds, in rank and catalog order (property)', async () => {
    // A small alphabet, so that queries match often and in every rank.
    const names = fc.array(fc.constantFrom(...'aákKv -.'.split('')), { maxLength: 12 }).map((chars) => chars.join(''));
    const queries = fc
      .array(fc.constantFrom(...'aAkv -'.split('')), { minLength: 1, maxLength: 5 })
      .map((chars) => chars.join(''));

    await fc.assert(
      fc.asyncProperty(fc.array(names, { maxLength: 30 }), queries, async (catalogNames, query) => {
        const products = catalogNames.map((name, i) => product(`#${i}`, name));
        const source = await sourceOf(products);

        const { hits, total } = await searchProducts(source, query, products.length + 1);

        const expected = plainScan(catalogNames, query);
        expect(hits.map((hit) => hit.position)).toEqual(expected);
        expect(total).toBe(expected.length);
      }),
    );
  });
});

/** The positions whose names hold every word of `query`, ranked as `searchProducts` ranks them, by brute force. */
function plainScan(names: readonly string[], query: string): number[] {
  const phrase = foldSearchText(query);
  const words = phrase.split(' ').filter((word) => word !== '');
  if (words.length === 0) return [];
  const startsWord = (name: string, word: string) =>
    [...name].some((_, at) => name.startsWith(word, at) && (at === 0 || !/[\p{L}\p{N}]/u.test(name.charAt(at - 1))));
  const ranked = names.flatMap((raw, position) => {
    const name = foldSearchText(raw);
    if (!words.every((word) => name.includes(word))) return [];
    const rank = name.startsWith(phrase) ? 0 : words.every((word) => startsWord(name, word)) ? 1 : 2;
    return [{ position, rank }];
  });
  return ranked.sort((a, b) => a.rank - b.rank || a.position - b.position).map((entry) => entry.position);
}
