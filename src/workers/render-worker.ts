import { workerData } from 'node:worker_threads';
import { removeWritten, type WrittenBody, writeFeedBodySync } from '../adapters/feed-files/write-feed-body.js';
import type { CatalogSnapshot, Product } from '../core/catalog/catalog.js';
import { decodeChunk, type ItemChunk } from '../core/catalog/catalog-chunks.js';
import { createSharedValues } from '../core/catalog/share-values.js';
import type { FeedReport } from '../core/feeds/feed-report.js';
import { loadTemplates, type TemplateFile } from '../core/feeds/load-templates.js';
import type { StockSettings } from '../core/feeds/stock-policy.js';
import {
  createFeedBuilder,
  type FeedRequest,
  type FeedServiceOptions,
  feedKey,
  isPrecompressed,
} from '../services/feeds/feed-builder.js';
import { createGarbageCollector } from './collect-garbage.js';
import { lowerThreadPriority } from './lower-thread-priority.js';

/**
 * Entry of the feed-rendering worker thread (`create-feed-renderer.ts`): renders and compresses feeds
 * of one catalog version from its serialized chunks, which it reads from shared memory, and writes the
 * bodies to files as they render (the main thread gets their names, never the bytes). The templates are
 * compiled here from the same files the main thread validated at start.
 */

export interface RenderWorkerData {
  readonly templates: readonly TemplateFile[];
  readonly stock: StockSettings;
  readonly options: FeedServiceOptions;
  /** The feed files directory the bodies are written to (docs/decisions/0016-feed-files.md). */
  readonly outputDir: string;
}

export interface RenderTask {
  readonly snapshot: Omit<CatalogSnapshot, 'products'>;
  readonly chunks: readonly ItemChunk[];
  readonly requests: readonly FeedRequest[];
}

/** A rendered body as written: its files' names in `outputDir` and lengths, and the render's report. */
export type RenderResult = WrittenBody & { readonly report: FeedReport };

const data = workerData as RenderWorkerData;
// Renders wait for the main thread on a busy machine: a poller is answered from the last render meanwhile.
lowerThreadPriority();
const builder = createFeedBuilder(loadTemplates(data.templates, data.stock), data.options);
const collectGarbage = createGarbageCollector();

/** piscina calls an entry's default export with each task. */
export default async function renderFeeds(task: RenderTask): Promise<RenderResult[]> {
  try {
    return await render(task);
  } finally {
    // The parsed catalog is garbage now (see collect-garbage.ts).
    collectGarbage();
  }
}

async function render(task: RenderTask): Promise<RenderResult[]> {
  const products: Product[] = [];
  const values = createSharedValues();
  for (const chunk of task.chunks) {
    const decoded = decodeChunk<Product>(chunk);
    values.share(decoded);
    for (const product of decoded) products.push(product);
  }
  const snapshot: CatalogSnapshot = { ...task.snapshot, products };
  const results: RenderResult[] = [];
  try {
    for (const request of task.requests) results.push(await renderOne(snapshot, request));
  } catch (error) {
    // The call fails as a whole: no manifest will name the files of its feeds rendered so far.
    await Promise.all(results.map((result) => removeWritten(data.outputDir, result)));
    throw error;
  }
  return results;
}

async function renderOne(snapshot: CatalogSnapshot, request: FeedRequest): Promise<RenderResult> {
  const key = feedKey(request);
  // Text feeds render synchronously here; the workbook's writer awaits its zip stream between rows.
  const chunks = builder.stream(snapshot, request);
  if (chunks !== undefined) {
    const { report, ...written } = writeFeedBodySync(data.outputDir, key, snapshot.version, chunks, true);
    if (report === undefined) throw new Error(`the render of ${key} gave no report`);
    return { ...written, report };
  }
  const { body, report } = await builder.build(snapshot, request);
  const written = writeFeedBodySync(data.outputDir, key, snapshot.version, body, !isPrecompressed(request.file));
  return { files: written.files, identityLength: written.identityLength, report };
}
