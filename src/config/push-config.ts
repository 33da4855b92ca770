import type { ConfigEnv } from './config-schema.js';

/** The channels to push to (docs/channel-push.md); a channel is absent unless fully configured. */
export interface PushConfig {
  readonly dryRun: boolean;
  readonly paused: readonly ('google' | 'shoptet' | 'meta')[];
  readonly timeoutMs: number;
  readonly maxBackoffMs: number;
  /** The nightly full reconciliation's cron (in SYNC_TIMEZONE); `undefined` when PUSH_RECONCILE_CRON=off. */
  readonly reconcileCron: string | undefined;
  /** PUSH_GOOGLE_RECONCILE_SHARE: the share of Google's daily quota left one reconciliation run may use. */
  readonly googleReconcileShare: number;
  readonly shoptet:
    | {
        readonly token: string;
        readonly baseUrl: string;
        readonly stockId: number;
        /** `all` (summed over units) or a unit's code. */
        readonly unit: string;
        readonly field: 'realStock' | 'quantity';
      }
    | undefined;
  readonly meta:
    | {
        readonly catalogId: string;
        readonly token: string;
        readonly graphUrl: string;
        readonly batchSize: number;
        /** META_DIAGNOSTICS_INTERVAL_MS: how often the catalog's diagnostics are read. */
        readonly diagnosticsIntervalMs: number;
      }
    | undefined;
  readonly google: GooglePushConfig | undefined;
}

export interface GooglePushConfig {
  readonly account: string;
  readonly dataSourceId: string;
  /** GOOGLE_MERCHANT_FILE_DATA_SOURCE_ID: the file source fetching google.xml, whose last fetch is read back. */
  readonly fileDataSourceId?: string;
  /** The key file's path (checked at load; read again by the wiring, never kept in the configuration). */
  readonly credentialsFile: string;
  readonly tokenUrl: string;
  readonly apiUrl: string;
  readonly contentLanguage: string;
  readonly feedLabel: string;
  readonly localInventory: boolean;
  readonly quotaRefreshMs: number;
  /** GOOGLE_STATUS_INTERVAL_MS: how often the verdicts are read back. */
  readonly statusIntervalMs: number;
}

/** The channels' settings; a channel is absent unless fully configured (see partlyConfiguredChannels). */
export function pushConfigOf(e: ConfigEnv): PushConfig {
  const channel = <T>(enabled: boolean, settings: () => T): T | undefined => (enabled ? settings() : undefined);
  return {
    dryRun: e.PUSH_DRY_RUN,
    paused: e.PUSH_PAUSED as PushConfig['paused'],
    timeoutMs: e.PUSH_TIMEOUT_MS,
    maxBackoffMs: e.PUSH_MAX_BACKOFF_MS,
    reconcileCron: e.PUSH_RECONCILE_CRON === 'off' ? undefined : e.PUSH_RECONCILE_CRON,
    googleReconcileShare: e.PUSH_GOOGLE_RECONCILE_SHARE,
    shoptet: channel(e.SHOPTET_API_TOKEN !== undefined, () => ({
      token: e.SHOPTET_API_TOKEN ?? '',
      baseUrl: e.SHOPTET_API_URL,
      stockId: e.SHOPTET_STOCK_ID,
      unit: e.SHOPTET_STOCK_UNIT,
      field: e.SHOPTET_STOCK_FIELD,
    })),
    meta: channel(e.META_CATALOG_ID !== undefined && e.META_ACCESS_TOKEN !== undefined, () => ({
      catalogId: e.META_CATALOG_ID ?? '',
      token: e.META_ACCESS_TOKEN ?? '',
      graphUrl: e.META_GRAPH_API_URL,
      batchSize: e.META_BATCH_SIZE,
      diagnosticsIntervalMs: e.META_DIAGNOSTICS_INTERVAL_MS,
    })),
    google: channel(e.GOOGLE_MERCHANT_ACCOUNT_ID !== undefined, () => ({
      account: e.GOOGLE_MERCHANT_ACCOUNT_ID ?? '',
      dataSourceId: e.GOOGLE_MERCHANT_DATA_SOURCE_ID ?? '',
      ...(e.GOOGLE_MERCHANT_FILE_DATA_SOURCE_ID === undefined ? {} : { fileDataSourceId: e.GOOGLE_MERCHANT_FILE_DATA_SOURCE_ID }),
      credentialsFile: e.GOOGLE_APPLICATION_CREDENTIALS ?? '',
      tokenUrl: e.GOOGLE_OAUTH_TOKEN_URL,
      apiUrl: e.GOOGLE_MERCHANT_API_URL,
      contentLanguage: e.GOOGLE_CONTENT_LANGUAGE,
      feedLabel: e.GOOGLE_FEED_LABEL,
      localInventory: e.GOOGLE_LOCAL_INVENTORY ?? Object.keys(e.UNIT_STORE_CODES).length > 0,
      quotaRefreshMs: e.GOOGLE_QUOTA_REFRESH_MS,
      statusIntervalMs: e.GOOGLE_STATUS_INTERVAL_MS,
    })),
  };
}
