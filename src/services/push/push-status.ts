import type { PushConfig } from '../../config/load-config.js';
import type { VerdictSummary } from '../../core/push/channel-verdicts.js';
import { isMetaVerdicts, type MetaVerdictSummary } from '../../core/push/meta-verdicts.js';
import type { PushChannelState } from '../../core/push/outbox.js';
import type { PushChannel, PushErrorCause } from '../../core/push/push-channel.js';
import type { ServiceLogger as Logger } from '../logging/service-logger.js';
import type { LabelledCounterPort, LabelledGaugePort, LabelledHistogramPort } from '../metrics/metric-ports.js';
import type { PushWorker, PushWorkerStatus } from './push-worker.js';

/** The push's series (`catalog_bridge_push_*`), as the status board updates them (the app passes the Prometheus ones). */
export interface PushStatusMetrics {
  readonly pushPending: LabelledGaugePort<'channel'>;
  readonly pushRequests: LabelledCounterPort<'channel' | 'outcome'>;
  readonly pushItems: LabelledCounterPort<'channel' | 'outcome'>;
  readonly pushLag: LabelledHistogramPort<'channel'>;
  readonly pushLastSuccess: LabelledGaugePort<'channel'>;
  readonly pushQuotaUsed: LabelledGaugePort<'channel'>;
  readonly pushPaused: LabelledGaugePort<'channel'>;
  readonly channelItems: LabelledGaugePort<'channel' | 'status'>;
}

/** What `/readyz` says per channel under `push.{channel}`. */
export interface PushChannelStatus {
  readonly enabled: true;
  readonly mode: 'live' | 'dry-run' | 'paused';
  readonly pending: number;
  readonly oldestPendingAgeS?: number;
  readonly lastSuccessAt?: string;
  readonly lastErrorAt?: string;
  /** The channel's own message (cut to 300 characters). */
  readonly lastError?: string;
  /** Why the last error happened (from the channel's answer). */
  readonly lastErrorKind?: PushErrorCause;
  /** The first error since the last success; absent while the channel succeeds. */
  readonly failingSince?: string;
  /** Items the channel refused for good (since the outbox was created), the last one's time and message. */
  readonly rejected?: number;
  readonly lastRejectedAt?: string;
  readonly lastRejected?: string;
  /** Requests used against the channel's quota, where it says (Google's daily quota; Shoptet's bucket). */
  readonly quota?: { readonly used: number; readonly limit: number; readonly resetAt?: string };
  /** When the last reconciliation (a full re-send) was enqueued (its sends follow at the channel's pace). */
  readonly lastReconcileAt?: string;
  /** Google, reconciled in parts (PUSH_GOOGLE_RECONCILE_SHARE): what the last run covered. */
  readonly reconcileProgress?: string;
  /** Google: when its reconciliation runs last completed a pass over the whole catalog. */
  readonly lastFullReconcileAt?: string;
  /** When these figures were read from the outbox (a read starts every second); absent before the first read. */
  readonly checkedAt?: string;
  /**
   * What the channel says of the items: Google's verdicts as last read back (counts, top issues, the last
   * read's time and error); Meta's items left invalid and its catalog diagnostics.
   */
  readonly verdicts?: VerdictSummary | MetaVerdictSummary;
}

/** The state's optional parts, as the status carries them (a quota only with both figures). */
function stateParts(state: PushChannelState): Partial<PushChannelStatus> {
  const { quota } = state;
  return {
    ...(state.lastErrorKind === undefined ? {} : { lastErrorKind: state.lastErrorKind }),
    ...(state.failingSince === undefined ? {} : { failingSince: state.failingSince }),
    ...(state.lastRejectedAt === undefined ? {} : { lastRejectedAt: state.lastRejectedAt }),
    ...(state.lastRejected === undefined ? {} : { lastRejected: state.lastRejected }),
    ...(quota?.used === undefined || quota.limit === undefined
      ? {}
      : {
          quota: { used: quota.used, limit: quota.limit, ...(quota.resetAt === undefined ? {} : { resetAt: quota.resetAt }) },
        }),
    ...(state.lastReconcile === undefined ? {} : { lastReconcileAt: state.lastReconcile }),
    ...(state.reconcileProgress === undefined ? {} : { reconcileProgress: state.reconcileProgress }),
    ...(state.lastFullReconcile === undefined ? {} : { lastFullReconcileAt: state.lastFullReconcile }),
  };
}

/** Per channel, what the channel itself adds to the worker's status (Google: quota, data source problem). */
export type StatusExtras = ReadonlyMap<PushChannel, () => Partial<PushChannelStatus>>;

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
    ...(status.rejected > 0 ? { rejected: status.rejected } : {}),
    ...stateParts(status.state),
  };
}

type ItemOutcome = keyof PushWorkerStatus['items'];
const ITEM_OUTCOMES: readonly ItemOutcome[] = ['ok', 'retry', 'rejected', 'skipped'];

/** This process's cumulative counters as already added to the Prometheus counters, per channel. */
interface Counted {
  readonly requests: { ok: number; failed: number };
  readonly items: Record<ItemOutcome, number>;
}

/**
 * Updates the channel's series from one status read: the counters by what grew since the last read (the
 * worker's are cumulative), the gauges to the status.
 */
export function updatePushMetrics(
  metrics: PushStatusMetrics,
  channel: PushChannel,
  status: PushWorkerStatus,
  shown: PushChannelStatus,
  dryRun: boolean,
  before: Counted | undefined,
): Counted {
  metrics.pushPending.set({ channel }, status.pending);
  const okOutcome = dryRun ? 'dry_run' : 'ok';
  const requests = before?.requests ?? { ok: 0, failed: 0 };
  if (status.requests.ok > requests.ok)
    metrics.pushRequests.inc({ channel, outcome: okOutcome }, status.requests.ok - requests.ok);
  if (status.requests.failed > requests.failed) {
    metrics.pushRequests.inc({ channel, outcome: 'failed' }, status.requests.failed - requests.failed);
  }
  for (const outcome of ITEM_OUTCOMES) {
    const grown = status.items[outcome] - (before?.items[outcome] ?? 0);
    // Every outcome appears (at 0) once the channel is configured, so rate() has a series from the start.
    if (grown > 0 || before === undefined) metrics.pushItems.inc({ channel, outcome }, Math.max(0, grown));
  }
  const lastSuccess = shown.lastSuccessAt === undefined ? Number.NaN : Date.parse(shown.lastSuccessAt);
  if (!Number.isNaN(lastSuccess)) metrics.pushLastSuccess.set({ channel }, lastSuccess / 1000);
  if (shown.quota !== undefined && shown.quota.limit > 0) {
    metrics.pushQuotaUsed.set({ channel }, shown.quota.used / shown.quota.limit);
  }
  metrics.pushPaused.set({ channel }, shown.mode === 'paused' ? 1 : 0);
  const verdicts = shown.verdicts;
  if (verdicts !== undefined && isMetaVerdicts(verdicts))
    metrics.channelItems.set({ channel, status: 'invalid' }, verdicts.invalid);
  else if (verdicts?.readAt !== undefined) {
    for (const [status, items] of Object.entries(verdicts.counts)) metrics.channelItems.set({ channel, status }, items);
  }
  return { requests: { ...status.requests }, items: { ...status.items } };
}

/** The worker's `onDelivered`: each accepted item's lag into the channel's histogram. */
export function observePushLag(metrics: PushStatusMetrics, channel: PushChannel): (lagMs: readonly number[]) => void {
  return (lagMs) => {
    for (const ms of lagMs) metrics.pushLag.observe({ channel }, ms / 1000);
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
  readonly metrics: PushStatusMetrics;
  readonly log: Logger;
  readonly gate: { readonly stopped: boolean };
  readonly extras?: StatusExtras;
  readonly now: () => Date;
}): PushStatusBoard {
  const { workers, push, metrics, log, gate } = parts;
  const extra = (channel: PushChannel) => parts.extras?.get(channel)?.() ?? {};
  // Known at once from the configuration, so /readyz names every enabled channel from the start; the
  // outbox's figures (pending, last success and error) replace it at the first refresh.
  let latest: Partial<Record<PushChannel, PushChannelStatus>> = Object.fromEntries(
    [...workers.keys()].map((channel) => [
      channel,
      { enabled: true, mode: push.paused.includes(channel) ? 'paused' : push.dryRun ? 'dry-run' : 'live', pending: 0 },
    ]),
  );
  // Counters already added to the Prometheus counters, per channel: the worker's are cumulative.
  const counted = new Map<PushChannel, Counted>();

  const refresh = async () => {
    // Taken before the reads: whatever was pending by then is in these figures.
    const checkedAt = parts.now().toISOString();
    const next: Partial<Record<PushChannel, PushChannelStatus>> = {};
    for (const [channel, worker] of workers) {
      const status = await worker.status();
      const shown = { ...toStatus(status, push.dryRun), ...extra(channel), checkedAt };
      next[channel] = shown;
      counted.set(channel, updatePushMetrics(metrics, channel, status, shown, push.dryRun, counted.get(channel)));
    }
    latest = next;
  };
  const refreshQuietly = () =>
    refresh().catch((error: unknown) => {
      if (!gate.stopped) log.warn({ err: error }, 'push: reading the outbox status failed');
    });

  return { refresh, refreshQuietly, latest: () => latest };
}
