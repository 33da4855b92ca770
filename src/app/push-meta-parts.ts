import type { Logger } from '../adapters/logger/create-logger.js';
import { createDryRunClient } from '../adapters/push/dry-run-client.js';
import { createMetaClient, type MetaClient } from '../adapters/push/meta-client.js';
import type { Config, PushConfig } from '../config/load-config.js';
import type { ChannelClient } from '../core/push/channel-client.js';
import type { PacerLimits } from '../core/push/pacer.js';
import { metaPayloads } from '../core/push/target-payloads.js';
import { createMetaBatchChecks } from '../services/push/meta-batch-checks.js';
import { createMetaVerdicts, type MetaVerdictStore, type MetaVerdicts } from '../services/push/meta-verdicts.js';
import { type BackgroundContext, type ChannelParts, type Links, lensOf, type PushFeeds } from './push-channel-parts.js';

/**
 * Meta's parts for the push wiring (docs/decisions/0013-channel-push.md, section 8, and docs/channel-push.md
 * "Meta's verdicts"): the `items_batch` client (or the dry-run client), its batch checks on the leader, and
 * Meta's verdicts on the items and the catalog, kept in the store when there is one.
 */

// Meta allows a few batch calls per catalog and minute-ish.
const META_LIMITS: PacerLimits = { capacity: 2, refillPerSecond: 1, maxConcurrent: 1 };
/** How often due Meta handles are looked for (each is asked every 30 s, META_CHECK_INTERVAL_MS). */
const META_CHECK_TICK_MS = 5_000;
/** The catalog's diagnostics: read the first time a few minutes after the start (then every META_DIAGNOSTICS_INTERVAL_MS). */
const META_DIAGNOSTICS_FIRST_MS = 2 * 60_000;
const SHORT_DIAGNOSTICS_INTERVAL_MS = 60 * 60_000;
/** How often an instance takes Meta's verdicts from the store (a follower shows the leader's). */
const META_VERDICTS_FOLLOW_MS = 30_000;

export interface MetaParts extends ChannelParts<unknown> {
  /** Meta's verdicts (not in a dry run, nor without a store to keep them in). */
  readonly verdicts?: MetaVerdicts;
}

/** The slot the client's callbacks forward to once the background started (calls before are not kept). */
interface MetaHooks {
  track?: ((handle: string, targets: readonly string[], settling: readonly string[]) => void) | undefined;
  /** In a group: the lease's fence (one value per term of leading), once the background started. */
  fence?: (() => string) | undefined;
  /** Meta's verdicts, once made (the client is made before them). */
  verdicts?: MetaVerdicts | undefined;
}

/**
 * Meta's batch checks (`services/push/meta-batch-checks.ts`) every 30 s on the leader, and its verdicts read
 * and followed; `track` is the client's `onHandle`, which forwards here once started.
 */
function metaBackground(
  client: MetaClient,
  hooks: MetaHooks,
  verdicts: MetaVerdicts | undefined,
  logger: Logger,
  now: () => number,
) {
  return ({ outbox, worker, isLeader, fence }: BackgroundContext) => {
    const checks = createMetaBatchChecks({
      outbox,
      ...(fence === undefined ? {} : { fence }),
      check: (handle) => client.checkBatchStatus(handle),
      now,
      onEnqueued: () => worker.wake(),
      onError: (message, rejected) => worker.noteError(message, rejected),
      ...(verdicts === undefined ? {} : { onVerdicts: (batch) => verdicts.record(batch) }),
      logger,
    });
    hooks.track = checks.track;
    hooks.fence = fence;
    verdicts?.start();
    let running: Promise<void> | undefined;
    let stopped = false;
    const timer = setInterval(() => {
      if (running !== undefined || !isLeader() || checks.open() === 0) return;
      running = checks
        .checkDue(() => stopped)
        .catch((error: unknown) => logger.error({ err: error }, 'push: Meta batch check failed'))
        .finally(() => {
          running = undefined;
        });
    }, META_CHECK_TICK_MS).unref();
    return {
      stop: async () => {
        stopped = true;
        clearInterval(timer);
        hooks.track = undefined;
        // A check under way may still record verdicts: it ends before they stop.
        await running;
        await verdicts?.stop();
      },
    };
  };
}

export function metaParts(
  push: PushConfig,
  config: Config,
  links: Links,
  logger: Logger,
  context: {
    readonly feeds?: PushFeeds | undefined;
    readonly now: () => number;
    readonly isLeader: () => boolean;
    readonly store?: MetaVerdictStore | undefined;
  },
): MetaParts | undefined {
  const meta = push.meta;
  if (meta === undefined) return undefined;
  const { feeds, now, isLeader, store } = context;
  const hooks: MetaHooks = {};
  const live = push.dryRun
    ? undefined
    : createMetaClient({
        graphUrl: meta.graphUrl,
        catalogId: meta.catalogId,
        token: meta.token,
        timeoutMs: push.timeoutMs,
        batchSize: meta.batchSize,
        onHandle: (handle, targets, settling) => hooks.track?.(handle, targets, settling),
        onRefused: (refused, gone) =>
          void hooks.verdicts
            ?.record({ invalid: refused, valid: gone, sentAt: new Date(now()).toISOString() })
            .catch((error: unknown) => logger.warn({ err: error }, "push: Meta's verdicts on a call not kept")),
      });
  const verdicts =
    live === undefined || store === undefined
      ? undefined
      : createMetaVerdicts({
          store,
          readDiagnostics: () => live.diagnostics(),
          isLeader,
          term: () => hooks.fence?.(),
          intervalMs: meta.diagnosticsIntervalMs,
          firstDelayMs: Math.min(META_DIAGNOSTICS_FIRST_MS, meta.diagnosticsIntervalMs),
          followMs: Math.min(META_VERDICTS_FOLLOW_MS, meta.diagnosticsIntervalMs),
          now,
          logger,
        });
  hooks.verdicts = verdicts;
  if (verdicts !== undefined && meta.diagnosticsIntervalMs < SHORT_DIAGNOSTICS_INTERVAL_MS) {
    logger.warn(
      { META_DIAGNOSTICS_INTERVAL_MS: meta.diagnosticsIntervalMs },
      "push: Meta's catalog diagnostics are read more often than hourly; each read takes calls of Meta's rate limit",
    );
  }
  const client = live ?? createDryRunClient('meta', { method: 'POST', path: `/${meta.catalogId}/items_batch` }, logger);
  const feed = { storeCodes: config.feed.unitStoreCodes, unitNames: new Map<string, string>(), ...links };
  const buildPayload = metaPayloads(
    { currency: config.feed.currency, ...(config.feed.brand === undefined ? {} : { brand: config.feed.brand }) },
    feed,
    lensOf(feeds, 'meta'),
  );
  return {
    client: client as ChannelClient<unknown>,
    buildPayload,
    batchSize: meta.batchSize,
    limits: META_LIMITS,
    stockAdjusts: feeds?.templates.find((template) => template.name === 'meta')?.stockAdjusts === true,
    ...(verdicts === undefined ? {} : { verdicts }),
    ...(live === undefined ? {} : { background: metaBackground(live, hooks, verdicts, logger, now) }),
  };
}
