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
  /** Most items per stored value: a large catalog is many moderate values, never one giant one. Default 2,000. */
  readonly chunkSize?: number;
  /**
   * About how many characters of JSON per stored value. Default 128 Ki (~120 products, or 2,000 small
   * items): the texts of the chunk being written must die young (see `publish`); 2,000-product chunks
   * left ~200 MB of promoted garbage per 100,000-product publish, while each value costs a write
   * (bench/full-sync.ts).
   */
  readonly chunkChars?: number;
  /** Versions kept (the current one included), so a reader that started on the previous one can finish. */
  readonly keepVersions?: number;
  readonly keepReports?: number;
  /** Parallel reads of chunks. Publishing writes one chunk at a time (see `publish`). */
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
  const chunkChars = options.chunkChars ?? 128 * 1024;
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
      const stored: unknown = await keyv.get(chunkKey(pointer.version, index));
      const chunk = decodeChunk<Item>(stored);
      if (chunk === undefined)
        throw new StoreInconsistentError(`chunk ${index} of version ${pointer.version} is missing or unreadable`);
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
      await keyv.set(metaKey(catalog.version), catalog.meta);
      // Each chunk is stored as its JSON text (see `encodeChunk`), made only when it is written, and chunks
      // are written one at a time: the texts (the JSON, keyv's escaped copy, the driver's flat copy) then die
      // young. Writing 4 × 2,000-item chunks at once kept them alive across scavenges, and the promoted
      // garbage raised a 100,000-product publish's peak RSS by ~400 MB (bench/full-sync.ts). SQLite writes
      // one statement at a time anyway.
      let chunkCount = 0;
      for (const text of encodeChunks(catalog.items, chunkSize, chunkChars)) {
        await keyv.set(chunkKey(catalog.version, chunkCount), text);
        chunkCount += 1;
      }
      const pointer: VersionPointer = {
        version: catalog.version,
        publishedAt: publishedAt.toISOString(),
        chunks: chunkCount,
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

/**
 * The chunks of a version as stored: each the JSON text of up to `maxItems` items, about `maxChars`
 * characters (the item count of each chunk comes from the average item size of the one before), made
 * by one native `JSON.stringify` per chunk, one chunk at a time. Handing keyv the arrays themselves would
 * run keyv's default serializer, a recursive JS walk that concatenates strings: for a 100,000-item
 * catalog it took ~2.5 s of CPU and left ~600 MB of string ropes for the GC (bench/full-sync.ts). keyv
 * then stores the text as one JSON string, which its (reviver-based) deserializer reads back cheaply.
 * Items are plain JSON data (no Buffers, Dates or `undefined` fields), so the round trip is exact.
 */
function* encodeChunks(items: readonly unknown[], maxItems: number, maxChars: number): Generator<string> {
  let start = 0;
  let count = Math.min(maxItems, FIRST_CHUNK_ITEMS);
  while (start < items.length) {
    const end = Math.min(items.length, start + count);
    const text = JSON.stringify(items.slice(start, end));
    yield text;
    const charsPerItem = text.length / (end - start);
    count = Math.max(1, Math.min(maxItems, Math.floor(maxChars / charsPerItem)));
    start = end;
  }
}

/** Items of the first chunk, before any item size is known. */
const FIRST_CHUNK_ITEMS = 64;

/** The items of a stored chunk: JSON text, or an array as versions before `encodeChunk` stored it; else `undefined`. */
function decodeChunk<Item>(stored: unknown): Item[] | undefined {
  if (Array.isArray(stored)) return stored as Item[];
  if (typeof stored !== 'string') return undefined;
  try {
    const items: unknown = JSON.parse(stored);
    return Array.isArray(items) ? (items as Item[]) : undefined;
  } catch {
    return undefined;
  }
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}
