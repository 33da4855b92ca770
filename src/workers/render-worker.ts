import { workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { CatalogSnapshot, Product } from '../core/catalog/catalog.js';
import { decodeChunk, type ItemChunk } from '../core/catalog/catalog-chunks.js';
import { createSharedValues } from '../core/catalog/share-values.js';
import type { FeedReport } from '../core/feeds/feed-report.js';
import { loadTemplates, type TemplateFile } from '../core/feeds/load-templates.js';
import type { StockSettings } from '../core/feeds/stock-policy.js';
import { encodeBodySync } from '../services/feeds/encoded-feed.js';
import { createFeedBuilder, type FeedRequest, type FeedServiceOptions, isPrecompressed } from '../services/feeds/feed-builder.js';
import { createGarbageCollector } from './collect-garbage.js';
import { lowerThreadPriority } from './lower-thread-priority.js';

/**
 * Entry of the feed-rendering worker thread (`create-feed-renderer.ts`): renders and compresses feeds
 * of one catalog version from its serialized chunks, which it reads from shared memory, and moves the
 * bodies to the main thread. The templates are compiled here from the same files the main thread
 * validated at start.
 */

export interface RenderWorkerData {
  readonly templates: readonly TemplateFile[];
  readonly stock: StockSettings;
  readonly options: FeedServiceOptions;
}

export interface RenderTask {
  readonly snapshot: Omit<CatalogSnapshot, 'products'>;
  readonly chunks: readonly ItemChunk[];
  readonly requests: readonly FeedRequest[];
}

/**
 * A rendered body as the main thread keeps it: the gzip and br forms and the identity's length, or, for a
 * body compressed already, the identity alone. Each in a buffer of its own, moved (not copied) to the main
 * thread; the identity of a compressible body is not sent at all (the main thread would only drop it).
 */
export type RenderResult =
  | { readonly identityLength: number; readonly gzip: Uint8Array; readonly br: Uint8Array; readonly report: FeedReport }
  | { readonly identity: Uint8Array; readonly identityLength: number; readonly report: FeedReport };

const data = workerData as RenderWorkerData;
// Renders wait for the main thread on a busy machine: a poller is answered from the last render meanwhile.
lowerThreadPriority();
const builder = createFeedBuilder(loadTemplates(data.templates, data.stock), data.options);
const collectGarbage = createGarbageCollector();

/** The bytes in an ArrayBuffer of their own: small Buffers share a pool, which must not be moved away. */
function own(bytes: Buffer): Uint8Array {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return copy;
}

/** piscina calls an entry's default export with each task. */
export default async function renderFeeds(task: RenderTask): Promise<unknown> {
  const results = await render(task);
  // The parsed catalog and the bodies' first copies are garbage now (see collect-garbage.ts).
  collectGarbage();
  // Moved, not cloned: the main thread owns the bodies and this thread keeps no reference to them.
  const buffers = results.flatMap((result) =>
    'identity' in result ? [result.identity.buffer] : [result.gzip.buffer, result.br.buffer],
  );
  return move({ [transferableSymbol]: buffers, [valueSymbol]: results });
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
  for (const request of task.requests) {
    // Text feeds render synchronously here; the workbook's writer awaits its zip stream between rows.
    const { body, report } = await builder.build(snapshot, request);
    const encoded = encodeBodySync(body, !isPrecompressed(request.file));
    const { identityLength } = encoded;
    results.push(
      encoded.identity === undefined
        ? { identityLength, gzip: own(encoded.gzip), br: own(encoded.br), report }
        : { identity: own(encoded.identity), identityLength, report },
    );
  }
  return results;
}
