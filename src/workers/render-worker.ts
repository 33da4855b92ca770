import { workerData } from 'node:worker_threads';
import {
  type FeedBodyWriter,
  openFeedBody,
  removeWritten,
  type WrittenBody,
  writeFeedBody,
} from '../adapters/feed-files/write-feed-body.js';
import type { Product } from '../core/catalog/catalog.js';
import type { ItemChunk } from '../core/catalog/catalog-chunks.js';
import { type ChunkWindow, createChunkWindow } from '../core/catalog/chunk-window.js';
import type { FeedReport } from '../core/feeds/feed-report.js';
import { loadTemplates, type TemplateFile } from '../core/feeds/load-templates.js';
import type { StockSettings } from '../core/feeds/stock-policy.js';
import {
  type CatalogHead,
  createFeedBuilder,
  createFeedItemMemo,
  type FeedItemMemo,
  type FeedRequest,
  type FeedServiceOptions,
  type FeedSource,
  feedKey,
  isPrecompressed,
} from '../services/feeds/feed-builder.js';
import { type LockstepFeed, renderInLockstep } from '../services/feeds/render-in-lockstep.js';
import { createGarbageCollector } from './collect-garbage.js';
import { lowerThreadPriority } from './lower-thread-priority.js';

/**
 * Entry of the feed-rendering worker thread (`create-feed-renderer.ts`): renders and compresses feeds
 * of one catalog version from its serialized chunks, which it reads from shared memory a few at a time
 * (never the whole catalog parsed), and writes the bodies to files as they render (the main thread gets
 * their names, never the bytes). The templates are compiled here from the same files the main thread
 * validated at start.
 */

export interface RenderWorkerData {
  readonly templates: readonly TemplateFile[];
  readonly stock: StockSettings;
  readonly options: FeedServiceOptions;
  /** The feed files directory the bodies are written to (docs/decisions/0016-feed-files.md). */
  readonly outputDir: string;
  /** Chunks parsed at a time; `WINDOW_CHUNKS` by default (tests make it 1, so that every pass evicts). */
  readonly windowChunks?: number;
}

export interface RenderTask {
  readonly snapshot: CatalogHead;
  readonly chunks: readonly ItemChunk[];
  /** Per view of a `products.json` asked for, how many products have an offer in it (its `count`). */
  readonly counts: Readonly<Record<string, number>>;
  readonly requests: readonly FeedRequest[];
}

/** A rendered body as written: its files' names in `outputDir` and lengths, and the render's report. */
export type RenderResult = WrittenBody & { readonly report: FeedReport };

/**
 * Chunks parsed at a time (~0.9 MiB of heap each at 5 units): the text feeds of a pass read side by side
 * within a few chunks of each other (`render-in-lockstep.ts`), so this holds them all with room to spare.
 */
const WINDOW_CHUNKS = 24;
/**
 * A full collection every this many chunk parses. Left to itself V8 lets the heap of a pass grow by the
 * garbage of its rendered text and evicted chunks long before it collects: every `all` feed of 100,000 × 5
 * peaked 337 MiB above the process's RSS before the pass; collecting every 64 parses (~25 ms each, seven a
 * pass), 202 MiB, and the pass took less CPU (80 s against 85; bench/render-pass.ts).
 */
const COLLECT_EVERY_PARSES = 64;

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
    // What the pass parsed is garbage now (see collect-garbage.ts).
    collectGarbage();
  }
}

/** The version as a feed source whose products are one pass over the window. */
function sourceOf(
  task: RenderTask,
  window: ChunkWindow<Product>,
  items: FeedItemMemo,
): FeedSource & { readonly position: () => number } {
  const pass = window.pass();
  return {
    head: task.snapshot,
    items,
    products: () => pass,
    position: () => pass.position,
    countInView(view) {
      const count = task.counts[view];
      if (count === undefined) throw new Error(`no product count was given for view ${view}`);
      return count;
    },
  };
}

async function render(task: RenderTask): Promise<RenderResult[]> {
  const window = createChunkWindow<Product>(task.chunks, data.windowChunks ?? WINDOW_CHUNKS, {
    onParse: (parses) => {
      if (parses % COLLECT_EVERY_PARSES === 0) collectGarbage();
    },
  });
  const { version } = task.snapshot;
  // The passes read the same parsed products (the window's): each product's item is made once per view.
  const items = createFeedItemMemo();
  const writers: FeedBodyWriter[] = [];
  const results = new Array<RenderResult | undefined>(task.requests.length);
  try {
    // Every text feed in one pass over the catalog, each body's text going to its file as it renders.
    const text: { index: number; writer: FeedBodyWriter; feed: LockstepFeed }[] = [];
    for (const [index, request] of task.requests.entries()) {
      const source = sourceOf(task, window, items);
      const chunks = builder.stream(source, request);
      if (chunks === undefined) continue;
      const writer = openFeedBody(data.outputDir, feedKey(request), version);
      writers.push(writer);
      text.push({ index, writer, feed: { chunks, position: source.position, write: (part) => writer.write(part) } });
    }
    const reports = renderInLockstep(text.map(({ feed }) => feed));
    // Compressed one body at a time, streamed from its identity file (`write-feed-body.ts`).
    for (const [at, { index, writer }] of text.entries()) {
      results[index] = { ...(await writer.finish(true)), report: reports[at] as FeedReport };
    }
    // The workbook, compressed already, is made whole by its zip writer: a pass of its own.
    for (const [index, request] of task.requests.entries()) {
      if (results[index] !== undefined) continue;
      const { body, report } = await builder.build(sourceOf(task, window, items), request);
      const written = await writeFeedBody(data.outputDir, feedKey(request), version, body, !isPrecompressed(request.file));
      results[index] = { files: written.files, identityLength: written.identityLength, report };
    }
  } catch (error) {
    // The call fails as a whole: no manifest will name the files of its feeds written so far.
    for (const writer of writers) writer.abort(); // never throws
    await Promise.all(results.map((result) => (result === undefined ? undefined : removeWritten(data.outputDir, result))));
    throw error;
  }
  return results as RenderResult[];
}
