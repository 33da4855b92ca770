import type { Logger } from './adapters/logger/create-logger.js';
import type { Metrics } from './adapters/metrics/create-metrics.js';
import type { PushConfig } from './config/load-config.js';
import type { PushChannel } from './core/push/channel-client.js';
import type { PushWorker, PushWorkerStatus } from './services/push/push-worker.js';

/** The push's status per channel as `/readyz` and the status page show it (docs/channel-push.md). */

/** What `/readyz` says per channel under `push.{channel}`. */
export interface PushChannelStatus {
  readonly enabled: true;
  readonly mode: 'live' | 'dry-run' | 'paused';
  readonly pending: number;
  readonly oldestPendingAgeS?: number;
  readonly lastSuccessAt?: string;
  readonly lastErrorAt?: string;
  readonly lastError?: string;
  /** When the last full reconciliation was enqueued (ISO; the nightly one or the operator's). */
  readonly lastReconcileAt?: string;
}

export function toStatus(status: PushWorkerStatus, dryRun: boolean): PushChannelStatus {
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  const lastSuccessAt = iso(status.lastSuccessAt);
  const lastErrorAt = iso(status.lastErrorAt);
  return {
    enabled: true,
    mode: status.paused ? 'paused' : dryRun ? 'dry-run' : 'live',
    pending: status.pending,
    ...(status.oldestPendingAgeS === undefined ? {} : { oldestPendingAgeS: status.oldestPendingAgeS }),
    ...(lastSuccessAt === undefined ? {} : { lastSuccessAt }),
    ...(lastErrorAt === undefined ? {} : { lastErrorAt }),
    ...(status.lastError === undefined ? {} : { lastError: status.lastError }),
  };
}

export interface PushStatusBoard {
  /** Reads every worker's status, updates the metrics; rejects when the outbox cannot be read. */
  refresh(): Promise<void>;
  /** `refresh`, logging a failure (not after stop). */
  refreshQuietly(): Promise<void>;
  /** The newest status per channel (`/readyz` answers synchronously). */
  latest(): Readonly<Partial<Record<PushChannel, PushChannelStatus>>>;
}

export function createPushStatusBoard(parts: {
  readonly workers: ReadonlyMap<PushChannel, PushWorker>;
  readonly push: PushConfig;
  readonly metrics: Metrics;
  readonly log: Logger;
  readonly gate: { readonly stopped: boolean };
}): PushStatusBoard {
  const { workers, push, metrics, log, gate } = parts;
  // Known at once from the configuration, so /readyz names every enabled channel from the start; the
  // outbox's figures (pending, last success and error) replace it at the first refresh.
  let latest: Partial<Record<PushChannel, PushChannelStatus>> = Object.fromEntries(
    [...workers.keys()].map((channel) => [
      channel,
      { enabled: true, mode: push.paused.includes(channel) ? 'paused' : push.dryRun ? 'dry-run' : 'live', pending: 0 },
    ]),
  );
  // Counters already added to the Prometheus counter, per channel: the worker's are cumulative.
  const counted = new Map<PushChannel, { ok: number; failed: number }>();

  const refresh = async () => {
    const next: Partial<Record<PushChannel, PushChannelStatus>> = {};
    for (const [channel, worker] of workers) {
      const status = await worker.status();
      next[channel] = toStatus(status, push.dryRun);
      metrics.pushPending.set({ channel }, status.pending);
      const before = counted.get(channel) ?? { ok: 0, failed: 0 };
      const okOutcome = push.dryRun ? 'dry_run' : 'ok';
      if (status.requests.ok > before.ok)
        metrics.pushRequests.inc({ channel, outcome: okOutcome }, status.requests.ok - before.ok);
      if (status.requests.failed > before.failed) {
        metrics.pushRequests.inc({ channel, outcome: 'failed' }, status.requests.failed - before.failed);
      }
      counted.set(channel, { ok: status.requests.ok, failed: status.requests.failed });
    }
    latest = next;
  };
  const refreshQuietly = () =>
    refresh().catch((error: unknown) => {
      if (!gate.stopped) log.warn({ err: error }, 'push: reading the outbox status failed');
    });

  return { refresh, refreshQuietly, latest: () => latest };
}
