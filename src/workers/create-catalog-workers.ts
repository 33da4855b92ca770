import { MessageChannel, type TransferListItem } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { PosClientConfig } from '../adapters/pos/pos-client.js';
import { raceAbort } from '../core/async/deadline.js';
import type { CatalogWorkers } from '../services/catalog/catalog-workers.js';
import type { ReadCatalogEvent, ReadCatalogOutput } from '../services/catalog/read-catalog.js';
import type { StockExportOutput } from '../services/catalog/resolve-stock-export.js';
import type runCatalogTask from './catalog-worker.js';
import {
  type CatalogWorkerData,
  isSmallSync,
  LARGE_SYNC_ARTICLES,
  STOCK_EXPORT_ABORT,
  SYNC_YOUNG_GENERATION_MB,
  syncYoungGenerationMb,
} from './catalog-worker-tasks.js';
import { taskErrorOf, WorkerFailedError } from './task-errors.js';
import { threadsExited } from './threads-exited.js';
import { prepareAllocatorTrim, trimAllocator } from './trim-allocator.js';
import { workerEntry, workerEntryAt } from './worker-entry.js';

/** How long a small catalog's full sync thread stays idle (`isSmallSync`): as long as the re-reads' one. */
const SMALL_SYNC_THREAD_IDLE_MS = 60_000;

/** The key of the pool whose sync thread stays (`isSmallSync`; always the small young generation). */
const KEPT_SYNC_POOL = 'kept';

/** Longest wait for the full sync's thread to end after its task (it ends within milliseconds). */
const THREAD_EXIT_WAIT_MS = 2_000;

/**
 * Runs a task of a pool whose threads end when idle, and when it succeeds waits (at most
 * `THREAD_EXIT_WAIT_MS`) for the thread that ran it to exit: the full sync's publish then builds the new
 * version's products once that thread's heap is freed, not beside it. A failed or aborted task is not held
 * up; neither is the next sync queued behind it for longer than the cap.
 */
async function runThenAwaitExit<T>(pool: Piscina, task: () => Promise<T>): Promise<T> {
  const running = task();
  // piscina adds the thread while `run` is called, and removes an idle one on a timer after the task.
  const threads = new Set(pool.threads);
  const result = await running;
  for (const thread of pool.threads) threads.add(thread);
  await threadsExited([...threads], THREAD_EXIT_WAIT_MS);
  return result;
}

export interface CatalogWorkersOptions {
  readonly pos: PosClientConfig;
  /** Threads for stock exports and fingerprints; default 1 (see below). */
  readonly threads?: number;
  /** The worker entry module; `catalog-worker` by default (tests stand in failing ones). */
  readonly entry?: URL;
  /** Post the threads' POS client debug lines to this thread's log (when its level shows them); off by default. */
  readonly debugLogs?: boolean;
}

/**
 * The catalog's CPU-heavy work in worker threads (piscina), as decision 0006 splits it:
 * - the full sync in one thread that ends as soon as it is idle: its heap (the merge's working state,
 *   ~200 MB at 100,000 × 5) is returned to the system at once instead of waiting for a GC; in a pool of one
 *   thread per young generation the catalog expected calls for (`syncYoungGenerationMb`). A small catalog's
 *   thread stays a minute instead (`isSmallSync`), unless the read found a large one or failed;
 * - stock re-reads (each unit's export fetched, parsed and resolved there, against the family's identity
 *   index in shared memory) and fingerprints in a small pool whose threads stay a minute (a burst of sales
 *   re-reads every few seconds: no thread started for each), at a lower priority than the main thread;
 * - reading an enrichment sheet into its table in a thread of its own that ends when idle, like the full
 *   sync's: reading a 100,000-row sheet builds ~150 MB of rows that are garbage once the table is made.
 * A crashed thread is replaced by the pool; its task fails with `WORKER_FAILED`. `close` waits for the
 * tasks in flight.
 */
export function createCatalogWorkers(options: CatalogWorkersOptions): CatalogWorkers {
  // koffi's native module loads in ~20 ms: at the start, before the listener opens, not after the first sync.
  prepareAllocatorTrim();
  const debugLogs = options.debugLogs === true ? { debugLogs: true } : {};
  const entryOf = (data: CatalogWorkerData) =>
    options.entry === undefined ? workerEntry('catalog-worker', data) : workerEntryAt(options.entry, data);
  let closed = false;
  const refused = (task: string) => new WorkerFailedError(`worker task ${task} refused: the worker threads are shut down`);
  // The full sync at normal priority (it must end by its deadline); re-reads and fingerprints below the main thread.
  // A pool of one thread per young generation a catalog calls for (`syncYoungGenerationMb`) and per whether
  // its thread stays after a run (`isSmallSync`), made on first use.
  const syncPools = new Map<string, Piscina>();
  function syncPoolFor(expectedArticles: number | undefined): { readonly pool: Piscina; readonly stays: boolean } {
    // No pool is made once closed: it would never be closed.
    if (closed) throw refused('readCatalog');
    const youngGenerationMb = syncYoungGenerationMb(expectedArticles);
    const stays = isSmallSync(expectedArticles);
    const key = stays ? KEPT_SYNC_POOL : String(youngGenerationMb);
    let pool = syncPools.get(key);
    if (pool === undefined) {
      pool = new Piscina({
        ...entryOf({ pos: options.pos, background: false, ...debugLogs }),
        minThreads: 0,
        maxThreads: 1,
        idleTimeout: stays ? SMALL_SYNC_THREAD_IDLE_MS : 0,
        resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb },
      });
      syncPools.set(key, pool);
    }
    return { pool, stays };
  }
  /** Ends the kept sync thread (`isSmallSync`) and its pool: the next sync starts a new one. */
  async function retireKeptSyncPool(): Promise<void> {
    const kept = syncPools.get(KEPT_SYNC_POOL);
    syncPools.delete(KEPT_SYNC_POOL);
    await kept?.destroy();
  }
  /** A small catalog's sync in the kept thread, which stays only when the read was small as expected. */
  async function runKept(runTask: () => Promise<ReadCatalogOutput>): Promise<ReadCatalogOutput> {
    let output: ReadCatalogOutput | undefined;
    try {
      output = await runTask();
      return output;
    } finally {
      if (!output?.ok || !isSmallSync(output.sources.articles?.count)) await retireKeptSyncPool();
    }
  }
  const catalogPool = new Piscina({
    ...entryOf({ pos: options.pos, background: true, ...debugLogs }),
    minThreads: 0,
    // One thread: a second one held another ~100 MiB of heap during a burst of sales
    // (bench/memory-budget.ts) to parse the units' exports of a confirming re-read in parallel; the re-reads
    // only confirm what the sales' movements did, and wait 5× their own length anyway (stock-rereads.ts).
    maxThreads: options.threads ?? 1,
    // A re-read fetches its export in the thread (waiting on the POS) and then parses it: one unit's export
    // is fetched while another's is parsed.
    concurrentTasksPerWorker: 2,
    idleTimeout: 60_000,
    // Its re-reads parse stock exports as the full sync's thread does, and keep as little alive.
    resourceLimits: { maxYoungGenerationSizeMb: SYNC_YOUNG_GENERATION_MB },
  });

  const sheetPool = new Piscina({
    ...entryOf({ pos: options.pos, background: true, ...debugLogs }),
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 0,
  });

  async function run<T>(
    pool: Piscina,
    // The entry's own parameter type: it also brings the entry into a build that starts from this file (bench/compile-script.ts).
    message: Parameters<typeof runCatalogTask>[0],
    options: { readonly transferList?: TransferListItem[]; readonly signal?: AbortSignal | undefined } = {},
  ): Promise<T> {
    if (closed) throw refused(message.task);
    const { signal } = options;
    signal?.throwIfAborted();
    try {
      // piscina ends the thread of an aborted task that is running (its sockets and heap go with it).
      return (await pool.run(message, {
        ...(options.transferList === undefined ? {} : { transferList: options.transferList }),
        ...(signal === undefined ? {} : { signal }),
      })) as T;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      // A coded error of the task's own (a document over its limits, a stock export without a header).
      throw taskErrorOf(message.task, error);
    }
  }

  return {
    async readCatalog(input, onEvent, signal) {
      const { pool: syncPool, stays } = syncPoolFor(input.expectedArticles);
      const { port1, port2 } = new MessageChannel();
      port1.on('message', (event: ReadCatalogEvent) => onEvent(event));
      try {
        const runTask = () =>
          run<ReadCatalogOutput>(
            syncPool,
            { task: 'readCatalog', input: { input, events: port2 } },
            { transferList: [port2], signal },
          );
        // A small catalog's thread stays (`isSmallSync`): nothing to wait for, unless the read found more
        // articles than expected or failed: then the thread goes, its heap with it, before the publish.
        const output = stays ? await runKept(runTask) : await runThenAwaitExit(syncPool, runTask);
        // What the thread allocated with malloc is free now but kept by glibc (~300 MiB after a 1,000,000 × 5
        // sync): given back before the publish grows the heap (decision 0023). In koffi's thread; this one waits.
        // The same rule as the thread's own trims: by the article list's size (`LARGE_SYNC_ARTICLES`).
        if (output.ok && (output.sources.articles?.count ?? 0) >= LARGE_SYNC_ARTICLES) await trimAllocator();
        return output;
      } finally {
        port1.close();
      }
    },
    async readStockExport(input, onEvent, signal) {
      signal?.throwIfAborted();
      const { port1, port2 } = new MessageChannel();
      port1.on('message', (event: ReadCatalogEvent) => onEvent(event));
      // Not piscina's signal: a task that has one gets a thread to itself (no second re-read beside it), and
      // its abort ends the thread, and the other re-read in it. The task is told instead, and ends its fetch;
      // the caller stops waiting at once.
      const abort = () => port1.postMessage(STOCK_EXPORT_ABORT);
      signal?.addEventListener('abort', abort, { once: true });
      const running = run<StockExportOutput>(
        catalogPool,
        { task: 'readStockExport', input: { input, events: port2 } },
        { transferList: [port2] },
      ).finally(() => port1.close());
      try {
        return await raceAbort(running, signal);
      } finally {
        signal?.removeEventListener('abort', abort);
      }
    },
    fingerprint: (header, chunks, signal) => run(catalogPool, { task: 'fingerprint', input: { header, chunks } }, { signal }),
    checkEnrichment: (sheet, signal) => run(sheetPool, { task: 'checkEnrichment', input: sheet }, { signal }),
    async close() {
      closed = true;
      await Promise.all([...[...syncPools.values()].map((pool) => pool.close()), catalogPool.close(), sheetPool.close()]);
    },
  };
}
