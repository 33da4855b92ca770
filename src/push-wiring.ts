import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from './adapters/logger/create-logger.js';
import type { Metrics } from './adapters/metrics/create-metrics.js';
import { createDryRunClient } from './adapters/push/dry-run-client.js';
import { createMemoryPushOutbox } from './adapters/push/memory-push-outbox.js';
import { createMetaClient } from './adapters/push/meta-client.js';
import { createShoptetClient } from './adapters/push/shoptet-client.js';
import { openSqlitePushOutbox } from './adapters/push/sqlite-push-outbox.js';
import type { Config, PushConfig } from './config/load-config.js';
import type { ChangeLog } from './core/catalog/change-log.js';
import type { ChannelClient, PushChannel } from './core/push/channel-client.js';
import type { PushTargetsConfig } from './core/push/derive-updates.js';
import type { PushOutbox } from './core/push/outbox.js';
import { createPacer, type PacerLimits } from './core/push/pacer.js';
import { SHOPTET_MAX_BATCH } from './core/push/payloads/shoptet.js';
import { metaPayloads, type PayloadBuilder, shoptetPayloads } from './core/push/target-payloads.js';
import type { CatalogService } from './services/catalog-service.js';
import { createPushDeriver } from './services/push/push-deriver.js';
import { createPushWorker, type PushWorker, type PushWorkerStatus } from './services/push/push-worker.js';

/**
 * The channel push, wired (docs/decisions/0013-channel-push.md, sections 4, 6, 8; docs/channel-push.md): the
 * outbox in the configured store, the deriver and one worker per configured channel (Meta, Shoptet; Google
 * is not wired yet). Nothing is created when no channel is configured, so the bridge behaves as before.
 */

/** What `/readyz` says per channel under `push.{channel}`. */
export interface PushChannelStatus {
  readonly enabled: true;
  readonly mode: 'live' | 'dry-run' | 'paused';
  readonly pending: number;
  readonly oldestPendingAgeS?: number;
  readonly lastSuccessAt?: string;
  readonly lastErrorAt?: string;
  readonly lastError?: string;
}

export interface PushWiring {
  /** Derives and sends from now on (call once the catalog is served). */
  start(): void;
  /** Lets the requests in flight finish, then closes the outbox. */
  stop(): Promise<void>;
  /** The newest status per channel (refreshed in the background: `/readyz` answers synchronously). */
  status(): Readonly<Partial<Record<PushChannel, PushChannelStatus>>>;
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
// Meta allows a few batch calls per catalog and minute-ish; Shoptet 3 connections per token (kept under).
const META_LIMITS: PacerLimits = { capacity: 2, refillPerSecond: 1, maxConcurrent: 1 };
const SHOPTET_LIMITS: PacerLimits = { capacity: 2, refillPerSecond: 2, maxConcurrent: 2 };

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}

/** SQLite store → the outbox's tables in its file; memory → memory. A Redis group is refused by the caller. */
function openOutbox(storeUrl: string): PushOutbox {
  if (storeUrl.startsWith('sqlite://')) return openSqlitePushOutbox(resolve(storeUrl.slice('sqlite://'.length)));
  return createMemoryPushOutbox();
}

/** The feeds' link templates (the sandbox's pages in sandbox mode): the same item as the feed. */
type Links = { readonly productUrl?: string; readonly imageUrl?: string };

interface ChannelParts<Payload> {
  readonly client: ChannelClient<Payload>;
  readonly buildPayload: PayloadBuilder<Payload>;
  readonly batchSize: number;
  readonly limits: PacerLimits;
}

function metaParts(push: PushConfig, config: Config, links: Links, logger: Logger): ChannelParts<unknown> | undefined {
  const meta = push.meta;
  if (meta === undefined) return undefined;
  const client = push.dryRun
    ? createDryRunClient('meta', { method: 'POST', path: `/${meta.catalogId}/items_batch` }, logger)
    : createMetaClient({
        graphUrl: meta.graphUrl,
        catalogId: meta.catalogId,
        token: meta.token,
        timeoutMs: push.timeoutMs,
        batchSize: meta.batchSize,
      });
  const feed = { storeCodes: config.feed.unitStoreCodes, unitNames: new Map<string, string>(), ...links };
  const buildPayload = metaPayloads(
    { currency: config.feed.currency, ...(config.feed.brand === undefined ? {} : { brand: config.feed.brand }) },
    feed,
  );
  return { client: client as ChannelClient<unknown>, buildPayload, batchSize: meta.batchSize, limits: META_LIMITS };
}

function shoptetParts(push: PushConfig, config: Config, links: Links, logger: Logger): ChannelParts<unknown> | undefined {
  const shoptet = push.shoptet;
  if (shoptet === undefined) return undefined;
  const client = push.dryRun
    ? createDryRunClient('shoptet', { method: 'PATCH', path: `/api/stocks/${shoptet.stockId}/movements` }, logger)
    : createShoptetClient({
        baseUrl: shoptet.baseUrl,
        token: shoptet.token,
        stockId: shoptet.stockId,
        timeoutMs: push.timeoutMs,
      });
  const feed = { storeCodes: config.feed.unitStoreCodes, unitNames: new Map<string, string>(), ...links };
  const buildPayload = shoptetPayloads(shoptet.unit, shoptet.field, feed);
  return { client: client as ChannelClient<unknown>, buildPayload, batchSize: SHOPTET_MAX_BATCH, limits: SHOPTET_LIMITS };
}

function toStatus(status: PushWorkerStatus, dryRun: boolean): PushChannelStatus {
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
  return runPush({ deps, push, outbox, workers, deriver, log, gate });
}

function runPush(parts: {
  readonly deps: PushWiringDeps;
  readonly push: PushConfig;
  readonly outbox: PushOutbox;
  readonly workers: ReadonlyMap<PushChannel, PushWorker>;
  readonly deriver: { start(): void };
  readonly log: Logger;
  readonly gate: { stopped: boolean };
}): PushWiring {
  const { deps, push, outbox, workers, log, gate } = parts;
  const metrics = deps.metrics;
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
  let timer: NodeJS.Timeout | undefined;

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

  return {
    start() {
      if (gate.stopped) return;
      void (async () => {
        // PUSH_PAUSED holds at each start: a channel not named is resumed (no pause endpoint exists yet).
        for (const channel of workers.keys()) await outbox.setPaused(channel, push.paused.includes(channel));
        if (gate.stopped) return;
        parts.deriver.start();
        for (const worker of workers.values()) worker.start();
        log.info({ channels: [...workers.keys()], dryRun: push.dryRun, paused: push.paused }, 'push: started');
        await refreshQuietly();
        timer = setInterval(() => void refreshQuietly(), STATUS_MS).unref();
      })().catch((error: unknown) => log.error({ err: error }, 'push: could not start'));
    },
    async stop() {
      gate.stopped = true;
      clearInterval(timer);
      await Promise.all([...workers.values()].map((worker) => worker.stop()));
      await refresh().catch(() => undefined);
      await outbox.close();
    },
    status: () => latest,
  };
}
