import type { Keyv } from 'keyv';
import { mapLimit } from '../../core/async/map-limit.js';

/** One published catalog version: small metadata plus the (large) item list. */
export interface StoredCatalog<Meta, Item> {
  readonly version: string;
  readonly meta: Meta;
  readonly items: readonly Item[];
}

interface VersionPointer {
  readonly version: string;
  readonly publishedAt: string;
  readonly chunks: number;
  readonly items: number;
}

export interface CatalogStore<Meta, Item> {
  /** Writes every chunk of the version, then moves the "current" pointer to it, then prunes old versions. */
  publish(catalog: StoredCatalog<Meta, Item>, publishedAt: Date): Promise<void>;
  /** The version the pointer names, without loading it (cheap; other instances poll it). */
  currentVersion(): Promise<string | undefined>;
  loadCurrent(): Promise<StoredCatalog<Meta, Item> | undefined>;
  /** Keeps the last `keepReports` reports per job, newest first. */
  saveReport(job: string, report: unknown): Promise<void>;
  recentReports(job: string): Promise<unknown[]>;
  close(): Promise<void>;
}

export class StoreInconsistentError extends Error {
  override readonly name = 'StoreInconsistentError';
  readonly code = 'STORE_INCONSISTENT';
}

export interface KeyvCatalogStoreOptions {
  /** Items per stored value: a large catalog is many moderate values, never one giant one. */
  readonly chunkSize?: number;
  /** Versions kept (the current one included), so a reader that started on the previous one can finish. */
  readonly keepVersions?: number;
  readonly keepReports?: number;
  /** Parallel writes or reads of chunks. */
  readonly concurrency?: number;
  /** Key prefix, so one keyv holds several independent version lists (public catalog, internal data). */
  readonly prefix?: string;
}

/**
 * Versioned catalog snapshots on keyv (SPEC §4 rules 8-9): a reader sees the old or the new version,
 * never a mix, because the pointer moves only after the new version is completely written.
 */
export function createKeyvCatalogStore<Meta, Item>(keyv: Keyv, options: KeyvCatalogStoreOptions = {}): CatalogStore<Meta, Item> {
  const chunkSize = options.chunkSize ?? 2_000;
  const keepVersions = Math.max(2, options.keepVersions ?? 3);
  const keepReports = options.keepReports ?? 10;
  const concurrency = options.concurrency ?? 4;
  const prefix = options.prefix ?? 'catalog';
  const POINTER_KEY = `${prefix}:current`;
  const VERSIONS_KEY = `${prefix}:versions`;

  const metaKey = (version: string) => `${prefix}:v:${version}:meta`;
  const chunkKey = (version: string, index: number) => `${prefix}:v:${version}:chunk:${index}`;

  async function deleteVersion(pointer: VersionPointer): Promise<void> {
    const keys = [metaKey(pointer.version)];
    for (let i = 0; i < pointer.chunks; i++) keys.push(chunkKey(pointer.version, i));
    await keyv.deleteMany(keys);
  }

  async function loadVersion(pointer: VersionPointer): Promise<StoredCatalog<Meta, Item>> {
    const meta = (await keyv.get(metaKey(pointer.version))) as Meta | undefined;
    if (meta === undefined) throw new StoreInconsistentError(`metadata of version ${pointer.version} is missing`);
    const chunks = await mapLimit(range(pointer.chunks), concurrency, async (index) => {
      const chunk = (await keyv.get(chunkKey(pointer.version, index))) as Item[] | undefined;
      if (!Array.isArray(chunk)) throw new StoreInconsistentError(`chunk ${index} of version ${pointer.version} is missing`);
      return chunk;
    });
    const items = chunks.flat();
    if (items.length !== pointer.items) {
      throw new StoreInconsistentError(`version ${pointer.version} has ${items.length} items, its pointer says ${pointer.items}`);
    }
    return { version: pointer.version, meta, items };
  }

  return {
    async publish(catalog, publishedAt) {
      const chunks: (readonly Item[])[] = [];
      for (let start = 0; start < catalog.items.length; start += chunkSize) {
        chunks.push(catalog.items.slice(start, start + chunkSize));
      }
      await keyv.set(metaKey(catalog.version), catalog.meta);
      await mapLimit(range(chunks.length), concurrency, (index) => keyv.set(chunkKey(catalog.version, index), chunks[index]));
      const pointer: VersionPointer = {
        version: catalog.version,
        publishedAt: publishedAt.toISOString(),
        chunks: chunks.length,
        items: catalog.items.length,
      };
      await keyv.set(POINTER_KEY, pointer);

      const known = ((await keyv.get(VERSIONS_KEY)) as VersionPointer[] | undefined) ?? [];
      const versions = [pointer, ...known.filter((entry) => entry.version !== pointer.version)];
      await keyv.set(VERSIONS_KEY, versions.slice(0, keepVersions));
      for (const old of versions.slice(keepVersions)) await deleteVersion(old);
    },

    async currentVersion() {
      const pointer = (await keyv.get(POINTER_KEY)) as VersionPointer | undefined;
      return pointer?.version;
    },

    async loadCurrent() {
      // A version pruned while we read it (another instance published twice meanwhile): read the pointer again.
      for (let attempt = 1; ; attempt++) {
        const pointer = (await keyv.get(POINTER_KEY)) as VersionPointer | undefined;
        if (pointer === undefined) return undefined;
        try {
          return await loadVersion(pointer);
        } catch (error) {
          if (!(error instanceof StoreInconsistentError) || attempt >= 3) throw error;
        }
      }
    },

    async saveReport(job, report) {
      const key = `${prefix}:reports:${job}`;
      const reports = ((await keyv.get(key)) as unknown[] | undefined) ?? [];
      await keyv.set(key, [report, ...reports].slice(0, keepReports));
    },

    async recentReports(job) {
      return ((await keyv.get(`${prefix}:reports:${job}`)) as unknown[] | undefined) ?? [];
    },

    async close() {
      await keyv.disconnect();
    },
  };
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}
