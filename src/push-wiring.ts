import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from './adapters/logger/create-logger.js';
import type { Metrics } from './adapters/metrics/create-metrics.js';
import { createMemoryPushOutbox } from './adapters/push/memory-push-outbox.js';
import { openSqlitePushOutbox } from './adapters/push/sqlite-push-outbox.js';
import type { Config, PushConfig } from './config/load-config.js';
import type { ChangeLog } from './core/catalog/change-log.js';
import type { PushChannel } from './core/push/channel-client.js';
import type { PushTargetsConfig } from './core/push/derive-updates.js';
import type { PushOutbox } from './core/push/outbox.js';
import { createPacer } from './core/push/pacer.js';
import { type ChannelParts, type Links, metaParts, shoptetParts } from './push-channels.js';
import { applyPausedSetting, createPushControl, type PushControl, rememberMode, storeMode } from './push-control.js';
import { createPushStatusBoard, type PushChannelStatus } from './push-status.js';
import type { CatalogService } from './services/catalog-service.js';
import { createPushDeriver, type PushDeriver } from './services/push/push-deriver.js';
import { createPushReconciler, type PushReconciler } from './services/push/push-reconciler.js';
import { createPushWorker, type PushWorker } from './services/push/push-worker.js';

/**
 * The channel push, wired (docs/decisions/0013-channel-push.md, sections 4, 6, 8; docs/channel-push.md): the
 * outbox in the configured store, the deriver and one worker per configured channel (Meta, Shoptet; Google
 * is not wired yet). Nothing is created when no channel is configured, so the bridge behaves as before.
 */

export type { PushChannelStatus } from './push-status.js';

export interface PushWiring {
  /** Derives and sends from now on (call once the catalog is served). */
  start(): void;
  /** Lets the requests in flight finish, then closes the outbox. */
  stop(): Promise<void>;
  /** The newest status per channel (refreshed in the background: `/readyz` answers synchronously). */
  status(): Readonly<Partial<Record<PushChannel, PushChannelStatus>>>;
  /** The configured channels. */
  channels(): readonly PushChannel[];
  /** The operator's pause and resume (kept in the outbox) and a full reconciliation now (push-control.ts). */
  pause: PushControl['pause'];
  resume: PushControl['resume'];
  reconcile: PushControl['reconcile'];
}

export interface PushWiringDeps {
  readonly config: Config;
  readonly catalog: Pick<CatalogService, 'onChange' | 'current'>;
  readonly changeLog: Pick<ChangeLog, 'changesSince'>;
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly links: Links;
  /** Whether this instance leads its group (single instance: always). */
  readonly isLeader?: () => boolean;
}

/** How often the outbox is polled when nothing woke the worker, and the status refreshed. */
const IDLE_MS = 1_000;
const STATUS_MS = 2_000;

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}

/** SQLite store → the outbox's tables in its file; memory → memory. A Redis group is refused by the caller. */
function openOutbox(storeUrl: string): PushOutbox {
  if (storeUrl.startsWith('sqlite://')) return openSqlitePushOutbox(resolve(storeUrl.slice('sqlite://'.length)));
  return createMemoryPushOutbox();
}

/** `undefined` when no channel is configured (or, for now, in a Redis group: see docs/channel-push.md). */
export function createPushWiring(deps: PushWiringDeps): PushWiring | undefined {
  const { config, logger } = deps;
  const push = config.push;
  const log = logger.child({ component: 'push' });
  const channels = new Map<PushChannel, ChannelParts<unknown>>();
  const meta = metaParts(push, config, deps.links, log);
  if (meta !== undefined) channels.set('meta', meta);
  const shoptet = shoptetParts(push, config, deps.links, log);
  if (shoptet !== undefined) channels.set('shoptet', shoptet);
  if (channels.size === 0) return undefined;
  if (/^rediss?:\/\//.test(config.store.url)) {
    log.warn({ channels: [...channels.keys()] }, 'push: not available with a Redis store yet; nothing is pushed');
    return undefined;
  }
  const outbox = openOutbox(config.store.url);
  const isLeader = deps.isLeader ?? (() => true);
  const now = () => Date.now();
  const workers = new Map<PushChannel, PushWorker>();
  for (const [channel, parts] of channels) {
    workers.set(
      channel,
      createPushWorker({
        channel,
        outbox,
        client: parts.client,
        buildPayload: parts.buildPayload,
        current: () => deps.catalog.current(),
        pacer: createPacer(parts.limits, now()),
        batchSize: parts.batchSize,
        leaseMs: push.timeoutMs * 2 + 5_000,
        maxBackoffMs: push.maxBackoffMs,
        idleMs: IDLE_MS,
        now,
        random: Math.random,
        sleep: abortableSleep,
        isLeader,
        logger: log.child({ channel }),
      }),
    );
  }
  const targets: PushTargetsConfig = {
    ...(shoptet === undefined || push.shoptet === undefined ? {} : { shoptet: { unit: push.shoptet.unit } }),
    ...(meta === undefined ? {} : { meta: true as const }),
  };
  const gate = { stopped: false };
  const deriver = createPushDeriver({
    // A version published during shutdown (a last sale) is left to the next start's catch-up: the outbox closes.
    catalog: {
      current: () => deps.catalog.current(),
      onChange: (listener) =>
        deps.catalog.onChange((snapshot, ...rest) => (gate.stopped ? undefined : listener(snapshot, ...rest))),
    },
    changeLog: deps.changeLog,
    outbox,
    config: targets,
    isLeader,
    now,
    logger: log,
    onEnqueued: () => {
      for (const worker of workers.values()) worker.wake();
    },
  });
  const wake = () => {
    for (const worker of workers.values()) worker.wake();
  };
  const reconciler = createPushReconciler({
    catalog: deps.catalog,
    outbox,
    config: targets,
    // Half the channel's most (a batch per token): the reconciliation's rows fall due no faster than sent.
    pace: Object.fromEntries(
      [...channels].map(([channel, part]) => [channel, (part.batchSize * part.limits.refillPerSecond) / 2]),
    ),
    now,
    isLeader,
    logger: log,
    onEnqueued: wake,
  });
  return runPush({ deps, push, outbox, workers, deriver, reconciler, log, gate });
}

function runPush(parts: {
  readonly deps: PushWiringDeps;
  readonly push: PushConfig;
  readonly outbox: PushOutbox;
  readonly workers: ReadonlyMap<PushChannel, PushWorker>;
  readonly deriver: Pick<PushDeriver, 'start' | 'catchUp'>;
  readonly reconciler: PushReconciler;
  readonly log: Logger;
  readonly gate: { stopped: boolean };
}): PushWiring {
  const { deps, push, outbox, workers, log, gate } = parts;
  const board = createPushStatusBoard({ workers, push, metrics: deps.metrics, log, gate });
  const channels = [...workers.keys()];
  let timer: NodeJS.Timeout | undefined;
  // The last reconciliation per channel, from the outbox's state (read with the status, so a group's shows).
  const reconciled = new Map<PushChannel, string>();
  const refresh = async () => {
    await board.refreshQuietly();
    for (const channel of channels) {
      const at = await outbox.state(channel).then(
        (state) => state.lastReconcile,
        () => undefined,
      );
      if (at !== undefined) reconciled.set(channel, at);
    }
  };
  const control = createPushControl({
    outbox,
    channels,
    push,
    reconciler: parts.reconciler,
    stopped: () => gate.stopped,
    changed: () => {
      for (const worker of workers.values()) worker.wake();
      return refresh();
    },
    log,
  });

  /** After a dry run, a channel starting live is sent everything it should hold (decision 0013, "Dry run"). */
  const reconcileAfterDryRun = async (toReconcile: readonly PushChannel[]) => {
    if (toReconcile.length === 0) return;
    log.info({ channels: toReconcile }, 'push: last ran in dry run, now live: reconciling');
    await parts.deriver.catchUp();
    for (const channel of toReconcile) {
      const result = await control.reconcile(channel, 'dry run ended');
      if (result.ok || result.reason === 'no-cursor') await storeMode(outbox, channel, 'live');
      else log.warn({ channel, reason: result.reason }, 'push: the reconciliation after the dry run did not run');
    }
  };

  return {
    start() {
      if (gate.stopped) return;
      void (async () => {
        await applyPausedSetting(outbox, channels, push.paused, log);
        const toReconcile = await rememberMode(outbox, channels, push.dryRun);
        if (gate.stopped) return;
        parts.deriver.start();
        for (const worker of workers.values()) worker.start();
        log.info({ channels, dryRun: push.dryRun, paused: push.paused }, 'push: started');
        await reconcileAfterDryRun(toReconcile);
        await refresh();
        timer = setInterval(() => void refresh(), STATUS_MS).unref();
      })().catch((error: unknown) => log.error({ err: error }, 'push: could not start'));
    },
    async stop() {
      gate.stopped = true;
      clearInterval(timer);
      await Promise.all([...workers.values()].map((worker) => worker.stop()));
      await board.refresh().catch(() => undefined);
      await outbox.close();
    },
    status() {
      const latest = board.latest();
      return Object.fromEntries(
        Object.entries(latest).map(([channel, status]) => {
          const at = reconciled.get(channel as PushChannel);
          return [channel, at === undefined ? status : { ...status, lastReconcileAt: at }];
        }),
      );
    },
    channels: () => channels,
    pause: control.pause,
    resume: control.resume,
    reconcile: control.reconcile,
  };
}
