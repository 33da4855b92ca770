import { Counter, Gauge, type Registry } from 'prom-client';

/** The served catalog and the feeds read from it. */
export interface CatalogMetrics {
  readonly feedRequests: Counter<'feed' | 'status'>;
  readonly catalogItems: Gauge<'unit'>;
  readonly catalogGeneratedAt: Gauge;
  /** Reads the rendered feeds kept (on disk: docs/decisions/0016-feed-files.md) at each scrape. */
  watchFeedStorage(read: () => FeedStorage): void;
}

/** What `watchFeedStorage` reads at each scrape. */
type FeedStorage = { readonly entries: number; readonly bytes: number; readonly budget?: number };

/** The feed files' gauges: name, help and the figure each reads. */
const FEED_STORAGE_GAUGES: readonly [string, string, (storage: FeedStorage) => number | undefined][] = [
  [
    'catalog_bridge_feed_files_bytes',
    'Bytes of the rendered feed files kept (every form: as rendered, gzip, br); bounded by FEED_CACHE_MB',
    (storage) => storage.bytes,
  ],
  [
    'catalog_bridge_feed_files_budget_bytes',
    'FEED_CACHE_MB in bytes: the disk for rendered feed files beyond which the least recently used are deleted',
    (storage) => storage.budget,
  ],
  [
    'catalog_bridge_feed_files',
    'Rendered feeds kept (feed, unit view and CSV profile), each in its files',
    (storage) => storage.entries,
  ],
];

export function createCatalogMetrics(registers: Registry[]): CatalogMetrics {
  let readStorage: (() => FeedStorage) | undefined;
  for (const [name, help, figure] of FEED_STORAGE_GAUGES) {
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const storage = readStorage?.();
        const value = storage === undefined ? undefined : figure(storage);
        if (value !== undefined) this.set(value);
      },
    });
  }
  return {
    watchFeedStorage(read) {
      readStorage = read;
    },
    feedRequests: new Counter({
      name: 'catalog_bridge_feed_requests_total',
      help: 'Feed requests by feed and HTTP status',
      labelNames: ['feed', 'status'],
      registers,
    }),
    catalogItems: new Gauge({
      name: 'catalog_bridge_catalog_items',
      help: 'Products of the served catalog version per unit view',
      labelNames: ['unit'],
      registers,
    }),
    catalogGeneratedAt: new Gauge({
      name: 'catalog_bridge_catalog_generated_timestamp_seconds',
      help: 'When the served catalog version was generated (Unix time); alert on time() minus this',
      registers,
    }),
  };
}
