import { decodeChunk, type ItemChunk } from './catalog-chunks.js';

/**
 * A catalog version's items read from its serialized chunks as passes over it go, with at most `capacity`
 * chunks parsed at a time (the most recently used): several passes walking side by side share each chunk's
 * parse, and none holds the whole catalog parsed (~420 MiB of heap at 100,000 × 5, where its chunks take
 * 16 MiB). Each pass also keeps the chunk it is in. A pass that runs ahead of the others by more than the
 * window only costs a second parse of the chunks it left behind.
 */
export interface ChunkWindow<Item> {
  /** How many items the version has. */
  readonly length: number;
  /** A new pass over every item, in order. */
  pass(): ChunkPass<Item>;
  /** How many chunks were parsed so far (each parse counted, second ones included). */
  readonly parses: number;
}

/** One reading of every item, in order; iterated once. */
export interface ChunkPass<Item> extends Iterable<Item> {
  /** How many items this pass has read so far. */
  readonly position: number;
}

export interface ChunkWindowOptions {
  /** Called after each parse with the count so far (a caller that collects its garbage every so often). */
  readonly onParse?: (parses: number) => void;
}

export function createChunkWindow<Item>(
  chunks: readonly ItemChunk[],
  capacity: number,
  options: ChunkWindowOptions = {},
): ChunkWindow<Item> {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  // Insertion order of a Map is its recency order: a read moves the chunk to the end, the first is evicted.
  const parsed = new Map<number, readonly Item[]>();
  let parses = 0;
  function itemsOf(index: number): readonly Item[] {
    const known = parsed.get(index);
    if (known !== undefined) {
      parsed.delete(index);
      parsed.set(index, known);
      return known;
    }
    const items = decodeChunk<Item>(chunks[index] as ItemChunk);
    parses += 1;
    parsed.set(index, items);
    if (parsed.size > capacity) parsed.delete(parsed.keys().next().value as number);
    options.onParse?.(parses);
    return items;
  }
  return {
    length: chunks.reduce((sum, chunk) => sum + chunk.count, 0),
    get parses() {
      return parses;
    },
    pass() {
      let position = 0;
      let read = false;
      return {
        get position() {
          return position;
        },
        *[Symbol.iterator]() {
          // One reading per pass: its position is what a lockstep render steers by.
          if (read) throw new Error('a pass over the chunks is read once; ask the window for another pass');
          read = true;
          for (let index = 0; index < chunks.length; index += 1) {
            // A pass keeps the chunk it is in even when evicted: the window plus one chunk per pass at most.
            for (const item of itemsOf(index)) {
              position += 1;
              yield item;
            }
          }
        },
      };
    },
  };
}
