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
