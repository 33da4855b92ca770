/** The last `capacity` items pushed, oldest dropped first: the fetch log's bound. */
export interface Ring<T> {
  readonly capacity: number;
  readonly size: number;
  push(item: T): void;
  /** Newest first, at most `limit`. */
  newest(limit?: number): T[];
}

export function createRing<T>(capacity: number): Ring<T> {
  if (!Number.isInteger(capacity) || capacity < 1)
    throw new RangeError(`ring capacity must be a positive integer, not ${capacity}`);
  const items: (T | undefined)[] = new Array(capacity);
  let next = 0;
  let size = 0;
  return {
    capacity,
    get size() {
      return size;
    },
    push(item) {
      items[next] = item;
      next = (next + 1) % capacity;
      if (size < capacity) size += 1;
    },
    newest(limit = size) {
      const count = Math.min(limit, size);
      const out: T[] = [];
      for (let i = 1; i <= count; i++) out.push(items[(next - i + capacity) % capacity] as T);
      return out;
    },
  };
}
