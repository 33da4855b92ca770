import type { StockDelta } from '../../core/catalog/apply-stock.js';
import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { ItemChunk } from '../../core/catalog/catalog-chunks.js';
import type { CatalogSource } from '../../core/catalog/catalog-source.js';
import type { FamilyIndex } from '../../core/catalog/family-index.js';
import { createSourceRowsRegistry, type FamilySourceRows } from '../../core/catalog/source-rows.js';
import type { CatalogStore, StoredVersionInfo } from './catalog-store.js';
import type { CatalogLogger, CatalogMeta, CatalogServiceOptions, SyncJob, SyncPhase, SyncReport } from './catalog-types.js';
import type { CatalogWorkers } from './catalog-workers.js';
import { type CatalogWriter, createCatalogWriter } from './catalog-writer.js';
import type { ChangeJournal } from './change-journal.js';
import type { EnrichmentTableInput } from './enrich-catalog.js';
import { createFullSync, type SyncRunOptions } from './full-sync.js';
import type { GroupSwitch } from './group-switch.js';
import { createInternalPrices, type PurchasePrices } from './internal-prices.js';
import { createReplication, type Replication, type ReplicationState } from './replication.js';
import { type CatalogListener, createServedCatalog } from './served-catalog.js';
import { createStockSync, type StockDeltaResult } from './stock-sync.js';
import type { SyncRunSummary } from './sync-history.js';
import { createSyncReports } from './sync-reports.js';

export type {
  CatalogMeta,
  CatalogServiceOptions,
  PriceListReport,
  StockExportReport,
  SyncError,
  SyncJob,
  SyncOutcome,
  SyncPhase,
  SyncReport,
} from './catalog-types.js';
export { catalogServiceOptions } from './catalog-types.js';
export type { SyncRunOptions } from './full-sync.js';
export type { PurchasePrices } from './internal-prices.js';
export type { ReplicationState } from './replication.js';
export type { CatalogChange, CatalogListener } from './served-catalog.js';
export type { StockDeltaResult } from './stock-sync.js';
export type { SyncRunCounts, SyncRunSummary } from './sync-history.js';

/** Several instances on Redis (docs/scale-out.md): what the catalog needs of the group. */
export interface CatalogGroup {
  readonly journal: ChangeJournal;
  readonly switching: GroupSwitch;
  /** The source id the group's changes are recorded for. */
  readonly source: string;
  /** Whether this instance holds the lease (only the leader writes the store). */
  readonly isLeader: () => boolean;
}

export interface CatalogServiceDeps {
  /** Everything a sync reads from the POS, `workers` reads (in worker threads in the app). */
  readonly workers: CatalogWorkers;
  readonly store: CatalogStore<CatalogMeta>;
  /** Admin-only purchase prices, versioned alongside the public catalog. */
  readonly internalStore: CatalogStore<{ readonly version: string }>;
  readonly options: CatalogServiceOptions;
  readonly logger: CatalogLogger;
  readonly now: () => Date;
  /**
   * Optional timing probe, called as each phase of a full sync ends with its wall time in ms (and the
   * unit code for per-unit phases). Used by `bench/full-sync.ts`, and by the app for the admin area's progress page.
   */
  readonly onPhase?: (phase: SyncPhase, ms: number, unit?: string) => void;
  /** Aborts every run, whoever started it (a shutdown); each run also has its own deadline and signal. */
  readonly signal?: AbortSignal;
  /** Set when several instances share a Redis store. */
  readonly group?: CatalogGroup;
  /** The last good enrichment sheet, applied by every full sync (`ENRICHMENT_SOURCE`, docs/enrichment.md). */
  readonly enrichment?: () => Promise<EnrichmentTableInput | undefined>;
}

export interface CatalogService {
  /** The version being served; `undefined` before the first one exists. */
  current(): CatalogSnapshot | undefined;
  /**
   * Loads the last published version from the store, so it is served at once after a restart; only a
   * version of the store's source (the configured POS) is loaded.
   */
  loadFromStore(): Promise<CatalogSnapshot | undefined>;
  /** What the store's current version is and where it came from, whether it can be served or not. */
  storedCatalog(): Promise<StoredVersionInfo<CatalogMeta> | undefined>;
  /**
   * Serves the stored `version`, recorded as `from`'s (`undefined`: stored before sources were recorded),
   * as the configured source's after all, recording that in the public and the internal store: while
   * nothing is served and the store still names it. `undefined` when it did not.
   */
  adoptStored(version: string, from: CatalogSource | undefined): Promise<CatalogSnapshot | undefined>;
  /** Re-reads the store's pointer and loads a version another instance published. */
  refreshFromStore(): Promise<boolean>;
  /**
   * A full sync, under the deadline of the options (`deadlineMs`) and `run.signal` (a shutdown): past
   * either it is aborted and reported failed with the phase it was in; the last good version stays.
   */
  syncCatalog(run?: SyncRunOptions): Promise<SyncReport>;
  /**
   * Re-reads the stock exports (of `units` only, by code, when given) and applies them to the served
   * version: served at once, stored before the promise settles. Under the same deadline as `syncCatalog`.
   */
  syncStock(options?: { readonly units?: readonly string[]; readonly signal?: AbortSignal }): Promise<SyncReport>;
  /**
   * Applies stock changes (sales) to the served version at once and stores it in the background
   * (`persisted`; stores coalesce, the newest served version wins). Nothing happens before a first version.
   */
  applyStockDeltas(deltas: readonly StockDelta[]): Promise<StockDeltaResult | undefined>;
  /** The serialized chunks of a version this service served (for renders in worker threads). */
  chunksOf(snapshot: CatalogSnapshot): Promise<readonly ItemChunk[] | undefined>;
  /** The indexes of the snapshot's catalog family (positions, identifier lookups, unit counts). */
  familyIndex(snapshot: CatalogSnapshot): Promise<FamilyIndex>;
  /** The purchase prices of the last full sync (admin only); `undefined` before one is stored. */
  purchasePrices(): Promise<PurchasePrices | undefined>;
  /** Which rows of its last full sync's documents gave the products of the snapshot's family their values. */
  sourceRows(snapshot: CatalogSnapshot): FamilySourceRows | undefined;
  /** Settles when the store holds the version served now (before closing the store). */
  flush(): Promise<void>;
  /** Writes the served version to a store that lost it (restarted empty), all of it. */
  rewriteStore(): Promise<void>;
  lastReport(job: SyncJob): SyncReport | undefined;
  recentReports(job: SyncJob): Promise<unknown[]>;
  /** The job's last runs from the store, newest first (docs/console.md#sync-history). */
  syncHistory(job: SyncJob): Promise<SyncRunSummary[]>;
  /** A stored run's whole report, by its run id. */
  syncRun(runId: string): Promise<SyncReport | undefined>;
  /**
   * Called after every change of the served version (own publish or loaded from the store), with what
   * changed when the version was made from the previous one by stock changes.
   */
  onChange(listener: CatalogListener): void;
  /** With a group: follows the group's change stream until `stopFollowing`. */
  startFollowing(): void;
  stopFollowing(): Promise<void>;
  /** With a group: where this instance stands in it; `undefined` without one. */
  groupState(): Promise<ReplicationState | undefined>;
  /** With a group: loads the stored version when it is the group's and this instance serves another. */
  catchUpWithGroup(): Promise<boolean>;
}

/** How long a new catalog waits for the group's other instances to load it before the group switches anyway. */
const SWITCH_WAIT_MS = 15_000;

/**
 * The catalog's use cases, composed from rooms with one job each (`src/services/catalog/`): the served
 * version (`served-catalog.ts`), persistence (`catalog-writer.ts`), the full sync (`full-sync.ts`,
 * reading in a worker: `read-catalog.ts`), stock re-reads and sales (`stock-sync.ts`) and run reports
 * (`sync-reports.ts`).
 */
export function createCatalogService(deps: CatalogServiceDeps): CatalogService {
  const { store, logger, now } = deps;
  const served = createServedCatalog(logger);
  const reports = createSyncReports(store, logger);
  // Bound once the stock sync exists: the group's stock changes mark its units (full syncs re-read them).
  let onStockChanged: (units: readonly string[]) => void = () => undefined;
  let onMissedChange: (units: readonly string[]) => void = () => undefined;
  const writerRef: { current?: CatalogWriter } = {};
  const replication: Replication | undefined =
    deps.group &&
    createReplication({
      journal: deps.group.journal,
      source: deps.group.source,
      served,
      load: async () => writerRef.current?.load(),
      prepare: async () => writerRef.current?.prepare(),
      markReady: (version) => deps.group?.switching.markReady(version) ?? Promise.resolve(),
      storedVersion: () => store.currentVersion(),
      onStockChanged: (units) => onStockChanged(units),
      // The leader reads those units' stock again (once for the group).
      onMissedChange: (units) => onMissedChange(units),
      logger,
    });
  const group = deps.group;
  const writer = createCatalogWriter({
    store,
    internalStore: deps.internalStore,
    served,
    logger,
    now,
    ...(group === undefined || replication === undefined
      ? {}
      : {
          group: {
            canWrite: group.isLeader,
            positionOf: replication.positionOf,
            noteLoaded: replication.noteLoaded,
            announcing: replication.announcing,
            async switchOver(version, wait) {
              if (wait) {
                const { ready, members } = await group.switching.waitReady(version, SWITCH_WAIT_MS);
                if (ready < members)
                  logger.warn({ version, ready, members }, 'switching the group before every instance loaded the catalog');
              }
              await group.switching.switchTo(version, group.source);
            },
          },
        }),
  });
  const stock = createStockSync({
    ...(replication === undefined ? {} : { replication }),
    ...(deps.signal === undefined ? {} : { signal: deps.signal }),
    served,
    writer,
    workers: deps.workers,
    reports,
    options: deps.options,
    logger,
    now,
  });
  writerRef.current = writer;
  onStockChanged = (units) => {
    stock.markStockChanged(units);
    // The leader stores what the group serves (a follower's writer stores nothing).
    if (replication !== undefined)
      writer.persistSoon().catch((error: unknown) => logger.error({ err: error }, 'could not store the catalog'));
  };
  onMissedChange = (units) => {
    if (deps.group?.isLeader() !== true || units.length === 0) return;
    logger.info({ units }, 'a stock change came before a newer catalog; reading those units again');
    void stock.syncStock({ units: [...units] });
  };
  const sourceRows = createSourceRowsRegistry();
  const syncCatalog = createFullSync({
    sourceRows,
    ...(deps.signal === undefined ? {} : { signal: deps.signal }),
    served,
    writer,
    workers: deps.workers,
    stock,
    reports,
    options: deps.options,
    logger,
    now,
    ...(deps.onPhase === undefined ? {} : { onPhase: deps.onPhase }),
    ...(deps.enrichment === undefined ? {} : { enrichment: deps.enrichment }),
  });

  const internalPrices = createInternalPrices(deps.internalStore);

  return {
    current: () => served.current(),
    loadFromStore: () => writer.load(),
    storedCatalog: () => store.describeCurrent(),
    adoptStored: (version, from) =>
      writer.loadAdopted(async () => {
        if (!(await store.adoptCurrent(from, version))) return false;
        // Its purchase prices: whatever version the internal store names, of the same source.
        await deps.internalStore.adoptCurrent(from);
        return true;
      }),
    async refreshFromStore() {
      const version = await store.currentVersion();
      if (version === undefined || version === served.current()?.version) return false;
      await writer.load();
      return true;
    },
    syncCatalog,
    syncStock: (options) => stock.syncStock(options),
    applyStockDeltas: (deltas) => stock.applyStockDeltas(deltas),
    async chunksOf(snapshot) {
      const version = served.versionOf(snapshot);
      return version === undefined ? undefined : served.chunksOf(version);
    },
    familyIndex: (snapshot) => served.indexOf(snapshot),
    purchasePrices: () => internalPrices.load(),
    sourceRows: (snapshot) => sourceRows.get(snapshot),
    async flush() {
      await stock.rereadDone();
      await writer.flush();
    },
    rewriteStore: () => writer.rewriteServed(),
    lastReport: (job) => reports.last(job),
    recentReports: (job) => reports.recent(job),
    syncHistory: (job) => reports.history(job),
    syncRun: (runId) => reports.run(runId),
    onChange: (listener) => served.onChange(listener),
    startFollowing: () => replication?.start(),
    stopFollowing: async () => replication?.stop(),
    groupState: async () => replication?.state(),
    catchUpWithGroup: async () => (await replication?.catchUp()) ?? false,
  };
}
