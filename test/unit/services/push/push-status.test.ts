import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../../src/adapters/metrics/create-metrics.js';
import { observePushLag, toStatus, updatePushMetrics } from '../../../../src/services/push/push-status.js';
import type { PushWorkerStatus } from '../../../../src/services/push/push-worker.js';

/** The push's status and its `/metrics` series (docs/channel-push.md#status-and-metrics). */

function workerStatus(overrides: Partial<PushWorkerStatus> = {}): PushWorkerStatus {
  return {
    channel: 'google',
    pending: 5,
    paused: false,
    rejected: 0,
    state: {},
    requests: { ok: 0, failed: 0 },
    items: { ok: 0, retry: 0, rejected: 0, skipped: 0 },
    ...overrides,
  };
}

describe('toStatus', () => {
  it('carries the persisted state: error kind, refused items, a quota with both figures, the last reconciliation', () => {
    const status = toStatus(
      workerStatus({
        rejected: 2,
        lastErrorAt: Date.parse('2026-11-26T10:00:00Z'),
        lastError: 'HTTP 429 RESOURCE_EXHAUSTED: daily quota',
        state: {
          lastErrorKind: 'quota',
          failingSince: '2026-11-26T09:00:00.000Z',
          quota: { used: 900, limit: 1000, resetAt: '2026-11-26T12:00:00.000Z' },
          lastReconcile: '2026-11-26T03:30:00.000Z',
        },
      }),
      false,
    );
    expect(status).toEqual({
      enabled: true,
      mode: 'live',
      pending: 5,
      lastErrorAt: '2026-11-26T10:00:00.000Z',
      lastError: 'HTTP 429 RESOURCE_EXHAUSTED: daily quota',
      lastErrorKind: 'quota',
      failingSince: '2026-11-26T09:00:00.000Z',
      rejected: 2,
      quota: { used: 900, limit: 1000, resetAt: '2026-11-26T12:00:00.000Z' },
      lastReconcileAt: '2026-11-26T03:30:00.000Z',
    });
    // A quota without its limit is not shown (no ratio can be made of it).
    expect(toStatus(workerStatus({ state: { quota: { used: 3 } } }), false).quota).toBeUndefined();
  });
});

describe('push metrics', () => {
  it('counts items by outcome from the cumulative counters, and sets last success, quota ratio and paused', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const first = workerStatus({ items: { ok: 3, retry: 1, rejected: 0, skipped: 2 }, requests: { ok: 2, failed: 1 } });
    const shown = { ...toStatus(first, false), lastSuccessAt: '2026-11-26T10:00:00.000Z', quota: { used: 250, limit: 1000 } };
    let counted = updatePushMetrics(metrics, 'google', first, shown, false, undefined);
    const second = workerStatus({ items: { ok: 5, retry: 1, rejected: 1, skipped: 2 }, requests: { ok: 3, failed: 2 } });
    counted = updatePushMetrics(metrics, 'google', second, { ...shown, mode: 'paused' }, false, counted);
    expect(counted.items.ok).toBe(5);

    const text = await metrics.registry.metrics();
    expect(text).toContain('catalog_bridge_push_items_total{channel="google",outcome="ok"} 5');
    expect(text).toContain('catalog_bridge_push_items_total{channel="google",outcome="retry"} 1');
    expect(text).toContain('catalog_bridge_push_items_total{channel="google",outcome="rejected"} 1');
    expect(text).toContain('catalog_bridge_push_items_total{channel="google",outcome="skipped"} 2');
    expect(text).toContain('catalog_bridge_push_requests_total{channel="google",outcome="failed"} 2');
    expect(text).toContain(
      `catalog_bridge_push_last_success_timestamp_seconds{channel="google"} ${Date.parse(shown.lastSuccessAt) / 1000}`,
    );
    expect(text).toContain('catalog_bridge_push_quota_used_ratio{channel="google"} 0.25');
    expect(text).toContain('catalog_bridge_push_paused{channel="google"} 1');
    expect(text).toContain('catalog_bridge_push_pending{channel="google"} 5');
  });

  it('observes each delivered item lag in seconds', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    observePushLag(metrics, 'meta')([400, 1_500, 70_000]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('catalog_bridge_push_lag_seconds_count{channel="meta"} 3');
    expect(text).toContain('catalog_bridge_push_lag_seconds_bucket{le="0.5",channel="meta"} 1');
    expect(text).toContain('catalog_bridge_push_lag_seconds_bucket{le="2",channel="meta"} 2');
    expect(text).toContain('catalog_bridge_push_lag_seconds_sum{channel="meta"} 71.9');
  });
});
