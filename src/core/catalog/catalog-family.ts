import type { CatalogSnapshot } from './catalog.js';

/**
 * A value derived from what versions of one *family* share, computed once for the family.
 *
 * The family: a version made by stock changes (`applyStock`, `applyStockRows`) keeps its base's `units`
 * array and every product in its place, with the same ids, identifiers and offers' units; only stocks and
 * availability change. A full sync or a store load makes a new `units` array, so a new family. Keying by
 * that array lets a burst of sales (many versions a second) reuse indexes of 100,000 products instead of
 * rebuilding them per version (bench/webhook-latency.ts). The product count is checked too, as a guard
 * against a snapshot that shares `units` without being of the family; callers that look products up by
 * position must still check the id they find (see `apply-stock.ts`).
 *
 * @example
 * const positions = createFamilyCache<Map<string, number>>();
 * const map = positions.get(snapshot, () => indexById(snapshot));
 */
export interface FamilyCache<T> {
  get(snapshot: CatalogSnapshot, build: () => T): T;
  /** Builds anew and keeps it (the cached value did not fit). */
  rebuild(snapshot: CatalogSnapshot, build: () => T): T;
}

export function createFamilyCache<T>(): FamilyCache<T> {
  const cache = new WeakMap<CatalogSnapshot['units'], { readonly products: number; readonly value: T }>();
  const rebuild = (snapshot: CatalogSnapshot, build: () => T): T => {
    const value = build();
    cache.set(snapshot.units, { products: snapshot.products.length, value });
    return value;
  };
  return {
    get(snapshot, build) {
      const cached = cache.get(snapshot.units);
      return cached !== undefined && cached.products === snapshot.products.length ? cached.value : rebuild(snapshot, build);
    },
    rebuild,
  };
}

/**
 * A value built asynchronously (in slices, so the main thread keeps serving) once per family: the first
 * caller starts the build, callers meanwhile share it, later versions of the family get the built value.
 * A build that fails is forgotten, so the next call tries again.
 *
 * @example
 * const searches = createAsyncFamilyCache(buildProductSearchIndex);
 * const index = await searches.get(snapshot);
 */
export interface AsyncFamilyCache<T> {
  /** The family's value, built on first use. */
  get(snapshot: CatalogSnapshot): Promise<T>;
  /** The value if it is built already. */
  peek(snapshot: CatalogSnapshot): T | undefined;
}

export function createAsyncFamilyCache<T>(build: (snapshot: CatalogSnapshot) => Promise<T>): AsyncFamilyCache<T> {
  // Keyed as `createFamilyCache` keys families: the `units` array a family's versions share.
  const building = new WeakMap<CatalogSnapshot['units'], { readonly products: number; readonly value: Promise<T> }>();
  const built = new WeakMap<CatalogSnapshot['units'], { readonly products: number; readonly value: T }>();
  const peek = (snapshot: CatalogSnapshot): T | undefined => {
    const done = built.get(snapshot.units);
    return done !== undefined && done.products === snapshot.products.length ? done.value : undefined;
  };
  return {
    get(snapshot) {
      const done = built.get(snapshot.units);
      if (done !== undefined && done.products === snapshot.products.length) return Promise.resolve(done.value);
      const pending = building.get(snapshot.units);
      if (pending !== undefined && pending.products === snapshot.products.length) return pending.value;
      const products = snapshot.products.length;
      const value = build(snapshot).then(
        (result) => {
          built.set(snapshot.units, { products, value: result });
          building.delete(snapshot.units);
          return result;
        },
        (error: unknown) => {
          building.delete(snapshot.units);
          throw error;
        },
      );
      building.set(snapshot.units, { products, value });
      return value;
    },
    peek,
  };
}
