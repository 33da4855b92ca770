import { type MessagePort, workerData } from 'node:worker_threads';
import { createPosClient, type PosClientConfig } from '../adapters/pos/pos-client.js';
import { posDocumentReaders } from '../adapters/pos/pos-document-readers.js';
import { fingerprintChunks, type ItemChunk } from '../core/catalog/catalog-chunks.js';
import type { EnrichmentSheetInput } from '../services/catalog/enrich-catalog.js';
import {
  type ReadCatalogEvent,
  type ReadCatalogInput,
  type ReadCatalogOutput,
  readCatalog as readCatalogFromPos,
} from '../services/catalog/read-catalog.js';
import {
  createIdentityIndexCache,
  resolveStockExportBody,
  type StockExportInput,
  type StockExportOutput,
} from '../services/catalog/resolve-stock-export.js';
import { createGarbageCollector } from './collect-garbage.js';
import { lowerThreadPriority } from './lower-thread-priority.js';

/**
 * Entry of the catalog worker threads (`create-catalog-workers.ts`): piscina runs `runTask` with each
 * task's name and input. Module state lives as long as the thread: the identity indexes of
 * the last catalog families.
 */

/** What every thread gets at start (`workerData`). */
export interface CatalogWorkerData {
  /** The POS client's settings, the URL and key included (the full sync reads the POS from the worker). */
  readonly pos: PosClientConfig;
  /** Run below the main thread's priority (stock re-reads, fingerprints; see lower-thread-priority.ts). */
  readonly background: boolean;
}

const data = workerData as CatalogWorkerData;
if (data.background) lowerThreadPriority();

const collectGarbage = createGarbageCollector();
const identities = createIdentityIndexCache();

export interface ReadCatalogTask {
  readonly input: ReadCatalogInput;
  /** Phase timings and the POS client's log lines go back through it. */
  readonly events: MessagePort;
}

async function readCatalog(task: ReadCatalogTask): Promise<ReadCatalogOutput> {
  const emit = (event: ReadCatalogEvent) => task.events.postMessage(event);
  const pos = createPosClient({
    config: data.pos,
    logger: {
      debug: (meta, message) => emit({ type: 'log', level: 'debug', meta, message }),
      warn: (meta, message) => emit({ type: 'log', level: 'warn', meta, message }),
    },
  });
  try {
    return await readCatalogFromPos({ pos, documents: posDocumentReaders }, task.input, emit, collectGarbage);
  } finally {
    await pos.close();
    task.events.close();
  }
}

function resolveStockExport(input: StockExportInput): StockExportOutput {
  return resolveStockExportBody(input, identities, posDocumentReaders);
}

function fingerprint(task: { readonly header: string; readonly chunks: readonly ItemChunk[] }): string {
  return fingerprintChunks(task.header, task.chunks);
}

/** One message to a catalog worker: the task's name and its input. */
export type CatalogWorkerTask =
  | { readonly task: 'readCatalog'; readonly input: ReadCatalogTask }
  | { readonly task: 'resolveStockExport'; readonly input: StockExportInput }
  | { readonly task: 'fingerprint'; readonly input: { readonly header: string; readonly chunks: readonly ItemChunk[] } }
  | { readonly task: 'checkEnrichment'; readonly input: EnrichmentSheetInput };

/** piscina calls an entry's default export with each task's message. */
export default function runTask(message: CatalogWorkerTask): unknown {
  switch (message.task) {
    case 'readCatalog':
      return readCatalog(message.input);
    case 'resolveStockExport': {
      try {
        return resolveStockExport(message.input);
      } catch (error) {
        throw withCodeInMessage(error);
      } finally {
        // The parsed export is garbage now; so is the body's copy (see collect-garbage.ts).
        collectGarbage();
      }
    }
    case 'fingerprint':
      return fingerprint(message.input);
    case 'checkEnrichment':
      // The reader's libraries are loaded by the first check only (see read-catalog.ts).
      return import('../services/catalog/enrich-catalog.js').then(({ checkEnrichmentSheet }) =>
        checkEnrichmentSheet(message.input).finally(collectGarbage),
      );
  }
}

/**
 * An error's `code` does not cross the thread boundary (only name, message and stack are cloned), so it
 * travels at the head of the message, `CODE: message`; `create-catalog-workers.ts` takes it off again.
 */
function withCodeInMessage(error: unknown): unknown {
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') return error;
  return new Error(`${error.code}: ${error.message}`);
}
