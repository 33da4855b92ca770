import { aggregateOffer } from '../src/core/catalog/aggregate-offer.js';
import type { CatalogSnapshot, Offer, Product } from '../src/core/catalog/catalog.js';
import { createSandboxCatalog } from '../src/sandbox/sandbox-catalog.js';

/**
 * The sandbox's catalog as a full sync publishes it (names, EANs, PLUs, codes, prices with VAT, stock per
 * unit, kg goods, the `all` aggregate), built straight from its generator: for benchmarks of what is done
 * with a published catalog, without a sync before them.
 */
export function sandboxSnapshot(options: {
  readonly products: number;
  readonly units: number;
  readonly seed?: number;
}): CatalogSnapshot {
  const sandbox = createSandboxCatalog({ seed: options.seed ?? 42, units: options.units, articles: options.products });
  const units = sandbox.units.map((unit) => ({ code: unit.code, localId: unit.localId, name: unit.name }));
  const primaryUnit = units[0]?.code ?? '';
  const products: Product[] = [];
  for (let index = 0; index < options.products; index++) {
    const article = sandbox.articleAt(index);
    const isStockItem = article.isStockItem !== false;
    const offers: Offer[] = units.map((unit, unitIndex) => {
      const price = sandbox.unitPrice(unitIndex, article);
      const stock = sandbox.initialStockMilli(unitIndex, index, article.byWeight) / 1000;
      return {
        unit: unit.code,
        price: price.priceVat,
        ...(price.actionPrice === undefined ? {} : { salePrice: price.actionPrice }),
        ...(price.standardPrice === undefined ? {} : { standardPrice: price.standardPrice }),
        ...(isStockItem ? { stock } : {}),
        availability: !isStockItem || stock > 0 ? 'in_stock' : 'out_of_stock',
      };
    });
    products.push({
      id: article.localId,
      name: article.name,
      ...(article.localGroupId === undefined ? {} : { groupId: article.localGroupId }),
      ...(article.ean === undefined ? {} : { ean: article.ean }),
      ...(article.plu === undefined ? {} : { plu: article.plu }),
      ...(article.internalIdentifier === undefined ? {} : { internalIdentifier: article.internalIdentifier }),
      ...(article.measureUnit === undefined ? {} : { measureUnit: article.measureUnit }),
      isStockItem,
      offers,
      aggregate: aggregateOffer(offers, primaryUnit, isStockItem, 'out_of_stock'),
    });
  }
  return { version: 'v-bench', generatedAt: '2026-11-25T06:00:00.000Z', currency: 'CZK', primaryUnit, units, products };
}
