import { describe, expect, it } from 'vitest';
import { aggregateOffer, availabilityTextOf, computeAvailability } from '../../../../src/core/catalog/aggregate-offer.js';
import type { Availability, Offer } from '../../../../src/core/catalog/catalog.js';

describe('core/catalog/aggregate-offer', () => {
  it.each<[number | undefined, boolean, Availability, Availability]>([
    [1, true, 'out_of_stock', 'in_stock'],
    [0.001, true, 'out_of_stock', 'in_stock'],
    [0, true, 'in_stock', 'out_of_stock'],
    [-1, true, 'in_stock', 'out_of_stock'],
    [undefined, true, 'out_of_stock', 'out_of_stock'],
    [undefined, true, 'in_stock', 'in_stock'],
    [0, false, 'out_of_stock', 'in_stock'],
    [undefined, false, 'out_of_stock', 'in_stock'],
  ])('stock %s, stock item %s, unknown → %s: %s', (stock, isStockItem, unknown, expected) => {
    const result = computeAvailability(stock, isStockItem, unknown);

    expect(result).toBe(expected);
  });

  it('takes prices and labels from the primary unit and sums stock', () => {
    const offers: Offer[] = [
      { unit: 'U1', price: 129, stock: 0, availability: 'out_of_stock' },
      { unit: 'U2', price: 119, salePrice: 99, stock: 4, availability: 'in_stock', availabilityTexts: { inStock: 'Skladem' } },
    ];

    const result = aggregateOffer(offers, 'U2', true, 'out_of_stock');

    expect(result).toEqual({
      unit: 'all',
      price: 119,
      salePrice: 99,
      stock: 4,
      availability: 'in_stock',
      availabilityTexts: { inStock: 'Skladem' },
    });
    expect(availabilityTextOf(result)).toBe('Skladem');
  });

  it.each<[Availability, string | undefined]>([
    ['in_stock', 'Skladem'],
    ['out_of_stock', 'Na dotaz'],
  ])('picks the label of the availability (%s)', (availability, expected) => {
    const offer: Offer = { unit: 'U1', availability, availabilityTexts: { inStock: 'Skladem', outOfStock: 'Na dotaz' } };

    const result = availabilityTextOf(offer);

    expect(result).toBe(expected);
  });
});
