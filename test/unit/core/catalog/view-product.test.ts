import { describe, expect, it } from 'vitest';
import type { Product } from '../../../../src/core/catalog/catalog.js';
import { viewProduct } from '../../../../src/core/catalog/view-product.js';

const PRODUCT: Product = {
  id: 'a-1001',
  name: 'Káva zrnková 1 kg',
  groupId: 'g-7',
  ean: '8594000000017',
  plu: 1001,
  internalIdentifier: 'KAV-1',
  measureUnit: 'piece',
  isStockItem: true,
  offers: [
    {
      unit: 'U1',
      price: 129,
      salePrice: 99,
      standardPrice: 149,
      stock: 7,
      availability: 'in_stock',
      availabilityTexts: { inStock: 'Skladem' },
    },
    { unit: 'U2', price: 119, stock: 5, availability: 'in_stock' },
    { unit: 'U3', availability: 'out_of_stock' },
  ],
  aggregate: {
    unit: 'all',
    price: 129,
    salePrice: 99,
    standardPrice: 149,
    stock: 12,
    availability: 'in_stock',
    availabilityTexts: { inStock: 'Skladem' },
  },
};

describe('core/catalog/view-product', () => {
  it('shows the aggregate with every offer in the "all" view, keys in the documented order', () => {
    const view = viewProduct(PRODUCT, 'all', { link: 'https://shop/p/a-1001', imageLink: 'https://shop/i/a-1001.jpg' });

    expect(Object.keys(view ?? {})).toEqual([
      'id',
      'name',
      'groupId',
      'ean',
      'plu',
      'internalIdentifier',
      'measureUnit',
      'price',
      'salePrice',
      'standardPrice',
      'stock',
      'availability',
      'availabilityText',
      'link',
      'imageLink',
      'offers',
    ]);
    expect(view).toMatchObject({ price: 129, salePrice: 99, stock: 12, availability: 'in_stock', availabilityText: 'Skladem' });
    expect(view?.offers).toEqual([
      {
        unit: 'U1',
        price: 129,
        salePrice: 99,
        standardPrice: 149,
        stock: 7,
        availability: 'in_stock',
        availabilityText: 'Skladem',
      },
      { unit: 'U2', price: 119, stock: 5, availability: 'in_stock' },
      { unit: 'U3', availability: 'out_of_stock' },
    ]);
  });

  it.each<[string, object]>([
    [
      'U2',
      {
        price: 119,
        stock: 5,
        availability: 'in_stock',
        offers: [{ unit: 'U2', price: 119, stock: 5, availability: 'in_stock' }],
      },
    ],
    ['U3', { availability: 'out_of_stock', offers: [{ unit: 'U3', availability: 'out_of_stock' }] }],
  ])('shows the unit %s with its own offer only', (unitCode, expected) => {
    const view = viewProduct(PRODUCT, unitCode);

    const { id, name, groupId, ean, plu, internalIdentifier, measureUnit, ...rest } = view ?? { id: '', name: '' };
    expect({ id, name, groupId, ean, plu, internalIdentifier, measureUnit }).toEqual({
      id: 'a-1001',
      name: 'Káva zrnková 1 kg',
      groupId: 'g-7',
      ean: '8594000000017',
      plu: 1001,
      internalIdentifier: 'KAV-1',
      measureUnit: 'piece',
    });
    expect(rest).toEqual(expected);
  });

  it('omits absent optional fields and has nothing for an unknown unit', () => {
    const bare: Product = {
      id: 'a-2',
      name: 'B',
      isStockItem: false,
      offers: [],
      aggregate: { unit: 'all', availability: 'in_stock' },
    };

    expect(viewProduct(bare, 'all')).toEqual({ id: 'a-2', name: 'B', availability: 'in_stock', offers: [] });
    expect(viewProduct(bare, 'U1')).toBeUndefined();
  });
});
