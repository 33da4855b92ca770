import { createHash } from 'node:crypto';
import { MessageChannel } from 'node:worker_threads';
import { inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHUNK_BYTES,
  chunkOfText,
  chunkText,
  createChunkFingerprint,
  createSharedTextWriter,
  decodeChunk,
  fingerprintChunks,
  type ItemChunk,
  packChunk,
  serializeChunk,
  serializeItems,
  serializeItemsMade,
} from '../../../../src/core/catalog/catalog-chunks.js';

/** JSON as chunks write it: every character outside ASCII as a `\u` escape (the same JSON value). */
const asciiJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

const items = Array.from({ length: 300 }, (_, i) => ({ id: `a-${i}`, name: `Káva č. ${i}`, stock: i % 7 }));

/**
 * Items and header whose fingerprint was computed by the code before chunks were deflated (chunks of
 * plain UTF-8 JSON): Czech diacritics, an emoji, escapes, an empty list, `null`, an exponent.
 */
const PINNED_ITEMS = [
  { id: 'A1', name: 'Káva zrnková 250 g', offers: [{ unit: 'U1', price: 129.9, stock: 3 }] },
  { id: 'B2', name: 'Čaj "Earl Grey"\n\tsypaný', offers: [], isStockItem: false, ean: null },
  {
    id: 'C3',
    name: 'Dort 🍰 ∑ ½',
    offers: [
      { unit: 'U1', price: 1e21 },
      { unit: 'U2', price: -0.5, stock: 0 },
    ],
  },
  ...Array.from({ length: 100 }, (_, i) => ({ id: `P${i}`, name: `Produkt ${i} ${'ž'.repeat(i % 7)}`, plu: i * 37 })),
];
const PINNED_HEADER = JSON.stringify(['CZK', 'U1', [{ code: 'U1' }, { code: 'U2' }]]);
const PINNED_FINGERPRINT = '21de982b65d936d33efe377459969a7d';
const PINNED_EMPTY_FINGERPRINT = '9b43d2f3318f97b046bf2d7a262958ab';

describe('core/catalog/catalog-chunks', () => {
  it('serializes items into chunks of JSON text in shared memory, and reads them back in order', () => {
    const chunks = serializeItems(items, { chunkBytes: 1_000 });

    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.flatMap((chunk) => decodeChunk(chunk))).toEqual(items);
    expect(chunks.map((chunk) => chunk.start)).toEqual(
      chunks.map((_, index) => chunks.slice(0, index).reduce((sum, chunk) => sum + chunk.count, 0)),
    );
    for (const chunk of chunks) {
      const text = asciiJson(items.slice(chunk.start, chunk.start + chunk.count));
      expect(chunk.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(chunkText(chunk)).toBe(text);
      expect(chunkText(chunk)).toContain('K\\u00e1va \\u010d. ');
      expect(chunk.textBytes).toBe(text.length);
    }
  });

  it('keeps any text as ASCII JSON of the same value: accents, emoji, lone surrogates, items as large as the scratch and larger', () => {
    const roundTrips = (all: readonly unknown[]) => {
      for (const chunk of serializeItems(all)) {
        const bytes = inflateRawSync(chunk.bytes);
        expect(chunk.textBytes).toBe(bytes.length);
        expect(bytes.every((byte) => byte < 0x80)).toBe(true);
        const slice = all.slice(chunk.start, chunk.start + chunk.count);
        expect(bytes.toString('latin1')).toBe(asciiJson(slice));
        expect(decodeChunk(chunk)).toEqual(JSON.parse(JSON.stringify(slice)));
      }
    };
    const text = fc.string({ unit: 'binary', maxLength: 200 });
    fc.assert(fc.property(fc.array(fc.record({ id: text, name: text }), { maxLength: 40 }), roundTrips), { numRuns: 100 });
    // Written item by item, as JSON.stringify writes a list: what has no JSON is `null`.
    roundTrips([undefined, () => 1, 3, 'č', null, [1, { a: undefined }], Symbol('s')]);
    // 3 bytes of UTF-8 per UTF-16 unit, in the scratch: a scratch sized by a smaller bound would cut it.
    roundTrips([{ id: 'three-byte', name: '€'.repeat(300_000) }]);
    // Past the scratch's limit (~1 M units): a buffer of its own.
    roundTrips([
      { id: 'small', name: 'ž' },
      { id: 'huge', name: '\ud83c\udf70ž\ud800'.repeat(300_000) },
    ]);
  });

  it('keeps each chunk deflate-raw compressed, several times smaller than its text', () => {
    const chunks = serializeItems(items);

    for (const chunk of chunks) {
      expect(inflateRawSync(chunk.bytes).toString('utf8')).toBe(chunkText(chunk));
      expect(chunk.bytes.byteLength * 3).toBeLessThan(chunk.textBytes);
    }
  });

  it('makes chunks of ~128 KiB of JSON text, not of deflated bytes', () => {
    const large = Array.from({ length: 2_000 }, (_, i) => ({ id: `p-${i}`, name: `Produkt ${i}`, text: 'popis '.repeat(150) }));

    const chunks = serializeItems(large);

    expect(chunks.flatMap((chunk) => decodeChunk(chunk))).toEqual(large);
    // The first chunk's item count is a guess; every later one is sized from the text of the one before.
    for (const chunk of chunks.slice(1, -1)) {
      expect(chunk.textBytes).toBeGreaterThan(CHUNK_BYTES * 0.9);
      expect(chunk.textBytes).toBeLessThanOrEqual(CHUNK_BYTES * 1.1);
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

  it('fingerprints as pinned (the fingerprints kept in stores; changed once, when chunks became ASCII)', () => {
    for (const chunkBytes of [200, 1_000, CHUNK_BYTES]) {
      expect(fingerprintChunks(PINNED_HEADER, serializeItems(PINNED_ITEMS, { chunkBytes }))).toBe(PINNED_FINGERPRINT);
    }
    expect(serializeItems(PINNED_ITEMS, { chunkBytes: 200 }).length).toBeGreaterThan(5);
    expect(fingerprintChunks(PINNED_HEADER, [])).toBe(PINNED_EMPTY_FINGERPRINT);
    // As the fingerprint is defined: the header, a newline, the items' ASCII JSON texts joined by `,`.
    const defined = createHash('sha256')
      .update(`${PINNED_HEADER}\n${asciiJson(PINNED_ITEMS).slice(1, -1)}`, 'utf8')
      .digest('hex')
      .slice(0, 32);
    expect(defined).toBe(PINNED_FINGERPRINT);
  });

  it('fingerprints while serializing as it does from the chunks afterwards', async () => {
    for (const chunkBytes of [200, 1_000, CHUNK_BYTES]) {
      const fingerprint = createChunkFingerprint(PINNED_HEADER);
      const chunks = await serializeItemsMade(PINNED_ITEMS.length, (position) => PINNED_ITEMS[position], {
        chunkBytes,
        fingerprint,
      });
      expect(fingerprint.digest()).toBe(PINNED_FINGERPRINT);
      expect(fingerprintChunks(PINNED_HEADER, chunks)).toBe(PINNED_FINGERPRINT);
    }
    // An item larger than the shared scratch buffer (its UTF-8 a buffer of its own).
    const huge = [{ id: 'big', text: 'žluťoučký kůň '.repeat(80_000) }, ...items.slice(0, 3)];
    const fingerprint = createChunkFingerprint('header');
    const chunks = await serializeItemsMade(huge.length, (position) => huge[position], { fingerprint });
    expect(fingerprint.digest()).toBe(fingerprintChunks('header', chunks));
    const none = createChunkFingerprint(PINNED_HEADER);
    expect(await serializeItemsMade(0, () => undefined, { fingerprint: none })).toEqual([]);
    expect(none.digest()).toBe(PINNED_EMPTY_FINGERPRINT);
  });

  it('fingerprints chunks packed from stored texts as those serialized from items', () => {
    const writer = createSharedTextWriter();
    const packed = serializeItems(PINNED_ITEMS, { chunkBytes: 500 }).map((chunk) =>
      packChunk(writer, chunkOfText(chunkText(chunk), chunk.start, chunk.count)),
    );

    expect(fingerprintChunks(PINNED_HEADER, packed)).toBe(PINNED_FINGERPRINT);
    expect(packed.flatMap((chunk) => decodeChunk(chunk))).toEqual(PINNED_ITEMS);
    expect(packed[0]?.bytes.buffer).toBe(packed[1]?.bytes.buffer);
  });

  it('serializes an item larger than many chunks', () => {
    const huge = [{ id: 'big', text: 'žluťoučký kůň '.repeat(80_000) }, ...items.slice(0, 3)];

    const chunks = serializeItems(huge);

    expect(chunks.flatMap((chunk) => decodeChunk(chunk))).toEqual(huge);
    expect(chunks[0]?.textBytes).toBeGreaterThan(8 * CHUNK_BYTES);
    const defined = createHash('sha256')
      .update(`header\n${asciiJson(huge).slice(1, -1)}`, 'utf8')
      .digest('hex');
    expect(fingerprintChunks('header', chunks)).toBe(defined.slice(0, 32));
  });

  it('gives a chunk serialized again from the same items the same bytes', () => {
    const [first] = serializeItems(items, { chunkBytes: 2_000 }) as [ItemChunk];

    const again = serializeChunk(items, first.start, first.count);

    expect(Buffer.from(again.bytes).equals(Buffer.from(first.bytes))).toBe(true);
    expect(again.textBytes).toBe(first.textBytes);
    expect(again.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('hands chunks to another thread as shared memory, not as copies', async () => {
    const [chunk] = serializeItems(items) as [ItemChunk];
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<ItemChunk>((resolve) => port2.once('message', resolve));

    port1.postMessage(chunk);
    const other = await received;
    port1.close();

    expect(other.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(chunkText(other)).toBe(chunkText(chunk));
    // The same memory: a write through one view shows through the other.
    const original = chunk.bytes[0];
    other.bytes[0] = (original ?? 0) ^ 0xff;
    expect(chunk.bytes[0]).toBe(other.bytes[0]);
  });

  it('makes each item as its chunk is serialized, in order, once, collecting as it goes', async () => {
    const made: number[] = [];
    let collections = 0;

    const chunks = await serializeItemsMade(
      items.length,
      (position) => {
        made.push(position);
        return items[position];
      },
      { chunkBytes: 500, collect: () => collections++, collectEveryBytes: 2_000 },
    );

    expect(made).toEqual(items.map((_, position) => position));
    expect(chunks.flatMap((chunk) => decodeChunk(chunk))).toEqual(items);
    expect(chunks.map((chunk) => chunk.start)).toEqual(serializeItems(items, { chunkBytes: 500 }).map((chunk) => chunk.start));
    // Deflated in the pool, byte for byte the chunks of `serializeItems`.
    const bytesOf = (list: readonly ItemChunk[]) => list.map((chunk) => Buffer.from(chunk.bytes).toString('base64'));
    expect(bytesOf(chunks)).toEqual(bytesOf(serializeItems(items, { chunkBytes: 500 })));
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

  it('packs bytes as they are next to texts', () => {
    const writer = createSharedTextWriter(16);
    const text = writer.write('abc');
    const bytes = writer.writeBytes(new Uint8Array([1, 2, 3, 4]));
    const big = writer.writeBytes(new Uint8Array(20).fill(7));

    expect(bytes.buffer).toBe(text.buffer);
    expect(bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect([...bytes]).toEqual([1, 2, 3, 4]);
    expect(big.buffer).not.toBe(text.buffer);
    expect([...big]).toEqual(new Array(20).fill(7));
  });
});
