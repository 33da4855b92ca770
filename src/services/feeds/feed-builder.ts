import { ALL_UNITS, type CatalogSnapshot, type Product } from '../../core/catalog/catalog.js';
import { createEnrichedProducts } from '../../core/catalog/family-enrichment.js';
import { type CollectedFeed, collectFeed, collectFeedAsync } from '../../core/feeds/collect-feed.js';
import type { CompiledFeed } from '../../core/feeds/compiled-feed.js';
import type { FeedContext, FeedItem } from '../../core/feeds/feed-item.js';
import type { FeedChunks } from '../../core/feeds/feed-report.js';
import { CHANGES_FEED_FILE, renderWholeChangesFeed } from '../../core/feeds/render-changes-feed.js';
import { type CsvProfile, renderCsvFeed } from '../../core/feeds/render-csv-feed.js';
import { renderJsonFeed } from '../../core/feeds/render-json-feed.js';
import { type FeedItemOptions, toFeedItem } from '../../core/feeds/to-feed-item.js';
import { renderXlsxFeed, XLSX_FEED_FILE } from './xlsx-feed.js';

/**
 * How a feed body is made from a catalog version: the built-in JSON, CSV and workbook feeds and every
 * template. It runs where the renderer puts it: a worker thread in the app (`src/workers/render-worker.ts`),
 * the calling thread in slices otherwise (`feed-renderer.ts`).
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

export interface BuildOptions {
  /**
   * Let the event loop run after this much work (ms): the calling thread's renderer. Absent (a worker
   * thread), text feeds are rendered in one go.
   */
  readonly sliceMs?: number;
}

/** A catalog version without its products: what a feed's header and links are made of. */
export type CatalogHead = Omit<CatalogSnapshot, 'products'>;

/**
 * What feeds are rendered from: a version's head and its products in catalog order. A snapshot in this
 * thread is one (`snapshotSource`); the render worker reads its products from the serialized chunks as a
 * pass goes, never holding the whole catalog parsed (`src/workers/render-worker.ts`).
 */
export interface FeedSource {
  readonly head: CatalogHead;
  /** The version's products in catalog order, their enrichment values on. */
  products(): Iterable<Product>;
  /** How many products have an offer in `view` (the JSON feed's `count`, written before its items). */
  countInView(view: string): number;
  /**
   * Feed items already made from this source's products, by product and view: the feeds of a pass read
   * the same product objects side by side, and each product's item is then made once for all of them.
   */
  readonly items?: FeedItemMemo;
}

/** Feed items by product and view, for the most recent products only (see `FeedSource.items`). */
export interface FeedItemMemo {
  /** The product's item in `view` (`undefined`: no offer there), made by `make` unless known. */
  itemOf(product: Product, view: string, make: () => FeedItem | undefined): FeedItem | undefined;
}

/**
 * A memo of the last `capacity` products' items (first in, first out). The feeds of a lockstep pass stay
 * within one part of each other: a template's part is at most `FEED_PART_ITEMS` (256) items, a JSON or CSV
 * part 64 KiB of text (a few hundred items), so a few times that covers them in the `all` view (a sparse
 * unit's view skips products between its items, and the memo then misses some). Bounded, so that it
 * never holds more than those products' items.
 */
export function createFeedItemMemo(capacity = 1_024): FeedItemMemo {
  const known = new Map<Product, Map<string, FeedItem | null>>();
  return {
    itemOf(product, view, make) {
      let views = known.get(product);
      if (views === undefined) {
        views = new Map();
        known.set(product, views);
        if (known.size > capacity) known.delete(known.keys().next().value as Product);
      }
      const item = views.get(view);
      if (item !== undefined) return item ?? undefined;
      const made = make();
      views.set(view, made ?? null);
      return made;
    },
  };
}

export interface FeedBuilder {
  /** The feed's whole body and its report. */
  build(source: FeedSource, request: FeedRequest, options?: BuildOptions): Promise<CollectedFeed>;
  /**
   * A text feed's body as it is rendered, its report last (written to files as it comes: no whole body
   * held); `undefined` for the workbook, which `build` makes whole.
   */
  stream(source: FeedSource, request: FeedRequest): FeedChunks | undefined;
}

/**
 * Whether `file`'s body is compressed already (the workbook is a zip): it is kept and served as it is,
 * with no gzip or br form (compressing a zip again costs CPU and saves nothing).
 */
export function isPrecompressed(file: string): boolean {
  return file === XLSX_FEED_FILE;
}

/** The cache key of a request: `file|view|profile`. */
export function feedKey(request: FeedRequest): string {
  return `${request.file}|${request.view}|${request.variant.csvProfile ?? ''}`;
}

/** What counting products per view reads of them. */
type WithOfferUnits = { readonly offers: readonly { readonly unit: string }[] };

/** How many of `products` have an offer in each of `views` (`ALL_UNITS`: every product), in one pass. */
export function countInViews(products: readonly WithOfferUnits[], views: Iterable<string>): Record<string, number> {
  const counts: Record<string, number> = {};
  const units = new Set<string>();
  for (const view of views) {
    if (view === ALL_UNITS) counts[view] = products.length;
    else units.add(view);
  }
  if (units.size === 0) return counts;
  for (const unit of units) counts[unit] = 0;
  const seen = new Set<string>();
  for (const product of products) {
    seen.clear();
    for (const offer of product.offers) {
      if (units.has(offer.unit) && !seen.has(offer.unit)) {
        seen.add(offer.unit);
        counts[offer.unit] = (counts[offer.unit] ?? 0) + 1;
      }
    }
  }
  return counts;
}

/** A snapshot of this thread as a feed source (its enrichment values put back on as products are read). */
export function snapshotSource(snapshot: CatalogSnapshot): FeedSource {
  const { products: _read, ...head } = snapshot;
  return {
    head,
    *products() {
      // A served snapshot's products carry their enrichment values only in its chunks (family-enrichment.ts).
      const enriched = createEnrichedProducts(snapshot);
      for (let position = 0; position < snapshot.products.length; position += 1) yield enriched.at(position) as Product;
    },
    countInView: (view) => countInViews(snapshot.products, [view])[view] ?? 0,
  };
}

export function itemOptionsOf(snapshot: CatalogHead, options: FeedServiceOptions): FeedItemOptions {
  return { ...options.links, unitNames: new Map(snapshot.units.map((unit) => [unit.code, unit.name])) };
}

/** The feed-wide values of `view` (a product's page renders its items with the same). */
export function feedContextOf(snapshot: CatalogHead, view: string, options: FeedServiceOptions): FeedContext {
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

/** The `stock:{unit}` columns of the table feeds: every unit's side by side in the `all` view. */
export function unitColumnsOf(snapshot: CatalogHead, view: string): string[] {
  return view === ALL_UNITS ? snapshot.units.map((unit) => unit.code) : [];
}

export function createFeedBuilder(templates: readonly CompiledFeed[], options: FeedServiceOptions): FeedBuilder {
  const templateByFile = new Map(templates.map((template) => [template.file, template]));

  function* itemsOf(source: FeedSource, view: string): Generator<FeedItem> {
    const itemOpts = itemOptionsOf(source.head, options);
    const memo = source.items;
    for (const product of source.products()) {
      const item =
        memo === undefined
          ? toFeedItem(product, view, itemOpts)
          : memo.itemOf(product, view, () => toFeedItem(product, view, itemOpts));
      if (item !== undefined) yield item;
    }
  }

  const contextOf = (source: FeedSource, view: string): FeedContext => feedContextOf(source.head, view, options);

  function chunks(source: FeedSource, { file, view, variant }: FeedRequest): FeedChunks {
    const context = contextOf(source, view);
    if (file === 'products.json') return renderJsonFeed(context, itemsOf(source, view), { count: source.countInView(view) });
    if (file === CHANGES_FEED_FILE) {
      return renderWholeChangesFeed(context, itemsOf(source, view), { count: source.countInView(view) });
    }
    if (file === 'products.csv') {
      const unitColumns = unitColumnsOf(source.head, view);
      return renderCsvFeed(context, itemsOf(source, view), { profile: variant.csvProfile ?? 'rfc4180', unitColumns });
    }
    const template = templateByFile.get(file);
    if (template === undefined) throw new Error(`Unknown feed ${file}`);
    return template.render(context, itemsOf(source, view));
  }

  return {
    stream: (source, request) => (request.file === XLSX_FEED_FILE ? undefined : chunks(source, request)),
    async build(source, request, buildOptions = {}) {
      const { sliceMs } = buildOptions;
      if (request.file === XLSX_FEED_FILE) {
        const { view } = request;
        return renderXlsxFeed(contextOf(source, view), itemsOf(source, view), {
          unitColumns: unitColumnsOf(source.head, view),
          ...(sliceMs === undefined ? {} : { sliceMs }),
        });
      }
      return sliceMs === undefined ? collectFeed(chunks(source, request)) : collectFeedAsync(chunks(source, request), sliceMs);
    },
  };
}
