import type { MessagePort } from 'node:worker_threads';
import type { PosClientConfig } from '../adapters/pos/pos-client.js';
import type { ItemChunk } from '../core/catalog/catalog-chunks.js';
import type { EnrichmentSheetInput } from '../services/catalog/enrich-catalog.js';
import type { ReadCatalogInput } from '../services/catalog/read-catalog.js';
import type { StockExportInput } from '../services/catalog/resolve-stock-export.js';
import type { UnitDocumentRequest } from '../services/catalog/unit-documents.js';

/**
 * What the catalog worker threads (`catalog-worker.ts`) are given: their start data and the messages of their
 * tasks. Apart from the entry so that the pools that start it (`create-catalog-workers.ts`, and the entry
 * itself for the full sync's second thread, `unit-document-helper.ts`) need not import it.
 */

/** What every thread gets at start (`workerData`). */
export interface CatalogWorkerData {
  /** The POS client's settings, the URL and key included (the full sync reads the POS from the worker). */
  readonly pos: PosClientConfig;
  /** Run below the main thread's priority (stock re-reads, fingerprints; see lower-thread-priority.ts). */
  readonly background: boolean;
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

/** One message to a catalog worker: the task's name and its input. */
export type CatalogWorkerTask =
  | { readonly task: 'readCatalog'; readonly input: ReadCatalogTask }
  | { readonly task: 'readUnitDocument'; readonly input: ReadUnitDocumentTask }
  | { readonly task: 'resolveStockExport'; readonly input: StockExportInput }
  | { readonly task: 'fingerprint'; readonly input: { readonly header: string; readonly chunks: readonly ItemChunk[] } }
  | { readonly task: 'checkEnrichment'; readonly input: EnrichmentSheetInput };
