import type { Logger } from '../adapters/logger/create-logger.js';
import type { Metrics } from '../adapters/metrics/create-metrics.js';
import { createMemoryPushOutbox } from '../adapters/push/memory-push-outbox.js';
import { openSqlitePushOutbox } from '../adapters/push/sqlite-push-outbox.js';
import { besideStore, sqliteStorePath } from '../adapters/store/beside-store.js';
import type { Config, PushConfig } from '../config/load-config.js';
import type { ChangeLog } from '../core/catalog/change-log.js';
import { reconcileBudget } from '../core/push/google-quota.js';
import type { PushOutbox } from '../core/push/outbox.js';
import type { PushChannel } from '../core/push/push-channel.js';
import type { CatalogService } from '../services/catalog/catalog-service.js';
import type { GoogleVerdicts, VerdictStore } from '../services/push/google-verdicts.js';
import type { MetaVerdictStore, MetaVerdicts } from '../services/push/meta-verdicts.js';
import {
  applyPausedSetting,
  createPushControl,
  type PushControl,
  rememberMode,
  storeMode,
} from '../services/push/push-control.js';
import { createPushDeriver, type PushDeriver } from '../services/push/push-deriver.js';
import { createPushReconciler, type PushReconciler } from '../services/push/push-reconciler.js';
import { createPushStatusBoard, type PushChannelStatus, type StatusExtras } from '../services/push/push-status.js';
import type { PushWorker } from '../services/push/push-worker.js';
import { type ChannelParts, googleParts, type Links, type PushFeeds, shoptetParts } from './push-channel-parts.js';
import { metaParts } from './push-meta-parts.js';
import { uncoalescedOutbox } from './push-uncoalesced.js';
import { createWorkers, googleStatus, IDLE_MS, pushTargetsOf } from './push-workers.js';

/**
 * The channel push, wired (docs/decisions/0013-channel-push.md, sections 4, 6, 8; docs/channel-push.md): the
 * outbox in the configured store, the deriver and one worker per configured channel (Google, Meta, Shoptet). Nothing is created when no channel is configured, so the bridge behaves as before.
 */

export type { PushChannelStatus } from '../services/push/push-status.js';

export interface PushWiring {
  /** Derives and sends from now on (call once the catalog is served). */
  start(): void;
  /** Lets the requests in flight finish, then closes the outbox. */
  stop(): Promise<void>;
  /** The newest status per channel (refreshed in the background: `/readyz` answers synchronously). */
  status(): Readonly<Partial<Record<PushChannel, PushChannelStatus>>>;
  /** The configured channels. */
  channels(): readonly PushChannel[];
  /** Google's verdicts read back, when Google is configured (in a dry run too: reads, not sends). */
  verdicts(): GoogleVerdicts | undefined;
  /** Meta's verdicts on the items and the catalog, when Meta is pushed to (not in a dry run). */
  metaVerdicts(): MetaVerdicts | undefined;
  /** The operator's pause and resume (kept in the outbox) and a full reconciliation now (`services/push/push-control.ts`). */
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
  /** The served feeds: Meta and Shoptet push the values their feeds (`meta`, `shoptet` templates) give. */
  readonly feeds?: PushFeeds;
  /** Whether this instance leads its group (single instance: always). */
  readonly isLeader?: () => boolean;
  /** In a Redis group: the outbox on the group's connection and the lease value that fences its enqueues. */
  readonly group?: PushGroup;
  /**
   * Bench only (`bench/channel-push.ts`, see `push-uncoalesced.ts`): while it answers false, each change is
   * its own row and its own request. Absent: always coalesced. Never set from the configuration.
   */
  readonly coalesce?: () => boolean;
  /** The app's clock (default: the system's). */
  readonly now?: () => Date;
  /** Where Google's verdicts are kept (the catalog's store); without it they are not read. */
  readonly verdictStore?: VerdictStore;
  /** Where Meta's verdicts are kept (the catalog's store); without it they are not kept. */
  readonly metaVerdictStore?: MetaVerdictStore;
}

/** What the push takes from a group of instances on Redis (docs/scale-out.md). */
export interface PushGroup {
  /** The Redis outbox on the group's own connection (its `close` leaves the connection open). */
  readonly outbox: () => PushOutbox;
  /** The lease holder's `instance|token` while this instance holds the lease, else `undefined`. */
  readonly fence: () => string | undefined;
}

/**
 * Sent as the fence while this instance holds no lease: no lease value equals it (they end in `|token`), so
 * the outbox refuses the enqueue instead of taking it unfenced.
 */
export const PUSH_FENCE_NOT_HELD = '!not-held';

/** How often the status is refreshed. */
const STATUS_MS = 1_000;

/**
 * The SQLite outbox's own file beside the store's (`catalog.sqlite` → `catalog.push.sqlite`, as the webhook
 * inbox has one). In the store's file its transactions, which span several statements, stalled the bridge: a
 * store write waiting on one (busy timeout) holds its connection's mutex, the main thread waits for that
 * mutex to finalize the connection's next statement, and the outbox's COMMIT never runs: the event loop
 * froze for the whole 10 s busy timeout, again and again, during a sales burst (BENCHMARKS.md, channel push).
 */
export function pushOutboxPath(storePath: string): string {
  return besideStore(storePath, 'push', { sqlite: true });
}

/** A Redis group → the group's Redis; SQLite store → the outbox's file beside it; memory → memory. */
function openOutbox(storeUrl: string, group: PushGroup | undefined): PushOutbox {
  if (group !== undefined) return group.outbox();
  const storePath = sqliteStorePath(storeUrl);
  return storePath === undefined ? createMemoryPushOutbox() : openSqlitePushOutbox(pushOutboxPath(storePath));
}

/** `undefined` when no channel is configured (or a Redis store is given without its group). */
export function createPushWiring(deps: PushWiringDeps): PushWiring | undefined {
  const { config, logger } = deps;
  const push = config.push;
  const log = logger.child({ component: 'push' });
  const clock = deps.now ?? (() => new Date());
  const now = () => clock().getTime();
  const channels = new Map<PushChannel, ChannelParts<unknown>>();
  const meta = metaParts(push, config, deps.links, log, {
    feeds: deps.feeds,
    now,
    isLeader: deps.isLeader ?? (() => true),
    store: deps.metaVerdictStore,
  });
  if (meta !== undefined) channels.set('meta', meta);
  const shoptet = shoptetParts(push, config, deps.links, log, deps.feeds, now);
  if (shoptet !== undefined) channels.set('shoptet', shoptet);
  const google = googleParts(push, config, deps.links, log, deps.feeds, deps.isLeader, now, deps.verdictStore);
  if (google !== undefined) channels.set('google', google);
  if (channels.size === 0) return undefined;
  if (/^rediss?:\/\//.test(config.store.url) && deps.group === undefined) {
    log.warn({ channels: [...channels.keys()] }, 'push: a Redis store without its group; nothing is pushed');
    return undefined;
  }
  const opened = openOutbox(config.store.url, deps.group);
  const outbox = deps.coalesce === undefined ? opened : uncoalescedOutbox(opened, deps.coalesce);
  const isLeader = deps.isLeader ?? (() => true);
  const workers = createWorkers({
    push,
    current: () => deps.catalog.current(),
    uncoalesced: deps.coalesce !== undefined,
    metrics: deps.metrics,
    fence: deps.group === undefined ? undefined : fenceOf(deps.group),
    channels,
    google,
    outbox,
    now,
    log,
    isLeader,
  });
  const targets = pushTargetsOf(push, { meta, shoptet, google });
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
    ...(deps.group === undefined ? {} : { fence: fenceOf(deps.group) }),
    now,
    logger: log,
    onEnqueued: () => {
      for (const worker of workers.values()) worker.wake();
    },
  });
  const extras = new Map<PushChannel, () => Partial<PushChannelStatus>>(
    google === undefined ? [] : [['google', () => googleStatus(google)]],
  );
  const metaVerdicts = meta?.verdicts;
  if (metaVerdicts !== undefined) extras.set('meta', () => ({ verdicts: metaVerdicts.summary() }));
  const backgrounds = [...channels].flatMap(([channel, parts]) => {
    const worker = workers.get(channel);
    return parts.background === undefined || worker === undefined
      ? []
      : [
          () =>
            parts.background?.({ outbox, worker, isLeader, ...(deps.group === undefined ? {} : { fence: fenceOf(deps.group) }) }),
        ];
  });
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
    ...(deps.group === undefined ? {} : { fence: fenceOf(deps.group) }),
    logger: log,
    onEnqueued: () => {
      for (const worker of workers.values()) worker.wake();
    },
    // Google gets a share of its day's quota left per run, continuing where the last stopped (a dry run sends nothing: all).
    ...(google === undefined || push.dryRun
      ? {}
      : { budget: { google: () => reconcileBudget(google.google.quota(), push.googleReconcileShare) } }),
  });
  const verdicts = google?.verdicts;
  return {
    ...runPush({ deps, clock, push, outbox, workers, deriver, reconciler, log, gate, extras, backgrounds }),
    verdicts: () => verdicts,
    metaVerdicts: () => metaVerdicts,
  };
}

function fenceOf(group: PushGroup): () => string {
  return () => group.fence() ?? PUSH_FENCE_NOT_HELD;
}

/**
 * Calls `onLead` whenever `isLeader` turns true (polled every `ms`): a new leader's deriver catches up from
 * the stored cursor at once, not only at the next catalog change (decision 0013, section 2).
 */
export function watchLeadership(isLeader: () => boolean, onLead: () => void, ms: number): { stop(): void } {
  let leading = isLeader();
  const timer = setInterval(() => {
    const now = isLeader();
    if (now && !leading) onLead();
    leading = now;
  }, ms).unref();
  return { stop: () => clearInterval(timer) };
}

function runPush(parts: {
  readonly deps: PushWiringDeps;
  /** The app's clock, as the channels get it. */
  readonly clock: () => Date;
  readonly push: PushConfig;
  readonly outbox: PushOutbox;
  readonly workers: ReadonlyMap<PushChannel, PushWorker>;
  readonly deriver: Pick<PushDeriver, 'start' | 'catchUp'>;
  readonly reconciler: PushReconciler;
  readonly log: Logger;
  readonly gate: { stopped: boolean };
  readonly extras?: StatusExtras;
  /** Each channel's background work (Meta's batch checks, the verdicts): started after the workers, stopped with them. */
  readonly backgrounds: readonly (() => { stop(): void | Promise<void> } | undefined)[];
}): Omit<PushWiring, 'verdicts' | 'metaVerdicts'> {
  const { deps, push, outbox, workers, log, gate } = parts;
  const board = createPushStatusBoard({
    workers,
    push,
    metrics: deps.metrics,
    log,
    gate,
    ...(parts.extras === undefined ? {} : { extras: parts.extras }),
    now: parts.clock,
  });
  const channels = [...workers.keys()];
  let timer: NodeJS.Timeout | undefined;
  const running: { stop(): void | Promise<void> }[] = [];
  let leadership: { stop(): void } | undefined;
  const control = createPushControl({
    outbox,
    channels,
    push,
    reconciler: parts.reconciler,
    stopped: () => gate.stopped,
    changed: () => {
      for (const worker of workers.values()) worker.wake();
      return board.refreshQuietly();
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
        if (deps.isLeader !== undefined) leadership = watchLeadership(deps.isLeader, () => void parts.deriver.catchUp(), IDLE_MS);
        for (const worker of workers.values()) worker.start();
        for (const background of parts.backgrounds) {
          const started = background();
          if (started !== undefined) running.push(started);
        }
        log.info({ channels, dryRun: push.dryRun, paused: push.paused }, 'push: started');
        await reconcileAfterDryRun(toReconcile);
        await board.refreshQuietly();
        timer = setInterval(() => void board.refreshQuietly(), STATUS_MS).unref();
      })().catch((error: unknown) => log.error({ err: error }, 'push: could not start'));
    },
    async stop() {
      gate.stopped = true;
      clearInterval(timer);
      leadership?.stop();
      // The backgrounds (a verdict read under way ends: no new call after the stop) and the workers together,
      // then the outbox.
      await Promise.all([
        ...running.splice(0).map((background) => background.stop()),
        ...[...workers.values()].map((worker) => worker.stop()),
      ]);
      await board.refresh().catch(() => undefined);
      await outbox.close();
    },
    status: () => board.latest(),
    channels: () => channels,
    pause: control.pause,
    resume: control.resume,
    reconcile: control.reconcile,
  };
}
