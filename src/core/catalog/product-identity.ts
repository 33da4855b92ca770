import type { Product } from './catalog.js';
import type { IdentityArticle } from './identity-codes.js';
import { createIdentityIndexBuilder, type IdentityIndex, type IdentityIndexBuilder } from './identity-index.js';

/**
 * The identity index of a catalog family's products (positions = product positions): what a worker thread
 * needs to resolve stock-export rows to products, without the catalog. Built once per family in shared
 * memory, where the family's products are (the sync's thread, or the slices that load a stored version),
 * and read by every thread as it is.
 */

export type ProductIdentity = Pick<Product, 'id' | 'internalIdentifier' | 'plu' | 'ean'>;

/** The identifying fields of a product, as identity resolution reads an article. */
export function productIdentity(product: ProductIdentity): IdentityArticle {
  const article: { -readonly [K in keyof IdentityArticle]: IdentityArticle[K] } = { localId: product.id };
  if (product.internalIdentifier !== undefined) article.internalIdentifier = product.internalIdentifier;
  if (product.plu !== undefined) article.plu = product.plu;
  if (product.ean !== undefined) article.ean = product.ean;
  return article;
}

/** A builder to which products are added in order, a slice at a time; its index is in shared memory. */
export function createProductIdentityBuilder(expected?: number): {
  add(product: ProductIdentity): void;
  finish(): IdentityIndex;
} {
  const builder: IdentityIndexBuilder = createIdentityIndexBuilder({
    shared: true,
    ...(expected === undefined ? {} : { expected }),
  });
  return { add: (product) => builder.add(productIdentity(product)), finish: () => builder.finish() };
}
