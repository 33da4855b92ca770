import type { Product } from './catalog.js';
import type { IdentityArticle, IdentityArticleList } from './resolve-identity.js';

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

type IdentityRow = readonly [string, string | null, number | null, string | null];

/**
 * The articles of an identity table, for `createIdentityIndex` (positions = product positions), each made
 * when the index reads it: an index of 100,000 products was built beside an array of 100,000 article
 * objects that was garbage right after (~30 MiB more at the build's peak, in the thread that re-reads stock).
 */
export function identityTableArticles(text: string): IdentityArticleList {
  const rows = JSON.parse(text) as IdentityRow[];
  return {
    length: rows.length,
    article(position) {
      const [localId, internalIdentifier, plu, ean] = rows[position] as IdentityRow;
      const article: { localId: string; internalIdentifier?: string; plu?: number; ean?: string } = { localId };
      if (internalIdentifier !== null) article.internalIdentifier = internalIdentifier;
      if (plu !== null) article.plu = plu;
      if (ean !== null) article.ean = ean;
      return article;
    },
  };
}

/** The articles of an identity table, all at once. */
export function parseIdentityTable(text: string): IdentityArticle[] {
  const list = identityTableArticles(text);
  return Array.from({ length: list.length }, (_, position) => list.article(position));
}
