import type { MessagePort } from 'node:worker_threads';
import type { PosClientConfig } from '../adapters/pos/pos-client.js';
import type { ItemChunk } from '../core/catalog/catalog-chunks.js';
import type { EnrichmentSheetInput } from '../services/catalog/enrich-catalog.js';
import type { ReadCatalogInput } from '../services/catalog/read-catalog.js';
import type { StockExportReadInput } from '../services/catalog/resolve-stock-export.js';
import type { UnitDocumentRequest } from '../services/catalog/unit-documents.js';

/**
 * What the catalog worker threads (`catalog-worker.ts`) are given: their start data, the messages of their
 * tasks, and the young generation of the full sync's threads. Apart from the entry so that the entry's own pool
 * for the full sync's second thread (`unit-document-helper.ts`) need not import the entry.
 */

/** What every thread gets at start (`workerData`). */
export interface CatalogWorkerData {
  /** The POS client's settings, the URL and key included (the full sync reads the POS from the worker). */
  readonly pos: PosClientConfig;
  /** Run below the main thread's priority (stock re-reads, fingerprints; see lower-thread-priority.ts). */
  readonly background: boolean;
  /**
   * Whether the POS client's debug lines (one per page read) are posted to the main thread: only when its log
   * shows them. Posted and dropped there, they were ~5,000 messages of a 1,000,000-article sync.
   */
  readonly debugLogs?: boolean;
}

export interface ReadCatalogTask {
  readonly input: ReadCatalogInput;
  /** Phase timings and the POS client's log lines go back through it. */
  readonly events: MessagePort;
}

export interface ReadUnitDocumentTask {
  readonly request: UnitDocumentRequest;
  /** The POS client's log lines go back through it. */
  readonly events: MessagePort;
}

export interface ReadStockExportTask {
  readonly input: StockExportReadInput;
  /** The POS client's log lines go back through it; `STOCK_EXPORT_ABORT` comes through it to end the fetch. */
  readonly events: MessagePort;
}

/** Sent to a running `readStockExport` task when its caller aborts (see `create-catalog-workers.ts`). */
export const STOCK_EXPORT_ABORT = 'abort';

/** One message to a catalog worker: the task's name and its input. */
export type CatalogWorkerTask =
  | { readonly task: 'readCatalog'; readonly input: ReadCatalogTask }
  | { readonly task: 'readUnitDocument'; readonly input: ReadUnitDocumentTask }
  | { readonly task: 'readStockExport'; readonly input: ReadStockExportTask }
  | { readonly task: 'fingerprint'; readonly input: { readonly header: string; readonly chunks: readonly ItemChunk[] } }
  | { readonly task: 'checkEnrichment'; readonly input: EnrichmentSheetInput };

/**
 * The young generation of a full sync's thread for a small catalog served beside it, in MiB (V8 sizes it for
 * the machine, ~48 MiB here); also the catalog pool's and the second document thread's. The merge keeps
 * ~50 MiB live at 100,000 × 5 while it allocates and drops far more; in a young generation this small the
 * thread's peak was ~35 MiB lower at the same speed (4 MiB: no lower, 10 % slower). Decision 0018.
 */
export const SYNC_YOUNG_GENERATION_MB = 8;

/**
 * The young generation of a full sync's thread (MiB) for a large catalog, and from how many expected articles
 * a catalog counts as large. There the scavenges of the small one cost more than its memory saves: a
 * 1,000,000 × 5 sync took 156–171 s instead of 188 s (single runs), its reading's peak ~40–100 MiB higher,
 * still below its publish's. Below it the small one keeps a 100,000 × 5 day within its 600 MiB. The second
 * document thread (`unit-document-helper.ts`) keeps the small one. Decision 0018.
 */
export const LARGE_SYNC_YOUNG_GENERATION_MB = 32;

/**
 * Also from how many articles a full sync gives its freed memory back (`trim-allocator.ts`, decision 0023): a
 * trim walks every arena of the process whatever the catalog (in the test suite's processes, which run many
 * small bridges, trims after every sync cost ~2.5 minutes of test time in all), and below this size a sync frees
 * too little for them to show in its peak (a day at 100,000 × 5: 516 MiB with them, 513 without).
 */
export const LARGE_SYNC_ARTICLES = 250_000;

/**
 * Below this many articles a full sync is small: expected so, it runs in a thread that stays a minute after the
 * run (as the re-reads' thread does), and the thread stays only if the read found it so (it ends after a read
 * that found more, or failed); found so, the thread makes one forced collection after the run instead of one
 * after each phase. For a 500 × 3 catalog a fresh thread spent 0.75–1.1 s of CPU per sync (loading its bundle,
 * running cold code, eight forced collections ~200 ms) on ~0.1 s of reading and merging, and its heap is a few
 * MiB. A larger catalog's thread ends when idle, its heap freed at once (decision 0006).
 */
export const SMALL_SYNC_ARTICLES = 20_000;

/** Whether a full sync of `articles` (expected or found; absent: unknown) is small (`SMALL_SYNC_ARTICLES`). */
export function isSmallSync(articles: number | undefined): boolean {
  return articles !== undefined && articles < SMALL_SYNC_ARTICLES;
}

/**
 * The young generation for a full sync expecting `articles`. Absent, nothing is served yet (the first sync
 * of a new store): no catalog shares the process's memory, and the catalog may be of any size, so the large one.
 */
export function syncYoungGenerationMb(articles: number | undefined): number {
  return articles === undefined || articles >= LARGE_SYNC_ARTICLES ? LARGE_SYNC_YOUNG_GENERATION_MB : SYNC_YOUNG_GENERATION_MB;
}
