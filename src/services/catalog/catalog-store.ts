import type { CatalogSource } from '../../core/catalog/catalog-source.js';
import type { ReportHistoryStore } from './report-history-store.js';

/**
 * The catalog store port: versioned catalog snapshots (docs/catalog-rules.md rules 8-9), as the catalog
 * services use them. `adapters/store/keyv-catalog-store.ts` implements it on keyv.
 */

/**
 * One chunk of a version to publish: new JSON text (`text`, made when it is written), the same text
 * already deflated (`deflated`: raw deflate of its UTF-8, as `ItemChunk.bytes` holds it; stored as it is,
 * without inflating it), or a chunk an earlier version already stored (`key`, as `publish` returned it):
 * a version made by a few stock changes writes only the chunks that changed. Loading gives back texts
 * whichever way a chunk was written.
 */
export type StoreChunk =
  | { readonly count: number; readonly text: () => string }
  | { readonly count: number; readonly deflated: () => Uint8Array }
  | { readonly count: number; readonly key: string };

export interface StoredChunkRef {
  readonly key: string;
  readonly count: number;
}

/** A stored version without its chunks' contents. */
export interface VersionHead<Meta> {
  readonly version: string;
  readonly meta: Meta;
  readonly items: number;
  readonly chunks: readonly StoredChunkRef[];
  /** Where in the group's change stream this version stands (`pointer`: Redis with several instances). */
  readonly position?: string;
}

/** How a publish moves the pointer, when a group of instances shares the store. */
export interface PointerWrite {
  /** A new catalog family (a full sync, or a rewrite): the group is told to load it. */
  readonly announce?: boolean;
  /** The group's change-stream position the version includes (versions made by stock changes). */
  readonly position?: string;
}

/** What the store's pointer names, from whichever source it came. */
export interface StoredVersionInfo<Meta> {
  readonly version: string;
  /** Its metadata (`undefined` when it is missing: the store is inconsistent). */
  readonly meta: Meta | undefined;
  readonly items: number;
  readonly publishedAt: string;
  /** Where it came from; `undefined` for a version stored before sources were recorded. */
  readonly source: CatalogSource | undefined;
  /** Whether it came from this store's source: only then is it read, listed or served. */
  readonly own: boolean;
}

/**
 * A store opened for one source (the configured POS): it reads, lists and keeps only that source's versions
 * and reports. What another source (or a version from before sources were recorded) left is not read; it is
 * dropped when this source publishes (versions) or reports (reports).
 */
export interface CatalogStore<Meta> extends ReportHistoryStore {
  /**
   * Writes the version's new chunks, its metadata and chunk list, then moves the "current" pointer to
   * it, then prunes old versions and every version of another source (and the chunks no kept version
   * uses). Returns the key of every chunk. Once `signal` has aborted, the pointer is not moved: the
   * publish rejects with the signal's reason and removes what it had written.
   */
  publish(
    version: { readonly version: string; readonly meta: Meta; readonly chunks: readonly StoreChunk[] },
    publishedAt: Date,
    options?: { readonly signal?: AbortSignal } & PointerWrite,
  ): Promise<readonly string[]>;
  /** The version the pointer names when it is this source's, without loading it (cheap; other instances poll it). */
  currentVersion(): Promise<string | undefined>;
  /** What the pointer names, whichever its source (for telling why nothing is served). */
  describeCurrent(): Promise<StoredVersionInfo<Meta> | undefined>;
  /**
   * A mark the bridge leaves in the store (`services/health/store-health.ts`): when it is gone, so is everything else
   * the bridge wrote (a Redis restarted without persistence), even if a write since made a pointer again.
   */
  readMark(): Promise<string | undefined>;
  writeMark(mark: string): Promise<void>;
  /**
   * Records this store's source on the version the pointer names, when the source recorded there is `from`
   * (`undefined`: none, a version stored before sources were recorded) and, if given, it is `version`: a
   * version found to be this source's after all. Returns whether it did.
   */
  adoptCurrent(from: CatalogSource | undefined, version?: string): Promise<boolean>;
  /**
   * Hands the current version's chunk texts, in order, to `consume` (read a few ahead, never all held at
   * once); `undefined` when there is none of this source. If a concurrent publish prunes the version while
   * it is read, `consume` is called again with the new current version; whatever it built from the first
   * call must be dropped.
   */
  loadCurrent<T>(consume: (head: VersionHead<Meta>, texts: AsyncIterable<string>) => Promise<T>): Promise<T | undefined>;
  // Reports (`ReportHistoryStore`): the last `keepReports` runs per job of this source; another source's are dropped.
  close(): Promise<void>;
}
