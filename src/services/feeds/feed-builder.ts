import { ALL_UNITS, type CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { CompiledFeed } from '../../core/feeds/compiled-feed.js';
import type { FeedContext, FeedItem } from '../../core/feeds/feed-item.js';
import type { FeedChunks } from '../../core/feeds/feed-report.js';
import { type CsvProfile, renderCsvFeed } from '../../core/feeds/render-csv-feed.js';
import { renderJsonFeed } from '../../core/feeds/render-json-feed.js';
import { type FeedItemOptions, toFeedItem } from '../../core/feeds/to-feed-item.js';

/**
 * How a feed body is made from a catalog version: the built-in JSON and CSV feeds and every template.
 * Pure and synchronous, so that it runs where the renderer puts it: a worker thread in the app
 * (`src/workers/render-worker.ts`), the calling thread in slices otherwise (`feed-renderer.ts`).
 */

export interface FeedVariant {
  readonly csvProfile?: CsvProfile;
}

/** One feed of one view. */
export interface FeedRequest {
  readonly file: string;
  readonly view: string;
  readonly variant: FeedVariant;
}

export interface FeedServiceOptions {
  readonly currency: string;
  readonly brand: string | undefined;
  readonly baseUrl: string;
  readonly links: Pick<FeedItemOptions, 'productUrl' | 'imageUrl' | 'storeCodes'>;
}

export interface FeedBuilder {
  /** The feed's text in chunks; the generator returns the feed's report. */
  chunks(snapshot: CatalogSnapshot, request: FeedRequest): FeedChunks;
}

/** The cache key of a request: `file|view|profile`. */
export function feedKey(request: FeedRequest): string {
  return `${request.file}|${request.view}|${request.variant.csvProfile ?? ''}`;
}

export function countInView(snapshot: CatalogSnapshot, view: string): number {
  if (view === ALL_UNITS) return snapshot.products.length;
  let count = 0;
  for (const product of snapshot.products) {
    if (product.offers.some((offer) => offer.unit === view)) count++;
  }
  return count;
}

export function itemOptionsOf(snapshot: CatalogSnapshot, options: FeedServiceOptions): FeedItemOptions {
  return { ...options.links, unitNames: new Map(snapshot.units.map((unit) => [unit.code, unit.name])) };
}

export function createFeedBuilder(templates: readonly CompiledFeed[], options: FeedServiceOptions): FeedBuilder {
  const templateByFile = new Map(templates.map((template) => [template.file, template]));

  function* itemsOf(snapshot: CatalogSnapshot, view: string): Generator<FeedItem> {
    const itemOpts = itemOptionsOf(snapshot, options);
    for (const product of snapshot.products) {
      const item = toFeedItem(product, view, itemOpts);
      if (item !== undefined) yield item;
    }
  }

  function contextOf(snapshot: CatalogSnapshot, view: string): FeedContext {
    const unitName = view === ALL_UNITS ? 'All units' : (snapshot.units.find((unit) => unit.code === view)?.name ?? view);
    return {
      version: snapshot.version,
      generatedAt: snapshot.generatedAt,
      unit: view,
      unitName,
      currency: snapshot.currency,
      baseUrl: options.baseUrl,
      ...(options.brand === undefined ? {} : { brand: options.brand }),
    };
  }

  return {
    chunks(snapshot, { file, view, variant }) {
      const context = contextOf(snapshot, view);
      if (file === 'products.json')
        return renderJsonFeed(context, itemsOf(snapshot, view), { count: countInView(snapshot, view) });
      if (file === 'products.csv') {
        const unitColumns = view === ALL_UNITS ? snapshot.units.map((unit) => unit.code) : [];
        return renderCsvFeed(context, itemsOf(snapshot, view), { profile: variant.csvProfile ?? 'rfc4180', unitColumns });
      }
      const template = templateByFile.get(file);
      if (template === undefined) throw new Error(`Unknown feed ${file}`);
      return template.render(context, itemsOf(snapshot, view));
    },
  };
}
