import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfiguredTemplates } from '../src/app/feed-parts.js';
import type { CatalogSnapshot } from '../src/core/catalog/catalog.js';
import { type ItemChunk, serializeItems } from '../src/core/catalog/catalog-chunks.js';
import type { CompiledFeed } from '../src/core/feeds/compiled-feed.js';
import { createFeedBuilder } from '../src/services/feeds/feed-builder.js';
import type { FeedRenderer } from '../src/services/feeds/feed-renderer.js';
import { createInThreadFeedRenderer } from '../src/services/feeds/feed-renderer.js';
import { createWorkerFeedRenderer } from '../src/workers/create-feed-renderer.js';
import { createTestConfig } from '../test/helpers/test-config.js';
import { sandboxSnapshot } from './sandbox-snapshot.js';

export interface BenchRenderer {
  readonly snapshot: CatalogSnapshot;
  readonly chunks: readonly ItemChunk[];
  /** The shipped templates, compiled in this thread. */
  readonly compiled: readonly CompiledFeed[];
  /** The app's render worker (`createWorkerFeedRenderer`) over `chunks`, writing into a temp dir deleted at exit. */
  readonly renderer: FeedRenderer;
}

/**
 * The sandbox's catalog (`sandboxSnapshot`) serialized into shared chunks as a full sync leaves them, and
 * the render worker with the shipped templates and every link set: what the render benchmarks measure.
 */
export async function benchRenderer(options: {
  readonly products: number;
  readonly units: number;
  readonly version: string;
  readonly dirPrefix: string;
}): Promise<BenchRenderer> {
  const snapshot = { ...sandboxSnapshot({ products: options.products, units: options.units }), version: options.version };
  const chunks = serializeItems(snapshot.products);
  const { compiled, files, stock } = await loadConfiguredTemplates(createTestConfig({}));
  const feedOptions = {
    currency: 'CZK',
    brand: undefined,
    baseUrl: 'https://bridge.example',
    links: { storeCodes: {}, productUrl: 'https://shop.example.cz/p/{id}', imageUrl: 'https://shop.example.cz/i/{id}.jpg' },
  };
  const feedFilesDir = mkdtempSync(join(tmpdir(), options.dirPrefix));
  // The files are kept until the end of the run.
  process.on('exit', () => rmSync(feedFilesDir, { recursive: true, force: true }));
  const renderer = createWorkerFeedRenderer({
    templates: files,
    stock,
    options: feedOptions,
    chunksOf: async () => chunks,
    fallback: createInThreadFeedRenderer(createFeedBuilder(compiled, feedOptions)),
    outputDir: feedFilesDir,
  });
  return { snapshot, chunks, compiled, renderer };
}
