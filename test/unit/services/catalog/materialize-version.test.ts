import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot, Offer, Product } from '../../../../src/core/catalog/catalog.js';
import { chunkText, type ItemChunk, serializeItems } from '../../../../src/core/catalog/catalog-chunks.js';
import { createEnrichedProducts, setFamilyEnrichment } from '../../../../src/core/catalog/family-enrichment.js';
import { findIdentityCode } from '../../../../src/core/catalog/identity-index.js';
import {
  materializeChunks,
  materializeTexts,
  type ReusableVersion,
} from '../../../../src/services/catalog/materialize-version.js';

const offer = (stock: number): Offer => ({ unit: 'U1', stock, availability: 'in_stock' });

/** 200 products in chunks of 64, then ~10 (small chunk bytes), the first 120 with a sheet's title; product 100's price may change. */
function products(price = 10): Product[] {
  return Array.from({ length: 200 }, (_, index) => ({
    id: `a-${index}`,
    name: `Article ${index}`,
    isStockItem: true,
    offers: [{ ...offer(5), price: index === 100 ? price : 10 }],
    aggregate: offer(5),
    ...(index < 120 ? { enrichment: { title: `Title ${index}` } } : {}),
  }));
}

const CHUNK_BYTES = 1_500;

/** A served version as a full sync leaves it: products from its chunks, the values kept off them. */
async function servedVersion(items: Product[]): Promise<ReusableVersion & { readonly chunks: (ItemChunk | undefined)[] }> {
  const chunks = serializeItems(items, { chunkBytes: CHUNK_BYTES });
  const { products: served, enrichment } = await materializeChunks(chunks);
  const snapshot: CatalogSnapshot = {
    version: 'v-1',
    generatedAt: '2026-11-30T08:00:00.000Z',
    currency: 'CZK',
    primaryUnit: 'U1',
    units: [{ code: 'U1', localId: 'u1', name: 'One' }],
    products: served,
  };
  setFamilyEnrichment(snapshot, enrichment);
  return { snapshot, layout: chunks.map(({ start, count }) => ({ start, count })), chunks: [...chunks], enrichment };
}

describe('services/catalog/ a full sync made into products', () => {
  it("takes the served version's objects for every chunk left byte for byte the same, and parses the others", async () => {
    const served = await servedVersion(products());
    const read = serializeItems(products(12), { chunkBytes: CHUNK_BYTES });
    expect(read.length).toBeGreaterThan(3);
    const changed = read.findIndex((chunk) => chunk.start <= 100 && 100 < chunk.start + chunk.count);

    const { products: made, reused, enrichment } = await materializeChunks(read, served);

    expect(reused).toBe(read.length - 1);
    for (const [position, product] of made.entries()) {
      const inChanged =
        position >= (read[changed]?.start ?? 0) && position < (read[changed]?.start ?? 0) + (read[changed]?.count ?? 0);
      if (inChanged) expect(product).not.toBe(served.snapshot.products[position]);
      else expect(product).toBe(served.snapshot.products[position]);
    }
    expect(made[100]?.offers[0]?.price).toBe(12);
    // The sheet's values of reused and parsed slots alike: off the products, back with the family.
    const snapshot = { ...served.snapshot, version: 'v-2', products: made };
    setFamilyEnrichment(snapshot, enrichment);
    const enriched = createEnrichedProducts(snapshot);
    expect(made[3]?.enrichment).toBeUndefined();
    expect(enriched.at(3)?.enrichment).toEqual({ title: 'Title 3' });
    expect(enriched.at(100)?.enrichment).toEqual({ title: 'Title 100' });
    expect(enriched.at(150)?.enrichment).toBeUndefined();
    expect(enrichment?.tags).toEqual(served.enrichment?.tags);
  });

  it('parses a slot whose products stock changes replaced (no chunk to compare), and every slot after a shift', async () => {
    const served = await servedVersion(products());
    served.chunks[0] = undefined;
    const fewer = serializeItems(products().slice(1), { chunkBytes: CHUNK_BYTES });

    expect((await materializeChunks(serializeItems(products(), { chunkBytes: CHUNK_BYTES }), served)).reused).toBe(
      served.layout.length - 1,
    );
    const shifted = await materializeChunks(fewer, served);
    expect(shifted.reused).toBe(0);
    expect(shifted.products.map((product) => product.id)).toEqual(
      products()
        .slice(1)
        .map((product) => product.id),
    );
  });

  it("loads stored texts the same way: the served version's objects where the deflated text is the same", async () => {
    const served = await servedVersion(products());
    const read = serializeItems(products(12), { chunkBytes: CHUNK_BYTES });
    async function* texts() {
      for (const chunk of read) yield chunkText(chunk);
    }

    const loaded = await materializeTexts(texts(), served);

    expect(loaded.products.map((product) => product.id)).toEqual(products().map((product) => product.id));
    expect(loaded.products[3]).toBe(served.snapshot.products[3]);
    expect(loaded.products[100]).not.toBe(served.snapshot.products[100]);
    expect(loaded.products[100]?.offers[0]?.price).toBe(12);
    expect(loaded.chunks.map(({ start, count }) => ({ start, count }))).toEqual(
      read.map(({ start, count }) => ({ start, count })),
    );
    // A reused chunk is the served one; a parsed one is put in shared memory (worker threads read it).
    expect(loaded.chunks[0]).toBe(served.chunks[0]);
    const parsed = loaded.chunks.find(({ start, count }) => start <= 100 && 100 < start + count);
    expect(served.chunks).not.toContain(parsed);
    expect(parsed?.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(findIdentityCode(loaded.identity, 'localId', 'a-150')).toBe(150);
    const snapshot = { ...served.snapshot, version: 'v-2', products: loaded.products };
    setFamilyEnrichment(snapshot, loaded.enrichment);
    expect(createEnrichedProducts(snapshot).at(3)?.enrichment).toEqual({ title: 'Title 3' });
    expect(createEnrichedProducts(snapshot).at(100)?.enrichment).toEqual({ title: 'Title 100' });
  });

  it('parses every stored text after a shift of the layout, with their own counts', async () => {
    const served = await servedVersion(products());
    const fewer = products().slice(1);
    async function* texts() {
      for (const chunk of serializeItems(fewer, { chunkBytes: CHUNK_BYTES })) yield chunkText(chunk);
    }

    const loaded = await materializeTexts(texts(), served);

    expect(loaded.products.map((product) => product.id)).toEqual(fewer.map((product) => product.id));
    expect(loaded.products.some((product, position) => product === served.snapshot.products[position + 1])).toBe(false);
    expect(loaded.chunks.reduce((sum, chunk) => sum + chunk.count, 0)).toBe(fewer.length);
  });
});
