import type { Product } from './catalog.js';
import type { IdentityArticle } from './resolve-identity.js';

/**
 * The identifying fields of a family's products, in product order, as compact JSON text: what a worker
 * thread needs to resolve stock-export rows to product positions, without the whole catalog. One row per
 * product: `["id","internalIdentifier",plu,"ean"]`, absent values as `null`.
 */

/** The rows of `products[from..to)` joined by `,` (no brackets), so that pieces can be concatenated. */
export function identityRowsText(
  products: readonly Pick<Product, 'id' | 'internalIdentifier' | 'plu' | 'ean'>[],
  from: number,
  to: number,
): string {
  const rows: (string | number | null)[][] = [];
  for (let position = from; position < Math.min(to, products.length); position += 1) {
    const product = products[position];
    if (product === undefined) continue;
    rows.push([product.id, product.internalIdentifier ?? null, product.plu ?? null, product.ean ?? null]);
  }
  return JSON.stringify(rows).slice(1, -1);
}

/** The identity table text of pieces made by `identityRowsText`. */
export function joinIdentityRows(pieces: readonly string[]): string {
  return `[${pieces.filter((piece) => piece !== '').join(',')}]`;
}

/** The articles of an identity table, for `createIdentityIndex` (positions = product positions). */
export function parseIdentityTable(text: string): IdentityArticle[] {
  const rows = JSON.parse(text) as [string, string | null, number | null, string | null][];
  return rows.map(([localId, internalIdentifier, plu, ean]) => ({
    localId,
    ...(internalIdentifier === null ? {} : { internalIdentifier }),
    ...(plu === null ? {} : { plu }),
    ...(ean === null ? {} : { ean }),
  }));
}
