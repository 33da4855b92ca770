import { ALL_UNITS, type CatalogSnapshot } from '../core/catalog/catalog.js';
import type { ChangeLog } from '../core/catalog/change-log.js';
import { collectFeedAsync } from '../core/feeds/collect-feed.js';
import type { CompiledFeed } from '../core/feeds/compiled-feed.js';
import type { FeedContext, FeedItem } from '../core/feeds/feed-item.js';
import type { FeedChunks, FeedReport } from '../core/feeds/feed-report.js';
import { type CsvProfile, renderCsvFeed } from '../core/feeds/render-csv-feed.js';
import { jsonItemText, renderJsonFeed } from '../core/feeds/render-json-feed.js';
import { type FeedItemOptions, toFeedItem } from '../core/feeds/to-feed-item.js';
import type { EncodedFeed } from '../http/send-feed.js';
import type { FeedCache } from './feed-cache.js';

export type FeedFormat = 'json' | 'csv' | 'xml' | 'tsv';

/** One feed URL kind: a built-in (JSON, CSV) or a template from `templates/`. */
export interface FeedDescriptor {
  readonly name: string;
  readonly title: string;
  /** URL segment: `/feeds/{unit}/{file}`. */
  readonly file: string;
  readonly format: FeedFormat;
  readonly contentType: string;
  servesView(view: string): boolean;
}

export interface FeedVariant {
  readonly csvProfile?: CsvProfile;
}

export interface RenderedFeed {
  readonly feed: EncodedFeed;
  readonly report: FeedReport | undefined;
}

export interface FeedServiceOptions {
  readonly currency: string;
  readonly brand: string | undefined;
  readonly baseUrl: string;
  readonly links: Pick<FeedItemOptions, 'productUrl' | 'imageUrl' | 'storeCodes'>;
}

export interface FeedServiceDeps {
  readonly templates: readonly CompiledFeed[];
  readonly cache: FeedCache;
  readonly changeLog: ChangeLog;
  readonly options: FeedServiceOptions;
}

export type ChangesResult = { readonly ok: true; readonly feed: EncodedFeed } | { readonly ok: false; readonly next: string };

export interface FeedService {
  readonly feeds: readonly FeedDescriptor[];
  find(file: string): FeedDescriptor | undefined;
  /** The encoded feed of `file` in `view` at the snapshot's version, rendered once and cached. */
  render(snapshot: CatalogSnapshot, file: string, view: string, variant?: FeedVariant): Promise<RenderedFeed>;
  /** The changes feed since a cursor (a version id); `ok: false` when the cursor is unknown. */
  changes(snapshot: CatalogSnapshot, view: string, since: string | undefined): Promise<ChangesResult>;
  /** Reports of the feeds rendered for this version, by `file|view|variant` key. */
  reports(version: string): ReadonlyMap<string, FeedReport>;
  /** Records the change between two served versions (for the changes feed) and drops older renders. */
  recordChange(previous: CatalogSnapshot | undefined, next: CatalogSnapshot): void;
  /** Renders every feed of the `all` view in the background, so the first poll after a publish is fast. */
  prewarm(snapshot: CatalogSnapshot, isCurrent: () => boolean): Promise<void>;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const CSV_TYPE = 'text/csv; charset=utf-8; header=present';

function countInView(snapshot: CatalogSnapshot, view: string): number {
  if (view === ALL_UNITS) return snapshot.products.length;
  let count = 0;
  for (const product of snapshot.products) {
    if (product.offers.some((offer) => offer.unit === view)) count++;
  }
  return count;
}

export function createFeedService(deps: FeedServiceDeps): FeedService {
  const { templates, cache, changeLog, options } = deps;
  const builtIns: FeedDescriptor[] = [
    {
      name: 'products-json',
      title: 'Catalog (JSON)',
      file: 'products.json',
      format: 'json',
      contentType: JSON_TYPE,
      servesView: () => true,
    },
    {
      name: 'products-csv',
      title: 'Catalog (CSV)',
      file: 'products.csv',
      format: 'csv',
      contentType: CSV_TYPE,
      servesView: () => true,
    },
  ];
  const feeds: FeedDescriptor[] = [
    ...builtIns,
    ...templates.map((template) => ({
      name: template.name,
      title: template.title,
      file: template.file,
      format: template.kind,
      contentType: template.contentType,
      servesView: (view: string) => template.servesView(view),
    })),
  ];
  const byFile = new Map(feeds.map((feed) => [feed.file, feed]));
  const templateByFile = new Map(templates.map((template) => [template.file, template]));
  const reportsByVersion = new Map<string, Map<string, FeedReport>>();

  function itemOptions(snapshot: CatalogSnapshot): FeedItemOptions {
    return { ...options.links, unitNames: new Map(snapshot.units.map((unit) => [unit.code, unit.name])) };
  }

  function* itemsOf(snapshot: CatalogSnapshot, view: string): Generator<FeedItem> {
    const itemOpts = itemOptions(snapshot);
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

  function chunksOf(snapshot: CatalogSnapshot, file: string, view: string, variant: FeedVariant): FeedChunks {
    const context = contextOf(snapshot, view);
    if (file === 'products.json') return renderJsonFeed(context, itemsOf(snapshot, view), { count: countInView(snapshot, view) });
    if (file === 'products.csv') {
      const unitColumns = view === ALL_UNITS ? snapshot.units.map((unit) => unit.code) : [];
      return renderCsvFeed(context, itemsOf(snapshot, view), { profile: variant.csvProfile ?? 'rfc4180', unitColumns });
    }
    const template = templateByFile.get(file);
    if (template === undefined) throw new Error(`Unknown feed ${file}`);
    return template.render(context, itemsOf(snapshot, view));
  }

  function keep(version: string, key: string, report: FeedReport): void {
    let reports = reportsByVersion.get(version);
    if (reports === undefined) {
      // Reports of older versions are of no use to the status page.
      reportsByVersion.clear();
      reports = new Map();
      reportsByVersion.set(version, reports);
    }
    reports.set(key, report);
  }

  async function render(snapshot: CatalogSnapshot, file: string, view: string, variant: FeedVariant = {}): Promise<RenderedFeed> {
    const descriptor = byFile.get(file);
    if (descriptor === undefined) throw new Error(`Unknown feed ${file}`);
    const key = `${file}|${view}|${variant.csvProfile ?? ''}`;
    const lastModified = new Date(snapshot.generatedAt);
    const suffix = variant.csvProfile === 'excel' ? '-excel' : '';
    const dot = file.lastIndexOf('.');
    const fileName = `${file.slice(0, dot)}-${view}${suffix}${file.slice(dot)}`;
    const feed = await cache.get(snapshot.version, key, lastModified, async () => {
      const { body, report } = await collectFeedAsync(chunksOf(snapshot, file, view, variant));
      keep(snapshot.version, key, report);
      return { body, contentType: descriptor.contentType, fileName };
    });
    return { feed, report: reportsByVersion.get(snapshot.version)?.get(key) };
  }

  async function changes(snapshot: CatalogSnapshot, view: string, since: string | undefined): Promise<ChangesResult> {
    const itemOpts = itemOptions(snapshot);
    const byId = new Map(snapshot.products.map((product) => [product.id, product]));
    let list: { id: string; change: string; fields?: readonly string[] }[];
    if (since === undefined) {
      list = [];
      for (const product of snapshot.products) {
        if (view === ALL_UNITS || product.offers.some((offer) => offer.unit === view))
          list.push({ id: product.id, change: 'added' });
      }
    } else {
      const result = await changeLog.changesSince(since, view);
      if (!result.ok) return { ok: false, next: snapshot.version };
      list = [...result.changes];
    }
    const key = `changes.json|${view}|${since ?? ''}`;
    const feed = await cache.get(snapshot.version, key, new Date(snapshot.generatedAt), async () => {
      const lines: string[] = [];
      for (const entry of list) {
        const product = byId.get(entry.id);
        const item = entry.change === 'removed' || product === undefined ? undefined : toFeedItem(product, view, itemOpts);
        const head = JSON.stringify(entry);
        lines.push(item === undefined ? head : `${head.slice(0, -1)},"item":${jsonItemText(item)}}`);
      }
      const head = JSON.stringify({
        unit: view,
        since: since ?? null,
        next: snapshot.version,
        generatedAt: snapshot.generatedAt,
        count: list.length,
      });
      const body = `${head.slice(0, -1)},"changes":[\n${lines.join(',\n')}\n]}\n`;
      return { body: Buffer.from(body), contentType: JSON_TYPE };
    });
    return { ok: true, feed };
  }

  async function prewarm(snapshot: CatalogSnapshot, isCurrent: () => boolean): Promise<void> {
    for (const descriptor of feeds) {
      if (!isCurrent()) return;
      if (!descriptor.servesView(ALL_UNITS)) continue;
      await render(snapshot, descriptor.file, ALL_UNITS);
    }
  }

  return {
    feeds,
    find: (file) => byFile.get(file),
    render,
    changes,
    reports: (version) => reportsByVersion.get(version) ?? new Map(),
    recordChange(previous, next) {
      changeLog.record(previous, next);
      cache.retainOnly(next.version);
    },
    prewarm,
  };
}
