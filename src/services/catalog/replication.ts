import { setTimeout as sleep } from 'node:timers/promises';
import { createMutex } from '../../core/async/create-mutex.js';
import { settledWithin } from '../../core/async/settled-within.js';
import type { CatalogSnapshot, Product } from '../../core/catalog/catalog.js';
import { productsWithValues, withoutValues } from '../../core/catalog/family-enrichment.js';
import type { CatalogLogger } from './catalog-types.js';
import type { PreparedVersion } from './catalog-writer.js';
import type { ChangeJournal, JournalEntry } from './change-journal.js';
import type { ServedCatalog, ServedVersion } from './served-catalog.js';

/**
 * Several instances on Redis serve one sequence of catalog versions (docs/scale-out.md). New families (full
 * syncs) are stored by the leader and announced in the group's change stream; every other instance loads
 * each once. Versions made by stock changes (sales, stock re-reads), by any instance, are appended to the
 * stream as the products they changed, onto the version the stream ends on (compare-and-set); every
 * instance, the one that made it included, serves exactly that version, with the same id, from the base
 * it already holds: no instance reloads the catalog for a sale.
 */
export interface Replication {
  /**
   * Appends a version made from `base` by stock changes and serves it. `false` when `base` is no longer
   * the newest version (another instance's change came first): make it again from what is served then.
   */
  publishDerived(
    base: ServedVersion,
    snapshot: CatalogSnapshot,
    positions: readonly number[],
    units: readonly string[],
  ): Promise<boolean>;
  /** Settles when the served version is no longer `base`, or after `ms`. */
  waitPast(base: ServedVersion, ms: number): Promise<void>;
  /** The change-stream position of a version this instance served. */
  positionOf(snapshot: CatalogSnapshot): string | undefined;
  /** A version loaded from the store, at its position. */
  noteLoaded(snapshot: CatalogSnapshot, position: string | undefined): void;
  /** Runs this instance's own publish of a new family: its announcement is not loaded back from the store. */
  announcing<T>(version: string, publish: () => Promise<T>): Promise<T>;
  /**
   * The fallback for a follower that lags without noticing (its stream reads fail, or it missed an
   * announcement): when the store holds the group's current version and this instance serves another, it
   * loads it. Returns whether it did.
   */
  catchUp(): Promise<boolean>;
  /** Follows the change stream until `stop`. */
  start(): void;
  stop(): Promise<void>;
  /** For `/readyz`, the status page and `/metrics`. */
  state(): Promise<ReplicationState>;
}

export interface ReplicationState {
  /** The version the group's change stream ends on. */
  readonly groupVersion: string | undefined;
  /** Changes in the stream this instance has not applied yet. */
  readonly behind: number;
  /** Stored versions this instance loaded since it started (new families, or catching up). */
  readonly loads: number;
}

export interface ReplicationDeps {
  readonly journal: ChangeJournal;
  readonly source: string;
  readonly served: ServedCatalog;
  /** Loads and serves the store's current version (`catalog-writer.ts`). */
  readonly load: () => Promise<CatalogSnapshot | undefined>;
  /** Loads the store's current version without serving it (a new catalog, served at the group's switch). */
  readonly prepare?: () => Promise<PreparedVersion | undefined>;
  /** Tells the group this instance has loaded `version` and can serve it at once. */
  readonly markReady?: (version: string) => Promise<void>;
  /** The version the store's pointer names (cheap). */
  readonly storedVersion: () => Promise<string | undefined>;
  /** A version made by stock changes was served: the units whose stock changed (full syncs re-read them). */
  readonly onStockChanged: (units: readonly string[]) => void;
  /** A change made on a version a newer catalog replaced: the units whose stock should be read again. */
  readonly onMissedChange?: (units: readonly string[]) => void;
  readonly logger: CatalogLogger;
  /** How long a blocking read of the stream waits. */
  readonly blockMs?: number;
}

/** What a stock entry of the stream carries. */
interface StockChangeBody {
  readonly generatedAt: string;
  readonly units: readonly string[];
  readonly products: readonly Product[];
}

export function createReplication(deps: ReplicationDeps): Replication {
  const { journal, served, logger } = deps;
  /** Serving goes through this: an entry is applied, or a change published, on the version it was made from. */
  const exclusive = createMutex();
  /** Change-stream position by version id, of the recent versions (a version is known here before it is served). */
  const positions = new Map<string, string>();
  function place(version: string, id: string): void {
    positions.set(version, id);
    if (positions.size > 1_000) positions.delete(positions.keys().next().value as string);
  }
  let cursor: string | undefined;
  let stopped = false;
  let following: Promise<void> | undefined;
  let loads = 0;
  /** Versions this instance's full publish is announcing (it serves them itself), until that publish ends. */
  const announcing = new Map<string, Promise<unknown>>();
  /** Versions this instance served before: a change made on one of them came before a newer catalog. */
  const past = new Set<string>();
  served.onChange((snapshot) => {
    past.add(snapshot.version);
    if (past.size > 1_000) past.delete(past.values().next().value as string);
  });
  /** Bumped when the cursor is moved from outside the reading loop: a read in flight is then dropped. */
  let generation = 0;
  /** A new catalog announced and being loaded, to be served at its `serve` entry. */
  let staged: { readonly version: string; readonly prepared: Promise<PreparedVersion | undefined> } | undefined;

  /** Loads an announced catalog in the background and tells the group once it can be served. */
  function stage(version: string): void {
    if (staged?.version === version || deps.prepare === undefined) return;
    const prepare = deps.prepare;
    const prepared = (async () => {
      const loaded = await prepare();
      if (loaded?.snapshot.version === version) await deps.markReady?.(version);
      return loaded;
    })();
    // Awaited at the `serve` entry; a failure there means a reload.
    prepared.catch((error: unknown) => logger.warn({ err: error, version }, 'loading the announced catalog failed'));
    staged = { version, prepared };
  }

  /** Serves the staged catalog when it is `version`; whether it did. */
  async function serveStaged(version: string): Promise<boolean> {
    const candidate = staged;
    if (candidate?.version !== version) return false;
    staged = undefined;
    const prepared = await candidate.prepared.catch(() => undefined);
    if (prepared?.snapshot.version !== version) return false;
    positions.clear();
    prepared.serve();
    loads += 1;
    return true;
  }

  async function reload(reason: string): Promise<void> {
    logger.info({ reason }, 'loading the catalog version the group stored');
    loads += 1;
    // What this instance applied since no longer counts: it starts again from the stored version.
    positions.clear();
    await deps.load();
  }

  /** Applies one entry; returns the cursor to go on from. */
  async function apply(entry: JournalEntry): Promise<string> {
    if (entry.source !== deps.source) return entry.id;
    if (positions.get(entry.version) === entry.id) {
      // Made here (its reader comes after it), or applied already.
      return entry.id;
    }
    if (entry.kind === 'full' && announcing.has(entry.version)) {
      // This instance's own new catalog: it serves it itself when the group switches.
      if (!positions.has(entry.version)) place(entry.version, entry.id);
      return entry.id;
    }
    // This instance's own full publish of the version (or of the one the change was made on) is ending
    // (the group switched to it): what it serves once that ends decides.
    const publishing = announcing.get(entry.version) ?? (entry.kind === 'stock' ? announcing.get(entry.base) : undefined);
    if (publishing !== undefined) await publishing.catch(() => undefined);
    const latest = served.latest();
    if (latest?.snapshot.version === entry.version) {
      if (!positions.has(entry.version)) place(entry.version, entry.id);
      return entry.id;
    }
    if (entry.kind === 'stock' && latest !== undefined && latest.snapshot.version === entry.base) {
      if (await applyStock(latest, entry)) return entry.id;
    }
    if (entry.kind === 'full') {
      // A new catalog: loaded now, served with the whole group at its `serve` entry.
      if (deps.prepare !== undefined) {
        stage(entry.version);
        return entry.id;
      }
    }
    if (entry.kind === 'serve' && (await serveStaged(entry.version))) {
      place(entry.version, entry.id);
      return entry.id;
    }
    if (entry.kind === 'stock' && latest !== undefined && past.has(entry.base)) {
      // Made on a version this instance has moved past (a newer catalog came first here): not applied on
      // it, as on every instance that serves the newer catalog; its units' stock is read again instead.
      deps.onMissedChange?.(unitsOf(entry));
      return entry.id;
    }
    if (entry.kind === 'stock' && latest !== undefined && (await deps.storedVersion()) === latest.snapshot.version) {
      // The store holds what this instance serves, and the change is not on it: it was made on the catalog
      // the group served before this one was loaded (between a new catalog's announcement and its switch).
      // The leader reads its units again after the switch.
      return entry.id;
    }
    // A new catalog this instance did not stage, or changes it cannot place (it missed some): the stored
    // version, then the stream from where that version stands.
    await reload(entry.kind === 'stock' ? `change ${entry.id} is not on the served version` : `catalog ${entry.version}`);
    const loaded = served.latest();
    const now = loaded?.snapshot;
    if (loaded === undefined || now === undefined) return entry.id;
    if (entry.kind === 'serve' && now.version === entry.version) place(entry.version, entry.id);
    // The stored version is the one the change was made from: apply it now.
    if (entry.kind === 'stock' && now.version === entry.base && (await applyStock(loaded, entry))) return entry.id;
    return positions.get(now.version) ?? entry.id;
  }

  async function applyStock(base: ServedVersion, entry: JournalEntry & { kind: 'stock' }): Promise<boolean> {
    const body = JSON.parse(entry.body) as StockChangeBody;
    const index = await served.indexOf(base.snapshot);
    if (served.latest() !== base) return false;
    const products = base.snapshot.products.slice();
    const changed: number[] = [];
    for (const product of body.products) {
      const position = index.positions.get(product.id);
      if (position === undefined) return false;
      // The family keeps the values (served-catalog.ts); the served product does not.
      products[position] = base.enrichment === undefined ? product : withoutValues(product);
      changed.push(position);
    }
    const snapshot: CatalogSnapshot = { ...base.snapshot, version: entry.version, generatedAt: body.generatedAt, products };
    served.serveDerived(base, snapshot, changed);
    place(snapshot.version, entry.id);
    deps.onStockChanged(body.units);
    return true;
  }

  async function follow(): Promise<void> {
    let failures = 0;
    while (!stopped) {
      try {
        if (cursor === undefined) {
          const current = served.latest()?.snapshot;
          cursor = (current && positions.get(current.version)) ?? (await journal.lastId());
        }
        const reading = generation;
        const entries = await journal.read(cursor, deps.blockMs ?? 1_000);
        // Moved meanwhile (a catch-up loaded the stored version): read again from there.
        if (reading !== generation) continue;
        for (const entry of entries) {
          const next = await exclusive(() => apply(entry));
          cursor = next;
          // Repositioned (a reload): read on from there.
          if (next !== entry.id) break;
        }
        failures = 0;
      } catch (error) {
        if (stopped) return;
        if (failures === 0) logger.warn({ err: error }, 'reading the group change stream failed; retrying');
        failures += 1;
        await sleep(Math.min(250 * failures, 2_000));
      }
    }
  }

  return {
    publishDerived(base, snapshot, changed, units) {
      return exclusive(async () => {
        if (served.latest() !== base) return false;
        const body: StockChangeBody = {
          generatedAt: snapshot.generatedAt,
          units,
          // Whole, values included: the record says what the products are, whatever a reader keeps off them.
          products: productsWithValues(base.enrichment, snapshot.products, changed),
        };
        const appended = await journal.appendStock({
          base: base.snapshot.version,
          version: snapshot.version,
          source: deps.source,
          body: JSON.stringify(body),
        });
        if (!appended.ok) return false;
        served.serveDerived(base, snapshot, changed);
        place(snapshot.version, appended.id);
        deps.onStockChanged(units);
        return true;
      });
    },
    async waitPast(base, ms) {
      const until = Date.now() + ms;
      while (served.latest() === base && Date.now() < until) await sleep(20);
    },
    positionOf: (snapshot) => positions.get(snapshot.version),
    noteLoaded(snapshot, position) {
      if (position !== undefined) place(snapshot.version, position);
    },
    async announcing<T>(version: string, publish: () => Promise<T>): Promise<T> {
      const running = publish();
      announcing.set(version, running);
      try {
        return await running;
      } finally {
        announcing.delete(version);
      }
    },
    catchUp() {
      return exclusive(async () => {
        const [head, stored] = await Promise.all([journal.head(), deps.storedVersion()]);
        const current = served.latest()?.snapshot.version;
        if (head === undefined || head === current || stored !== head) return false;
        await reload(`serving ${current ?? 'nothing'} while the group serves ${head}`);
        const now = served.latest()?.snapshot;
        // Read the stream on from the loaded version.
        if (now !== undefined) cursor = positions.get(now.version) ?? cursor;
        generation += 1;
        return true;
      });
    },
    start() {
      following ??= follow();
    },
    async stop() {
      stopped = true;
      // Bounded: a blocking read waits for its command's deadline while Redis is away.
      await settledWithin(following, 500);
    },
    async state() {
      const groupVersion = await journal.head();
      const current = served.latest()?.snapshot;
      const at = current === undefined ? undefined : positions.get(current.version);
      const behind =
        groupVersion === undefined || groupVersion === current?.version
          ? 0
          : at === undefined
            ? 1
            : await journal.countAfter(at, 100);
      return { groupVersion, behind: Math.max(behind, groupVersion === current?.version ? 0 : 1), loads };
    },
  };
}

/** The units a stock entry changed (for reading them again); none when its body cannot be read. */
function unitsOf(entry: JournalEntry & { kind: 'stock' }): readonly string[] {
  try {
    return (JSON.parse(entry.body) as StockChangeBody).units;
  } catch {
    return [];
  }
}
