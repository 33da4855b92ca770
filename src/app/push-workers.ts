import type { Logger } from '../adapters/logger/create-logger.js';
import type { Metrics } from '../adapters/metrics/create-metrics.js';
import type { PushConfig } from '../config/load-config.js';
import { abortableSleep } from '../core/async/abortable-sleep.js';
import type { CatalogSnapshot } from '../core/catalog/catalog.js';
import { issueTextsFor, type VerdictSummary } from '../core/push/channel-verdicts.js';
import type { PushTargetsConfig } from '../core/push/derive-updates.js';
import type { PushOutbox } from '../core/push/outbox.js';
import { createPacer } from '../core/push/pacer.js';
import type { PushChannel } from '../core/push/push-channel.js';
import { withGoogleChannel } from '../services/push/google-channel.js';
import { observePushLag, type PushChannelStatus } from '../services/push/push-status.js';
import { createPushWorker, type PushWorker } from '../services/push/push-worker.js';
import type { ChannelParts, GoogleParts } from './push-channel-parts.js';
import { uncoalescedPayloads } from './push-uncoalesced.js';

/**
 * The push's workers, one per configured channel, what the deriver enqueues for, and what Google adds to its
 * worker's status (docs/decisions/0013-channel-push.md, sections 4 and 8).
 */

/** How often the outbox is polled when nothing woke the worker. */
export const IDLE_MS = 1_000;

/** What Google adds to its worker's status: the channel's (quota, data source) and the verdicts' summary. */
export function googleStatus(google: GoogleParts): Partial<PushChannelStatus> {
  const verdicts = google.verdicts?.summary();
  return { ...google.google.status(), ...(verdicts === undefined ? {} : { verdicts: statusVerdicts(verdicts) }) };
}

/** The summary as the status shows it: Google's issue texts of the top issues only (the rest are for product pages). */
function statusVerdicts(summary: VerdictSummary): VerdictSummary {
  const { issueTexts, ...rest } = summary;
  const top = issueTextsFor(
    issueTexts,
    summary.topIssues.map((issue) => issue.code),
  );
  return top === undefined ? rest : { ...rest, issueTexts: top };
}

/** One worker per configured channel; Google's gated by its channel (leader, data source, daily quota). */
export function createWorkers(parts: {
  readonly push: PushConfig;
  readonly current: () => CatalogSnapshot | undefined;
  /** Bench only: each change its own row (see `push-uncoalesced.ts`). */
  readonly uncoalesced: boolean;
  readonly metrics: Metrics;
  readonly fence: (() => string) | undefined;
  readonly channels: ReadonlyMap<PushChannel, ChannelParts<unknown>>;
  readonly google: GoogleParts | undefined;
  readonly outbox: PushOutbox;
  readonly now: () => number;
  readonly log: Logger;
  readonly isLeader: () => boolean;
}): Map<PushChannel, PushWorker> {
  const { push, google, outbox, now, log, isLeader, fence } = parts;
  const workers = new Map<PushChannel, PushWorker>();
  for (const [channel, channelParts] of parts.channels) {
    const gated = channel === 'google' && google !== undefined;
    const worker = createPushWorker({
      channel,
      outbox,
      client: channelParts.client,
      buildPayload: parts.uncoalesced ? uncoalescedPayloads(channelParts.buildPayload) : channelParts.buildPayload,
      current: parts.current,
      pacer: channelParts.pacer ?? createPacer(channelParts.limits, now()),
      // Google's round follows its paced rate (read per round); the others' is fixed.
      get batchSize() {
        return gated ? google.google.roundSize() : channelParts.batchSize;
      },
      leaseMs: push.timeoutMs * 2 + 5_000,
      maxBackoffMs: push.maxBackoffMs,
      idleMs: IDLE_MS,
      now,
      random: Math.random,
      sleep: abortableSleep,
      // Google's gate (leader, data source checked, daily quota left) holds the worker like a follower: nothing
      // claimed. It asks `isLeader` itself, every poll, so a new term reads the quotas before its first send.
      isLeader: gated ? () => google.google.open() : isLeader,
      logger: log.child({ channel }),
      onDelivered: observePushLag(parts.metrics, channel),
      ...(fence === undefined ? {} : { fence }),
    });
    workers.set(channel, gated ? withGoogleChannel(worker, google.google) : worker);
  }
  return workers;
}

/** What the deriver and the reconciler enqueue for, per configured channel. */
export function pushTargetsOf(
  push: PushConfig,
  parts: {
    readonly meta?: ChannelParts<unknown> | undefined;
    readonly shoptet?: ChannelParts<unknown> | undefined;
    readonly google?: GoogleParts | undefined;
  },
): PushTargetsConfig {
  const { meta, shoptet, google } = parts;
  return {
    ...(shoptet === undefined || push.shoptet === undefined ? {} : { shoptet: { unit: push.shoptet.unit } }),
    ...(meta === undefined ? {} : { meta: true as const, ...(meta.stockAdjusts === true ? { metaStock: true } : {}) }),
    ...(google === undefined
      ? {}
      : { google: { localUnits: google.localUnits }, ...(google.stockAdjusts === true ? { googleStock: true } : {}) }),
  };
}
