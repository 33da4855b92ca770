import { createSlicer } from '../../core/async/create-slicer.js';
import type { CatalogSnapshot, Product } from '../../core/catalog/catalog.js';
import { type ItemChunk, serializeChunk, slotOfPosition } from '../../core/catalog/catalog-chunks.js';
import {
  type FamilyEnrichment,
  setFamilyEnrichment,
  slotEnrichment,
  withSlotEnrichment,
} from '../../core/catalog/family-enrichment.js';
import { createFamilyIndexes, type FamilyIndex } from '../../core/catalog/family-index.js';
import type { CatalogLogger } from './catalog-types.js';
import type { FamilyIdentity } from './resolve-stock-export.js';

/**
 * The version being served, with what belongs to it besides the snapshot: its number, its catalog
 * family and its serialized chunks. One job: which version is served, and telling the listeners when
 * that changes. How versions are made (`full-sync.ts`, `stock-sync.ts`) and stored (`catalog-writer.ts`)
 * is elsewhere.
 */

/** Where each chunk of a family's versions starts and how many products it holds. */
export interface ChunkSlot {
  readonly start: number;
  readonly count: number;
}

export interface ServedVersion {
  readonly snapshot: CatalogSnapshot;
  /** Serves are numbered in order. */
  readonly seq: number;
  readonly family: FamilyIdentity;
  /** The chunk layout of the family (shared by its versions). */
  readonly layout: readonly ChunkSlot[];
  /**
   * The serialized chunk of each slot, or `undefined` where stock changes replaced products since the
   * chunk was serialized: made on demand (`chunksOf`), once.
   */
  readonly chunks: (ItemChunk | undefined)[];
  /** The content fingerprint when known (a full sync computed it, or the store had it). */
  fingerprint: string | undefined;
  /** The enrichment sheet's values of the family, kept off its products here (`family-enrichment.ts`). */
  readonly enrichment: FamilyEnrichment | undefined;
}

/** How a version made by stock changes differs from the one it was made from. */
export interface CatalogChange {
  readonly base: CatalogSnapshot;
  /** Positions of the products replaced (every other product is the base's own object). */
  readonly positions: readonly number[];
}

/** Told of every change of the served version; `change` when it was made from the previous one by stock changes. */
export type CatalogListener = (snapshot: CatalogSnapshot, change?: CatalogChange) => void;

export interface ServeDetails {
  readonly family: FamilyIdentity;
  readonly chunks: readonly ItemChunk[];
  readonly fingerprint: string | undefined;
  /** The values taken off the snapshot's products as its chunks were parsed (`materialize-version.ts`). */
  readonly enrichment?: FamilyEnrichment | undefined;
}

export interface ServedCatalog {
  current(): CatalogSnapshot | undefined;
  latest(): ServedVersion | undefined;
  /** The record of a snapshot this catalog served, while it is still referenced. */
  versionOf(snapshot: CatalogSnapshot): ServedVersion | undefined;
  /** Serves a version of a new family (a full sync, or one loaded from the store). */
  serve(snapshot: CatalogSnapshot, details: ServeDetails): ServedVersion;
  /**
   * Serves a version made from `base` by stock changes that replaced the products at `positions`: same
   * family, the changed chunks left to serialize.
   */
  serveDerived(base: ServedVersion, snapshot: CatalogSnapshot, positions: readonly number[]): ServedVersion;
  /** Every chunk of the version, serializing the changed ones (in slices) on first use. */
  chunksOf(version: ServedVersion): Promise<readonly ItemChunk[]>;
  /** The family's indexes (positions, lookups, unit counts), built in slices once per family. */
  indexOf(snapshot: CatalogSnapshot): Promise<FamilyIndex>;
  onChange(listener: CatalogListener): void;
}

export function createServedCatalog(logger: CatalogLogger): ServedCatalog {
  let served: ServedVersion | undefined;
  let seq = 0;
  const versions = new WeakMap<CatalogSnapshot, ServedVersion>();
  const indexes = createFamilyIndexes((snapshot) => versions.get(snapshot)?.family.index);
  /** Per family (by its layout), the last chunk serialized for each slot and the products it holds. */
  const recentChunks = new WeakMap<readonly ChunkSlot[], ({ chunk: ItemChunk; products: readonly Product[] } | undefined)[]>();
  const listeners: CatalogListener[] = [];

  function publish(version: ServedVersion, change?: CatalogChange): ServedVersion {
    served = version;
    versions.set(version.snapshot, version);
    for (const listener of listeners) {
      // A listener (metrics, feeds) must not fail the change that is already served.
      try {
        listener(version.snapshot, change);
      } catch (error) {
        logger.error({ err: error, version: version.snapshot.version }, 'a listener of catalog changes failed');
      }
    }
    return version;
  }

  return {
    current: () => served?.snapshot,
    latest: () => served,
    versionOf: (snapshot) => versions.get(snapshot),
    serve(snapshot, details) {
      seq += 1;
      setFamilyEnrichment(snapshot, details.enrichment);
      return publish({
        snapshot,
        seq,
        family: details.family,
        layout: details.chunks.map((chunk) => ({ start: chunk.start, count: chunk.count })),
        chunks: [...details.chunks],
        fingerprint: details.fingerprint,
        enrichment: details.enrichment,
      });
    },
    serveDerived(base, snapshot, positions) {
      seq += 1;
      setFamilyEnrichment(snapshot, base.enrichment);
      const chunks = staleChunks(base, positions);
      return publish(
        { snapshot, seq, family: base.family, layout: base.layout, chunks, fingerprint: undefined, enrichment: base.enrichment },
        { base: base.snapshot, positions },
      );
    },
    async chunksOf(version) {
      const slicer = createSlicer();
      let recent = recentChunks.get(version.layout);
      if (recent === undefined) {
        recent = [];
        recentChunks.set(version.layout, recent);
      }
      const { products } = version.snapshot;
      for (const [index, slot] of version.layout.entries()) {
        if (version.chunks[index] !== undefined) continue;
        // A newer version made before an older one's chunk was serialized may hold the very same products.
        const known = recent[index];
        if (known !== undefined && sameProducts(known.products, products, slot)) {
          version.chunks[index] = known.chunk;
          continue;
        }
        const chunk = serializeSlot(version, index, slot);
        version.chunks[index] = chunk;
        recent[index] = { chunk, products: products.slice(slot.start, slot.start + slot.count) };
        await slicer.next();
      }
      return version.chunks as ItemChunk[];
    },
    indexOf: (snapshot) => indexes.get(snapshot),
    onChange(listener) {
      listeners.push(listener);
    },
  };
}

/** The chunk of a slot serialized now, its products with the family's enrichment values back on. */
function serializeSlot(version: ServedVersion, index: number, slot: ChunkSlot): ItemChunk {
  const { products } = version.snapshot;
  const values = version.enrichment === undefined ? undefined : slotEnrichment(version.enrichment, index);
  if (values === undefined) return serializeChunk(products, slot.start, slot.count);
  const slice = withSlotEnrichment(products.slice(slot.start, slot.start + slot.count), values);
  return { ...serializeChunk(slice, 0, slot.count), start: slot.start };
}

/** The base's chunks, without those holding a product at one of `positions`. */
function staleChunks(base: ServedVersion, positions: readonly number[]): (ItemChunk | undefined)[] {
  const chunks = base.chunks.slice();
  const startOf = (slot: number) => base.layout[slot]?.start ?? 0;
  for (const position of positions) chunks[slotOfPosition(base.layout.length, startOf, position)] = undefined;
  return chunks;
}

/** Whether `products` holds, in the slot, the same objects as `known` (a chunk serialized from them). */
function sameProducts(known: readonly Product[], products: readonly Product[], slot: ChunkSlot): boolean {
  if (known.length !== slot.count) return false;
  for (let i = 0; i < slot.count; i += 1) if (known[i] !== products[slot.start + i]) return false;
  return true;
}
