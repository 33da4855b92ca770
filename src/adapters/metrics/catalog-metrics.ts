import { Counter, Gauge, type Registry } from 'prom-client';

/** The served catalog and the feeds read from it. */
export interface CatalogMetrics {
  readonly feedRequests: Counter<'feed' | 'status'>;
  readonly catalogItems: Gauge<'unit'>;
  readonly catalogGeneratedAt: Gauge;
}

export function createCatalogMetrics(registers: Registry[]): CatalogMetrics {
  return {
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
