import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { deflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * The serialized form of a catalog version's items: JSON texts, chunk by chunk, kept deflated in shared
 * memory. It is what the store keeps (the deflated bytes as they are, docs/decisions/0012), what worker threads read (from shared
 * memory, without a copy) and what the content fingerprint is computed over (the texts, not the deflated
 * bytes), so that a version is serialized once, by the thread that made it. A version made by stock
 * changes shares the chunks of its base and replaces only the changed ones.
 */
export interface ItemChunk {
  /**
   * The chunk's JSON text (`[` + the items' JSON texts joined by `,` + `]`: `JSON.stringify(items)` with
   * every character outside ASCII as a `\u` escape, see `jsonBytesOfList`; a text packed from an older
   * store may be UTF-8), **deflate-raw compressed** (`CHUNK_DEFLATE`), in a SharedArrayBuffer slab. Not text:
   * read it with `chunkText` or `decodeChunk`. Its length is the memory it takes, not the JSON's size
   * (`textBytes`).
   */
  readonly bytes: Uint8Array;
  /** Length of the JSON text in UTF-8 bytes: the chunk's size as the store and the feeds see it. */
  readonly textBytes: number;
  /** Position of the chunk's first item in the version's item list. */
  readonly start: number;
  readonly count: number;
}

/** About how many bytes of JSON text one chunk holds (~120 products of a 5-unit catalog): see `keyv-catalog-store.ts`. */
export const CHUNK_BYTES = 128 * 1024;
/** Items of the first chunk, before any item size is known. */
const FIRST_CHUNK_ITEMS = 64;
/** Chunks are packed into shared slabs of this size (fewer, larger allocations to hand to workers). */
const SLAB_BYTES = 4 * 1024 * 1024;

/**
 * How chunk texts are deflated. Level 1 (measured on the sandbox's 100,000 × 5 catalog, decision 0012):
 * its 99 MiB of chunk texts become 12.4 MiB (7.96×; 174 MiB with an enrichment sheet become 22.3 MiB) at
 * ~475 MiB/s, ~0.26 ms a chunk; inflating runs at ~1.2 GiB/s whatever the level. Level 3 would save another
 * ~10 % (1.3 MiB) for ~15 % more time a chunk, level 6 ~25 % for three times the time: not worth it where
 * chunks are deflated on the main thread (after stock changes, and when loading from the store).
 */
export const CHUNK_DEFLATE = { level: 1 } as const;

/** A writer of texts or bytes into shared slabs; each write becomes a view of its slab. */
export interface SharedWriter {
  /** Writes a text as UTF-8. */
  write(text: string): Uint8Array;
  /** Writes bytes as they are (a deflated chunk). */
  writeBytes(bytes: Uint8Array): Uint8Array;
}

/**
 * Packs texts and bytes into SharedArrayBuffer slabs. Shared memory crosses to worker threads without
 * being copied (a plain ArrayBuffer is either copied or detached).
 */
export function createSharedTextWriter(slabBytes = SLAB_BYTES): SharedWriter {
  let slab: Buffer | undefined;
  let used = 0;
  /** Room for `length` bytes: the rest of the current slab, a new slab, or a buffer of its own when larger. */
  function reserve(length: number): Buffer {
    if (length > slabBytes) return Buffer.from(new SharedArrayBuffer(length));
    if (slab === undefined || used + length > slab.length) {
      slab = Buffer.from(new SharedArrayBuffer(slabBytes));
      used = 0;
    }
    const room = slab.subarray(used, used + length);
    used += length;
    return room;
  }
  const viewOf = (room: Buffer): Uint8Array => new Uint8Array(room.buffer, room.byteOffset, room.length);
  return {
    write(text) {
      const room = reserve(Buffer.byteLength(text, 'utf8'));
      room.write(text, 0, 'utf8');
      return viewOf(room);
    },
    writeBytes(bytes) {
      const room = reserve(bytes.byteLength);
      room.set(bytes);
      return viewOf(room);
    },
  };
}

/** The bytes of each chunk's text to deflate are written here, so that no buffer of a chunk's size is left to collect per chunk. */
let scratch: Buffer | undefined;
/**
 * Texts that may need more UTF-8 than this (3 bytes per UTF-16 unit: texts over ~1 M units, a chunk of one
 * huge item) get a buffer of their own instead of growing the scratch.
 */
const SCRATCH_MAX_BYTES = 24 * CHUNK_BYTES;

/** A text deflated (`CHUNK_DEFLATE`), and its length in UTF-8. */
function deflateText(text: string): { readonly deflated: Buffer; readonly textBytes: number } {
  // At most 3 bytes of UTF-8 per UTF-16 unit: with that much room the write's count is the text's length,
  // and the text is not scanned a second time to measure it (`Buffer.byteLength` of a chunk's text with
  // accented letters took longer than its `JSON.stringify`).
  const room = text.length * 3;
  let utf8: Buffer;
  if (room > SCRATCH_MAX_BYTES) {
    utf8 = Buffer.from(text, 'utf8');
  } else {
    utf8 = scratchOf(room);
    utf8 = utf8.subarray(0, utf8.write(text, 0, 'utf8'));
  }
  return deflateUtf8(utf8);
}

function deflateUtf8(utf8: Buffer): { readonly deflated: Buffer; readonly textBytes: number } {
  return { deflated: deflateRawSync(utf8, CHUNK_DEFLATE), textBytes: utf8.length };
}

/** The shared scratch, at least `room` bytes long (its contents are not kept when it grows). */
function scratchOf(room: number): Buffer {
  if (scratch === undefined || scratch.length < room) scratch = Buffer.allocUnsafeSlow(Math.max(room, 3 * CHUNK_BYTES));
  return scratch;
}

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA_BYTE = 0x2c;

/** Characters outside ASCII: a chunk's JSON writes them as `\u` escapes (see `jsonBytesOfList`). */
const NON_ASCII = /[\u0080-\uffff]/g;
const escapeNonAscii = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `JSON.stringify(items)` with every character outside ASCII written as a `\u` escape (`"Káva"` as
 * `"K\u00e1va"`: the same JSON value), as bytes (valid only until the next use of the scratch).
 *
 * ASCII because every reader of a chunk decodes it to a string before `JSON.parse`, and V8 decodes UTF-8
 * with accented letters at ~90 MB/s against ~7 GB/s for ASCII: a chunk of Czech products parsed ~4× faster
 * (~1.9 → 0.5 ms), in the publish on the main thread, in every feed render and every load from the store
 * (decision 0012). A Czech catalog's text grows ~4 % (its deflated bytes ~1 %; other scripts more).
 * Written item by item, not as the list's text at once: V8 returns the JSON of accented texts as a string
 * of many pieces, and writing (flattening) one of a chunk's size took ~4× its `JSON.stringify` (Node 20);
 * an item's is short.
 */
function jsonBytesOfList(items: readonly unknown[]): Buffer {
  let buffer = scratchOf(3 * CHUNK_BYTES);
  let length = 0;
  const room = (more: number): void => {
    if (length + more <= buffer.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(buffer.length * 2, length + more));
    buffer.copy(grown, 0, 0, length);
    // The scratch grows up to its cap; past it the chunk has a buffer of its own.
    if (grown.length <= SCRATCH_MAX_BYTES) scratch = grown;
    buffer = grown;
  };
  room(1);
  buffer[length++] = OPEN_BRACKET;
  for (let index = 0; index < items.length; index += 1) {
    // As JSON.stringify writes a list: what has no JSON (undefined, a function) is `null`.
    const json = (JSON.stringify(items[index]) ?? 'null').replace(NON_ASCII, escapeNonAscii);
    room(json.length + 2);
    if (index > 0) buffer[length++] = COMMA_BYTE;
    // ASCII only: one byte per character.
    length += buffer.write(json, length, 'latin1');
  }
  room(1);
  buffer[length++] = CLOSE_BRACKET;
  return buffer.subarray(0, length);
}

/** `bytes` copied into shared memory of their own size. */
function sharedCopy(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  copy.set(bytes);
  return copy;
}

/**
 * Serializes items into chunks of about `chunkBytes` of JSON text (the item count of each chunk comes
 * from the average size in the chunk before), one native `JSON.stringify` per item and one deflate per chunk.
 */
export function serializeItems(items: readonly unknown[], options: { readonly chunkBytes?: number } = {}): ItemChunk[] {
  return serializeChunks(items.length, (start, end) => items.slice(start, end), options.chunkBytes ?? CHUNK_BYTES);
}

/**
 * `serializeItems` of `count` items made one at a time by `make(position)` as their chunk is serialized:
 * a merged catalog's products (`MergedProducts`) never exist all at once next to their serialized copy
 * (~100 MB of objects at 100,000 × 5; bench/full-sync.ts). Each chunk is deflated in libuv's thread pool
 * while the next is made and serialized here (a few at a time): at 1,000,000 × 5 the deflates took ~3.4 s of
 * the ~18 s this thread spent serializing, with the other core idle. The chunks are `serializeItems`'s.
 */
export async function serializeItemsMade(
  count: number,
  make: (position: number) => unknown,
  options: {
    readonly chunkBytes?: number;
    /**
     * Called after every `collectEveryBytes` of JSON text (a forced GC, in a worker thread that may run
     * one): what the made items left is freed as the chunks grow, not at the heap's next limit.
     */
    readonly collect?: () => void;
    readonly collectEveryBytes?: number;
    /** Fed every chunk's text as it is serialized: the fingerprint without inflating the chunks again. */
    readonly fingerprint?: ChunkFingerprint;
  } = {},
): Promise<ItemChunk[]> {
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  const everyBytes = options.collectEveryBytes ?? 24 * 1024 * 1024;
  const writer = createSharedTextWriter();
  const chunks: ItemChunk[] = [];
  const deflating: Promise<Omit<ItemChunk, 'bytes'> & { readonly deflated: Buffer }>[] = [];
  const settleOldest = async (): Promise<void> => {
    const { deflated, ...chunk } = await (deflating.shift() as (typeof deflating)[number]);
    chunks.push({ bytes: writer.writeBytes(deflated), ...chunk });
  };
  let start = 0;
  let items = FIRST_CHUNK_ITEMS;
  let sinceCollect = 0;
  while (start < count) {
    const end = Math.min(count, start + items);
    const made = new Array<unknown>(end - start);
    for (let position = start; position < end; position += 1) made[position - start] = make(position);
    // A copy: the list's bytes are a scratch buffer the next chunk reuses while this one is deflated.
    const utf8 = Buffer.from(jsonBytesOfList(made));
    options.fingerprint?.add(utf8);
    const chunk = { textBytes: utf8.length, start, count: end - start };
    const deflated = deflateRawInPool(utf8, CHUNK_DEFLATE).then((bytes) => ({ ...chunk, deflated: bytes }));
    // Awaited in order below; marked handled now so that a failure while this thread works is not unhandled.
    deflated.catch(() => {});
    deflating.push(deflated);
    if (deflating.length > DEFLATES_IN_FLIGHT) await settleOldest();
    sinceCollect += utf8.length;
    if (options.collect !== undefined && sinceCollect >= everyBytes) {
      options.collect();
      sinceCollect = 0;
    }
    items = nextChunkItems(chunkBytes, utf8.length, end - start);
    start = end;
  }
  while (deflating.length > 0) await settleOldest();
  return chunks;
}

/** Chunks being deflated in the pool at once while the next is serialized (libuv's pool has 4 threads). */
const DEFLATES_IN_FLIGHT = 2;

const deflateRawInPool = promisify(deflateRaw);

/** How many items the next chunk gets: from the average size in the chunk before, sized by text. */
function nextChunkItems(chunkBytes: number, textBytes: number, items: number): number {
  return Math.max(1, Math.floor(chunkBytes / (textBytes / items)));
}

function serializeChunks(length: number, slice: (start: number, end: number) => unknown[], chunkBytes: number): ItemChunk[] {
  const writer = createSharedTextWriter();
  const chunks: ItemChunk[] = [];
  let start = 0;
  let count = FIRST_CHUNK_ITEMS;
  while (start < length) {
    const end = Math.min(length, start + count);
    const { deflated, textBytes } = deflateUtf8(jsonBytesOfList(slice(start, end)));
    chunks.push({ bytes: writer.writeBytes(deflated), textBytes, start, count: end - start });
    // Sized by text, not by deflated bytes: the store's values and the renderer's parse follow the text.
    count = nextChunkItems(chunkBytes, textBytes, end - start);
    start = end;
  }
  return chunks;
}

/**
 * A chunk of a JSON text as it is (one read from the store), deflated, its bytes in memory of their own
 * (not shared: `packChunk` puts them in a slab once the chunk is kept). The text must be a JSON list of
 * `count` items.
 */
export function chunkOfText(text: string, start: number, count: number): ItemChunk {
  const { deflated, textBytes } = deflateText(text);
  return { bytes: deflated, textBytes, start, count };
}

/** `chunk` with its bytes copied into `writer`'s shared slabs (to hand to worker threads without a copy). */
export function packChunk(writer: SharedWriter, chunk: ItemChunk): ItemChunk {
  return { ...chunk, bytes: writer.writeBytes(chunk.bytes) };
}

/** The chunk's JSON text as UTF-8, inflated. */
function inflateChunk(chunk: ItemChunk): Buffer {
  // Into one buffer of the known size (zlib's default is 16 KiB pieces, then a copy into one); a byte
  // more, or a full buffer makes zlib allocate another to look for more output. Its minimum is 64 bytes.
  return inflateRawSync(chunk.bytes, { chunkSize: Math.max(64, chunk.textBytes + 1) });
}

/**
 * The slot holding `position`, of `slots` slots in position order whose first positions `startOf` gives:
 * the last one starting at or before it.
 */
export function slotOfPosition(slots: number, startOf: (slot: number) => number, position: number): number {
  let low = 0;
  let high = slots - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (startOf(middle) <= position) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The chunk's JSON text. */
export function chunkText(chunk: ItemChunk): string {
  return inflateChunk(chunk).toString('utf8');
}

/** The chunk's items. */
export function decodeChunk<Item>(chunk: ItemChunk): Item[] {
  return JSON.parse(chunkText(chunk)) as Item[];
}

/** A chunk of the items at `start`, serialized now (a chunk of a version made by stock changes). */
export function serializeChunk(items: readonly unknown[], start: number, count: number): ItemChunk {
  const { deflated, textBytes } = deflateUtf8(jsonBytesOfList(items.slice(start, start + count)));
  // Shared memory of its own, of the deflated size: such chunks are made one at a time, long after the others.
  return { bytes: sharedCopy(deflated), textBytes, start, count };
}

const COMMA = new Uint8Array([0x2c]);
const NEWLINE = new Uint8Array([0x0a]);

/**
 * The content fingerprint of a version: SHA-256 over the header text (everything but the items that
 * identifies the content), a newline, and the items' JSON texts joined by `,`. The chunk boundaries do not
 * matter (each chunk's text without its brackets is its items' texts joined by `,`), so a version whose
 * chunks were serialized by different threads, or split differently, has the same fingerprint as long as
 * its content is the same. Computed over the inflated texts, never the deflated bytes: the fingerprints
 * of versions stored before chunks were deflated stay valid.
 *
 * @example fingerprintChunks(JSON.stringify([currency, primaryUnit, units]), chunks)
 */
export function fingerprintChunks(header: string, chunks: readonly ItemChunk[]): string {
  const fingerprint = createChunkFingerprint(header);
  for (const chunk of chunks) fingerprint.add(inflateChunk(chunk));
  return fingerprint.digest();
}

/** `fingerprintChunks` fed one chunk text at a time, as chunks are serialized (`serializeItemsMade`). */
export interface ChunkFingerprint {
  /**
   * A chunk's JSON text (a list) in UTF-8, chunks in order. Hashed during the call (the bytes may be a
   * reused buffer); callable detached from the object.
   */
  readonly add: (utf8: Uint8Array) => void;
  /** Once, after the last chunk. */
  digest(): string;
}

export function createChunkFingerprint(header: string): ChunkFingerprint {
  const hash = createHash('sha256');
  hash.update(header, 'utf8');
  hash.update(NEWLINE);
  let first = true;
  return {
    add(utf8) {
      // `[]`: a chunk of no items.
      if (utf8.length <= 2) return;
      if (!first) hash.update(COMMA);
      first = false;
      // Without the enclosing `[` and `]`.
      hash.update(utf8.subarray(1, utf8.length - 1));
    },
    digest: () => hash.digest('hex').slice(0, 32),
  };
}
