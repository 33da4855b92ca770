import { createMutex } from '../../core/async/create-mutex.js';
import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { ItemChunk } from '../../core/catalog/catalog-chunks.js';
import type { FamilyEnrichment } from '../../core/catalog/family-enrichment.js';
import type { CatalogStore, StoreChunk } from './catalog-store.js';
import type { CatalogLogger, CatalogMeta } from './catalog-types.js';
import { materializeTexts } from './materialize-version.js';
import type { FamilyIdentity } from './resolve-stock-export.js';
import type { ServedCatalog, ServedVersion } from './served-catalog.js';

/**
 * Persistence of the served catalog (docs/catalog-rules.md rules 8-9): full versions as a sync made them, versions
 * made by stock changes incrementally (only their changed chunks), and loading the stored version at
 * start. One job: what the store holds, in which order. Every write goes through one lock, and a full
 * sync's version is served inside it, so the store's pointer always ends on the served version.
 */
export interface CatalogWriter {
  /**
   * Stores a full sync's version (purchase prices first), then serves it. `signal` can stop it until the
   * purchase prices are published: then no pointer has moved and nothing is served.
   */
  publishFull(input: FullVersion, signal?: AbortSignal): Promise<ServedVersion>;
  /**
   * Settles once the store holds the version served now, or a newer one. Each call queues one write
   * behind the others, which stores whatever is served when its turn comes, or nothing when an earlier
   * write already covered it: a burst of stock changes costs a few writes, callers never chase versions
   * served after their call, and the store always ends on the served version.
   */
  persistServed(): Promise<void>;
  /**
   * `persistServed` a moment later: sales come in bursts, so the changes of that moment share one write
   * (bench/webhook-latency.ts). Serving does not wait for it.
   */
  persistSoon(): Promise<void>;
  /** Settles when the store holds the served version (a delayed write is started at once). */
  flush(): Promise<void>;
  /**
   * Writes the served version to a store that lost everything (a Redis restarted empty): every chunk
   * anew, whatever earlier versions had stored.
   */
  rewriteServed(): Promise<void>;
  /** Loads the stored version and serves it; `undefined` when the store has none (of this source). */
  load(): Promise<CatalogSnapshot | undefined>;
  /** Loads the stored version without serving it yet (a group switches to it together). */
  prepare(): Promise<PreparedVersion | undefined>;
  /**
   * While nothing is served: `adopt` (records the source on the stored version), then `load`, in the write
   * lock, so that a full sync publishing meanwhile either comes after (and replaces it) or leaves nothing
   * to adopt. `undefined` when nothing was adopted.
   */
  loadAdopted(adopt: () => Promise<boolean>): Promise<CatalogSnapshot | undefined>;
}

export interface FullVersion {
  readonly snapshot: CatalogSnapshot;
  readonly family: FamilyIdentity;
  readonly chunks: readonly ItemChunk[];
  readonly internal: readonly ItemChunk[];
  readonly fingerprint: string;
  /** The enrichment values taken off the snapshot's products (`materialize-version.ts`). */
  readonly enrichment?: FamilyEnrichment | undefined;
}

export interface CatalogWriterDeps {
  readonly store: CatalogStore<CatalogMeta>;
  /** Admin-only purchase prices, versioned alongside the public catalog. */
  readonly internalStore: CatalogStore<{ readonly version: string }>;
  readonly served: ServedCatalog;
  readonly logger: CatalogLogger;
  readonly now: () => Date;
  /** With several instances (docs/scale-out.md): only the leader writes, at the versions' stream positions. */
  readonly group?: WriterGroup;
}

/** A stored version loaded and ready to be served at once. */
export interface PreparedVersion {
  readonly snapshot: CatalogSnapshot;
  serve(): void;
}

export interface WriterGroup {
  /** Whether this instance may write the store now (it holds the lease). */
  canWrite(): boolean;
  positionOf(snapshot: CatalogSnapshot): string | undefined;
  noteLoaded(snapshot: CatalogSnapshot, position: string | undefined): void;
  announcing<T>(version: string, publish: () => Promise<T>): Promise<T>;
  /**
   * After a new catalog is stored and announced: makes it the group's, once the other instances have
   * loaded it (`wait`), so that they all serve it from the same moment.
   */
  switchOver(version: string, wait: boolean): Promise<void>;
}

/** How long stock changes wait to be stored together: at least this, 5× the last such store… */
const STOCK_CHANGE_STORE_DELAY_MS = 1_000;
/** …but never longer than this. */
const MAX_STOCK_CHANGE_STORE_DELAY_MS = 30_000;

function metaOf(snapshot: CatalogSnapshot, fingerprint: string): CatalogMeta {
  return {
    version: snapshot.version,
    generatedAt: snapshot.generatedAt,
    currency: snapshot.currency,
    primaryUnit: snapshot.primaryUnit,
    units: snapshot.units,
    fingerprint,
  };
}

export function createCatalogWriter(deps: CatalogWriterDeps): CatalogWriter {
  const { store, served, now, group } = deps;
  /** A new family's publish: announced to the group, which loads it from the store. */
  const announced = <T>(version: string, publish: () => Promise<T>): Promise<T> =>
    group === undefined ? publish() : group.announcing(version, publish);
  const storeWrites = createMutex();
  /** The number of the newest served version the store holds. */
  let storedSeq = 0;
  /** Store keys of the chunks already stored: a later version lists them instead of writing them again. */
  const storedKeys = new WeakMap<ItemChunk, string>();

  function chunksToWrite(chunks: readonly ItemChunk[]): StoreChunk[] {
    return chunks.map((chunk) => {
      const key = storedKeys.get(chunk);
      // Stored as the catalog holds it, deflated: not inflated, decoded and escaped on the main thread.
      return key === undefined ? { count: chunk.count, deflated: () => chunk.bytes } : { count: chunk.count, key };
    });
  }

  function remember(chunks: readonly ItemChunk[], keys: readonly string[]): void {
    for (const [index, chunk] of chunks.entries()) {
      const key = keys[index];
      if (key !== undefined) storedKeys.set(chunk, key);
    }
  }

  function persistServed(): Promise<void> {
    const target = served.latest()?.seq ?? 0;
    if (storedSeq >= target) return Promise.resolve();
    return storeWrites(async () => {
      const current = served.latest();
      if (storedSeq >= target || current === undefined || current.seq <= storedSeq) return;
      const { snapshot } = current;
      // A follower stores nothing (the leader stores what the group serves); a version whose place in the
      // change stream is unknown would send loaders to the wrong entries.
      const position = group?.positionOf(snapshot);
      if (group !== undefined && (!group.canWrite() || position === undefined)) return;
      const chunks = await served.chunksOf(current);
      // A version made by stock changes is stored without a fingerprint unless one is known: hashing the
      // catalog for every store during a burst of sales is not worth it. The next full sync computes it
      // from the chunks (in a worker) when it needs to compare.
      const keys = await store.publish(
        { version: snapshot.version, meta: metaOf(snapshot, current.fingerprint ?? ''), chunks: chunksToWrite(chunks) },
        now(),
        position === undefined ? {} : { position },
      );
      remember(chunks, keys);
      storedSeq = current.seq;
    });
  }

  let soon: { readonly stored: Promise<void>; now(): void } | undefined;
  let lastStockStoreMs = 0;

  function persistSoon(): Promise<void> {
    // 1 s, or 5× what the last such store took, so that back-to-back stores never take the CPU from the
    // sales themselves.
    if (soon !== undefined) return soon.stored;
    let start = () => {};
    const due = new Promise<void>((resolve) => {
      start = resolve;
    });
    // `flush` starts it at once; the timer does not keep a process alive that has nothing else to do.
    const timer = setTimeout(
      start,
      Math.min(Math.max(STOCK_CHANGE_STORE_DELAY_MS, 5 * lastStockStoreMs), MAX_STOCK_CHANGE_STORE_DELAY_MS),
    );
    timer.unref();
    const stored = due.then(async () => {
      soon = undefined;
      const began = performance.now();
      await persistServed();
      lastStockStoreMs = performance.now() - began;
    });
    soon = {
      stored,
      now() {
        clearTimeout(timer);
        start();
      },
    };
    return stored;
  }

  return {
    publishFull(input, signal) {
      return storeWrites(async () => {
        signal?.throwIfAborted();
        const publishedAt = now();
        const { snapshot } = input;
        const options = signal === undefined ? {} : { signal };
        // Internal data first: once the public pointer moves, its purchase prices must already be there.
        await deps.internalStore.publish(
          { version: snapshot.version, meta: { version: snapshot.version }, chunks: chunksToWrite(input.internal) },
          publishedAt,
          options,
        );
        // Not aborted past here: the purchase prices' pointer has moved to this version, so the public one
        // follows (a few seconds of writes, each under the store's own deadline).
        return announced(snapshot.version, async () => {
          const keys = await store.publish(
            { version: snapshot.version, meta: metaOf(snapshot, input.fingerprint), chunks: chunksToWrite(input.chunks) },
            publishedAt,
            { announce: true },
          );
          remember(input.chunks, keys);
          await group?.switchOver(snapshot.version, true);
          // Served inside the lock: a queued write of an older derived version then finds nothing to do.
          const version = served.serve(snapshot, {
            family: input.family,
            chunks: input.chunks,
            fingerprint: input.fingerprint,
            enrichment: input.enrichment,
          });
          storedSeq = version.seq;
          return version;
        });
      });
    },
    persistServed,
    persistSoon,
    async flush() {
      const pending = soon;
      pending?.now();
      await Promise.all([pending?.stored, persistServed()]);
    },
    load,
    prepare,
    rewriteServed() {
      return storeWrites(async () => {
        const current = served.latest();
        if (current === undefined || (group !== undefined && !group.canWrite())) return;
        const { snapshot } = current;
        const chunks = await served.chunksOf(current);
        const keys = await announced(snapshot.version, () =>
          store
            .publish(
              {
                version: snapshot.version,
                meta: metaOf(snapshot, current.fingerprint ?? ''),
                chunks: chunks.map((chunk) => ({ count: chunk.count, deflated: () => chunk.bytes })),
              },
              now(),
              { announce: true },
            )
            .then(async (keys) => {
              // Every instance serves it already.
              await group?.switchOver(snapshot.version, false);
              return keys;
            }),
        );
        remember(chunks, keys);
        storedSeq = current.seq;
      });
    },
    loadAdopted(adopt) {
      return storeWrites(async () => {
        if (served.latest() !== undefined || !(await adopt())) return undefined;
        return load();
      });
    },
  };

  async function load(): Promise<CatalogSnapshot | undefined> {
    const prepared = await prepare();
    prepared?.serve();
    return prepared?.snapshot;
  }

  async function prepare(): Promise<PreparedVersion | undefined> {
    const loaded = await store.loadCurrent(async (head, texts) => {
      // Another instance's new version (a Redis group) keeps this one's objects where its chunks are the same.
      const version = await materializeTexts(texts, served.latest());
      if (version.products.length !== head.items) {
        throw new Error(`version ${head.version} has ${version.products.length} products, its pointer says ${head.items}`);
      }
      return { head, ...version };
    });
    if (loaded === undefined) return undefined;
    const { meta } = loaded.head;
    const snapshot: CatalogSnapshot = {
      version: meta.version,
      generatedAt: meta.generatedAt,
      currency: meta.currency,
      primaryUnit: meta.primaryUnit,
      units: meta.units,
      products: loaded.products,
    };
    remember(
      loaded.chunks,
      loaded.head.chunks.map((ref) => ref.key),
    );
    return {
      snapshot,
      serve() {
        group?.noteLoaded(snapshot, loaded.head.position);
        const version = served.serve(snapshot, {
          family: { id: meta.version, index: loaded.identity },
          chunks: loaded.chunks,
          fingerprint: meta.fingerprint === '' ? undefined : meta.fingerprint,
          enrichment: loaded.enrichment,
        });
        storedSeq = version.seq;
      },
    };
  }
}
