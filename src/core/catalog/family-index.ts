import { createSlicer } from '../async/create-slicer.js';
import type { CatalogSnapshot } from './catalog.js';
import { type AsyncFamilyCache, createAsyncFamilyCache } from './catalog-family.js';
import { normalizeCode } from './identity-codes.js';
import {
  findIdentityCode,
  type IdentityIndex,
  identityIdAt,
  identityPositions,
  isIdentityId,
  NO_ARTICLE,
  SHARED_CODE,
} from './identity-index.js';
import { createProductIdentityBuilder } from './product-identity.js';
import type { IdentityKey } from './source.js';

/**
 * Indexes that every version of a catalog family shares (`catalog-family.ts`: versions made by stock
 * changes keep every product in its place, with the same ids, identifiers and offers' units). The lookups
 * read the family's identity index (`product-identity.ts`), which the full sync's thread or the load of a
 * stored version built in shared memory: no `Map` of 100,000 products on the main thread (~12 MiB and
 * ~200 ms of slices each family until 2026-11-30). Only the unit counts are made here, in slices.
 */
export interface FamilyIndex {
  /** Product position by id (exact). */
  readonly positions: PositionLookup;
  /**
   * Internal identifier, PLU and EAN → the product id, `null` when several products share the value.
   * Compared as identity resolution compares codes (`identity-codes.ts`: trimmed; PLUs and digit-only EANs
   * without leading zeros, so `0123` and `123` are one EAN, and two products that have them share it); a
   * PLU that is not a whole number ≥ 0 names no product, as in a price list or stock export.
   */
  readonly byInternal: CodeLookup<string>;
  readonly byPlu: CodeLookup<number>;
  readonly byEan: CodeLookup<string>;
  /** How many products each unit offers. */
  readonly unitCounts: ReadonlyMap<string, number>;
}

export interface PositionLookup {
  get(id: string): number | undefined;
  has(id: string): boolean;
}

export interface CodeLookup<K> {
  get(code: K): string | null | undefined;
}

/**
 * Builds the index of `snapshot`'s family over `identity` (its products' identity index), yielding to the
 * event loop every few milliseconds; without one (or with one of another size), the identity index is built
 * here too, in the same slices.
 */
export async function buildFamilyIndex(snapshot: CatalogSnapshot, given?: IdentityIndex): Promise<FamilyIndex> {
  const unitCounts = new Map(snapshot.units.map((unit) => [unit.code, 0]));
  // An index of another product count is not this family's: built again rather than trusted.
  const identity = given?.size === snapshot.products.length ? given : undefined;
  const builder = identity === undefined ? createProductIdentityBuilder(snapshot.products.length) : undefined;
  const slicer = createSlicer();
  const { products } = snapshot;
  for (let position = 0; position < products.length; position += 1) {
    const product = products[position];
    // A hole keeps its place: positions are the products' positions.
    builder?.add(product ?? { id: '' });
    for (const offer of product?.offers ?? []) unitCounts.set(offer.unit, (unitCounts.get(offer.unit) ?? 0) + 1);
    if ((position & 1023) === 1023) await slicer.next();
  }
  return familyIndexOver(identity ?? (builder as NonNullable<typeof builder>).finish(), unitCounts);
}

function familyIndexOver(identity: IdentityIndex, unitCounts: ReadonlyMap<string, number>): FamilyIndex {
  const positionOf = (id: string) => productPosition(identity, id);
  return {
    positions: { get: positionOf, has: (id) => positionOf(id) !== undefined },
    byInternal: { get: (code) => productIdByCode(identity, 'internalIdentifier', code) },
    byPlu: { get: (plu) => productIdByCode(identity, 'plu', String(plu)) },
    byEan: { get: (code) => productIdByCode(identity, 'ean', code) },
    unitCounts,
  };
}

/** The position of the product whose id is exactly `id` (ids are indexed trimmed: ` a` and `a` share a code). */
function productPosition(identity: IdentityIndex, id: string): number | undefined {
  const code = normalizeCode('localId', id);
  if (code === undefined) return undefined;
  const hit = findIdentityCode(identity, 'localId', code);
  if (hit >= 0) return isIdentityId(identity, hit, id) ? hit : undefined;
  if (hit !== SHARED_CODE) return undefined;
  return identityPositions(identity, 'localId', code).find((position) => isIdentityId(identity, position, id));
}

function productIdByCode(identity: IdentityIndex, key: IdentityKey, raw: string): string | null | undefined {
  const code = normalizeCode(key, raw);
  const hit = code === undefined ? NO_ARTICLE : findIdentityCode(identity, key, code);
  if (hit === NO_ARTICLE) return undefined;
  return hit === SHARED_CODE ? null : identityIdAt(identity, hit);
}

/** The family indexes of the versions served: each built once (in slices), shared by all versions of its family. */
export type FamilyIndexes = AsyncFamilyCache<FamilyIndex>;

/** `identityOf`: the identity index of a snapshot's family when it is known (the served catalog's families). */
export function createFamilyIndexes(
  identityOf: (snapshot: CatalogSnapshot) => IdentityIndex | undefined = () => undefined,
): FamilyIndexes {
  return createAsyncFamilyCache((snapshot) => buildFamilyIndex(snapshot, identityOf(snapshot)));
}
