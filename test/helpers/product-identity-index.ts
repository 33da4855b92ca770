import { createIdentityIndex } from '../../src/core/catalog/identity-index.js';
import { type ProductIdentity, productIdentity } from '../../src/core/catalog/product-identity.js';

/** The identity index of `products` in shared memory, as a full sync hands it to a catalog family. */
export function productIdentityIndex(products: readonly ProductIdentity[]) {
  return createIdentityIndex(products.map(productIdentity), undefined, { shared: true });
}
