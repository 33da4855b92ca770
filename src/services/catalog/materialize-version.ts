import { createSlicer } from '../../core/async/create-slicer.js';
import type { Product } from '../../core/catalog/catalog.js';
import {
  chunkOfText,
  createSharedTextWriter,
  decodeChunk,
  type ItemChunk,
  packChunk,
} from '../../core/catalog/catalog-chunks.js';
import { createFamilyEnrichmentCollector, type FamilyEnrichment } from '../../core/catalog/family-enrichment.js';
import type { IdentityIndex } from '../../core/catalog/identity-index.js';
import { createProductIdentityBuilder } from '../../core/catalog/product-identity.js';
import { createSharedValues } from '../../core/catalog/share-values.js';
import type { ServedVersion } from './served-catalog.js';

/**
 * A version's serialized chunks made into the product objects the main thread serves, in slices.
 */

/** Products, chunks and identities of a version read as chunk texts (from the store), in slices. */
export interface MaterializedVersion {
  readonly products: Product[];
  readonly chunks: ItemChunk[];
  readonly identity: IdentityIndex;
  /** The enrichment values, taken off the products. */
  readonly enrichment: FamilyEnrichment | undefined;
}

/**
 * Parses chunk texts into products, keeping each text as a shared chunk (deflated) and the products'
 * identities: ~2 ms of work per chunk, with a yield to the event loop between chunks when the slice is spent.
 * A text whose deflated bytes are those of the chunk `served` holds at its place is not parsed (see
 * `materializeChunks`): an instance of a Redis group loading another's new version keeps its own objects
 * for what did not change.
 */
export async function materializeTexts(texts: AsyncIterable<string>, served?: ReusableVersion): Promise<MaterializedVersion> {
  const writer = createSharedTextWriter();
  const slicer = createSlicer();
  const products: Product[] = [];
  const chunks: ItemChunk[] = [];
  const identity = createProductIdentityBuilder();
  const values = createSharedValues();
  const enrichment = createFamilyEnrichmentCollector();
  const sameSlot = sameSlotFinder(served);
  for await (const text of texts) {
    const start = products.length;
    const slot = served === undefined ? undefined : sameSlot.at(start);
    // Deflated with the served slot's count, corrected below when the text is another; put in a shared slab
    // only when it is kept (a reused chunk is the served one).
    const deflated = chunkOfText(text, start, slot === undefined ? 0 : (served?.layout[slot]?.count ?? 0));
    const known = slot === undefined ? undefined : sameSlot.same(deflated);
    let chunkProducts: readonly Product[];
    if (served !== undefined && slot !== undefined && known !== undefined) {
      enrichment.reuse(served.enrichment, slot, known.count);
      chunkProducts = served.snapshot.products.slice(start, start + known.count);
      // The served chunk itself (the same bytes): its slab is kept alive by the served version anyway.
      chunks.push(known);
    } else {
      const items: unknown = JSON.parse(text);
      if (!Array.isArray(items)) throw new TypeError('a stored chunk is not a list of products');
      chunkProducts = items as Product[];
      values.share(chunkProducts);
      enrichment.take(chunkProducts);
      chunks.push(packChunk(writer, { ...deflated, count: chunkProducts.length }));
    }
    for (const product of chunkProducts) identity.add(product);
    for (const product of chunkProducts) products.push(product);
    await slicer.next();
  }
  return { products, chunks, identity: identity.finish(), enrichment: enrichment.finish() };
}

/** The served version a new family's chunks are compared with (`materializeChunks`). */
export type ReusableVersion = Pick<ServedVersion, 'snapshot' | 'layout' | 'chunks' | 'enrichment'>;

/**
 * The products of serialized chunks (a full sync's result), parsed in slices, with the enrichment values
 * taken off them (kept per chunk in `enrichment`).
 *
 * A chunk whose bytes are those of a chunk `served` holds at the same place (same products, serialized the
 * same way, values included) is not parsed: its products are the served version's own objects. A full sync
 * usually finds a few changes in a large catalog, so the new family costs the main thread the changed
 * chunks' products, not a second catalog of objects beside the served one (~130 MiB at 100,000 × 5, alive
 * until the next full GC; BENCHMARKS.md).
 */
export async function materializeChunks(
  chunks: readonly ItemChunk[],
  served?: ReusableVersion,
): Promise<{ readonly products: Product[]; readonly enrichment: FamilyEnrichment | undefined; readonly reused: number }> {
  const slicer = createSlicer();
  const products: Product[] = [];
  const values = createSharedValues();
  const enrichment = createFamilyEnrichmentCollector();
  const sameSlot = sameSlotFinder(served);
  let reused = 0;
  for (const chunk of chunks) {
    const known = sameSlot.same(chunk);
    const slot = sameSlot.at(chunk.start);
    if (served !== undefined && known !== undefined && slot !== undefined) {
      enrichment.reuse(served.enrichment, slot, chunk.count);
      for (let position = chunk.start; position < chunk.start + chunk.count; position += 1) {
        products.push(served.snapshot.products[position] as Product);
      }
      reused += 1;
    } else {
      const decoded = decodeChunk<Product>(chunk);
      values.share(decoded);
      enrichment.take(decoded);
      for (const product of decoded) products.push(product);
    }
    await slicer.next();
  }
  return { products, enrichment: enrichment.finish(), reused };
}

/** The slots of `served` by first position, and the served chunk holding a chunk's very bytes at its place. */
function sameSlotFinder(served: ReusableVersion | undefined): {
  at(start: number): number | undefined;
  same(chunk: ItemChunk): ItemChunk | undefined;
} {
  const slotByStart = new Map(served?.layout.map((slot, index) => [slot.start, index]));
  return {
    at: (start) => slotByStart.get(start),
    same(chunk) {
      const slot = slotByStart.get(chunk.start);
      if (served === undefined || slot === undefined || served.layout[slot]?.count !== chunk.count) return undefined;
      // A slot whose products stock changes replaced has no chunk until it is serialized again: not compared.
      const known = served.chunks[slot];
      if (known === undefined || chunk.start + chunk.count > served.snapshot.products.length) return undefined;
      return sameBytes(known.bytes, chunk.bytes) ? known : undefined;
    },
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return (
    a.byteLength === b.byteLength &&
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength))
  );
}
