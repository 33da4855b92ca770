import { forEachSliced } from '../async/create-slicer.js';
import type { CatalogSnapshot, Product } from '../catalog/catalog.js';
import { productCode } from '../feeds/to-feed-item.js';

/**
 * A served version's product by id or by Shoptet code, for the deriver and the payload builders. The index
 * (key → position) is kept per catalog *family* (`catalog-family.ts`, keyed the same way: the `units` array
 * its versions share, and the product count): a sale makes a new version a second, and rebuilding a
 * 100,000-entry map for each took 15–60 ms of main thread per version. Stock-only versions keep every
 * product in its place with its id and identifiers, so a position found is checked against the key, and the
 * index is rebuilt when it does not match. `prepareProductLookup` builds a new family's indexes in slices
 * (the deriver awaits it on each new version), so a lookup seldom builds one in a single stretch.
 */

interface Entry {
  readonly products: number;
  readonly positions: ReadonlyMap<string, number>;
}

interface Index {
  readonly key: (product: Product) => string;
  readonly built: WeakMap<CatalogSnapshot['units'], Entry>;
}

const byId: Index = { key: (product) => product.id, built: new WeakMap() };
const byCode: Index = { key: productCode, built: new WeakMap() };

function cached(index: Index, snapshot: CatalogSnapshot): ReadonlyMap<string, number> | undefined {
  const entry = index.built.get(snapshot.units);
  return entry !== undefined && entry.products === snapshot.products.length ? entry.positions : undefined;
}

function keep(index: Index, snapshot: CatalogSnapshot, positions: ReadonlyMap<string, number>): ReadonlyMap<string, number> {
  index.built.set(snapshot.units, { products: snapshot.products.length, positions });
  return positions;
}

function build(index: Index, snapshot: CatalogSnapshot): ReadonlyMap<string, number> {
  const positions = new Map<string, number>();
  // Last one wins on a repeated key, as `new Map(entries)` did.
  snapshot.products.forEach((product, position) => {
    positions.set(index.key(product), position);
  });
  return keep(index, snapshot, positions);
}

function find(index: Index, snapshot: CatalogSnapshot, value: string): Product | undefined {
  const position = (cached(index, snapshot) ?? build(index, snapshot)).get(value);
  if (position === undefined) return undefined;
  const product = snapshot.products[position];
  if (product !== undefined && index.key(product) === value) return product;
  // Not of the family after all (same units and count, other products): this version is indexed anew.
  const again = build(index, snapshot).get(value);
  return again === undefined ? undefined : snapshot.products[again];
}

/** The product with `id` in `snapshot`, if any. */
export function productById(snapshot: CatalogSnapshot, id: string): Product | undefined {
  return find(byId, snapshot, id);
}

/** The product whose `productCode` is `code` (Shoptet's pairing key), if any. */
export function productByCode(snapshot: CatalogSnapshot, code: string): Product | undefined {
  return find(byCode, snapshot, code);
}

/** Builds the indexes of `snapshot`'s family in slices that yield, unless they are built already. */
export async function prepareProductLookup(snapshot: CatalogSnapshot): Promise<void> {
  for (const index of [byId, byCode]) {
    if (cached(index, snapshot) !== undefined) continue;
    const positions = new Map<string, number>();
    const { products } = snapshot;
    await forEachSliced(products.length, (position) => {
      const product = products[position];
      if (product !== undefined) positions.set(index.key(product), position);
    });
    // A lookup meanwhile may have built it at once; either map is of this family.
    if (cached(index, snapshot) === undefined) keep(index, snapshot, positions);
  }
}
