import type { FeedReport } from '../../core/feeds/feed-report.js';
import { type EncodedFeed, encodedSize } from './encoded-feed.js';

/** The latest complete render of one feed key. */
export interface CachedFeed {
  readonly feed: EncodedFeed;
  readonly report: FeedReport | undefined;
  /** How long its render took (ms): whether a request should wait for the next one (`feed-renders.ts`). */
  readonly renderMs: number;
}

export interface FeedCacheOptions {
  /**
   * Upper bound of the bytes kept (every form of every body, `encodedSize`: on disk for bodies in files);
   * least recently used feeds are dropped beyond it.
   */
  readonly maxBytes: number;
  /** Told of an entry dropped to make room or by `retain` (its files are deleted). */
  readonly onEvict?: (key: string, entry: CachedFeed) => void;
}

/** What `put` did: whether the entry was kept, and the entry of the same key it replaced. */
export interface PutOutcome {
  readonly kept: boolean;
  readonly replaced?: CachedFeed;
}

/**
 * The newest rendered version of every feed key (`file|view|profile`), as kept (`EncodedFeed`). A newer
 * render replaces an older one; one of an older version than the cached one is ignored. Keys are dropped
 * least recently used first once the bytes exceed the budget, except pinned keys and the key just put.
 */
export interface FeedCache {
  latest(key: string): CachedFeed | undefined;
  /** Keeps `entry` unless the cache holds a newer version of the key (`newer(a, b)`: a is newer than b). */
  put(key: string, entry: CachedFeed, newer: (a: string, b: string) => boolean): PutOutcome;
  /**
   * Never drops the entries of `keys` to make room (replacing the keys pinned before): the feeds a
   * pre-render pass renders, which channels poll.
   */
  pin(keys: Iterable<string>): void;
  /** Whether `key` is one of the pinned: a feed of the pre-render passes. */
  isPinned(key: string): boolean;
  /** Drops every key for which `keep` says no (feeds of units that are gone). */
  retain(keep: (key: string) => boolean): void;
  /** Every cached key and its render, least recently used first (without touching the order). */
  entries(): Iterable<[string, CachedFeed]>;
  /** `bytes` may exceed the budget while the pinned entries alone do (the operator is warned). */
  stats(): { entries: number; bytes: number };
}

function sizeOf(entry: CachedFeed): number {
  return encodedSize(entry.feed);
}

/**
 * Why pins: a pre-render pass puts its feeds one after another. When they do not fit the budget, plain
 * LRU evicts the pass's first feeds for its last ones, and a channel polling an evicted feed of a large
 * catalog gets 503 while it is rendered again, after every change. Pinned keys are only ever replaced
 * by a newer render of the same key (or dropped by `retain`); other entries give way first, and when the
 * pinned ones alone exceed the budget they are kept anyway, over it (the pre-render fit's warning tells
 * the operator). A key holds only its newest render, so pinning the key pins the newest pre-rendered
 * version of that feed, and the previous version's until its replacement arrives: the one served
 * meanwhile (stale-while-revalidate).
 */
export function createFeedCache(options: FeedCacheOptions): FeedCache {
  // Map iteration order is insertion order: re-inserting on use makes the first entry the least recent.
  const entries = new Map<string, CachedFeed>();
  let pinned: ReadonlySet<string> = new Set();
  let bytes = 0;

  function drop(key: string): CachedFeed | undefined {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    entries.delete(key);
    bytes -= sizeOf(entry);
    return entry;
  }

  function evict(key: string): void {
    const entry = drop(key);
    if (entry !== undefined) options.onEvict?.(key, entry);
  }

  /** Least recently used first, never a pinned key nor `kept` (the one just put: its render is served). */
  function makeRoom(kept: string): void {
    for (const candidate of entries.keys()) {
      if (bytes <= options.maxBytes) break;
      if (candidate !== kept && !pinned.has(candidate)) evict(candidate);
    }
  }

  return {
    latest(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry;
    },
    put(key, entry, newer) {
      const current = entries.get(key);
      if (current === entry) return { kept: true };
      if (current !== undefined && newer(current.feed.version, entry.feed.version)) return { kept: false };
      const replaced = drop(key);
      entries.set(key, entry);
      bytes += sizeOf(entry);
      makeRoom(key);
      return replaced === undefined ? { kept: true } : { kept: true, replaced };
    },
    isPinned: (key) => pinned.has(key),
    pin(keys) {
      pinned = new Set(keys);
    },
    retain(keep) {
      for (const key of [...entries.keys()]) if (!keep(key)) evict(key);
    },
    entries: () => entries.entries(),
    stats() {
      return { entries: entries.size, bytes };
    },
  };
}
