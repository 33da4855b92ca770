import { withDeadline } from '../../core/async/deadline.js';
import { mapLimit } from '../../core/async/map-limit.js';
import { applyResolvedStock, type ResolvedStockExport } from '../../core/catalog/apply-resolved-stock.js';
import type { StockDelta } from '../../core/catalog/apply-stock.js';
import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import { createCatalogVersion } from '../../core/catalog/catalog-version.js';
import {
  type CatalogLogger,
  type CatalogServiceOptions,
  DEFAULT_SYNC_DEADLINE_MS,
  type StockExportReport,
  type SyncReport,
  type SyncSources,
  syncErrorOf,
  timingSince,
} from './catalog-types.js';
import type { CatalogWorkers } from './catalog-workers.js';
import type { CatalogWriter } from './catalog-writer.js';
import type { Replication } from './replication.js';
import type { ServedCatalog, ServedVersion } from './served-catalog.js';
import {
  APPEND_RETRY_WAIT_MS,
  applyStockDeltas,
  MAX_APPEND_ATTEMPTS,
  type StockDeltaResult,
  type StockDeltasDeps,
} from './stock-deltas.js';
import { changedEntries, createStockExportResolver } from './stock-exports.js';
import type { SyncReports } from './sync-reports.js';

export type { StockDeltaResult } from './stock-deltas.js';

export interface StockSync {
  /**
   * Re-reads the stock exports (of `units` only, by code, when given) and applies them to the served
   * version: served at once, stored before the promise settles.
   */
  syncStock(options?: { readonly units?: readonly string[]; readonly signal?: AbortSignal }): Promise<SyncReport>;
  /**
   * Applies stock changes (sales) to the served version at once and stores it in the background
   * (`persisted`; stores coalesce, the newest served version wins). Nothing happens before a first version.
   */
  applyStockDeltas(deltas: readonly StockDelta[]): Promise<StockDeltaResult | undefined>;
  /**
   * After a full sync published a catalog whose stock was read from `readFrom` (performance.now()) on:
   * the units whose stock changed since (sales, re-reads) lost those changes, so their stock is read
   * again, in the background.
   */
  rereadChangedSince(readFrom: number, snapshot: CatalogSnapshot): void;
  /** Settles when the re-read started by `rereadChangedSince` (if any) has ended. */
  rereadDone(): Promise<void>;
  /** The article count of the last full sync that read the POS, published or not (the exports' limits follow it). */
  noteArticleCount(count: number): void;
  /** Stock of these units changed (here, or by another instance of the group). */
  markStockChanged(units: Iterable<string>): void;
}

export interface StockSyncDeps {
  readonly served: ServedCatalog;
  readonly writer: CatalogWriter;
  readonly workers: CatalogWorkers;
  readonly reports: SyncReports;
  readonly options: CatalogServiceOptions;
  readonly logger: CatalogLogger;
  readonly now: () => Date;
  /** Aborts every run (a shutdown). */
  readonly signal?: AbortSignal;
  /** With several instances: versions made here are appended to the group's change stream (docs/scale-out.md). */
  readonly replication?: Replication;
}

/**
 * Stock between full syncs: re-read exports (scheduled, or after sales) and sales applied from their
 * movements. Fetching, parsing and resolving an export runs in a worker; applying it compares the worker's
 * positions with the served stocks in slices and copies only the products that changed.
 */
export function createStockSync(deps: StockSyncDeps): StockSync {
  const { served, writer, workers, reports, options, logger, now } = deps;
  const { readForServed, noteArticleCount } = createStockExportResolver({ served, workers, options, logger });

  /**
   * Per unit, when the stock export last applied was read (performance.now()), and when its stock last
   * changed by any means: an export read earlier than the one applied is not applied over it, and a full
   * sync re-reads the units whose stock changed while it ran.
   */
  const stockReadAt = new Map<string, number>();
  const stockChangedAt = new Map<string, number>();
  let rereading: Promise<unknown> | undefined;

  function markStockChanged(units: Iterable<string>): void {
    const at = performance.now();
    for (const unit of units) stockChangedAt.set(unit, at);
  }

  async function syncStock(
    only: { readonly units?: readonly string[]; readonly signal?: AbortSignal } = {},
  ): Promise<SyncReport> {
    const started = now();
    const previous = served.latest();
    if (previous === undefined) {
      return reports.finish({
        job: 'sync-stock',
        outcome: 'skipped',
        ...timingSince(started, now),
        reason: 'no catalog version yet; the full sync comes first',
      });
    }
    const base = { job: 'sync-stock' as const, previousVersion: previous.snapshot.version };
    const deadline = withDeadline(options.deadlineMs ?? DEFAULT_SYNC_DEADLINE_MS, only.signal, deps.signal);
    const { signal } = deadline;
    let phase = 'stock';
    try {
      const wanted = only.units === undefined ? undefined : new Set(only.units);
      const units = previous.snapshot.units
        .filter((unit) => wanted === undefined || wanted.has(unit.code))
        .map((unit) => ({ ...unit, priceLists: [] }));
      const reads = await mapLimit(units, options.concurrency, async (unit) => ({
        unit,
        read: await readForServed(unit, signal),
      }));
      const stockReports: Record<string, StockExportReport> = {};
      const resolved: ResolvedStockExport[] = [];
      const applied: string[] = [];
      for (const entry of reads) {
        // Read while another unit was: a full sync may have changed the family since (then read again).
        const { output, readAt } = await readForServed(entry.unit, signal, entry.read);
        stockReports[entry.unit.code] = output.report;
        // An export read before the one already applied (a concurrent re-read) would undo newer sales.
        if ((stockReadAt.get(entry.unit.code) ?? Number.NEGATIVE_INFINITY) > readAt) continue;
        if (output.familyId !== served.latest()?.family.id) continue;
        resolved.push(output.resolved);
        applied.push(entry.unit.code);
        stockReadAt.set(entry.unit.code, readAt);
      }
      const sources = { stock: stockReports };
      signal.throwIfAborted();
      // Applying is bounded work on the served catalog, in slices: once it starts it ends.
      phase = 'apply';
      return await applyExports(started, previous, base, resolved, applied, sources);
    } catch (error) {
      return await reports.finish({
        ...base,
        outcome: 'failed',
        ...timingSince(started, now),
        version: served.current()?.version ?? previous.snapshot.version,
        error: syncErrorOf(error, { signal, phase }),
      });
    } finally {
      deadline.dispose();
    }
  }

  /**
   * Applies resolved exports to what is served now, which may be newer than the version the sync started
   * from (a full sync, sales): the export's quantities are absolute, so they are right on any version of
   * the family; a sale applied meanwhile and not yet in the export is corrected by the re-read it asks for.
   */
  async function applyExports(
    started: Date,
    from: ServedVersion,
    base: { readonly job: 'sync-stock'; readonly previousVersion: string },
    resolved: readonly ResolvedStockExport[],
    units: readonly string[],
    sources: SyncSources,
  ): Promise<SyncReport> {
    for (let attempt = 1; ; attempt += 1) {
      const compared = served.latest() as ServedVersion;
      const changed = await changedEntries(compared.snapshot, resolved, from, compared.family);
      const index = await served.indexOf(compared.snapshot);
      const latest = served.latest() as ServedVersion;
      if (latest.family !== compared.family) {
        throw new Error('the catalog changed while its stock was applied; the next stock sync reads it again');
      }
      // In a group the version may have moved (another instance's change) while this was compared.
      if (deps.replication !== undefined && latest !== compared && attempt < MAX_APPEND_ATTEMPTS) continue;
      const version = createCatalogVersion(started, latest.snapshot.version);
      const result = applyResolvedStock(
        latest.snapshot,
        resolved,
        { version, unknownStockAvailability: options.unknownStockAvailability, positions: index.positions },
        started,
        undefined,
        changed,
      );
      const report = {
        ...base,
        ...timingSince(started, now),
        products: result.snapshot.products.length,
        sources,
        stock: result.report,
      };
      if (result.report.changedProducts === 0) {
        return reports.finish({ ...report, outcome: 'unchanged', version: latest.snapshot.version });
      }
      if (!(await publishDerived(latest, result.snapshot, result.changedPositions, units))) {
        if (attempt >= MAX_APPEND_ATTEMPTS)
          throw new Error('other instances kept changing the stock; the next stock sync reads it again');
        await deps.replication?.waitPast(latest, APPEND_RETRY_WAIT_MS);
        continue;
      }
      if (deps.replication === undefined) await writer.persistServed();
      return reports.finish({ ...report, outcome: 'published', version });
    }
  }

  /** See `PublishDerived`. */
  async function publishDerived(
    latest: ServedVersion,
    snapshot: CatalogSnapshot,
    positions: readonly number[],
    units: readonly string[],
  ): Promise<boolean> {
    if (deps.replication !== undefined) return deps.replication.publishDerived(latest, snapshot, positions, units);
    served.serveDerived(latest, snapshot, positions);
    markStockChanged(units);
    return true;
  }

  const deltaDeps: StockDeltasDeps = {
    served,
    writer,
    options,
    logger,
    now,
    ...(deps.replication === undefined ? {} : { replication: deps.replication }),
    publishDerived,
  };

  return {
    syncStock,
    applyStockDeltas: (deltas) => applyStockDeltas(deltaDeps, deltas),
    rereadChangedSince(readFrom, snapshot) {
      const stale: string[] = [];
      for (const unit of snapshot.units) {
        if ((stockChangedAt.get(unit.code) ?? Number.NEGATIVE_INFINITY) >= readFrom) stale.push(unit.code);
        stockReadAt.set(unit.code, readFrom);
      }
      if (stale.length === 0) return;
      logger.info({ units: stale }, 'stock changed during the full sync; reading it again');
      rereading = syncStock({ units: stale }).finally(() => {
        rereading = undefined;
      });
    },
    async rereadDone() {
      await rereading;
    },
    noteArticleCount,
    markStockChanged,
  };
}
