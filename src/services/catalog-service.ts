import { performance } from 'node:perf_hooks';
import type { PosClient } from '../adapters/pos/pos-client.js';
import type { PosRejectedItem } from '../adapters/pos/pos-schema.js';
import { createPriceListParser, type PriceListSummary } from '../adapters/pos/price-list-xml.js';
import { readStockExport, type StockColumnOverride, type StockExportSummary } from '../adapters/pos/stock-export.js';
import type { CatalogStore } from '../adapters/store/keyv-catalog-store.js';
import type { Config } from '../config/load-config.js';
import { createMutex } from '../core/async/create-mutex.js';
import { mapLimit } from '../core/async/map-limit.js';
import { type ApplyStockReport, applyStock, applyStockRows, type StockDelta } from '../core/catalog/apply-stock.js';
import type { Availability, CatalogSnapshot, InternalProductData, Product } from '../core/catalog/catalog.js';
import { checkPublishable } from '../core/catalog/catalog-guards.js';
import { createCatalogVersion, fingerprintCatalog } from '../core/catalog/catalog-version.js';
import { type CatalogMerger, createCatalogMerger, type MergeReport, type MergeResult } from '../core/catalog/merge-catalog.js';
import { createPriceListRowCollector, type PriceListRows } from '../core/catalog/price-list-rows.js';
import type { IdentityKeyChoice } from '../core/catalog/resolve-identity.js';
import type { SourceUnit } from '../core/catalog/source.js';
import { createStockRowCollector, type StockRows } from '../core/catalog/stock-rows.js';

/** Everything of a snapshot but its products, stored as the version's metadata. */
export interface CatalogMeta {
  readonly version: string;
  readonly generatedAt: string;
  readonly currency: string;
  readonly primaryUnit: string;
  readonly units: CatalogSnapshot['units'];
  /** Content fingerprint: a sync that builds the same catalog keeps the published version. */
  readonly fingerprint: string;
}

export type SyncJob = 'sync-catalog' | 'sync-stock';

/**
 * Stages of a full sync, as reported to the optional `onPhase` probe. `price-list`, `stock` (fetch and
 * parse) and `unit-merge` (merging the unit's documents) are reported once per unit, and units overlap;
 * `sources` is the wall time of the whole per-unit stage, `merge` the assembly of the products after it.
 */
export type SyncPhase =
  | 'units'
  | 'articles'
  | 'price-list'
  | 'stock'
  | 'unit-merge'
  | 'sources'
  | 'merge'
  | 'fingerprint'
  | 'publish';
export type SyncOutcome = 'published' | 'unchanged' | 'refused' | 'failed' | 'skipped';

export interface SyncError {
  readonly code: string;
  readonly message: string;
}

/** What one run did: logged, kept (the last few) in the store, shown by `/readyz` and the admin API. */
export interface SyncReport {
  readonly job: SyncJob;
  readonly outcome: SyncOutcome;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  /** The version served after the run. */
  readonly version?: string;
  readonly previousVersion?: string;
  readonly products?: number;
  readonly reason?: string;
  readonly error?: SyncError;
  readonly sources?: {
    readonly units?: { readonly count: number; readonly rejected: readonly PosRejectedItem[]; readonly pages: number };
    readonly articles?: {
      readonly count: number;
      readonly rejectedCount: number;
      readonly rejected: readonly PosRejectedItem[];
      readonly pages: number;
    };
    readonly priceLists?: Readonly<Record<string, PriceListReport>>;
    readonly stock?: Readonly<Record<string, StockExportReport>>;
  };
  readonly merge?: MergeReport;
  readonly stock?: ApplyStockReport;
}

export interface PriceListReport {
  readonly rows: number;
  readonly root?: string;
  readonly skippedCount: number;
  readonly warningCount: number;
  readonly skipped: PriceListSummary['skipped'];
}

export interface StockExportReport {
  readonly rows: number;
  readonly delimiter?: string;
  readonly header: readonly string[];
  readonly skippedCount: number;
  readonly skipped: StockExportSummary['skipped'];
}

export interface CatalogServiceOptions {
  readonly currency: string;
  readonly primaryUnit: string | undefined;
  readonly unknownStockAvailability: Availability;
  readonly priceListKey: IdentityKeyChoice;
  readonly stockKey: IdentityKeyChoice;
  readonly stockColumns: StockColumnOverride;
  readonly maxShrink: number;
  readonly concurrency: number;
}

/** The service's options as the configuration gives them. */
export function catalogServiceOptions(config: Config): CatalogServiceOptions {
  return {
    currency: config.feed.currency,
    primaryUnit: config.feed.primaryUnit,
    unknownStockAvailability: config.sync.unknownStockAvailability,
    priceListKey: config.pos.priceListKey,
    stockKey: config.pos.stockKey,
    stockColumns: config.pos.stockColumns,
    maxShrink: config.sync.maxShrink,
    concurrency: config.pos.concurrency,
  };
}

export interface StockDeltaResult {
  /** The version served after the change (the same as before when nothing changed). */
  readonly version: string;
  readonly report: ApplyStockReport;
  /** Settles when a version at least as new as `version` is in the store. */
  readonly persisted: Promise<void>;
}

export interface CatalogServiceDeps {
  readonly pos: PosClient;
  readonly store: CatalogStore<CatalogMeta, Product>;
  /** Admin-only purchase prices, versioned alongside the public catalog. */
  readonly internalStore: CatalogStore<{ readonly version: string }, InternalProductData>;
  readonly options: CatalogServiceOptions;
  readonly logger: {
    info(meta: object, message: string): void;
    warn(meta: object, message: string): void;
    error(meta: object, message: string): void;
  };
  readonly now: () => Date;
  /**
   * Optional timing probe, called as each phase of a full sync ends with its wall time in ms (and the
   * unit code for per-unit phases). Used by `bench/full-sync.ts`; the app does not set it.
   */
  readonly onPhase?: (phase: SyncPhase, ms: number, unit?: string) => void;
}

export interface CatalogService {
  /** The version being served; `undefined` before the first one exists. */
  current(): CatalogSnapshot | undefined;
  /** Loads the last published version from the store, so it is served at once after a restart. */
  loadFromStore(): Promise<CatalogSnapshot | undefined>;
  /** Re-reads the store's pointer and loads a version another instance published. */
  refreshFromStore(): Promise<boolean>;
  syncCatalog(): Promise<SyncReport>;
  /**
   * Re-reads the stock exports (of `units` only, by code, when given) and applies them to the served
   * version: served at once, stored before the promise settles.
   */
  syncStock(options?: { readonly units?: readonly string[] }): Promise<SyncReport>;
  /**
   * Applies stock changes (sales) to the served version at once and stores it in the background
   * (`persisted`; stores coalesce, the newest served version wins). Nothing happens before a first version.
   */
  applyStockDeltas(deltas: readonly StockDelta[]): StockDeltaResult | undefined;
  /** Settles when the store holds the version served now (before closing the store). */
  flush(): Promise<void>;
  lastReport(job: SyncJob): SyncReport | undefined;
  recentReports(job: SyncJob): Promise<unknown[]>;
  /** Called after every change of the served version (own publish or loaded from the store). */
  onChange(listener: (snapshot: CatalogSnapshot) => void): void;
}

function errorOf(error: unknown): SyncError {
  if (error instanceof Error) {
    const code = 'code' in error && typeof error.code === 'string' ? error.code : 'SYNC_FAILED';
    return { code, message: error.message };
  }
  return { code: 'SYNC_FAILED', message: String(error) };
}

function toSnapshot(meta: CatalogMeta, products: readonly Product[]): CatalogSnapshot {
  return {
    version: meta.version,
    generatedAt: meta.generatedAt,
    currency: meta.currency,
    primaryUnit: meta.primaryUnit,
    units: meta.units,
    products,
  };
}

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

/**
 * The catalog's use cases: full sync, stock sync, and the served version (SPEC §4 rules 8-9).
 * A run publishes a complete new version or nothing: any failed source fails the run, and the guard
 * refuses a catalog that shrank too much; either way the last good version stays served.
 */
export function createCatalogService(deps: CatalogServiceDeps): CatalogService {
  const { pos, store, options, logger, now } = deps;
  let served:
    | {
        snapshot: CatalogSnapshot;
        fingerprint: () => string;
        /** Known without hashing the catalog (a sync computed it, or the store had it). */
        knownFingerprint: string | undefined;
        seq: number;
      }
    | undefined;
  /** Serves are numbered; `storedSeq` is the number of the newest served version the store holds. */
  let servedSeq = 0;
  let storedSeq = 0;
  /** Every write to the store goes through it: two publishes at once could leave the pointer on the older one. */
  const storeWrites = createMutex();
  /**
   * Per unit, when the stock export last applied was read (performance.now()), and when its stock last
   * changed by any means: an export read earlier than the one applied is not applied over it, and a full
   * sync re-reads the units whose stock changed while it ran.
   */
  const stockReadAt = new Map<string, number>();
  const stockChangedAt = new Map<string, number>();
  const lastReports = new Map<SyncJob, SyncReport>();
  const listeners: ((snapshot: CatalogSnapshot) => void)[] = [];

  /** Reports the phase that started at `since` to the probe, if any; returns the end time. */
  function phaseEnded(phase: SyncPhase, since: number, unit?: string): number {
    const ended = performance.now();
    deps.onPhase?.(phase, ended - since, unit);
    return ended;
  }

  function serve(snapshot: CatalogSnapshot, fingerprint: string | (() => string)): void {
    servedSeq += 1;
    served = {
      snapshot,
      fingerprint: typeof fingerprint === 'string' ? () => fingerprint : memoize(fingerprint),
      knownFingerprint: typeof fingerprint === 'string' ? fingerprint : undefined,
      seq: servedSeq,
    };
    for (const listener of listeners) {
      // A listener (metrics, feeds) must not fail the change that is already served.
      try {
        listener(snapshot);
      } catch (error) {
        logger.error({ err: error, version: snapshot.version }, 'a listener of catalog changes failed');
      }
    }
  }

  /**
   * Settles once the store holds the version served now, or a newer one. Each call queues one write
   * behind the others, which stores whatever is served when its turn comes, or nothing when an earlier
   * write already covered it: a burst of stock changes costs a few writes of the whole catalog, callers
   * never chase versions served after their call, and the store always ends on the served version.
   * Stock-only versions are stored without internal data: purchase prices change only with a full sync.
   */
  function persistServed(): Promise<void> {
    const target = servedSeq;
    if (storedSeq >= target) return Promise.resolve();
    return storeWrites(async () => {
      const current = served;
      if (storedSeq >= target || current === undefined || current.seq <= storedSeq) return;
      const { snapshot } = current;
      // A version made by stock changes is stored without its fingerprint: hashing the whole catalog for
      // every store during a burst of sales took seconds of CPU at 100,000 products. After a restart the
      // next full sync then publishes a new version even when nothing changed (once).
      await store.publish(
        { version: snapshot.version, meta: metaOf(snapshot, current.knownFingerprint ?? ''), items: snapshot.products },
        now(),
      );
      storedSeq = current.seq;
    });
  }

  async function readPriceList(unit: SourceUnit): Promise<{ rows: PriceListRows; report: PriceListReport }> {
    const since = performance.now();
    // Rows are held in typed arrays until the document ends, not as 100,000 objects per unit (see price-list-rows.ts).
    const rows = createPriceListRowCollector();
    const parser = createPriceListParser((row) => rows.push(row));
    const body = await pos.fetchPriceListXml(unit);
    try {
      for await (const chunk of body) parser.write(chunk);
    } catch (error) {
      body.cancel();
      throw error;
    }
    const summary = parser.end();
    phaseEnded('price-list', since, unit.code);
    return {
      rows,
      report: {
        rows: rows.length,
        ...(summary.rootElement === undefined ? {} : { root: summary.rootElement }),
        skippedCount: summary.skippedCount,
        warningCount: summary.warningCount,
        skipped: summary.skipped.slice(0, 20),
      },
    };
  }

  async function readStock(unit: SourceUnit): Promise<{ rows: StockRows; report: StockExportReport }> {
    const since = performance.now();
    const body = await pos.fetchStockExport(unit);
    // Rows are held in typed arrays, not as 100,000 objects per unit (see stock-rows.ts).
    const rows = createStockRowCollector();
    const summary = readStockExport(body, (row) => rows.push(row), { columns: options.stockColumns });
    phaseEnded('stock', since, unit.code);
    return {
      rows,
      report: {
        rows: rows.length,
        ...(summary.delimiter === undefined ? {} : { delimiter: summary.delimiter }),
        header: summary.header,
        skippedCount: summary.skippedCount,
        skipped: summary.skipped.slice(0, 20),
      },
    };
  }

  async function finish(report: SyncReport): Promise<SyncReport> {
    lastReports.set(report.job, report);
    const meta = { job: report.job, outcome: report.outcome, version: report.version, durationMs: report.durationMs };
    if (report.outcome === 'failed') logger.warn({ ...meta, error: report.error }, 'sync failed, keeping the last good catalog');
    else if (report.outcome === 'refused') logger.warn({ ...meta, reason: report.reason }, 'sync refused by the publish guard');
    else logger.info({ ...meta, products: report.products }, 'sync finished');
    try {
      await store.saveReport(report.job, report);
    } catch (error) {
      logger.error({ job: report.job, err: error }, 'could not store the sync report');
    }
    return report;
  }

  async function publish(
    snapshot: CatalogSnapshot,
    fingerprint: string,
    internal: readonly InternalProductData[],
  ): Promise<void> {
    await storeWrites(async () => {
      const publishedAt = now();
      // Internal data first: once the public pointer moves, its purchase prices must already be there.
      await deps.internalStore.publish(
        { version: snapshot.version, meta: { version: snapshot.version }, items: internal },
        publishedAt,
      );
      await store.publish(
        { version: snapshot.version, meta: metaOf(snapshot, fingerprint), items: snapshot.products },
        publishedAt,
      );
      // Served inside the lock: a queued write of an older derived version then finds nothing to do.
      serve(snapshot, fingerprint);
      storedSeq = servedSeq;
    });
  }

  function timing(started: Date): { startedAt: string; finishedAt: string; durationMs: number } {
    const finished = now();
    return {
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
      durationMs: finished.getTime() - started.getTime(),
    };
  }

  /** What a full sync has read so far: kept in its report, also when a later source fails. */
  interface SyncProgress {
    sources: NonNullable<SyncReport['sources']>;
    mark: number;
  }

  /**
   * Units and articles, and a merger of the catalog `version` over them. A function of its own so that
   * the article list is garbage once the merger has taken what it needs (~35 MB for 100,000 articles).
   */
  async function startMerge(
    version: string,
    started: Date,
    progress: SyncProgress,
  ): Promise<{ units: SourceUnit[]; merger: CatalogMerger }> {
    const units = await pos.listUnits();
    progress.mark = phaseEnded('units', progress.mark);
    progress.sources = { units: { count: units.items.length, rejected: units.rejected.slice(0, 20), pages: units.pages } };
    const articles = await pos.listArticles({ priceOutput: 'with_vat' });
    progress.mark = phaseEnded('articles', progress.mark);
    progress.sources = {
      ...progress.sources,
      articles: {
        count: articles.items.length,
        rejectedCount: articles.rejected.length,
        rejected: articles.rejected.slice(0, 20),
        pages: articles.pages,
      },
    };
    const merger = createCatalogMerger(
      { units: units.items, articles: articles.items },
      {
        version,
        currency: options.currency,
        ...(options.primaryUnit === undefined ? {} : { primaryUnit: options.primaryUnit }),
        unknownStockAvailability: options.unknownStockAvailability,
        priceListKey: options.priceListKey,
        stockKey: options.stockKey,
      },
      started,
    );
    return { units: units.items, merger };
  }

  /**
   * Reads every source and merges them into the catalog `version`. A function of its own so that the
   * merger's working state (identity index, per-unit state) is garbage while the catalog is published.
   */
  async function readAndMerge(version: string, started: Date, progress: SyncProgress): Promise<MergeResult> {
    const { units, merger } = await startMerge(version, started, progress);
    // Each unit's documents are merged as soon as they are read and their rows dropped, so the rows of
    // at most the units in flight are held, not those of every unit (bench/full-sync.ts). When two units
    // share a code, the last one's documents count, as when rows were collected per code.
    const lastOfCode = new Map(units.map((unit) => [unit.code, unit]));
    function timedMerge(unit: SourceUnit, add: () => void): void {
      const since = performance.now();
      add();
      phaseEnded('unit-merge', since, unit.code);
    }
    // Every stock export first, then the price lists (which build the offers with the exports' quantities).
    // The stock parser's rows outlive the young generation and die right after their unit is merged: read
    // while little else is live, that garbage is collected cheaply, instead of driving up the heap limit
    // while the offers accumulate (bench/full-sync.ts).
    const stockReports: Record<string, StockExportReport> = {};
    const stock = await mapLimit(units, options.concurrency, async (unit) => {
      const { rows, report } = await readStock(unit);
      if (lastOfCode.get(unit.code) === unit) timedMerge(unit, () => merger.addStock(unit.code, rows));
      return report;
    });
    const priceListReports: Record<string, PriceListReport> = {};
    const priceLists = await mapLimit(units, options.concurrency, async (unit) => {
      const { rows, report } = await readPriceList(unit);
      if (lastOfCode.get(unit.code) === unit) timedMerge(unit, () => merger.addPriceList(unit.code, rows));
      return report;
    });
    for (const [position, unit] of units.entries()) {
      priceListReports[unit.code] = priceLists[position] as PriceListReport;
      stockReports[unit.code] = stock[position] as StockExportReport;
    }
    progress.sources = { ...progress.sources, priceLists: priceListReports, stock: stockReports };
    progress.mark = phaseEnded('sources', progress.mark);
    const merged = merger.finish();
    progress.mark = phaseEnded('merge', progress.mark);
    return merged;
  }

  async function syncCatalog(): Promise<SyncReport> {
    const started = now();
    const previous = served;
    const base = { job: 'sync-catalog' as const, ...(previous ? { previousVersion: previous.snapshot.version } : {}) };
    const progress: SyncProgress = { sources: {}, mark: performance.now() };
    const readFrom = progress.mark;
    try {
      const version = createCatalogVersion(started, previous?.snapshot.version ?? 'first');
      const merged = await readAndMerge(version, started, progress);
      const { sources } = progress;
      let mark = progress.mark;
      const fingerprint = fingerprintCatalog(merged.snapshot);
      mark = phaseEnded('fingerprint', mark);
      const products = merged.snapshot.products.length;
      if (previous !== undefined && previous.fingerprint() === fingerprint) {
        return await finish({
          ...base,
          outcome: 'unchanged',
          ...timing(started),
          version: previous.snapshot.version,
          products,
          sources,
          merge: merged.report,
        });
      }
      const check = checkPublishable(
        previous ? { count: previous.snapshot.products.length } : undefined,
        { count: products },
        options.maxShrink,
      );
      if (!check.ok) {
        return await finish({
          ...base,
          outcome: 'refused',
          ...timing(started),
          ...(previous ? { version: previous.snapshot.version } : {}),
          products,
          reason: check.message,
          sources,
          merge: merged.report,
        });
      }
      await publish(merged.snapshot, fingerprint, merged.internal.products);
      phaseEnded('publish', mark);
      rereadStockChangedSince(readFrom, merged.snapshot);
      return await finish({
        ...base,
        outcome: 'published',
        ...timing(started),
        version,
        products,
        sources,
        merge: merged.report,
      });
    } catch (error) {
      return await finish({
        ...base,
        outcome: 'failed',
        ...timing(started),
        ...(previous ? { version: previous.snapshot.version } : {}),
        error: errorOf(error),
        sources: progress.sources,
      });
    }
  }

  async function syncStock(only: { readonly units?: readonly string[] } = {}): Promise<SyncReport> {
    const started = now();
    const previous = served;
    if (previous === undefined) {
      return finish({
        job: 'sync-stock',
        outcome: 'skipped',
        ...timing(started),
        reason: 'no catalog version yet; the full sync comes first',
      });
    }
    const base = { job: 'sync-stock' as const, previousVersion: previous.snapshot.version };
    try {
      const wanted = only.units === undefined ? undefined : new Set(only.units);
      const units = previous.snapshot.units
        .filter((unit) => wanted === undefined || wanted.has(unit.code))
        .map((unit) => ({ ...unit, priceLists: [] }));
      const read = await mapLimit(units, options.concurrency, async (unit) => {
        const readAt = performance.now();
        return { unit, readAt, stock: await readStock(unit) };
      });
      const rowsByUnit = new Map<string, StockRows>();
      const stockReports: Record<string, StockExportReport> = {};
      for (const entry of read) {
        stockReports[entry.unit.code] = entry.stock.report;
        // An export read before the one already applied (a concurrent re-read) would undo newer sales.
        if ((stockReadAt.get(entry.unit.code) ?? Number.NEGATIVE_INFINITY) > entry.readAt) continue;
        rowsByUnit.set(entry.unit.code, entry.stock.rows);
        stockReadAt.set(entry.unit.code, entry.readAt);
      }
      const sources = { stock: stockReports };
      // Applied to what is served now, which may be newer than `previous` (a full sync, sales): the
      // export's quantities are absolute, so they are right on any version; a sale applied meanwhile and
      // not yet in the export is corrected by the re-pull that sale asks for.
      const latest = served ?? previous;
      const version = createCatalogVersion(started, latest.snapshot.version);
      const applied = applyStockRows(
        latest.snapshot,
        rowsByUnit,
        { version, unknownStockAvailability: options.unknownStockAvailability, stockKey: options.stockKey },
        started,
      );
      if (applied.report.changedProducts === 0) {
        return await finish({
          ...base,
          outcome: 'unchanged',
          ...timing(started),
          version: latest.snapshot.version,
          products: latest.snapshot.products.length,
          sources,
          stock: applied.report,
        });
      }
      serve(applied.snapshot, () => fingerprintCatalog(applied.snapshot));
      markStockChanged(rowsByUnit.keys());
      await persistServed();
      return await finish({
        ...base,
        outcome: 'published',
        ...timing(started),
        version,
        products: applied.snapshot.products.length,
        sources,
        stock: applied.report,
      });
    } catch (error) {
      return await finish({
        ...base,
        outcome: 'failed',
        ...timing(started),
        version: served?.snapshot.version ?? previous.snapshot.version,
        error: errorOf(error),
      });
    }
  }

  let soon: { readonly stored: Promise<void>; now(): void } | undefined;
  let lastStockStoreMs = 0;
  /** The re-read a full sync started for units whose stock changed while it ran (`flush` waits for it). */
  let rereading: Promise<unknown> | undefined;
  /**
   * `persistServed` a moment later: sales come in bursts, and every write stores the whole catalog, so
   * the changes of that moment share one write (bench/webhook-latency.ts). Serving does not wait for it.
   */
  function persistSoon(): Promise<void> {
    // 1 s, or 5× what the last such store took: storing a 100,000-product catalog takes seconds, and
    // back-to-back stores would take the CPU from the sales themselves.
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

  function markStockChanged(units: Iterable<string>): void {
    const at = performance.now();
    for (const unit of units) stockChangedAt.set(unit, at);
  }

  /**
   * After a full sync published a catalog whose stock was read from `readFrom` on: the units whose stock
   * changed since (sales, re-reads) lost those changes, so their stock is read again, in the background.
   */
  function rereadStockChangedSince(readFrom: number, snapshot: CatalogSnapshot): void {
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
  }

  function applyStockDeltas(deltas: readonly StockDelta[]): StockDeltaResult | undefined {
    const latest = served;
    if (latest === undefined) return undefined;
    const at = now();
    const version = createCatalogVersion(at, latest.snapshot.version);
    const applied = applyStock(
      latest.snapshot,
      deltas,
      { version, unknownStockAvailability: options.unknownStockAvailability },
      at,
    );
    if (applied.report.changedProducts === 0) {
      return { version: latest.snapshot.version, report: applied.report, persisted: persistServed() };
    }
    serve(applied.snapshot, () => fingerprintCatalog(applied.snapshot));
    markStockChanged(deltas.map((delta) => delta.unitCode));
    const persisted = persistSoon();
    // Callers may not wait; a failed write is logged here and retried by the next change or sync.
    persisted.catch((error: unknown) => logger.error({ err: error, version }, 'could not store the catalog after stock changes'));
    return { version, report: applied.report, persisted };
  }

  async function load(): Promise<CatalogSnapshot | undefined> {
    const stored = await store.loadCurrent();
    if (stored === undefined) return undefined;
    const snapshot = toSnapshot(stored.meta, stored.items);
    serve(snapshot, stored.meta.fingerprint);
    storedSeq = servedSeq;
    return snapshot;
  }

  return {
    current: () => served?.snapshot,
    loadFromStore: load,
    async refreshFromStore() {
      const version = await store.currentVersion();
      if (version === undefined || version === served?.snapshot.version) return false;
      await load();
      return true;
    },
    syncCatalog,
    syncStock,
    applyStockDeltas,
    async flush() {
      await rereading;
      const pending = soon;
      pending?.now();
      await Promise.all([pending?.stored, persistServed()]);
    },
    lastReport: (job) => lastReports.get(job),
    recentReports: (job) => store.recentReports(job),
    onChange(listener) {
      listeners.push(listener);
    },
  };
}

/** How long stock changes from webhooks wait to be stored together: at least this, 5× the last such store… */
const STOCK_CHANGE_STORE_DELAY_MS = 1_000;
/** …but never longer than this. */
const MAX_STOCK_CHANGE_STORE_DELAY_MS = 30_000;

/** `compute` run once, on first use. */
function memoize<T>(compute: () => T): () => T {
  let done = false;
  let value: T | undefined;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value as T;
  };
}
