import { workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { createPosClient } from '../adapters/pos/pos-client.js';
import { posDocumentReaders } from '../adapters/pos/pos-document-readers.js';
import { fingerprintChunks, type ItemChunk } from '../core/catalog/catalog-chunks.js';
import { usesSecondThread } from '../core/catalog/document-threads.js';
import {
  type ReadCatalogEvent,
  type ReadCatalogOutput,
  readCatalog as readCatalogFromPos,
} from '../services/catalog/read-catalog.js';
import { readStockExport as readStockExportFromPos, type StockExportOutput } from '../services/catalog/resolve-stock-export.js';
import { bufferListOf, readUnitDocumentState, type UnitDocumentThread } from '../services/catalog/unit-documents.js';
import {
  type CatalogWorkerData,
  type CatalogWorkerTask,
  isSmallSync,
  LARGE_SYNC_ARTICLES,
  type ReadCatalogTask,
  type ReadStockExportTask,
  type ReadUnitDocumentTask,
  STOCK_EXPORT_ABORT,
} from './catalog-worker-tasks.js';
import { collectOnGrowth, createGarbageCollector } from './collect-garbage.js';
import { lowerThreadPriority } from './lower-thread-priority.js';
import { withCodeInMessage } from './task-errors.js';
import { trimAllocatorNow } from './trim-allocator.js';
import { createUnitDocumentThread } from './unit-document-helper.js';

/**
 * Entry of the catalog worker threads (`create-catalog-workers.ts`): piscina runs `runTask` with each
 * task's name and input. A re-read's identity index comes with its task, in shared memory (`product-identity.ts`).
 */

const data = workerData as CatalogWorkerData;
if (data.background) lowerThreadPriority();

const collectHeap = createGarbageCollector();
/**
 * The full sync's collection: a forced one, then, for a large catalog (`LARGE_SYNC_ARTICLES`, known once the
 * article list is read), glibc asked to give back the pages that freed (decision 0023): what the merged
 * documents' rows and the serialization's buffers held goes back to the system as the offers and chunks grow.
 * On this thread (~20–250 ms), which waits for it: run on koffi's thread, not waited for, the trims slowed the
 * sync more (a trim holds the arenas' locks the parse and the merge allocate through). Not after a stock re-read
 * or a sheet check: the serving thread allocates through the same arenas.
 * None for a small catalog (`isSmallSync`, by the articles read): its heap stays small without them;
 * one after the run (`ended`) leaves the thread, which then stays for the next sync, holding little.
 */
function createSyncCollector(): {
  readonly collect: () => void;
  readonly articlesRead: (articles: number) => void;
  readonly ended: () => void;
} {
  let trims = false;
  let small = false;
  return {
    collect() {
      if (small) return;
      collectHeap();
      if (trims) trimAllocatorNow();
    },
    articlesRead(articles) {
      small = isSmallSync(articles);
      trims = articles >= LARGE_SYNC_ARTICLES;
    },
    ended() {
      if (small) collectHeap();
    },
  };
}
/** Growth of the sync thread's heap while serializing that is worth a forced collection (see `collectOnGrowth`). */
const SERIALIZING_GARBAGE_BYTES = 48 * 1024 * 1024;

/** A POS client whose log lines go out through `emit`. */
function posClientFor(emit: (event: ReadCatalogEvent) => void) {
  return createPosClient({
    config: data.pos,
    logger: {
      debug: data.debugLogs === true ? (meta, message) => emit({ type: 'log', level: 'debug', meta, message }) : () => {},
      warn: (meta, message) => emit({ type: 'log', level: 'warn', meta, message }),
    },
  });
}

async function readCatalog(task: ReadCatalogTask): Promise<ReadCatalogOutput> {
  const emit = (event: ReadCatalogEvent) => task.events.postMessage(event);
  const pos = posClientFor(emit);
  // A second thread reads units' documents beside this one, as the setting and the article count say
  // (decision 0020); started once the article list is read.
  const { documentThreads, concurrency } = task.input.options;
  let helper: UnitDocumentThread | undefined;
  const documentThread = (articles: number): UnitDocumentThread | undefined => {
    if (!usesSecondThread(documentThreads, articles)) return undefined;
    helper ??= createUnitDocumentThread(data, concurrency);
    return helper;
  };
  const collector = createSyncCollector();
  try {
    return await readCatalogFromPos({ pos, documents: posDocumentReaders }, task.input, emit, {
      collectGarbage: collector.collect,
      // Its growth is counted from when the serialization starts, after the forced collection before it.
      serializationCollector: () => collectOnGrowth(collector.collect, SERIALIZING_GARBAGE_BYTES),
      articlesRead: collector.articlesRead,
      documentThread,
    });
  } finally {
    try {
      await Promise.all([pos.close(), helper?.close()]);
      task.events.close();
    } finally {
      collector.ended();
    }
  }
}

/** One unit's document for the sync's thread; its rows are moved there, not copied. */
async function readUnitDocument(task: ReadUnitDocumentTask): Promise<unknown> {
  const pos = posClientFor((event) => task.events.postMessage(event));
  try {
    const state = await readUnitDocumentState({ pos, documents: posDocumentReaders }, task.request);
    const buffers = bufferListOf(state);
    return move({
      get [transferableSymbol]() {
        return buffers;
      },
      get [valueSymbol]() {
        return state;
      },
    });
  } catch (error) {
    throw withCodeInMessage(error);
  } finally {
    await pos.close();
    task.events.close();
  }
}

/** A unit's stock export fetched, parsed and resolved here: its body never reaches the main thread. */
async function readStockExport(task: ReadStockExportTask): Promise<StockExportOutput> {
  const pos = posClientFor((event) => task.events.postMessage(event));
  const aborted = new AbortController();
  task.events.on('message', (message: unknown) => {
    if (message === STOCK_EXPORT_ABORT) aborted.abort(new Error('the stock re-read was aborted'));
  });
  try {
    return await readStockExportFromPos({ pos, documents: posDocumentReaders }, task.input, aborted.signal);
  } catch (error) {
    throw withCodeInMessage(error);
  } finally {
    await pos.close();
    task.events.close();
    // The body and the parsed export are garbage now (see collect-garbage.ts).
    collectHeap();
  }
}

function fingerprint(task: { readonly header: string; readonly chunks: readonly ItemChunk[] }): string {
  return fingerprintChunks(task.header, task.chunks);
}

/** piscina calls an entry's default export with each task's message. */
export default function runTask(message: CatalogWorkerTask): unknown {
  switch (message.task) {
    case 'readCatalog':
      return readCatalog(message.input);
    case 'readUnitDocument':
      return readUnitDocument(message.input);
    case 'readStockExport':
      return readStockExport(message.input);
    case 'fingerprint':
      return fingerprint(message.input);
    case 'checkEnrichment':
      // The reader's libraries are loaded by the first check only (see read-catalog.ts).
      return import('../services/catalog/enrich-catalog.js').then(({ checkEnrichmentSheet }) =>
        checkEnrichmentSheet(message.input).finally(collectHeap),
      );
  }
}
