import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { WrittenForm } from '../adapters/feed-files/write-feed-body.js';
import type { CatalogSnapshot } from '../core/catalog/catalog.js';
import type { ItemChunk } from '../core/catalog/catalog-chunks.js';
import type { TemplateFile } from '../core/feeds/load-templates.js';
import { CHANGES_FEED_FILE } from '../core/feeds/render-changes-feed.js';
import type { StockSettings } from '../core/feeds/stock-policy.js';
import { mapForms, type StoredFile } from '../services/feeds/encoded-feed.js';
import { countInViews, type FeedServiceOptions } from '../services/feeds/feed-builder.js';
import type { FeedRenderer, RenderedBody } from '../services/feeds/feed-renderer.js';
import type { RenderResult, RenderTask, RenderWorkerData } from './render-worker.js';
import { WorkerFailedError } from './task-errors.js';
import { workerEntry, workerEntryAt } from './worker-entry.js';

/**
 * An idle render thread ends after this long. A thread that stayed a minute kept ~75 MiB (its heap, its
 * buffers, the templates) into whatever came next, often the next sync; a new one costs a fraction of a
 * second of a pass that takes a minute at 100,000 × 5, and under sales the passes follow each other anyway.
 */
const RENDER_IDLE_MS = 10_000;

/**
 * The render thread's young generation, in MiB (V8 sizes it for the machine, ~48 MiB here). A pass keeps a
 * window of chunks and one product's items alive while it allocates far more: with 8 MiB its peak was
 * 155–178 MiB over the start against 184–203 with V8's size, at the same CPU (`bench/render-pass.ts`).
 */
const RENDER_YOUNG_GENERATION_MB = 8;

export interface WorkerFeedRendererOptions {
  readonly templates: readonly TemplateFile[];
  /** The stock settings the templates were compiled with in this thread (`LoadedTemplates.stock`). */
  readonly stock: StockSettings;
  readonly options: FeedServiceOptions;
  /** The serialized chunks of a served version (`CatalogService.chunksOf`). */
  readonly chunksOf: (snapshot: CatalogSnapshot) => Promise<readonly ItemChunk[] | undefined>;
  /** Renders versions the catalog did not serve (none in the app). */
  readonly fallback: FeedRenderer;
  /** The feed files directory the worker writes bodies to (`FeedFileStore.dir`). */
  readonly outputDir: string;
  /** The worker entry module; `render-worker` by default (tests stand in failing ones). */
  readonly entry?: URL;
  /** Chunks the worker keeps parsed at a time (`render-worker.ts`); tests make it 1. */
  readonly windowChunks?: number;
}

/**
 * Feeds rendered and compressed in a worker thread (decision 0006): the worker reads the version's chunks
 * from shared memory a few at a time, renders every feed asked for in one pass over them and writes each
 * body to files as it renders (decision 0016), so the main thread only answers requests and holds no body.
 * One thread (the scheduler sends one call at a time anyway), ended when idle for `RENDER_IDLE_MS`.
 */
/** The feeds whose head gives their item count: `products.json`, and `changes.json` of a whole catalog. */
const COUNTED_FILES = new Set(['products.json', CHANGES_FEED_FILE]);

export function createWorkerFeedRenderer(options: WorkerFeedRendererOptions): FeedRenderer {
  const data: RenderWorkerData = {
    templates: options.templates,
    stock: options.stock,
    options: options.options,
    outputDir: options.outputDir,
    ...(options.windowChunks === undefined ? {} : { windowChunks: options.windowChunks }),
  };
  const entry = options.entry === undefined ? workerEntry('render-worker', data) : workerEntryAt(options.entry, data);
  const pool = new Piscina({
    ...entry,
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: RENDER_IDLE_MS,
    resourceLimits: { maxYoungGenerationSizeMb: RENDER_YOUNG_GENERATION_MB },
  });
  let closed = false;
  return {
    async render(snapshot, requests) {
      if (closed) throw new WorkerFailedError('rendering refused: the render thread is shut down');
      const chunks = await options.chunksOf(snapshot);
      if (chunks === undefined) return options.fallback.render(snapshot, requests);
      const { products, ...head } = snapshot;
      // The worker reads the products as it renders; the JSON feed's count comes before its items
      // (one pass over the main thread's products for every view: a few ms at 100,000 products).
      const views = new Set(requests.filter((request) => COUNTED_FILES.has(request.file)).map((request) => request.view));
      const counts = countInViews(products, views);
      const task: RenderTask = { snapshot: head, chunks, counts, requests };
      let results: RenderResult[];
      try {
        results = (await pool.run(task)) as RenderResult[];
      } catch (error) {
        const text = error instanceof Error ? error.message : String(error);
        throw new WorkerFailedError(`rendering feeds failed in the worker: ${text}`, { cause: error });
      }
      const stored = (form: WrittenForm): StoredFile => ({ path: join(options.outputDir, form.name), length: form.length });
      return results.map(
        ({ files, identityLength, report }): RenderedBody => ({
          files: mapForms(files, stored),
          identityLength,
          report,
        }),
      );
    },
    async close() {
      closed = true;
      await pool.close();
    },
  };
}
