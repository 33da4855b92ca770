import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of one bridge instance (`GET /metrics`). One registry per app, so tests stay isolated. */
export interface Metrics {
  readonly registry: Registry;
  readonly jobRuns: Counter<'job' | 'outcome'>;
  readonly jobDuration: Histogram<'job'>;
  readonly posErrors: Counter<'family' | 'operation'>;
  readonly posRequests: Counter<'operation'>;
  readonly webhookEvents: Counter<'event' | 'outcome'>;
  readonly feedRequests: Counter<'feed' | 'status'>;
  readonly catalogItems: Gauge<'unit'>;
  readonly catalogAge: Gauge;
  readonly rejectedItems: Gauge<'source'>;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'catalog_bridge_' });
  const registers = [registry];
  return {
    registry,
    jobRuns: new Counter({
      name: 'catalog_bridge_job_runs_total',
      help: 'Runs of scheduled jobs by outcome (ok, failed, refused)',
      labelNames: ['job', 'outcome'],
      registers,
    }),
    jobDuration: new Histogram({
      name: 'catalog_bridge_job_duration_seconds',
      help: 'Duration of job runs',
      labelNames: ['job'],
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
      registers,
    }),
    posErrors: new Counter({
      name: 'catalog_bridge_pos_errors_total',
      help: 'Failed POS calls by error family (unavailable, rejected, invalid)',
      labelNames: ['family', 'operation'],
      registers,
    }),
    posRequests: new Counter({
      name: 'catalog_bridge_pos_requests_total',
      help: 'POS calls made, retries included',
      labelNames: ['operation'],
      registers,
    }),
    webhookEvents: new Counter({
      name: 'catalog_bridge_webhook_events_total',
      help: 'Webhook deliveries by event kind and outcome (accepted, duplicate, ignored, rejected, unauthorized)',
      labelNames: ['event', 'outcome'],
      registers,
    }),
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
    catalogAge: new Gauge({
      name: 'catalog_bridge_catalog_age_seconds',
      help: 'Age of the served catalog version',
      registers,
    }),
    rejectedItems: new Gauge({
      name: 'catalog_bridge_rejected_items',
      help: 'Items or rows left out by the last sync, by source',
      labelNames: ['source'],
      registers,
    }),
  };
}
