import type { PosClient } from '../../adapters/pos/pos-client.js';
import { fingerprintChunks, type ItemChunk } from '../../core/catalog/catalog-chunks.js';
import { type ReadCatalogEvent, type ReadCatalogInput, type ReadCatalogOutput, readCatalog } from './read-catalog.js';
import {
  createIdentityIndexCache,
  resolveStockExportBody,
  type StockExportInput,
  type StockExportOutput,
} from './resolve-stock-export.js';

/**
 * The catalog's CPU-heavy work, behind one port so that the service does not care which thread runs it:
 * worker threads in the app (`src/workers/`), the calling thread in tests that read from an in-memory
 * POS. Inputs and outputs are shared memory, typed arrays and small reports, never object graphs.
 */
export interface CatalogWorkers {
  /** A full sync's reading, merging and serializing (`read-catalog.ts`). */
  readCatalog(input: ReadCatalogInput, onEvent: (event: ReadCatalogEvent) => void): Promise<ReadCatalogOutput>;
  /** Parses a unit's stock export and resolves its rows to product positions (`resolve-stock-export.ts`). */
  resolveStockExport(input: StockExportInput): Promise<StockExportOutput>;
  /** The content fingerprint of serialized items (`fingerprintChunks`). */
  fingerprint(header: string, chunks: readonly ItemChunk[]): Promise<string>;
  /** Waits for work in flight, then releases the threads. */
  close(): Promise<void>;
}

/** Everything in the calling thread: for tests and tools whose POS client is not reachable from a worker. */
export function createInThreadCatalogWorkers(pos: PosClient): CatalogWorkers {
  const identities = createIdentityIndexCache();
  return {
    readCatalog: (input, onEvent) => readCatalog(pos, input, onEvent),
    resolveStockExport: async (input) => resolveStockExportBody(input, identities),
    fingerprint: async (header, chunks) => fingerprintChunks(header, chunks),
    async close() {},
  };
}
