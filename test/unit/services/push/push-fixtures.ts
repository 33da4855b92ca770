import type { CatalogSnapshot, Offer, Product } from '../../../../src/core/catalog/catalog.js';

/** A small catalog for the push tests: units A and B, products with stock and prices per unit. */
export interface ItemSpec {
  readonly id: string;
  readonly price?: number;
  readonly salePrice?: number;
  /** Per unit; a unit absent from the map has no offer; `undefined` value = stock unknown. */
  readonly stock?: Readonly<Record<string, number | undefined>>;
  readonly plu?: number;
}

function offer(unit: string, spec: ItemSpec, stock: number | undefined): Offer {
  return {
    unit,
    ...(spec.price === undefined ? {} : { price: spec.price }),
    ...(spec.salePrice === undefined ? {} : { salePrice: spec.salePrice }),
    ...(stock === undefined ? {} : { stock }),
    availability: stock !== undefined && stock > 0 ? 'in_stock' : 'out_of_stock',
  } as Offer;
}

export function product(spec: ItemSpec): Product {
  const stocks = spec.stock ?? { A: 1 };
  const offers = Object.entries(stocks).map(([unit, stock]) => offer(unit, spec, stock));
  const values = Object.values(stocks);
  const total = values.some((value) => value === undefined)
    ? undefined
    : values.reduce<number>((sum, value) => sum + (value ?? 0), 0);
  return {
    id: spec.id,
    name: `Item ${spec.id}`,
    ...(spec.plu === undefined ? {} : { plu: spec.plu }),
    isStockItem: true,
    offers,
    aggregate: offer('all', spec, total),
  };
}

export function snapshot(version: string, items: readonly ItemSpec[]): CatalogSnapshot {
  return {
    version,
    generatedAt: '2026-11-26T12:00:00.000Z',
    currency: 'CZK',
    primaryUnit: 'A',
    units: [
      { code: 'A', localId: '1', name: 'Unit A' },
      { code: 'B', localId: '2', name: 'Unit B' },
    ],
    products: items.map(product),
  };
}
