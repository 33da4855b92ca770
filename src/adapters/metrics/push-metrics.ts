import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The channel push (docs/channel-push.md); only channels that are configured appear. */
export interface PushMetrics {
  readonly pushPending: Gauge<'channel'>;
  readonly pushRequests: Counter<'channel' | 'outcome'>;
  readonly pushItems: Counter<'channel' | 'outcome'>;
  readonly pushLag: Histogram<'channel'>;
  readonly pushLastSuccess: Gauge<'channel'>;
  readonly pushQuotaUsed: Gauge<'channel'>;
  readonly pushPaused: Gauge<'channel'>;
  readonly channelItems: Gauge<'channel' | 'status'>;
}

export function createPushMetrics(registers: Registry[]): PushMetrics {
  return {
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
    channelItems: new Gauge({
      name: 'catalog_bridge_channel_items',
      help: "Items by the channel's own verdict as last read back (status: approved, pending, disapproved); Google only",
      labelNames: ['channel', 'status'],
      registers,
    }),
  };
}
