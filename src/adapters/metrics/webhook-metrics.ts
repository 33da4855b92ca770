import { Counter, Histogram, type Registry } from 'prom-client';

/** Webhook calls and the sales they carry. */
export interface WebhookMetrics {
  readonly webhookEvents: Counter<'event' | 'outcome'>;
  readonly webhookSales: Counter<'outcome'>;
  readonly webhookApplyLatency: Histogram;
}

export function createWebhookMetrics(registers: Registry[]): WebhookMetrics {
  return {
    webhookEvents: new Counter({
      name: 'catalog_bridge_webhook_events_total',
      help: 'Webhook calls by event kind (sale, client-points, unknown, invalid) and outcome (accepted, duplicate, ignored, rejected, unauthorized, failed)',
      labelNames: ['event', 'outcome'],
      registers,
    }),
    webhookSales: new Counter({
      name: 'catalog_bridge_webhook_sales_total',
      help: 'Processed sale events: movements found and applied (applied), not found (refetched), or dropped after failed retries (dropped)',
      labelNames: ['outcome'],
      registers,
    }),
    webhookApplyLatency: new Histogram({
      name: 'catalog_bridge_webhook_apply_seconds',
      help: 'From a sale webhook accepted to its stock served (movements applied, or the unit stock re-read)',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers,
    }),
  };
}
