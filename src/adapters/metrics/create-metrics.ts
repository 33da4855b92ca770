import { collectDefaultMetrics, Registry } from 'prom-client';
import { type CatalogMetrics, createCatalogMetrics } from './catalog-metrics.js';
import { createGroupMetrics, type GroupMetrics } from './group-metrics.js';
import { createInboxMetrics, type InboxMetrics } from './inbox-metrics.js';
import { createJobMetrics, type JobMetrics } from './job-metrics.js';
import { createPushMetrics, type PushMetrics } from './push-metrics.js';
import { createRuntimeMetrics, type RuntimeMetrics } from './runtime-metrics.js';
import { createWebhookMetrics, type WebhookMetrics } from './webhook-metrics.js';

/** Prometheus metrics of one bridge instance (`GET /metrics`). One registry per app, so tests stay isolated. */
export interface Metrics
  extends JobMetrics,
    CatalogMetrics,
    WebhookMetrics,
    RuntimeMetrics,
    GroupMetrics,
    InboxMetrics,
    PushMetrics {
  readonly registry: Registry;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'catalog_bridge_' });
  const registers = [registry];
  // Registered in this order, which is the order `GET /metrics` lists them in.
  return {
    registry,
    ...createJobMetrics(registers),
    ...createCatalogMetrics(registers),
    ...createWebhookMetrics(registers),
    ...createRuntimeMetrics(registers),
    ...createGroupMetrics(registers),
    ...createInboxMetrics(registers),
    ...createPushMetrics(registers),
  };
}
