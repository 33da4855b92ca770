import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { FeedReport } from '../../core/feeds/feed-report.js';
import { type EncodedBody, encodeBody } from './encoded-feed.js';
import { type FeedBuilder, type FeedRequest, isPrecompressed, snapshotSource } from './feed-builder.js';

/** One rendered feed: its body as kept (gzip and br, or a body compressed already), and what the render reported. */
export type RenderedBody = EncodedBody & { readonly report: FeedReport };

/**
 * Renders and compresses feeds of one catalog version. In the app a worker thread does it
 * (`src/workers/create-feed-renderer.ts`); several requests of one version share one pass over the
 * catalog there. Results come in the order of `requests`; a failed render rejects the whole call.
 */
export interface FeedRenderer {
  render(snapshot: CatalogSnapshot, requests: readonly FeedRequest[]): Promise<RenderedBody[]>;
  /** Waits for renders in flight, then releases what the renderer holds. */
  close(): Promise<void>;
}

/**
 * Rendering in the calling thread, yielding to the event loop between slices of ~5 ms, with the
 * compression in libuv's thread pool. For tests and tools; a 100,000-item feed takes seconds of this
 * thread's time, which a server must not spend on its event loop (decision 0006).
 */
export function createInThreadFeedRenderer(builder: FeedBuilder): FeedRenderer {
  return {
    async render(snapshot, requests) {
      const bodies: RenderedBody[] = [];
      const source = snapshotSource(snapshot);
      for (const request of requests) {
        const { body, report } = await builder.build(source, request, { sliceMs: 5 });
        bodies.push({ ...(await encodeBody(body, !isPrecompressed(request.file))), report });
      }
      return bodies;
    },
    async close() {},
  };
}
