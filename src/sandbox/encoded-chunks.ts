/** About the size of a socket write: a 100,000-article document never sits in memory whole. */
export const CHUNK_BYTES = 64 * 1024;

/**
 * Texts (a document's rows) as UTF-8 in buffers of about `chunkBytes`, each text encoded as it comes.
 * Encoding each row's short string costs a fraction of encoding the 64 KiB strings the rows would be joined
 * into: V8 encodes a long string built of many pieces several times slower (`bench/sandbox-paging.ts`,
 * `priceListEncoding`), and the HTTP response measured each such string once more before writing it.
 * Yields at least one buffer, empty when there is no text. Each text is encoded on its own: a surrogate
 * pair split between two texts would become two U+FFFD (a row never splits one).
 */
export function* encodedChunks(texts: Iterable<string>, chunkBytes = CHUNK_BYTES): Generator<Buffer> {
  let chunk = Buffer.allocUnsafe(chunkBytes);
  let used = 0;
  let yielded = false;
  for (const text of texts) {
    // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 for 2; a lone one: U+FFFD, 3).
    const most = text.length * 3;
    if (used + most > chunk.length) {
      if (used > 0) {
        yield chunk.subarray(0, used);
        yielded = true;
      }
      chunk = Buffer.allocUnsafe(Math.max(chunkBytes, most));
      used = 0;
    }
    used += chunk.write(text, used);
  }
  if (used > 0 || !yielded) yield chunk.subarray(0, used);
}
