import { createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/**
 * A sheet's bytes gathered from a stream into shared memory, hashed as they arrive: a 60 MB sheet must not
 * stop the main thread for a single hash, concatenation or copy of the whole (each of those takes tens of
 * milliseconds at that size). The copy into the SharedArrayBuffer goes a slice at a time, yielding between.
 * Workers then read the bytes where they are (enrichment-service.ts).
 */

/** Bytes copied between two yields to the event loop: ~1 ms of memcpy. */
const COPY_SLICE_BYTES = 4 * 1024 * 1024;

export interface SharedBytes {
  readonly bytes: Uint8Array;
  /** SHA-256, hex. */
  readonly sha256: string;
}

export async function collectShared(
  chunks: AsyncIterable<Uint8Array>,
  maxBytes: number,
  onTooLarge: () => Error,
): Promise<SharedBytes> {
  const hash = createHash('sha256');
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > maxBytes) throw onTooLarge();
    hash.update(chunk);
    parts.push(chunk);
  }
  return { bytes: await copyShared(parts, size), sha256: hash.digest('hex') };
}

/** `parts` laid end to end in a SharedArrayBuffer, yielding to the event loop every few MB. */
export async function copyShared(parts: readonly Uint8Array[], size: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(new SharedArrayBuffer(size));
  let offset = 0;
  let sinceYield = 0;
  for (const part of parts) {
    for (let from = 0; from < part.byteLength; from += COPY_SLICE_BYTES) {
      const slice = part.subarray(from, Math.min(part.byteLength, from + COPY_SLICE_BYTES));
      bytes.set(slice, offset);
      offset += slice.byteLength;
      sinceYield += slice.byteLength;
      if (sinceYield >= COPY_SLICE_BYTES) {
        sinceYield = 0;
        await yieldToLoop();
      }
    }
  }
  return bytes;
}
