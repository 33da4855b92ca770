import { Counter, Gauge, type Registry } from 'prom-client';

/** The served catalog and the feeds read from it. */
export interface CatalogMetrics {
  readonly feedRequests: Counter<'feed' | 'status'>;
  readonly catalogItems: Gauge<'unit'>;
  readonly catalogGeneratedAt: Gauge;
  /** Reads the rendered feeds kept (on disk: docs/decisions/0016-feed-files.md) at each scrape. */
  watchFeedStorage(read: () => { readonly entries: number; readonly bytes: number; readonly budget?: number }): void;
}

export function createCatalogMetrics(registers: Registry[]): CatalogMetrics {
  let readStorage: (() => { readonly entries: number; readonly bytes: number; readonly budget?: number }) | undefined;
  new Gauge({
    name: 'catalog_bridge_feed_files_bytes',
    help: 'Bytes of the rendered feed files kept (every form: as rendered, gzip, br); bounded by FEED_CACHE_MB',
    registers,
    collect() {
      const storage = readStorage?.();
      if (storage !== undefined) this.set(storage.bytes);
    },
  });
  new Gauge({
    name: 'catalog_bridge_feed_files_budget_bytes',
    help: 'FEED_CACHE_MB in bytes: the disk for rendered feed files beyond which the least recently used are deleted',
    registers,
    collect() {
      const budget = readStorage?.().budget;
      if (budget !== undefined) this.set(budget);
    },
  });
  new Gauge({
    name: 'catalog_bridge_feed_files',
    help: 'Rendered feeds kept (feed, unit view and CSV profile), each in its files',
    registers,
    collect() {
      const storage = readStorage?.();
      if (storage !== undefined) this.set(storage.entries);
    },
  });
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
