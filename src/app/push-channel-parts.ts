import { readFileSync } from 'node:fs';
import type { Logger } from '../adapters/logger/create-logger.js';
import { createDryRunClient } from '../adapters/push/dry-run-client.js';
import { createGoogleAccountReads } from '../adapters/push/google-account-reads.js';
import { createGoogleMerchantClient } from '../adapters/push/google-merchant-client.js';
import { parseServiceAccountKey } from '../adapters/push/google-token.js';
import { createShoptetClient } from '../adapters/push/shoptet-client.js';
import type { Config, PushConfig } from '../config/load-config.js';
import type { ChannelClient } from '../core/push/channel-client.js';
import { createFeedLens, type FeedLens } from '../core/push/feed-lens.js';
import type { PushChannelState, PushOutbox } from '../core/push/outbox.js';
import { createPacer, type Pacer, type PacerLimits } from '../core/push/pacer.js';
import { SHOPTET_MAX_BATCH } from '../core/push/payloads/shoptet.js';
import type { PushChannel } from '../core/push/push-channel.js';
import { type BucketFilling, createBucketSteering } from '../core/push/shoptet-bucket.js';
import {
  type GoogleLenses,
  type GooglePayload,
  googlePayloads,
  type PayloadBuilder,
  shoptetPayloads,
} from '../core/push/target-payloads.js';
import { feedContextOf, itemOptionsOf } from '../services/feeds/feed-builder.js';
import type { FeedService } from '../services/feeds/feed-service.js';
import type { GoogleAccountReads } from '../services/push/google-account-port.js';
import { createGoogleChannel, GOOGLE_MAX_ROUND, type GoogleChannel } from '../services/push/google-channel.js';
import { createGoogleVerdicts, type GoogleVerdicts, type VerdictStore } from '../services/push/google-verdicts.js';
import type { PushWorker } from '../services/push/push-worker.js';

/**
 * Each channel's parts for the push wiring (docs/decisions/0013-channel-push.md, section 8): its client (or
 * the dry-run client), its payload builder over the feed's own item, its batch size and pacing. `undefined`
 * when the channel is not configured.
 */

// Shoptet allows 3 connections per token (kept under).
const SHOPTET_LIMITS: PacerLimits = { capacity: 2, refillPerSecond: 2, maxConcurrent: 2 };

/** The feeds' link templates (the sandbox's pages in sandbox mode): the same item as the feed. */
export type Links = { readonly productUrl?: string; readonly imageUrl?: string };

export interface ChannelParts<Payload> {
  readonly client: ChannelClient<Payload>;
  readonly buildPayload: PayloadBuilder<Payload>;
  readonly batchSize: number;
  readonly limits: PacerLimits;
  /** The channel's own pacer, when its answers steer it (Shoptet's bucket); else the wiring makes one of `limits`. */
  readonly pacer?: Pacer;
  /** Work of the channel besides sending (Meta's batch checks), started with the worker on the leader. */
  readonly background?: (context: BackgroundContext) => { stop(): void | Promise<void> };
  /** Whether its feed's stock policy can make a stock change alone another availability (buffers, thresholds). */
  readonly stockAdjusts?: boolean;
}

/** How often the leader writes Shoptet's last bucket filling to the shared state (when it changed). */
const BUCKET_STATE_MS = 2_000;

type Quota = NonNullable<PushChannelState['quota']>;

/**
 * A channel's quota as this instance last learned it, written to the outbox state by the leader so every
 * instance of a group shows the same `quota` on `/readyz`: when it changed, at most every `everyMs`.
 */
function quotaBackground(channel: PushChannel, read: () => Quota | undefined, everyMs = BUCKET_STATE_MS) {
  return ({ outbox, isLeader }: Pick<BackgroundContext, 'outbox' | 'isLeader'>) => {
    let written = '';
    let busy = false;
    const timer = setInterval(() => {
      const quota = read();
      const text = JSON.stringify(quota ?? null);
      if (busy || quota === undefined || !isLeader() || text === written) return;
      busy = true;
      void outbox
        .patchState(channel, { quota })
        .then(() => {
          written = text;
        })
        .catch(() => undefined)
        .finally(() => {
          busy = false;
        });
    }, everyMs).unref();
    return { stop: () => clearInterval(timer) };
  };
}

/** Shoptet's last `X-RateLimit-Bucket-Filling` as its `quota` (`used`/`limit` drops). */
function bucketBackground(last: () => BucketFilling | undefined) {
  return quotaBackground('shoptet', () => {
    const filling = last();
    return filling === undefined ? undefined : { used: filling.used, limit: filling.max };
  });
}

/** Google's quota as last read by the leader (a follower reads nothing from Google). */
export function googleQuotaBackground(google: Pick<GoogleChannel, 'status'>, everyMs = BUCKET_STATE_MS) {
  return quotaBackground('google', () => google.status().quota, everyMs);
}

/** What a channel's background work gets from the wiring. */
export interface BackgroundContext {
  readonly outbox: PushOutbox;
  readonly worker: Pick<PushWorker, 'wake' | 'noteError'>;
  readonly isLeader: () => boolean;
  /** In a group: the fence of the outbox's enqueues (see `PushGroup`). */
  readonly fence?: () => string;
}

/** The served feeds' compiled templates and options: the push reads its values through them. */
export type PushFeeds = Pick<FeedService, 'templates' | 'options'>;

/** The lens of the template named `name` (`meta`, `shoptet`), or none when that template is not loaded. */
export function lensOf(feeds: PushFeeds | undefined, name: string): FeedLens | undefined {
  const template = feeds?.templates.find((candidate) => candidate.name === name);
  if (feeds === undefined || template === undefined) return undefined;
  return createFeedLens({
    template,
    itemOptions: (snapshot) => itemOptionsOf(snapshot, feeds.options),
    context: (snapshot, view) => feedContextOf(snapshot, view, feeds.options),
  });
}

export function shoptetParts(
  push: PushConfig,
  config: Config,
  links: Links,
  logger: Logger,
  feeds?: PushFeeds,
  now: () => number = Date.now,
): ChannelParts<unknown> | undefined {
  const shoptet = push.shoptet;
  if (shoptet === undefined) return undefined;
  const pacer = createPacer(SHOPTET_LIMITS, now());
  // Every answer's bucket filling steers the pace (decision 0013, "Shoptet REST API", "Limits").
  const steering = createBucketSteering(pacer, SHOPTET_LIMITS, now, (slow, { used, max }) =>
    logger.info(
      { used, max, slow },
      slow ? 'push: Shoptet bucket above 80 %, slowing down' : 'push: Shoptet bucket below 80 % again',
    ),
  );
  const client = push.dryRun
    ? createDryRunClient('shoptet', { method: 'PATCH', path: `/api/stocks/${shoptet.stockId}/movements` }, logger)
    : createShoptetClient({
        baseUrl: shoptet.baseUrl,
        token: shoptet.token,
        stockId: shoptet.stockId,
        timeoutMs: push.timeoutMs,
        onBucketFilling: steering.onFilling,
      });
  const feed = { storeCodes: config.feed.unitStoreCodes, unitNames: new Map<string, string>(), ...links };
  const buildPayload = shoptetPayloads(shoptet.unit, shoptet.field, feed, lensOf(feeds, 'shoptet'));
  return {
    client: client as ChannelClient<unknown>,
    buildPayload,
    batchSize: SHOPTET_MAX_BATCH,
    limits: SHOPTET_LIMITS,
    pacer,
    ...(push.dryRun ? {} : { background: bucketBackground(steering.last) }),
  };
}

/** Google's parts and its channel state (data source, quotas, pacing): see `services/push/google-channel.ts`. */
export interface GoogleParts extends ChannelParts<unknown> {
  readonly google: GoogleChannel;
  /** Google's verdicts read back (in a dry run too; not without a store to keep them in). */
  readonly verdicts?: GoogleVerdicts;
  /** Units whose local inventory is sent (those with a store code, when GOOGLE_LOCAL_INVENTORY is on). */
  readonly localUnits: readonly string[];
}

// The worker takes one token per round; the calls inside a round are paced by the Google channel itself.
const GOOGLE_ROUND_LIMITS: PacerLimits = { capacity: 1, refillPerSecond: 10, maxConcurrent: 1 };

function lensesOf(feeds: PushFeeds | undefined): GoogleLenses {
  const product = lensOf(feeds, 'google');
  const local = lensOf(feeds, 'google-local-inventory');
  return { ...(product === undefined ? {} : { product }), ...(local === undefined ? {} : { local }) };
}

type GoogleSettings = NonNullable<PushConfig['google']>;

/**
 * The Google channel around its client: in a dry run the logging client, with no data source or quota read
 * (a round is logged as one line), else the Merchant API's client and reads; and, either way, the verdicts
 * read back when there is a store to keep them in (reads, not sends: a shop trying the bridge out in a dry
 * run sees what Google says of the products its google.xml already gave it).
 */
function googleChannelOf(
  push: PushConfig,
  settings: GoogleSettings,
  context: { readonly logger: Logger; readonly now: () => number; readonly isLeader?: (() => boolean) | undefined },
  verdictStore: VerdictStore | undefined,
): { readonly google: GoogleChannel; readonly client: ChannelClient<GooglePayload>; readonly verdicts?: GoogleVerdicts } {
  const { logger, now, isLeader } = context;
  const channel = (client: ChannelClient<GooglePayload>, reads: GoogleAccountReads | undefined) =>
    createGoogleChannel({
      client,
      reads,
      dataSourceName: `accounts/${settings.account}/dataSources/${settings.dataSourceId}`,
      refreshMs: settings.quotaRefreshMs,
      now,
      logger,
      ...(isLeader === undefined ? {} : { isLeader }),
    });
  // Loaded checked (load-config's serviceAccountFileProblem); read again here so the configuration never holds it.
  const key = parseServiceAccountKey(readFileSync(settings.credentialsFile, 'utf8'));
  const common = {
    rootUrl: settings.apiUrl,
    account: settings.account,
    dataSourceId: settings.dataSourceId,
    contentLanguage: settings.contentLanguage,
    feedLabel: settings.feedLabel,
    key,
    tokenUrl: settings.tokenUrl,
    timeoutMs: push.timeoutMs,
  };
  const reads = createGoogleAccountReads(common);
  if (push.dryRun) {
    const client = createDryRunClient<GooglePayload>(
      'google',
      { method: 'POST|PATCH|DELETE', path: '/products/v1|/inventories/v1' },
      logger,
    );
    // The sends unpaced and ungated (nothing leaves the machine), no data source or quota read; Google's
    // verdicts are read all the same (reads, not sends), paced by a channel of their own that is never started.
    const reader = channel(client, reads);
    const verdicts = verdictsOf(reader, reads, settings, { logger, now, isLeader }, verdictStore);
    return { google: channel(client, undefined), client, ...(verdicts === undefined ? {} : { verdicts }) };
  }
  const google = channel(createGoogleMerchantClient(common), reads);
  const verdicts = verdictsOf(google, reads, settings, { logger, now, isLeader }, verdictStore);
  return { google, client: google.client, ...(verdicts === undefined ? {} : { verdicts }) };
}

/** Google's verdicts read back through `paced`'s channel, when there is a store to keep them in. */
function verdictsOf(
  paced: Pick<GoogleChannel, 'paced'>,
  reads: GoogleAccountReads,
  settings: GoogleSettings,
  context: { readonly logger: Logger; readonly now: () => number; readonly isLeader?: (() => boolean) | undefined },
  verdictStore: VerdictStore | undefined,
): GoogleVerdicts | undefined {
  if (verdictStore === undefined) return undefined;
  const { logger, now, isLeader } = context;
  if (settings.statusIntervalMs < SHORT_STATUS_INTERVAL_MS) {
    // Each read costs one call per 1,000 products of the day's quota the sends need too.
    logger.warn(
      { GOOGLE_STATUS_INTERVAL_MS: settings.statusIntervalMs },
      "push: Google's verdicts are read more often than every 5 minutes; each read spends quota the sends need",
    );
  }
  return createGoogleVerdicts({
    reads,
    paced: (call) => paced.paced(call),
    ...(settings.fileDataSourceId === undefined ? {} : { fileDataSourceId: settings.fileDataSourceId }),
    store: verdictStore,
    isLeader: isLeader ?? (() => true),
    intervalMs: settings.statusIntervalMs,
    // Google's verdicts on the first sends take minutes; the quota's first read comes before.
    firstDelayMs: Math.min(VERDICTS_FIRST_READ_MS, settings.statusIntervalMs),
    followMs: Math.min(VERDICTS_FOLLOW_MS, settings.statusIntervalMs),
    now,
    logger,
  });
}

export function googleParts(
  push: PushConfig,
  config: Config,
  links: Links,
  logger: Logger,
  feeds?: PushFeeds,
  isLeader?: () => boolean,
  now: () => number = Date.now,
  verdictStore?: VerdictStore,
): GoogleParts | undefined {
  const settings = push.google;
  if (settings === undefined) return undefined;
  const names = { account: settings.account, contentLanguage: settings.contentLanguage, feedLabel: settings.feedLabel };
  const { google, client, verdicts } = googleChannelOf(push, settings, { logger, now, isLeader }, verdictStore);
  const feed = { storeCodes: config.feed.unitStoreCodes, unitNames: new Map<string, string>(), ...links };
  const buildPayload = googlePayloads(
    { ...names, currency: config.feed.currency, ...(config.feed.brand === undefined ? {} : { brand: config.feed.brand }) },
    feed,
    () => google.dataSource(),
    // The served Google feeds' values (stock policy, item rules), as Meta and Shoptet push theirs.
    lensesOf(feeds),
  );
  return {
    client: client as ChannelClient<unknown>,
    buildPayload,
    batchSize: GOOGLE_MAX_ROUND,
    limits: GOOGLE_ROUND_LIMITS,
    // Only with the google feed's lens: without it the plain item's availability would be sent.
    stockAdjusts:
      lensesOf(feeds).product !== undefined &&
      feeds?.templates.find((template) => template.name === 'google')?.stockAdjusts === true,
    google,
    ...(verdicts === undefined ? {} : { verdicts }),
    localUnits: settings.localInventory ? Object.keys(config.feed.unitStoreCodes) : [],
    // In a dry run the quota is not read (nothing to share) but the verdicts are.
    ...(push.dryRun && verdicts === undefined ? {} : { background: googleBackground(google, verdicts) }),
  };
}

const VERDICTS_FIRST_READ_MS = 60_000;
const SHORT_STATUS_INTERVAL_MS = 5 * 60_000;
const VERDICTS_FOLLOW_MS = 30_000;

/** The quota shared with the group, and the verdicts read back (each instance shows the store's). */
function googleBackground(google: GoogleChannel, verdicts: GoogleVerdicts | undefined) {
  const quota = googleQuotaBackground(google);
  return (context: BackgroundContext) => {
    const running = quota(context);
    verdicts?.start();
    return {
      async stop() {
        running.stop();
        await verdicts?.stop();
      },
    };
  };
}
