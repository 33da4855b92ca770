import { inflateRawSync } from 'node:zlib';

/*
 * How a catalog chunk is kept as a store value (`keyv-catalog-store.ts`): JSON text, or its raw deflate in
 * base64 after a prefix; and how a stored value is read back as text, whichever form (or an older one).
 */

/**
 * How a deflated chunk's value begins: the rest is its raw deflate in base64. A JSON text chunk begins
 * with `[`, so the two never mix up.
 */
export const DEFLATED_CHUNK_PREFIX = 'deflate-raw:';

/**
 * The value a chunk is stored as: always a string, because keyv's own serializer (a recursive JS walk)
 * took seconds and left hundreds of MB of string ropes for a 100,000-item catalog, while a string costs it
 * one escape (bench/full-sync.ts). A deflated chunk is kept deflated, in base64 (~7× smaller than its
 * text at 100,000 × 5, and nothing to escape): storing the chunks the catalog already holds deflated no
 * longer inflates, decodes and escapes every one of them on the main thread (docs/decisions/0012).
 */
export function storedChunkValue(chunk: { readonly text: () => string } | { readonly deflated: () => Uint8Array }): string {
  if ('text' in chunk) return chunk.text();
  const bytes = chunk.deflated();
  return DEFLATED_CHUNK_PREFIX + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * A stored chunk's JSON text (an `Error` when a deflated one does not inflate). Versions before chunks
 * were stored as strings stored arrays, read back as text here.
 */
export function chunkTextOf(stored: unknown): string | Error | undefined {
  if (typeof stored === 'string') {
    if (!stored.startsWith(DEFLATED_CHUNK_PREFIX)) return stored;
    try {
      return inflateRawSync(Buffer.from(stored.slice(DEFLATED_CHUNK_PREFIX.length), 'base64')).toString('utf8');
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }
  if (Array.isArray(stored)) return JSON.stringify(stored);
  return undefined;
}
