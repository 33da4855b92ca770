import type { Config } from '../../config/load-config.js';
import { abortReasonOf } from '../../core/async/deadline.js';
import type { ApplyStockReport } from '../../core/catalog/apply-stock.js';
import type { Availability, CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { DocumentLimitSettings } from '../../core/catalog/document-limits.js';
import type { DocumentThreadsSetting } from '../../core/catalog/document-threads.js';
import type { MergeReport } from '../../core/catalog/merge-catalog.js';
import type { PriceListSummary, StockColumnOverride, StockExportSummary } from '../../core/catalog/pos-documents.js';
import type { PosRejectedItem } from '../../core/catalog/pos-records.js';
import type { IdentityKeyChoice } from '../../core/catalog/resolve-identity.js';
import type { ServiceLogger } from '../logging/service-logger.js';
import type { EnrichmentSyncReport } from './enrich-catalog.js';

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
 * `sources` is the wall time of the whole per-unit stage, `merge` the assembly of the products after it,
 * `fingerprint` the hashing and serializing of the merged catalog, `publish` storing and serving it.
 */
export type SyncPhase =
  | 'units'
  | 'articles'
  | 'price-list'
  | 'stock'
  | 'unit-merge'
  | 'sources'
  | 'merge'
  | 'enrichment'
  | 'fingerprint'
  | 'publish';
export type SyncOutcome = 'published' | 'unchanged' | 'refused' | 'failed' | 'skipped';

export interface SyncError {
  readonly code: string;
  readonly message: string;
  /** Of a run aborted by its deadline or a shutdown: the phase it was in (e.g. `sources`, `publish`). */
  readonly phase?: string;
}

export interface PriceListReport {
  readonly rows: number;
  readonly root?: string;
  readonly skippedCount: number;
  readonly warningCount: number;
  readonly skipped: PriceListSummary['skipped'];
  /** The first warnings (fields ignored with the reason, characters XML forbids replaced). */
  readonly warnings?: PriceListSummary['warnings'];
}

export interface StockExportReport {
  readonly rows: number;
  readonly delimiter?: string;
  readonly header: readonly string[];
  readonly skippedCount: number;
  readonly skipped: StockExportSummary['skipped'];
}

export interface SyncSources {
  readonly units?: { readonly count: number; readonly rejected: readonly PosRejectedItem[]; readonly pages: number };
  readonly articles?: {
    readonly count: number;
    readonly rejectedCount: number;
    readonly rejected: readonly PosRejectedItem[];
    readonly pages: number;
  };
  readonly priceLists?: Readonly<Record<string, PriceListReport>>;
  readonly stock?: Readonly<Record<string, StockExportReport>>;
  /** The enrichment sheet applied (docs/enrichment.md): rows matched, unmatched, ambiguous, problems. */
  readonly enrichment?: EnrichmentSyncReport;
}

/** What one run did: logged, kept (the last few) in the store, shown by `/readyz` and the admin API. */
export interface SyncReport {
  /** The run's id in the sync history (docs/console.md#sync-history), given when the run is reported. */
  readonly runId?: string;
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
  readonly sources?: SyncSources;
  readonly merge?: MergeReport;
  readonly stock?: ApplyStockReport;
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
  /** The longest a full or stock sync may run before it is aborted (default `DEFAULT_SYNC_DEADLINE_MS`). */
  readonly deadlineMs?: number;
  /** Limits of the units' documents, which follow the article count (default `DEFAULT_DOCUMENT_LIMITS`). */
  readonly documents?: DocumentLimitSettings;
  /**
   * 2: a full sync reads the units' documents with a second thread beside its own (decision 0020); 1: alone;
   * `auto`: two for a large catalog (`usesSecondThread`). Absent: 1.
   */
  readonly documentThreads?: DocumentThreadsSetting;
}

/** The defaults of `POS_MAX_ROWS_PER_ARTICLE` and `POS_MAX_DOCUMENT_MB`. */
export const DEFAULT_DOCUMENT_LIMITS: DocumentLimitSettings = { rowsPerArticle: 2, maxDocumentBytes: 1024 * 1024 * 1024 };

/** The default of `SYNC_DEADLINE_MS`: 10 minutes (a full sync of 100,000 × 5 takes ~20 s). */
export const DEFAULT_SYNC_DEADLINE_MS = 600_000;

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
    deadlineMs: config.sync.deadlineMs,
    documents: config.pos.documents,
    documentThreads: config.sync.documentThreads,
  };
}

/** The catalog's logger: the services' logger port. */
export type CatalogLogger = ServiceLogger;

/**
 * The error of a failed run as reports carry it: its `code` when it has one. A run whose signal aborted
 * failed because of that, whatever error the abort caused on the way (a cut request, a terminated worker).
 */
export function syncErrorOf(error: unknown, aborted?: { readonly signal: AbortSignal; readonly phase: string }): SyncError {
  const reason = aborted === undefined ? undefined : abortReasonOf(aborted.signal);
  if (reason !== undefined && aborted !== undefined) {
    return { code: reason.code, message: `${reason.message} (in phase ${aborted.phase})`, phase: aborted.phase };
  }
  if (error instanceof Error) {
    const code = 'code' in error && typeof error.code === 'string' ? error.code : 'SYNC_FAILED';
    return { code, message: error.message };
  }
  return { code: 'SYNC_FAILED', message: String(error) };
}

/** Start, end and duration of a run that started at `started`. */
export function timingSince(started: Date, now: () => Date): { startedAt: string; finishedAt: string; durationMs: number } {
  const finished = now();
  return {
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
  };
}
