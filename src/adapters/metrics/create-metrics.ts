import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of one bridge instance (`GET /metrics`). One registry per app, so tests stay isolated. */
export interface Metrics {
  readonly registry: Registry;
  readonly jobRuns: Counter<'job' | 'outcome'>;
  readonly jobDuration: Histogram<'job'>;
  readonly posErrors: Counter<'family' | 'operation'>;
  readonly feedRequests: Counter<'feed' | 'status'>;
  readonly catalogItems: Gauge<'unit'>;
  readonly catalogGeneratedAt: Gauge;
  readonly webhookEvents: Counter<'event' | 'outcome'>;
  readonly webhookSales: Counter<'outcome'>;
  readonly webhookApplyLatency: Histogram;
  readonly eventLoopDelay: Histogram;
  readonly storeUp: Gauge;
  readonly storeOutages: Counter;
  /** Several instances on Redis (docs/scale-out.md). */
  readonly groupLeader: Gauge;
  readonly groupLeaseRenewals: Counter;
  readonly groupTakeovers: Counter;
  readonly groupVersionsBehind: Gauge;
  readonly inboxDepth: Gauge;
  readonly inboxPending: Gauge;
  readonly inboxClaims: Gauge;
  readonly pushPending: Gauge<'channel'>;
  readonly pushRequests: Counter<'channel' | 'outcome'>;
  readonly pushItems: Counter<'channel' | 'outcome'>;
  readonly pushLag: Histogram<'channel'>;
  readonly pushLastSuccess: Gauge<'channel'>;
  readonly pushQuotaUsed: Gauge<'channel'>;
  readonly pushPaused: Gauge<'channel'>;
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
      help: 'Sync runs that failed, by error code (POS_UNAVAILABLE, POS_REJECTED, POS_RESPONSE_INVALID, PRICE_LIST_INVALID, ...)',
      labelNames: ['family', 'operation'],
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
    catalogGeneratedAt: new Gauge({
      name: 'catalog_bridge_catalog_generated_timestamp_seconds',
      help: 'When the served catalog version was generated (Unix time); alert on time() minus this',
      registers,
    }),
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
    eventLoopDelay: new Histogram({
      name: 'catalog_bridge_event_loop_delay_seconds',
      help: 'How late the main thread ran a 10 ms timer (perf_hooks.monitorEventLoopDelay): every request waits as long',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    storeUp: new Gauge({
      name: 'catalog_bridge_store_up',
      help: 'Whether the store (STORE_URL) answered its last probe (1) or not (0); feeds are served from memory meanwhile',
      registers,
    }),
    storeOutages: new Counter({
      name: 'catalog_bridge_store_outages_total',
      help: 'Times the store stopped answering (each outage counted once, when it began)',
      registers,
    }),
    groupLeader: new Gauge({
      name: 'catalog_bridge_group_leader',
      help: 'With several instances on Redis: whether this instance holds the leader lease (1) or follows (0)',
      registers,
    }),
    groupLeaseRenewals: new Counter({
      name: 'catalog_bridge_group_lease_renewals_total',
      help: 'Renewals of the leader lease by this instance',
      registers,
    }),
    groupTakeovers: new Counter({
      name: 'catalog_bridge_group_takeovers_total',
      help: 'Times this instance took the leader lease (at start, or when the leader was gone)',
      registers,
    }),
    groupVersionsBehind: new Gauge({
      name: 'catalog_bridge_group_versions_behind',
      help: "Changes in the group's change stream this instance has not applied yet (0: it serves the group's current version)",
      registers,
    }),
    inboxDepth: new Gauge({
      name: 'catalog_bridge_webhook_inbox_depth',
      help: 'Webhook events in the shared inbox (accepted and not yet completed by any instance)',
      registers,
    }),
    inboxPending: new Gauge({
      name: 'catalog_bridge_webhook_inbox_pending',
      help: 'Of the shared inbox, events handed to an instance and not yet completed',
      registers,
    }),
    inboxClaims: new Gauge({
      name: 'catalog_bridge_webhook_inbox_claims',
      help: 'Webhook events this instance took over from other instances (they did not complete them in time)',
      registers,
    }),
    // The channel push (docs/channel-push.md); only channels that are configured appear.
    pushPending: new Gauge({
      name: 'catalog_bridge_push_pending',
      help: 'Updates waiting to be sent to a channel (one per item and channel, however often it changed)',
      labelNames: ['channel'],
      registers,
    }),
    pushRequests: new Counter({
      name: 'catalog_bridge_push_requests_total',
      help: 'Worker batches sent to a channel by outcome (ok, failed, dry_run: logged, not sent); one per batch, a Meta batch may be 2+ calls',
      labelNames: ['channel', 'outcome'],
      registers,
    }),
    pushItems: new Counter({
      name: 'catalog_bridge_push_items_total',
      help: 'Items (updates) by outcome: ok (accepted), retry (sent again later), rejected (refused for good), skipped (nothing to send)',
      labelNames: ['channel', 'outcome'],
      registers,
    }),
    pushLag: new Histogram({
      name: 'catalog_bridge_push_lag_seconds',
      help: "From an item's oldest pending change to the channel accepting it",
      labelNames: ['channel'],
      buckets: [0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    }),
    pushLastSuccess: new Gauge({
      name: 'catalog_bridge_push_last_success_timestamp_seconds',
      help: 'When a channel last accepted a request (Unix time, any instance); alert on time() minus this',
      labelNames: ['channel'],
      registers,
    }),
    pushQuotaUsed: new Gauge({
      name: 'catalog_bridge_push_quota_used_ratio',
      help: "Share of the channel's quota used (0..1), where the channel reports one",
      labelNames: ['channel'],
      registers,
    }),
    pushPaused: new Gauge({
      name: 'catalog_bridge_push_paused',
      help: 'Whether a channel is paused (1: changes are kept, nothing is sent) or not (0)',
      labelNames: ['channel'],
      registers,
    }),
  };
}
