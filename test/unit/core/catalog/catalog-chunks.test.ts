import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chunkText,
  createSharedTextWriter,
  decodeChunk,
  fingerprintChunks,
  type ItemChunk,
  serializeChunk,
  serializeItems,
  serializeItemsReleasing,
} from '../../../../src/core/catalog/catalog-chunks.js';

const items = Array.from({ length: 300 }, (_, i) => ({ id: `a-${i}`, name: `Káva č. ${i}`, stock: i % 7 }));

describe('core/catalog/catalog-chunks', () => {
  it('serializes items into chunks of JSON text in shared memory, and reads them back in order', () => {
    const chunks = serializeItems(items, { chunkBytes: 1_000 });

    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.flatMap((chunk) => decodeChunk(chunk))).toEqual(items);
    expect(chunks.map((chunk) => chunk.start)).toEqual(
      chunks.map((_, index) => chunks.slice(0, index).reduce((sum, chunk) => sum + chunk.count, 0)),
    );
    for (const chunk of chunks) {
      expect(chunk.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(chunkText(chunk)).toBe(JSON.stringify(items.slice(chunk.start, chunk.start + chunk.count)));
    }
  });

  it('fingerprints the content, whatever the chunk boundaries', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 20_000 }), fc.integer({ min: 100, max: 20_000 }), (a, b) => {
        const left = fingerprintChunks('header', serializeItems(items, { chunkBytes: a }));
        const right = fingerprintChunks('header', serializeItems(items, { chunkBytes: b }));
        expect(left).toBe(right);
      }),
      { numRuns: 20 },
    );
    const changed = items.map((item, i) => (i === 150 ? { ...item, stock: 99 } : item));
    expect(fingerprintChunks('header', serializeItems(changed))).not.toBe(fingerprintChunks('header', serializeItems(items)));
    expect(fingerprintChunks('other', serializeItems(items))).not.toBe(fingerprintChunks('header', serializeItems(items)));
    expect(fingerprintChunks('header', [])).toMatch(/^[0-9a-f]{32}$/);
  });

  it('gives a chunk serialized again from the same items the same bytes', () => {
    const [first] = serializeItems(items, { chunkBytes: 2_000 }) as [ItemChunk];

    const again = serializeChunk(items, first.start, first.count);

    expect(Buffer.from(again.bytes).equals(Buffer.from(first.bytes))).toBe(true);
  });

  it('drops the items it has serialized when asked to, collecting as it goes', () => {
    const list: unknown[] = [...items];
    let collections = 0;

    const chunks = serializeItemsReleasing(list, { chunkBytes: 500, collect: () => collections++, collectEveryBytes: 2_000 });

    expect(list.every((item) => item === undefined)).toBe(true);
    expect(chunks.flatMap((chunk) => decodeChunk(chunk))).toEqual(items);
    expect(collections).toBeGreaterThan(2);
  });

  it('packs texts into shared slabs, and gives a text larger than a slab its own', () => {
    const writer = createSharedTextWriter(16);
    const a = writer.write('abc');
    const b = writer.write('défg');
    const big = writer.write('x'.repeat(40));

    expect(a.buffer).toBe(b.buffer);
    expect(Buffer.from(b).toString('utf8')).toBe('défg');
    expect(big.buffer).not.toBe(a.buffer);
    expect(big.byteLength).toBe(40);
  });
});
