import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Offer } from '../../../../src/core/catalog/catalog.js';
import { createOfferColumns, hasPrice, offerAt, storeOffer } from '../../../../src/core/catalog/offer-columns.js';

const money = fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((value) => Math.round(value * 100) / 100);
const texts = fc.constantFrom(
  undefined,
  { inStock: 'Skladem' },
  { outOfStock: 'Na objednávku' },
  { inStock: 'A', outOfStock: 'B' },
);

/** An offer as the merge builds it: optional fields omitted, in the merge's order. */
const offerArb = fc
  .record({
    availability: fc.constantFrom('in_stock' as const, 'out_of_stock' as const),
    price: fc.option(money, { nil: undefined }),
    salePrice: fc.option(money, { nil: undefined }),
    standardPrice: fc.option(money, { nil: undefined }),
    stock: fc.option(fc.double({ min: -1e4, max: 1e4, noNaN: true }), { nil: undefined }),
    texts,
  })
  .map(({ availability, price, salePrice, standardPrice, stock, texts }) => {
    const offer: { -readonly [K in keyof Offer]: Offer[K] } = { unit: 'U1', availability };
    if (price !== undefined) offer.price = price;
    if (salePrice !== undefined) offer.salePrice = salePrice;
    if (standardPrice !== undefined) offer.standardPrice = standardPrice;
    if (stock !== undefined) offer.stock = stock;
    if (texts !== undefined) offer.availabilityTexts = texts;
    return offer as Offer;
  });

describe('offer columns', () => {
  it('give back each stored offer as it was, with its fields in the same order (the serialized text is the same)', () => {
    fc.assert(
      fc.property(fc.array(offerArb, { minLength: 1, maxLength: 20 }), (offers) => {
        const columns = createOfferColumns(offers.length);
        for (const [position, offer] of offers.entries()) storeOffer(columns, position, offer);

        for (const [position, offer] of offers.entries()) {
          const made = offerAt(columns, 'U1', position);
          expect(made).toStrictEqual(offer);
          expect(JSON.stringify(made)).toBe(JSON.stringify(offer));
          expect(hasPrice(columns, position)).toBe(offer.price !== undefined);
        }
      }),
    );
  });

  it('keep zero, negative and fractional values apart from absent ones', () => {
    const columns = createOfferColumns(2);
    storeOffer(columns, 0, { unit: 'U1', availability: 'out_of_stock', price: 0, stock: -2.5 });

    expect(offerAt(columns, 'U1', 0)).toStrictEqual({ unit: 'U1', availability: 'out_of_stock', price: 0, stock: -2.5 });
    expect(offerAt(columns, 'U1', 1)).toStrictEqual({ unit: 'U1', availability: 'out_of_stock' });
    expect(hasPrice(columns, 0)).toBe(true);
    expect(hasPrice(columns, 1)).toBe(false);
  });
});
