import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import {
  helperSlotsOf,
  type UnitDocumentEvent,
  type UnitDocumentRequest,
  type UnitDocumentState,
  type UnitDocumentThread,
  unitDocumentOf,
} from '../services/catalog/unit-documents.js';
import { type CatalogWorkerData, type CatalogWorkerTask, SYNC_YOUNG_GENERATION_MB } from './catalog-worker-tasks.js';
import { taskErrorOf } from './task-errors.js';
import { workerEntry } from './worker-entry.js';

/**
 * The full sync's second thread (decision 0020): started by the sync's own thread for one run, it fetches and
 * parses units' documents while that thread reads the others and merges. A thread of the sync's thread, it
 * ends with it (a sync aborted by its deadline takes it along) and is destroyed when the run ends.
 */
export function createUnitDocumentThread(data: CatalogWorkerData, concurrency: number): UnitDocumentThread {
  const pool = new Piscina({
    ...workerEntry('catalog-worker', { ...data, background: false }),
    minThreads: 0,
    maxThreads: 1,
    // Its documents' slots read at once, as the sync's thread reads its own while waiting for the POS.
    concurrentTasksPerWorker: helperSlotsOf(concurrency),
    // Its documents follow one another; the thread ends with the run (`close`), not between them.
    idleTimeout: 60_000,
    resourceLimits: { maxYoungGenerationSizeMb: SYNC_YOUNG_GENERATION_MB },
  });
  let closing: Promise<void> | undefined;
  return {
    async read(request: UnitDocumentRequest, emit: (event: UnitDocumentEvent) => void) {
      const { port1, port2 } = new MessageChannel();
      port1.on('message', (event: UnitDocumentEvent) => emit(event));
      const message: CatalogWorkerTask = { task: 'readUnitDocument', input: { request, events: port2 } };
      try {
        return unitDocumentOf((await pool.run(message, { transferList: [port2] })) as UnitDocumentState);
      } catch (error) {
        throw taskErrorOf('readUnitDocument', error);
      } finally {
        port1.close();
      }
    },
    // Called when the documents are read and again when the run ends: destroyed once.
    close: () => {
      closing ??= pool.destroy();
      return closing;
    },
  };
}
