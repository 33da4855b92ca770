import { readFileSync } from 'node:fs';
import type { Logger } from './adapters/logger/create-logger.js';
import { createDryRunClient } from './adapters/push/dry-run-client.js';
import { createGoogleAccountReads } from './adapters/push/google-account-reads.js';
import { createGoogleMerchantClient } from './adapters/push/google-merchant-client.js';
import { parseServiceAccountKey } from './adapters/push/google-token.js';
import { createMetaClient } from './adapters/push/meta-client.js';
import { createShoptetClient } from './adapters/push/shoptet-client.js';
import type { Config, PushConfig } from './config/load-config.js';
import type { ChannelClient } from './core/push/channel-client.js';
import type { PacerLimits } from './core/push/pacer.js';
import { SHOPTET_MAX_BATCH } from './core/push/payloads/shoptet.js';
import {
  type GooglePayload,
  googlePayloads,
  metaPayloads,
  type PayloadBuilder,
  shoptetPayloads,
} from './core/push/target-payloads.js';
import { createGoogleChannel, GOOGLE_MAX_ROUND, type GoogleChannel } from './push-google.js';

/**
 * Each channel's parts for the push wiring (docs/decisions/0013-channel-push.md, section 8): its client (or
 * the dry-run client), its payload builder over the feed's own item, its batch size and pacing. `undefined`
 * when the channel is not configured.
 */

// Meta allows a few batch calls per catalog and minute-ish; Shoptet 3 connections per token (kept under).
const META_LIMITS: PacerLimits = { capacity: 2, refillPerSecond: 1, maxConcurrent: 1 };
const SHOPTET_LIMITS: PacerLimits = { capacity: 2, refillPerSecond: 2, maxConcurrent: 2 };

/** The feeds' link templates (the sandbox's pages in sandbox mode): the same item as the feed. */
export type Links = { readonly productUrl?: string; readonly imageUrl?: string };

export interface ChannelParts<Payload> {
  readonly client: ChannelClient<Payload>;
  readonly buildPayload: PayloadBuilder<Payload>;
  readonly batchSize: number;
  readonly limits: PacerLimits;
}

export function metaParts(push: PushConfig, config: Config, links: Links, logger: Logger): ChannelParts<unknown> | undefined {
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

export function shoptetParts(push: PushConfig, config: Config, links: Links, logger: Logger): ChannelParts<unknown> | undefined {
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

/** Google's parts and its channel state (data source, quotas, pacing): see `push-google.ts`. */
export interface GoogleParts extends ChannelParts<unknown> {
  readonly google: GoogleChannel;
  /** Units whose local inventory is sent (those with a store code, when GOOGLE_LOCAL_INVENTORY is on). */
  readonly localUnits: readonly string[];
}

// The worker takes one token per round; the calls inside a round are paced by the Google channel itself.
const GOOGLE_ROUND_LIMITS: PacerLimits = { capacity: 1, refillPerSecond: 10, maxConcurrent: 1 };

export function googleParts(push: PushConfig, config: Config, links: Links, logger: Logger): GoogleParts | undefined {
  const settings = push.google;
  if (settings === undefined) return undefined;
  const dataSourceName = `accounts/${settings.account}/dataSources/${settings.dataSourceId}`;
  const names = { account: settings.account, contentLanguage: settings.contentLanguage, feedLabel: settings.feedLabel };
  let google: GoogleChannel;
  let client: ChannelClient<GooglePayload>;
  if (push.dryRun) {
    // Nothing is read from Google either; the round is logged as one line, not call by call.
    client = createDryRunClient<GooglePayload>(
      'google',
      { method: 'POST|PATCH|DELETE', path: '/products/v1|/inventories/v1' },
      logger,
    );
    google = createGoogleChannel({
      client,
      reads: undefined,
      dataSourceName,
      refreshMs: settings.quotaRefreshMs,
      now: Date.now,
      logger,
    });
  } else {
    // Loaded checked (load-config's serviceAccountFileProblem); read again here so the configuration never holds it.
    const key = parseServiceAccountKey(readFileSync(settings.credentialsFile, 'utf8'));
    const common = { rootUrl: settings.apiUrl, account: settings.account, dataSourceId: settings.dataSourceId, key };
    const merchant = createGoogleMerchantClient({
      ...common,
      ...names,
      tokenUrl: settings.tokenUrl,
      timeoutMs: push.timeoutMs,
    });
    const reads = createGoogleAccountReads({ ...common, tokenUrl: settings.tokenUrl, timeoutMs: push.timeoutMs });
    google = createGoogleChannel({
      client: merchant,
      reads,
      dataSourceName,
      refreshMs: settings.quotaRefreshMs,
      now: Date.now,
      logger,
    });
    client = google.client;
  }
  const feed = { storeCodes: config.feed.unitStoreCodes, unitNames: new Map<string, string>(), ...links };
  const buildPayload = googlePayloads(
    { ...names, currency: config.feed.currency, ...(config.feed.brand === undefined ? {} : { brand: config.feed.brand }) },
    feed,
    () => google.dataSource(),
  );
  return {
    client: client as ChannelClient<unknown>,
    buildPayload,
    batchSize: GOOGLE_MAX_ROUND,
    limits: GOOGLE_ROUND_LIMITS,
    google,
    localUnits: settings.localInventory ? Object.keys(config.feed.unitStoreCodes) : [],
  };
}
