import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { articleCode, normalizeCode } from '../../../../src/core/catalog/identity-codes.js';
import { createIdentityIndex } from '../../../../src/core/catalog/identity-index.js';
import { createCatalogMerger, mergeCatalog, withProductList } from '../../../../src/core/catalog/merge-catalog.js';
import { createPriceListRowCollector } from '../../../../src/core/catalog/price-list-rows.js';
import { type IdentityCandidates, resolveIdentity } from '../../../../src/core/catalog/resolve-identity.js';
import type { PriceListRow, SourceArticle, StockRow } from '../../../../src/core/catalog/source.js';
import { createStockRowCollector } from '../../../../src/core/catalog/stock-rows.js';
import { NOW, unit } from './catalog-fixtures.js';

/** Purchase prices no sales price can take (sales prices below are whole numbers up to 500). */
const PURCHASE_PRICES = [13579.24, 24680.13] as const;

const localIds = fc.constantFrom(...Array.from({ length: 25 }, (_, i) => `a-${i}`));
const eans = fc.constantFrom('8594000000017', '8594000000024', '0012345678905', '12345678905', '8594000000099');
const internalIds = fc.constantFrom('KAV-1', 'CAJ-3', 'MLK-4', 'a-3', '7');
const plus = fc.integer({ min: 0, max: 30 });

const articleArb: fc.Arbitrary<SourceArticle> = fc.record(
  {
    localId: localIds,
    name: fc.string({ maxLength: 10 }),
    ean: eans,
    plu: plus,
    internalIdentifier: internalIds,
    isSalesItem: fc.boolean(),
    isStockItem: fc.boolean(),
    salesPrice: fc.integer({ min: 0, max: 500 }),
    purchasePrice: fc.constantFrom(...PURCHASE_PRICES),
    avgPurchasePrice: fc.constantFrom(...PURCHASE_PRICES),
  },
  { requiredKeys: ['localId', 'name'] },
);

/** Codes that hit articles under every key, with leading zeros, spaces and junk. */
const codeArb = fc.oneof(
  localIds,
  eans,
  internalIds,
  plus.map(String),
  plus.map((plu) => ` 00${plu} `),
  fc.constant('NOPE'),
);

const priceRowArb: fc.Arbitrary<Omit<PriceListRow, 'position'>> = fc.record(
  {
    code: codeArb,
    ean: eans,
    plu: plus.map(String),
    priceVat: fc.integer({ min: 0, max: 500 }),
    priceNet: fc.integer({ min: 0, max: 500 }),
    actionPrice: fc.integer({ min: 0, max: 500 }),
    standardPrice: fc.integer({ min: 0, max: 500 }),
    stock: fc.double({ min: -5, max: 20, noNaN: true }),
  },
  { requiredKeys: ['code'] },
);

const stockRowArb: fc.Arbitrary<Omit<StockRow, 'line'>> = fc.record({
  codes: fc.record({ code: codeArb, plu: plus.map(String), ean: eans }, { requiredKeys: [] }),
  quantity: fc.oneof(fc.integer({ min: -5, max: 20 }), fc.double({ min: -5, max: 20, noNaN: true }), fc.constant(Number.NaN)),
});

const UNITS = ['U1', 'U2', 'U3'];

const inputArb = fc.record({
  unitCount: fc.integer({ min: 1, max: 3 }),
  articles: fc.array(articleArb, { maxLength: 30 }),
  priceRows: fc.array(fc.array(priceRowArb, { maxLength: 20 }), { minLength: 3, maxLength: 3 }),
  stockRows: fc.array(fc.array(stockRowArb, { maxLength: 20 }), { minLength: 3, maxLength: 3 }),
  withStock: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  priceListKey: fc.constantFrom('auto', 'localId', 'internalIdentifier', 'plu', 'ean') satisfies fc.Arbitrary<
    'auto' | 'localId' | 'internalIdentifier' | 'plu' | 'ean'
  >,
});

type GeneratedInput = typeof inputArb extends fc.Arbitrary<infer T> ? T : never;

function documentsOf(input: GeneratedInput) {
  const units = UNITS.slice(0, input.unitCount).map((code) => unit(code));
  const priceLists = new Map<string, PriceListRow[]>();
  const stock = new Map<string, StockRow[]>();
  for (const [i, code] of UNITS.entries()) {
    priceLists.set(
      code,
      (input.priceRows[i] ?? []).map((row, position) => ({ ...row, position: position + 1 })),
    );
    if (input.withStock[i])
      stock.set(
        code,
        (input.stockRows[i] ?? []).map((row, line) => ({ ...row, line: line + 2 })),
      );
  }
  return { units, priceLists, stock };
}

function optionsOf(input: GeneratedInput, maxExamples?: number) {
  return {
    version: 'v-prop',
    currency: 'CZK',
    unknownStockAvailability: 'out_of_stock' as const,
    priceListKey: input.priceListKey,
    stockKey: 'auto' as const,
    ...(maxExamples === undefined ? {} : { maxExamples }),
  };
}

function mergeOf(input: GeneratedInput) {
  const { units, priceLists, stock } = documentsOf(input);
  return mergeCatalog({ units, articles: input.articles, priceLists, stock }, optionsOf(input), NOW);
}

describe('core/catalog/merge-catalog (properties)', () => {
  it('gives unique product ids, accounts for every row once, and never leaks purchase prices', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const { snapshot, report } = mergeOf(input);

        const ids = snapshot.products.map((product) => product.id);
        expect(new Set(ids).size).toBe(ids.length);
        for (const unitReport of report.units) {
          for (const source of [unitReport.priceList, unitReport.stock]) {
            const { rows, matched, unmatched, ambiguous, duplicates, notForSale } = source;
            expect(matched + unmatched + ambiguous + duplicates + notForSale).toBe(rows);
          }
        }
        const json = JSON.stringify(snapshot);
        expect(json).not.toMatch(/purchase/i);
        for (const price of PURCHASE_PRICES) expect(json).not.toContain(String(price));
      }),
    );
  });

  it('merges unit by unit, in any order and with collected rows, exactly as all at once (reports capped alike)', () => {
    fc.assert(
      fc.property(inputArb, fc.integer({ min: 1, max: 3 }), fc.boolean(), (input, maxExamples, reversed) => {
        const { units, priceLists, stock } = documentsOf(input);
        const expected = mergeCatalog({ units, articles: input.articles, priceLists, stock }, optionsOf(input, maxExamples), NOW);
        const merger = createCatalogMerger({ units, articles: input.articles }, optionsOf(input, maxExamples), NOW);
        // Units in either order; documents of codes that are no unit of the list (U2, U3 when there is one unit) last.
        const known = UNITS.slice(0, input.unitCount);
        const codes = [...(reversed ? [...known].reverse() : known), ...UNITS.slice(input.unitCount)];
        for (const code of codes) {
          const stockRows = stock.get(code);
          if (stockRows !== undefined) {
            const collectedStock = createStockRowCollector();
            for (const row of stockRows) collectedStock.push(row);
            merger.addStock(code, collectedStock);
          }
          const collected = createPriceListRowCollector();
          for (const row of priceLists.get(code) ?? []) collected.push(row);
          merger.addPriceList(code, collected);
        }

        expect(JSON.stringify(withProductList(merger.finish()))).toBe(JSON.stringify(expected));
      }),
    );
  });

  it('keeps offers and the aggregate consistent with the rules', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const { snapshot } = mergeOf(input);

        for (const product of snapshot.products) {
          expect(product.offers.map((offer) => offer.unit)).toEqual(snapshot.units.map((entry) => entry.code));
          const known = product.offers.flatMap((offer) => (offer.stock === undefined ? [] : [offer.stock]));
          if (known.length === 0) expect(product.aggregate.stock).toBeUndefined();
          else
            expect(product.aggregate.stock).toBeCloseTo(
              known.reduce((sum, stock) => sum + Math.max(0, stock), 0),
              6,
            );
          for (const offer of [...product.offers, product.aggregate]) {
            if (!product.isStockItem) expect(offer.availability).toBe('in_stock');
            else if (offer.stock !== undefined && offer.stock > 0) expect(offer.availability).toBe('in_stock');
            if (offer.salePrice !== undefined) expect(offer.salePrice).toBeLessThan(offer.price ?? Number.NEGATIVE_INFINITY);
            if (offer.standardPrice !== undefined)
              expect(offer.standardPrice).toBeGreaterThan(offer.price ?? Number.POSITIVE_INFINITY);
          }
          const primary = product.offers.find((offer) => offer.unit === snapshot.primaryUnit);
          expect(product.aggregate.price).toBe(primary?.price);
        }
      }),
    );
  });

  it('matches each row to at most one article, each article to at most one row, and only by a code it has', () => {
    const rowArb = fc.record({ code: codeArb, ean: eans, plu: plus.map(String) }, { requiredKeys: [] });
    const keyArb = fc.constantFrom('auto', 'localId', 'internalIdentifier', 'plu', 'ean') satisfies fc.Arbitrary<
      'auto' | 'localId' | 'internalIdentifier' | 'plu' | 'ean'
    >;
    fc.assert(
      fc.property(
        fc.uniqueArray(articleArb, { selector: (item) => item.localId }),
        fc.array(rowArb),
        keyArb,
        (articles, rows, key) => {
          const result = resolveIdentity(createIdentityIndex(articles), rows, key);

          expect(new Set(result.matches.map((match) => match.row)).size).toBe(result.matches.length);
          expect(new Set(result.matches.map((match) => match.article)).size).toBe(result.matches.length);
          for (const match of result.matches) {
            const row: IdentityCandidates = rows[match.row] ?? {};
            const article = articles[match.article];
            const own = article === undefined ? undefined : articleCode(match.key, article);
            const rowCodes = [row.code, row.ean, row.plu].flatMap((raw) =>
              raw === undefined ? [] : [normalizeCode(match.key, raw)],
            );
            expect(rowCodes).toContain(own);
            if (key !== 'auto') expect(match.key).toBe(key);
          }
          const accounted =
            result.matches.length +
            result.unmatched.length +
            result.ambiguous.length +
            result.duplicates.length +
            result.notForSale.length;
          expect(accounted).toBe(rows.length);
        },
      ),
    );
  });
});
