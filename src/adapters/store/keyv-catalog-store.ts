import type { Keyv } from 'keyv';
import type { CatalogSource } from '../../core/catalog/catalog-source.js';
import type {
  CatalogStore,
  PointerWrite,
  StoreChunk,
  StoredChunkRef,
  VersionHead,
} from '../../services/catalog/catalog-store.js';
import { createKeyvReportStore } from './keyv-report-store.js';
import { chunkTextOf, storedChunkValue } from './stored-chunk-value.js';

/** What the store's pointer names: one version of the list, with where it came from. */
export interface VersionPointer {
  readonly version: string;
  readonly publishedAt: string;
  readonly items: number;
  readonly layout?: 2;
  readonly chunks?: number;
  /** Absent in versions stored before sources were recorded. */
  readonly source?: CatalogSource;
}

/**
 * Where the "current" pointer lives. By default it is a keyv value like the rest; with several instances
 * on Redis it is a native key moved only by the lease holder (compare-and-set in a script: fencing).
 */
export interface PointerBackend {
  read(): Promise<{ readonly pointer: VersionPointer; readonly position?: string } | undefined>;
  /** Rejects (code `LEASE_LOST`) when this instance may not move the pointer. */
  write(pointer: VersionPointer, how: PointerWrite): Promise<void>;
}

export class StoreInconsistentError extends Error {
  override readonly name = 'StoreInconsistentError';
  readonly code = 'STORE_INCONSISTENT';
}

export interface KeyvCatalogStoreOptions {
  /** The source whose versions and reports this store reads and writes. */
  readonly source: CatalogSource;
  /** Versions kept (the current one included), so a reader that started on the previous one can finish. */
  readonly keepVersions?: number;
  /** Runs kept per job (default `DEFAULT_KEPT_RUNS`, 50). */
  readonly keepReports?: number;
  /** Parallel reads of chunks. Publishing writes one chunk at a time (see `publish`). */
  readonly concurrency?: number;
  /** Key prefix, so one keyv holds several independent version lists (public catalog, internal data). */
  readonly prefix?: string;
  /** Where the pointer lives, given the prefix and the keyv pointer (default: that keyv value). */
  readonly pointer?: (prefix: string, fallback: PointerBackend) => PointerBackend;
}

/** How long an aborted publish may spend removing what it wrote. */
const CLEANUP_MS = 5_000;

/*
 * How a version is listed (`VersionPointer`). Layout 2 (chunk list of its own, chunks shared between
 * versions) since incremental stock versions; entries without `layout` are of the first layout (`chunks`
 * numbered chunks of the version's own), which is still read, so that an upgrade serves the stored
 * catalog at once.
 */

/**
 * Versioned catalog snapshots on keyv (docs/catalog-rules.md rules 8-9): a reader sees the old or the new version,
 * never a mix, because the pointer moves only after the new version is completely written. Chunks are
 * stored as JSON text, or deflated when the caller has them so (`storedChunkValue`); loading gives texts
 * either way, and the caller serializes and parses them (off the main thread where it can).
 */
export function createKeyvCatalogStore<Meta>(keyv: Keyv, options: KeyvCatalogStoreOptions): CatalogStore<Meta> {
  const { source } = options;
  const keepVersions = Math.max(2, options.keepVersions ?? 3);
  const concurrency = options.concurrency ?? 4;
  const prefix = options.prefix ?? 'catalog';
  const POINTER_KEY = `${prefix}:current`;
  const VERSIONS_KEY = `${prefix}:versions`;
  const MARK_KEY = `${prefix}:mark`;

  const metaKey = (version: string) => `${prefix}:v:${version}:meta`;
  const chunkListKey = (version: string) => `${prefix}:v:${version}:chunks`;
  const chunkKey = (version: string, index: number) => `${prefix}:c:${version}:${index}`;
  const firstLayoutChunkKey = (version: string, index: number) => `${prefix}:v:${version}:chunk:${index}`;
  const isOwn = (pointer: VersionPointer) => pointer.source?.id === source.id;
  const keyvPointer: PointerBackend = {
    async read() {
      const pointer = (await keyv.get(POINTER_KEY)) as VersionPointer | undefined;
      return pointer === undefined ? undefined : { pointer };
    },
    async write(pointer) {
      await keyv.set(POINTER_KEY, pointer);
    },
  };
  const pointers = options.pointer?.(prefix, keyvPointer) ?? keyvPointer;
  const readPointer = async () => (await pointers.read())?.pointer;

  async function chunksOf(pointer: VersionPointer): Promise<readonly StoredChunkRef[] | undefined> {
    if (pointer.layout === 2) return (await keyv.get(chunkListKey(pointer.version))) as StoredChunkRef[] | undefined;
    // First layout: item counts per chunk are not recorded; only the total is checked.
    return Array.from({ length: pointer.chunks ?? 0 }, (_, index) => ({
      key: firstLayoutChunkKey(pointer.version, index),
      count: Number.NaN,
    }));
  }

  async function headOf(pointer: VersionPointer, position: string | undefined): Promise<VersionHead<Meta>> {
    const [meta, chunks] = await Promise.all([
      keyv.get(metaKey(pointer.version)) as Promise<Meta | undefined>,
      chunksOf(pointer),
    ]);
    if (meta === undefined) throw new StoreInconsistentError(`metadata of version ${pointer.version} is missing`);
    if (chunks === undefined) throw new StoreInconsistentError(`chunk list of version ${pointer.version} is missing`);
    return { version: pointer.version, meta, items: pointer.items, chunks, ...(position === undefined ? {} : { position }) };
  }

  /** The chunk texts in order, `concurrency` read ahead. */
  async function* textsOf(head: VersionHead<Meta>): AsyncGenerator<string> {
    const pending: Promise<string>[] = [];
    let next = 0;
    const read = async (index: number): Promise<string> => {
      const ref = head.chunks[index] as StoredChunkRef;
      const text = chunkTextOf(await keyv.get(ref.key));
      if (text === undefined)
        throw new StoreInconsistentError(`chunk ${index} of version ${head.version} is missing (${ref.key})`);
      if (text instanceof Error)
        throw new StoreInconsistentError(`chunk ${index} of version ${head.version} is damaged (${ref.key}): ${text.message}`);
      return text;
    };
    while (next < head.chunks.length || pending.length > 0) {
      while (next < head.chunks.length && pending.length < concurrency) {
        const promise = read(next);
        // Awaited in order below; a rejection before then must not count as unhandled.
        promise.catch(() => undefined);
        pending.push(promise);
        next += 1;
      }
      yield await (pending.shift() as Promise<string>);
    }
  }

  /** Best effort, at most `CLEANUP_MS` in all, stopping at the first failed delete. */
  async function removeWritten(keys: readonly string[]): Promise<void> {
    const until = Date.now() + CLEANUP_MS;
    for (const key of keys) {
      if (Date.now() > until) return;
      try {
        await keyv.delete(key);
      } catch {
        return;
      }
    }
  }

  async function prune(kept: readonly VersionPointer[], dropped: readonly VersionPointer[]): Promise<void> {
    if (dropped.length === 0) return;
    const inUse = new Set<string>();
    for (const pointer of kept) for (const ref of (await chunksOf(pointer)) ?? []) inUse.add(ref.key);
    for (const old of dropped) {
      const keys = [metaKey(old.version), chunkListKey(old.version)];
      for (const ref of (await chunksOf(old)) ?? []) if (!inUse.has(ref.key)) keys.push(ref.key);
      // One key at a time: keyv's SQLite adapter reads every row a `deleteMany` names before deleting
      // them, and turning ~100 MB of chunks into strings in one callback held the event loop for 400 ms
      // (bench/event-loop.ts). Single deletes read one chunk per callback.
      for (const key of keys) await keyv.delete(key);
    }
  }

  /** Whether the pointer or the version list names `version` (another writer stored it too). */
  async function namedElsewhere(version: string): Promise<boolean> {
    try {
      const [current, known] = await Promise.all([
        readPointer(),
        keyv.get(VERSIONS_KEY) as Promise<VersionPointer[] | undefined>,
      ]);
      return current?.version === version || (known ?? []).some((entry) => entry.version === version);
    } catch {
      // Unknown: keep what was written rather than risk removing a stored version.
      return true;
    }
  }

  /**
   * After the pointer moved: the version list, then old versions pruned. The version is published by
   * then, so a failure here does not fail it: what it would have removed stays until the next publish.
   */
  async function listAndPrune(pointer: VersionPointer): Promise<void> {
    try {
      const known = ((await keyv.get(VERSIONS_KEY)) as VersionPointer[] | undefined) ?? [];
      const others = known.filter((entry) => entry.version !== pointer.version);
      const own = [pointer, ...others.filter(isOwn)];
      const kept = own.slice(0, keepVersions);
      await keyv.set(VERSIONS_KEY, kept);
      // Another source's versions go once this source has one of its own: until then they stay, so that
      // switching back before the first sync from the new source loses nothing.
      await prune(kept, [...own.slice(keepVersions), ...others.filter((entry) => !isOwn(entry))]);
    } catch {
      // Left for the next publish (see above).
    }
  }

  return {
    async publish(catalog, publishedAt, { signal, ...how } = {}) {
      signal?.throwIfAborted();
      const written = [metaKey(catalog.version)];
      await keyv.set(metaKey(catalog.version), catalog.meta);
      // New chunks are written one at a time, each text made just before it is written: the texts (ours,
      // keyv's escaped copy, the driver's) then die young instead of piling up (bench/full-sync.ts).
      const refs: StoredChunkRef[] = [];
      let items = 0;
      try {
        for (const [index, chunk] of catalog.chunks.entries()) {
          if ('key' in chunk) {
            refs.push({ key: chunk.key, count: chunk.count });
          } else {
            signal?.throwIfAborted();
            const key = chunkKey(catalog.version, index);
            written.push(key);
            await keyv.set(key, storedChunkValue(chunk));
            refs.push({ key, count: chunk.count });
          }
          items += chunk.count;
        }
        written.push(chunkListKey(catalog.version));
        await keyv.set(chunkListKey(catalog.version), refs);
        // The last moment to give up: past it the version is published.
        signal?.throwIfAborted();
      } catch (error) {
        // Aborted (a deadline, a shutdown): nothing names this version, and what it wrote would stay in the
        // store for good. Bounded, and given up at the first failure: a store that fails to write would
        // fail to delete as well, and the caller holds the write lock meanwhile.
        if (signal?.aborted) await removeWritten(written);
        throw error;
      }
      const pointer: VersionPointer = {
        version: catalog.version,
        publishedAt: publishedAt.toISOString(),
        items,
        layout: 2,
        source,
      };
      try {
        await pointers.write(pointer, how);
      } catch (error) {
        // Fenced out (the lease lapsed). In a group a version made by stock changes has the same id (so the
        // same keys) on every instance: what the new leader stored under it is not removed.
        if (isLeaseLost(error) && !(await namedElsewhere(catalog.version))) await removeWritten(written);
        throw error;
      }
      await listAndPrune(pointer);
      return refs.map((ref) => ref.key);
    },

    async currentVersion() {
      const pointer = await readPointer();
      return pointer !== undefined && isOwn(pointer) ? pointer.version : undefined;
    },

    async readMark() {
      const mark = await keyv.get(MARK_KEY);
      return typeof mark === 'string' ? mark : undefined;
    },

    async writeMark(mark) {
      await keyv.set(MARK_KEY, mark);
    },

    async describeCurrent() {
      const pointer = await readPointer();
      if (pointer === undefined) return undefined;
      const { version, items, publishedAt } = pointer;
      const meta = (await keyv.get(metaKey(version))) as Meta | undefined;
      return { version, meta, items, publishedAt, source: pointer.source, own: isOwn(pointer) };
    },

    async adoptCurrent(from, version) {
      const pointer = await readPointer();
      if (
        pointer === undefined ||
        isOwn(pointer) ||
        pointer.source?.id !== from?.id ||
        (version !== undefined && pointer.version !== version)
      ) {
        return false;
      }
      const adopted: VersionPointer = { ...pointer, source };
      await pointers.write(adopted, {});
      const known = ((await keyv.get(VERSIONS_KEY)) as VersionPointer[] | undefined) ?? [];
      await keyv.set(
        VERSIONS_KEY,
        known.map((entry) => (entry.version === adopted.version ? adopted : entry)),
      );
      return true;
    },

    async loadCurrent(consume) {
      // A version pruned while we read it (another instance published twice meanwhile): read the pointer again.
      for (let attempt = 1; ; attempt++) {
        const read = await pointers.read();
        if (read === undefined || !isOwn(read.pointer)) return undefined;
        try {
          const head = await headOf(read.pointer, read.position);
          return await consume(head, textsOf(head));
        } catch (error) {
          if (!(error instanceof StoreInconsistentError) || attempt >= 3) throw error;
        }
      }
    },

    ...createKeyvReportStore(keyv, {
      source,
      prefix,
      ...(options.keepReports === undefined ? {} : { keep: options.keepReports }),
    }),

    async close() {
      await keyv.disconnect();
    },
  };
}

/** The error a fenced pointer write rejects with when this instance no longer holds the lease. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  readonly code = 'LEASE_LOST';
}

function isLeaseLost(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === 'LEASE_LOST';
}

function parseChunkText(text: string): unknown[] | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A whole version as items: for small catalogs, tests and tools (the catalog service streams instead). */
export interface StoredItems<Meta, Item> {
  readonly version: string;
  readonly meta: Meta;
  readonly items: readonly Item[];
}

/** Publishes `items` in chunks of at most `chunkItems` (default 2,000). */
export function publishItems<Meta, Item>(
  store: CatalogStore<Meta>,
  catalog: StoredItems<Meta, Item>,
  publishedAt: Date,
  chunkItems = 2_000,
): Promise<readonly string[]> {
  const chunks: StoreChunk[] = [];
  for (let start = 0; start < catalog.items.length; start += chunkItems) {
    const slice = catalog.items.slice(start, start + chunkItems);
    chunks.push({ count: slice.length, text: () => JSON.stringify(slice) });
  }
  return store.publish({ version: catalog.version, meta: catalog.meta, chunks }, publishedAt);
}

/** Loads the current version whole, checking the item count against the pointer. */
export function loadItems<Meta, Item>(store: CatalogStore<Meta>): Promise<StoredItems<Meta, Item> | undefined> {
  return store.loadCurrent(async (head, texts) => {
    const items: Item[] = [];
    let index = 0;
    for await (const text of texts) {
      const parsed = parseChunkText(text);
      if (parsed === undefined) throw new StoreInconsistentError(`chunk ${index} of version ${head.version} is not a JSON list`);
      for (const item of parsed) items.push(item as Item);
      index += 1;
    }
    if (items.length !== head.items) {
      throw new StoreInconsistentError(`version ${head.version} has ${items.length} items, its pointer says ${head.items}`);
    }
    return { version: head.version, meta: head.meta, items };
  });
}
