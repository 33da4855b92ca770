import { createSlicer } from '../async/create-slicer.js';
import type { CatalogSnapshot } from './catalog.js';
import { type AsyncFamilyCache, createAsyncFamilyCache } from './catalog-family.js';

/**
 * Indexes that every version of a catalog family shares (`catalog-family.ts`: versions made by stock
 * changes keep every product in its place, with the same ids, identifiers and offers' units). Built once
 * per family, in slices: at 100,000 products the maps take ~200 ms to build, which on the main thread
 * would hold every request for that long (bench/event-loop.ts).
 */
export interface FamilyIndex {
  /** Product position by id. */
  readonly positions: ReadonlyMap<string, number>;
  /** Internal identifier, PLU and EAN → the product id, `null` when several products share the value. */
  readonly byInternal: ReadonlyMap<string, string | null>;
  readonly byPlu: ReadonlyMap<number, string | null>;
  readonly byEan: ReadonlyMap<string, string | null>;
  /** How many products each unit offers. */
  readonly unitCounts: ReadonlyMap<string, number>;
}

function unique<K>(map: Map<K, string | null>, key: K | undefined, id: string): void {
  if (key === undefined) return;
  // `null` marks a value two products share: it names neither.
  map.set(key, map.has(key) && map.get(key) !== id ? null : id);
}

/** Builds the index of `snapshot`'s family, yielding to the event loop every few milliseconds. */
export async function buildFamilyIndex(snapshot: CatalogSnapshot): Promise<FamilyIndex> {
  const positions = new Map<string, number>();
  const byInternal = new Map<string, string | null>();
  const byPlu = new Map<number, string | null>();
  const byEan = new Map<string, string | null>();
  const unitCounts = new Map(snapshot.units.map((unit) => [unit.code, 0]));
  const slicer = createSlicer();
  const { products } = snapshot;
  for (let position = 0; position < products.length; position += 1) {
    const product = products[position];
    if (product === undefined) continue;
    positions.set(product.id, position);
    unique(byInternal, product.internalIdentifier, product.id);
    unique(byPlu, product.plu, product.id);
    unique(byEan, product.ean, product.id);
    for (const offer of product.offers) unitCounts.set(offer.unit, (unitCounts.get(offer.unit) ?? 0) + 1);
    if ((position & 255) === 255) await slicer.next();
  }
  return { positions, byInternal, byPlu, byEan, unitCounts };
}

/** The family indexes of the versions served: each built once (in slices), shared by all versions of its family. */
export type FamilyIndexes = AsyncFamilyCache<FamilyIndex>;

export function createFamilyIndexes(): FamilyIndexes {
  return createAsyncFamilyCache(buildFamilyIndex);
}
