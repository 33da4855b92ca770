import { createHash } from 'node:crypto';

/**
 * The serialized form of a catalog version's items: UTF-8 JSON texts, chunk by chunk. It is what the
 * store keeps, what worker threads read (from shared memory, without a copy) and what the content
 * fingerprint is computed over, so that a version is serialized once, by the thread that made it.
 * A version made by stock changes shares the chunks of its base and replaces only the changed ones.
 */
export interface ItemChunk {
  /** `[` + the items' JSON texts joined by `,` + `]`, as `JSON.stringify(items)` writes it, UTF-8. */
  readonly bytes: Uint8Array;
  /** Position of the chunk's first item in the version's item list. */
  readonly start: number;
  readonly count: number;
}

/** About how many bytes of JSON one chunk holds (~120 products of a 5-unit catalog): see `keyv-catalog-store.ts`. */
export const CHUNK_BYTES = 128 * 1024;
/** Items of the first chunk, before any item size is known. */
const FIRST_CHUNK_ITEMS = 64;
/** Chunks are packed into shared slabs of this size (fewer, larger allocations to hand to workers). */
const SLAB_BYTES = 4 * 1024 * 1024;

/**
 * Packs texts as UTF-8 into SharedArrayBuffer slabs; each text becomes a view of its slab. Shared memory
 * crosses to worker threads without being copied (a plain ArrayBuffer is either copied or detached).
 */
export function createSharedTextWriter(slabBytes = SLAB_BYTES): { write(text: string): Uint8Array } {
  let slab: Buffer | undefined;
  let used = 0;
  return {
    write(text) {
      const length = Buffer.byteLength(text, 'utf8');
      if (length > slabBytes) {
        const own = Buffer.from(new SharedArrayBuffer(length));
        own.write(text, 0, 'utf8');
        return new Uint8Array(own.buffer, 0, length);
      }
      if (slab === undefined || used + length > slab.length) {
        slab = Buffer.from(new SharedArrayBuffer(slabBytes));
        used = 0;
      }
      slab.write(text, used, 'utf8');
      const view = new Uint8Array(slab.buffer, used, length);
      used += length;
      return view;
    },
  };
}

/**
 * Serializes items into chunks of about `chunkBytes` of JSON (the item count of each chunk comes from
 * the average size in the chunk before), one native `JSON.stringify` per chunk.
 */
export function serializeItems(items: readonly unknown[], options: { readonly chunkBytes?: number } = {}): ItemChunk[] {
  return serializeChunks(items, options.chunkBytes ?? CHUNK_BYTES, undefined);
}

/**
 * `serializeItems`, dropping each item from `items` once it is serialized: the caller's last use of a
 * large list, whose objects then become garbage chunk by chunk instead of staying live next to their
 * serialized copy (a 100,000-product catalog is ~150 MB of objects; bench/full-sync.ts).
 */
export function serializeItemsReleasing(
  items: unknown[],
  options: {
    readonly chunkBytes?: number;
    /**
     * Called after every `collectEveryBytes` of output (a forced GC, in a worker thread that may run
     * one): the dropped items are then freed as their copies grow, instead of both being held at the peak.
     */
    readonly collect?: () => void;
    readonly collectEveryBytes?: number;
    /**
     * What is serialized in place of each item (the item with its enrichment-sheet values): made as its chunk
     * is serialized, so the mapped copies of a whole catalog never exist at once.
     */
    readonly map?: (item: unknown, position: number) => unknown;
  } = {},
): ItemChunk[] {
  return serializeChunks(items, options.chunkBytes ?? CHUNK_BYTES, {
    items,
    collect: options.collect,
    everyBytes: options.collectEveryBytes ?? 24 * 1024 * 1024,
    map: options.map,
  });
}

interface Release {
  readonly items: unknown[];
  readonly collect: (() => void) | undefined;
  readonly everyBytes: number;
  readonly map: ((item: unknown, position: number) => unknown) | undefined;
}

/** The items of `start` to `end`, mapped when the release says so. */
function sliceOf(items: readonly unknown[], start: number, end: number, release: Release | undefined): unknown[] {
  const slice = items.slice(start, end);
  const map = release?.map;
  if (map === undefined) return slice;
  for (let i = 0; i < slice.length; i += 1) slice[i] = map(slice[i], start + i);
  return slice;
}

function serializeChunks(items: readonly unknown[], chunkBytes: number, release: Release | undefined): ItemChunk[] {
  const writer = createSharedTextWriter();
  const chunks: ItemChunk[] = [];
  let start = 0;
  let count = FIRST_CHUNK_ITEMS;
  let sinceCollect = 0;
  while (start < items.length) {
    const end = Math.min(items.length, start + count);
    const bytes = writer.write(JSON.stringify(sliceOf(items, start, end, release)));
    chunks.push({ bytes, start, count: end - start });
    if (release !== undefined) {
      release.items.fill(undefined, start, end);
      sinceCollect += bytes.length;
      if (release.collect !== undefined && sinceCollect >= release.everyBytes) {
        release.collect();
        sinceCollect = 0;
      }
    }
    const bytesPerItem = bytes.length / (end - start);
    count = Math.max(1, Math.floor(chunkBytes / bytesPerItem));
    start = end;
  }
  return chunks;
}

/** The chunk's JSON text. */
export function chunkText(chunk: ItemChunk): string {
  return Buffer.from(chunk.bytes.buffer, chunk.bytes.byteOffset, chunk.bytes.byteLength).toString('utf8');
}

/** The chunk's items. */
export function decodeChunk<Item>(chunk: ItemChunk): Item[] {
  return JSON.parse(chunkText(chunk)) as Item[];
}

/** A chunk of the items at `start`, serialized now (a chunk of a version made by stock changes). */
export function serializeChunk(items: readonly unknown[], start: number, count: number): ItemChunk {
  const text = JSON.stringify(items.slice(start, start + count));
  const bytes = Buffer.from(new SharedArrayBuffer(Buffer.byteLength(text, 'utf8')));
  bytes.write(text, 0, 'utf8');
  return { bytes: new Uint8Array(bytes.buffer, 0, bytes.length), start, count };
}

const COMMA = new Uint8Array([0x2c]);
const NEWLINE = new Uint8Array([0x0a]);

/**
 * The content fingerprint of a version: SHA-256 over the header text (everything but the items that
 * identifies the content), a newline, and the items' JSON texts joined by `,`. The chunk boundaries do not
 * matter (each chunk's text without its brackets is its items' texts joined by `,`), so a version whose
 * chunks were serialized by different threads, or split differently, has the same fingerprint as long as
 * its content is the same.
 *
 * @example fingerprintChunks(JSON.stringify([currency, primaryUnit, units]), chunks)
 */
export function fingerprintChunks(header: string, chunks: readonly ItemChunk[]): string {
  const hash = createHash('sha256');
  hash.update(header, 'utf8');
  hash.update(NEWLINE);
  let first = true;
  for (const chunk of chunks) {
    if (chunk.count === 0) continue;
    if (!first) hash.update(COMMA);
    first = false;
    // Without the enclosing `[` and `]`.
    hash.update(chunk.bytes.subarray(1, chunk.bytes.length - 1));
  }
  return hash.digest('hex').slice(0, 32);
}
