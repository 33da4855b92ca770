import type { CachedFeed } from './feed-cache.js';

/** What the feed files hold and the last thing that went wrong with them (`/readyz`, the status page, metrics). */
export interface FeedFilesStatus {
  /** The directory (`FEED_FILES_DIR`). */
  readonly dir: string;
  /** The last failed write or removal, cleared by the next successful write of that feed. */
  readonly lastError?: { readonly at: string; readonly feed: string; readonly message: string };
}

/**
 * Where rendered feeds live (docs/decisions/0016-feed-files.md): each body in files written by the
 * renderer, and per feed key a manifest naming the files of its newest render, written last (temp file +
 * rename), so that a restart serves the last rendered feeds at once and a crash never leaves a half file
 * named. Calls for one key are carried out in order.
 */
export interface FeedFileStore {
  readonly dir: string;
  /**
   * The feeds written before this process, as their manifests name them (each file checked); files no
   * manifest names (a crash between a write and its manifest) are deleted.
   */
  restore(): Promise<readonly (readonly [string, CachedFeed])[]>;
  /** Names `entry`'s files as the newest render of `key`. */
  commit(key: string, entry: CachedFeed): Promise<void>;
  /** Deletes `entry`'s files, and its manifest when `forget` and it still names them (an evicted feed). */
  discard(key: string, entry: CachedFeed, options: { readonly forget: boolean }): Promise<void>;
  /** A render or write of `feed` failed; the previous file stays served. */
  noteError(feed: string, error: unknown): void;
  status(): FeedFilesStatus;
  /** Waits for every pending write and deletion, then releases the directory. */
  close(): Promise<void>;
}
