import { raceAbort, withDeadline } from '../../core/async/deadline.js';
import { checkPublishable } from '../../core/catalog/catalog-guards.js';
import { createCatalogVersion, fingerprintHeaderOf } from '../../core/catalog/catalog-version.js';
import type { SourceRowsRegistry } from '../../core/catalog/source-rows.js';
import {
  type CatalogLogger,
  type CatalogServiceOptions,
  DEFAULT_SYNC_DEADLINE_MS,
  type SyncOutcome,
  type SyncPhase,
  type SyncReport,
  syncErrorOf,
  timingSince,
} from './catalog-types.js';
import type { CatalogWorkers } from './catalog-workers.js';
import type { CatalogWriter } from './catalog-writer.js';
import type { EnrichmentTableInput } from './enrich-catalog.js';
import { materializeChunks } from './materialize-version.js';
import type { ReadCatalogEvent, ReadCatalogOutput, ReadCatalogResult } from './read-catalog.js';
import type { ServedCatalog, ServedVersion } from './served-catalog.js';
import type { StockSync } from './stock-sync.js';
import type { SyncReports } from './sync-reports.js';
import { logUnitDocumentEvent } from './unit-documents.js';

export interface FullSyncDeps {
  readonly served: ServedCatalog;
  readonly writer: CatalogWriter;
  readonly workers: CatalogWorkers;
  readonly stock: StockSync;
  readonly reports: SyncReports;
  readonly options: CatalogServiceOptions;
  readonly logger: CatalogLogger;
  readonly now: () => Date;
  /** Timing probe: each phase of a full sync as it ends, with its wall time in ms (bench/full-sync.ts). */
  readonly onPhase?: (phase: SyncPhase, ms: number, unit?: string) => void;
  /** Aborts every run (a shutdown). */
  readonly signal?: AbortSignal;
  /** The last good enrichment sheet, applied to every full sync's catalog (docs/enrichment.md). */
  readonly enrichment?: () => Promise<EnrichmentTableInput | undefined>;
  /** Told which document rows gave the products of a published (or confirmed) family their values. */
  readonly sourceRows?: SourceRowsRegistry;
}

/** Options of one run: `signal` aborts it (a shutdown); its own deadline is added to it. */
export interface SyncRunOptions {
  readonly signal?: AbortSignal;
}

/**
 * The phase a full sync is in, after the reading half reported `ended` as over: what a run that is aborted
 * now was doing (the reading half reports each phase as it ends).
 */
export function phaseAfter(ended: SyncPhase | undefined): string {
  switch (ended) {
    case undefined:
      return 'units';
    case 'units':
      return 'articles';
    case 'articles':
    case 'price-list':
    case 'stock':
    case 'unit-merge':
      return 'sources';
    case 'sources':
      return 'merge';
    case 'merge':
    case 'enrichment':
      return 'fingerprint';
    default:
      return 'publish';
  }
}

/**
 * The full sync (docs/catalog-rules.md rules 8-9): reading, merging and serializing run in a worker
 * (`read-catalog.ts`); here the result is compared with the served version, checked by the publish
 * guard, parsed into products in slices, stored and served. A run publishes a complete new version or
 * nothing: any failed source fails the run, and the guard refuses a catalog that shrank too much; either
 * way the last good version stays served.
 */
export function createFullSync(deps: FullSyncDeps): (run?: SyncRunOptions) => Promise<SyncReport> {
  const { served, writer, workers, stock, reports, options, logger, now } = deps;
  /** Articles the last read found (even one that failed later): what the next read expects. */
  let articlesLastRead: number | undefined;

  /** The served version's fingerprint, computed from its chunks (in a worker) when it is not known. */
  async function fingerprintOf(version: ServedVersion, signal: AbortSignal): Promise<string> {
    if (version.fingerprint !== undefined) return version.fingerprint;
    const chunks = await served.chunksOf(version);
    const fingerprint = await workers.fingerprint(fingerprintHeaderOf(version.snapshot), chunks, signal);
    version.fingerprint = fingerprint;
    return fingerprint;
  }

  /** Reads, merges and serializes the catalog in a worker, with the last good enrichment sheet. */
  async function readCatalog(
    version: string,
    started: Date,
    relay: (event: ReadCatalogEvent) => void,
    signal: AbortSignal,
  ): Promise<ReadCatalogOutput> {
    const { maxShrink: _guardOnly, deadlineMs: _runOnly, ...readOptions } = options;
    const enrichment = await deps.enrichment?.();
    const expectedArticles = articlesLastRead ?? served.latest()?.snapshot.products.length;
    const read = await workers.readCatalog(
      {
        version,
        startedAt: started.toISOString(),
        options: readOptions,
        ...(enrichment === undefined ? {} : { enrichment }),
        ...(expectedArticles === undefined ? {} : { expectedArticles }),
      },
      relay,
      signal,
    );
    if (read.sources.articles !== undefined) articlesLastRead = read.sources.articles.count;
    return read;
  }

  /** Compares the read catalog with the served version, checks it with the publish guard, and publishes it. */
  async function publishRead(read: ReadCatalogResult, run: FullSyncRun): Promise<SyncReport> {
    const { version, previous, signal, finish } = run;
    const { sources, merge, productCount: products } = read;
    if (previous !== undefined && (await fingerprintOf(previous, signal)) === read.fingerprint) {
      // The same products in the same places: this read's rows are the served family's now.
      deps.sourceRows?.set(previous.snapshot, { rows: read.sourceRows, readAt: now().toISOString() });
      return finish('unchanged', { version: previous.snapshot.version, products, sources, merge });
    }
    const check = checkPublishable(
      previous ? { count: previous.snapshot.products.length } : undefined,
      { count: products },
      options.maxShrink,
    );
    if (!check.ok) {
      return finish('refused', {
        ...(previous ? { version: previous.snapshot.version } : {}),
        products,
        reason: check.message,
        sources,
        merge,
      });
    }
    const publishFrom = performance.now();
    // The served version's objects are taken for every chunk the read left byte for byte the same.
    const materialized = await raceAbort(materializeChunks(read.products, served.latest()), signal);
    const snapshot = { ...read.snapshot, products: materialized.products };
    logger.debug?.(
      { version, chunks: read.products.length, reused: materialized.reused },
      'chunks the sync left unchanged keep the served products',
    );
    await writer.publishFull(
      {
        snapshot,
        family: { id: version, index: read.identity },
        chunks: read.products,
        internal: read.internal,
        fingerprint: read.fingerprint,
        enrichment: materialized.enrichment,
      },
      signal,
    );
    deps.sourceRows?.set(snapshot, { rows: read.sourceRows, readAt: now().toISOString() });
    deps.onPhase?.('publish', performance.now() - publishFrom);
    stock.rereadChangedSince(run.readFrom, snapshot);
    return finish('published', { version, products, sources, merge });
  }

  return async function syncCatalog(run: SyncRunOptions = {}): Promise<SyncReport> {
    const started = now();
    const previous = served.latest();
    const base = { job: 'sync-catalog' as const, ...(previous ? { previousVersion: previous.snapshot.version } : {}) };
    const finish = (outcome: SyncOutcome, report: RunReport): Promise<SyncReport> =>
      reports.finish({ ...base, outcome, ...timingSince(started, now), ...report });
    const readFrom = performance.now();
    // Every request, worker task and store write of the run takes this signal (docs/failure-modes.md).
    const deadline = withDeadline(options.deadlineMs ?? DEFAULT_SYNC_DEADLINE_MS, run.signal, deps.signal);
    const { signal } = deadline;
    let ended: SyncPhase | undefined;
    const relay = (event: ReadCatalogEvent): void => {
      if (event.type === 'phase') {
        ended = event.phase;
        deps.onPhase?.(event.phase, event.ms, event.unit);
      } else logUnitDocumentEvent(logger, event);
    };
    try {
      const version = createCatalogVersion(started, previous?.snapshot.version ?? 'first');
      const read = await readCatalog(version, started, relay, signal);
      if (!read.ok) {
        return await finish('failed', {
          ...(previous ? { version: previous.snapshot.version } : {}),
          error: read.error,
          sources: read.sources,
        });
      }
      if (read.sources.articles !== undefined) stock.noteArticleCount(read.sources.articles.count);
      // From here on the run is publishing: comparing, checking, storing.
      ended = 'fingerprint';
      return await publishRead(read, { version, previous, signal, readFrom, finish });
    } catch (error) {
      return await finish('failed', {
        ...(previous ? { version: served.latest()?.snapshot.version ?? previous.snapshot.version } : {}),
        error: syncErrorOf(error, { signal, phase: phaseAfter(ended) }),
      });
    } finally {
      deadline.dispose();
    }
  };
}

/** What a run reports besides its job, outcome, timing and previous version. */
type RunReport = Omit<SyncReport, 'job' | 'outcome' | 'startedAt' | 'finishedAt' | 'durationMs' | 'previousVersion'>;

/** One run of the full sync, as its publishing half needs it. */
interface FullSyncRun {
  readonly version: string;
  readonly previous: ServedVersion | undefined;
  readonly signal: AbortSignal;
  /** When the run began reading (performance.now()): stock changed since is read again after the publish. */
  readonly readFrom: number;
  readonly finish: (outcome: SyncOutcome, report: RunReport) => Promise<SyncReport>;
}
