import { raceAbort } from '../../core/async/deadline.js';
import { fingerprintChunks, type ItemChunk } from '../../core/catalog/catalog-chunks.js';
import type { CompiledEnrichment } from '../../core/enrichment/compile-enrichment.js';
import type { EnrichmentSheetInput } from './enrich-catalog.js';
import type { PosSource } from './pos-port.js';
import { type ReadCatalogEvent, type ReadCatalogInput, type ReadCatalogOutput, readCatalog } from './read-catalog.js';
import { readStockExport, type StockExportOutput, type StockExportReadInput } from './resolve-stock-export.js';

/**
 * The catalog's CPU-heavy work, behind one port so that the service does not care which thread runs it:
 * worker threads in the app (`src/workers/`), the calling thread in tests that read from an in-memory
 * POS. Inputs and outputs are shared memory, typed arrays and small reports, never object graphs.
 */
export interface CatalogWorkers {
  /**
   * A full sync's reading, merging and serializing (`read-catalog.ts`). When `signal` aborts, the task
   * rejects with its reason at once and its thread is ended, its requests with it.
   */
  readCatalog(
    input: ReadCatalogInput,
    onEvent: (event: ReadCatalogEvent) => void,
    signal?: AbortSignal,
  ): Promise<ReadCatalogOutput>;
  /**
   * Fetches a unit's stock export, parses it and resolves its rows to product positions
   * (`resolve-stock-export.ts`); the POS client's log lines go to `onEvent`. When `signal` aborts, the task
   * rejects with its reason at once and its fetch is ended (its thread stays, for the other re-read it may run).
   */
  readStockExport(
    input: StockExportReadInput,
    onEvent: (event: ReadCatalogEvent) => void,
    signal?: AbortSignal,
  ): Promise<StockExportOutput>;
  /** The content fingerprint of serialized items (`fingerprintChunks`). */
  fingerprint(header: string, chunks: readonly ItemChunk[], signal?: AbortSignal): Promise<string>;
  /** Reads an enrichment sheet into its table (shared memory) and says whether it can be used. */
  checkEnrichment(sheet: EnrichmentSheetInput, signal?: AbortSignal): Promise<CompiledEnrichment>;
  /** Waits for work in flight, then releases the threads. */
  close(): Promise<void>;
}

/** Everything in the calling thread: for tests and tools whose POS client is not reachable from a worker. */
export function createInThreadCatalogWorkers(source: PosSource): CatalogWorkers {
  return {
    // The calling thread cannot be ended: an aborted read is dropped (it ends with its POS's answers).
    readCatalog: (input, onEvent, signal) => raceAbort(readCatalog(source, input, onEvent), signal),
    // Raced as well: the client's retries wait out their backoff before they look at the signal.
    readStockExport: (input, _onEvent, signal) => raceAbort(readStockExport(source, input, signal), signal),
    fingerprint: async (header, chunks, signal) => {
      signal?.throwIfAborted();
      return fingerprintChunks(header, chunks);
    },
    checkEnrichment: (sheet, signal) =>
      raceAbort(
        import('./enrich-catalog.js').then(({ checkEnrichmentSheet }) => checkEnrichmentSheet(sheet)),
        signal,
      ),
    async close() {},
  };
}
