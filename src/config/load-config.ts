import type { DocumentLimitSettings } from '../core/catalog/document-limits.js';
import type { StockPolicySpec } from '../core/feeds/stock-policy.js';
import { CONFIG_VARIABLES, type ConfigEnv, ConfigSchema } from './config-schema.js';
import { serviceAccountFileProblem } from './service-account-file.js';

export type IdentityKeyChoice = ConfigEnv['POS_PRICE_LIST_KEY'];

export interface SandboxConfig {
  readonly units: number;
  readonly articles: number;
  readonly seed: number;
  readonly salesPerMinute: number;
  readonly port: number;
  readonly apiKey: string;
  readonly webhookUrl: string | undefined;
}

export interface Config {
  readonly pos: {
    /** `undefined` means: start the built-in sandbox and use its URL. */
    readonly baseUrl: string | undefined;
    /** `POS_API_KEY` as given; unused in sandbox mode, where the sandbox's own key is sent (wiring's `posApiKey`). */
    readonly apiKey: string | undefined;
    readonly exportPathPrefix: string;
    readonly unitIdentifier: 'localId' | 'code';
    readonly stockExportType: string;
    readonly stockColumns: Readonly<Record<string, string>>;
    readonly priceListKey: IdentityKeyChoice;
    readonly stockKey: IdentityKeyChoice;
    readonly pageSize: number;
    readonly timeoutMs: number;
    readonly maxRetries: number;
    readonly concurrency: number;
    readonly maxPages: number;
    /** Largest JSON answer (one page of a list). */
    readonly maxPageBytes: number;
    /** Limits of a unit's price list and stock export, which follow the article count. */
    readonly documents: DocumentLimitSettings;
  };
  readonly webhook: { readonly apiKeys: readonly string[]; readonly movementWindowMs: number };
  readonly http: {
    readonly host: string;
    readonly port: number;
    readonly publicBaseUrl: string | undefined;
    /** How long a shutdown lets responses in flight finish before it cuts connections. */
    readonly shutdownGraceMs: number;
  };
  readonly store: { readonly url: string };
  /** Several instances on one Redis (docs/scale-out.md). */
  readonly group: { readonly instanceId: string | undefined; readonly leaseMs: number; readonly claimIdleMs: number };
  readonly sync: {
    readonly catalogCron: string;
    readonly stockCron: string;
    readonly timezone: string;
    readonly maxShrink: number;
    /** The longest a full or stock sync may run before it is aborted. */
    readonly deadlineMs: number;
    readonly unknownStockAvailability: 'in_stock' | 'out_of_stock';
  };
  readonly feed: {
    readonly currency: string;
    readonly productUrl: string | undefined;
    readonly imageUrl: string | undefined;
    readonly brand: string | undefined;
    readonly primaryUnit: string | undefined;
    readonly unitStoreCodes: Readonly<Record<string, string>>;
    /** `UNIT_STOCK_BUFFER`: unit code (or `*`) → pieces kept back in every channel feed. */
    readonly unitStockBuffers: Readonly<Record<string, number>>;
    /** `FEED_STOCK_POLICY`: feed name → keys over the template's `stockPolicy` (names checked with the templates). */
    readonly stockPolicies: Readonly<Record<string, StockPolicySpec>>;
    readonly token: string | undefined;
    readonly templatesDir: string | undefined;
    readonly cacheBytes: number;
    /** `FETCH_LOG_SIZE`: feed requests kept in the fetch log. */
    readonly fetchLogSize: number;
  };
  /** The marketer's enrichment sheet (docs/enrichment.md); `source` unset: none. */
  readonly enrichment: {
    readonly source: string | undefined;
    readonly cron: string;
    readonly timeoutMs: number;
    readonly maxBytes: number;
  };
  readonly admin: { readonly token: string | undefined; readonly sessionHours: number };
  readonly logLevel: ConfigEnv['LOG_LEVEL'];
  readonly logFormat: ConfigEnv['LOG_FORMAT'];
  readonly sandbox: SandboxConfig;
  readonly push: PushConfig;
}

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
    | { readonly catalogId: string; readonly token: string; readonly graphUrl: string; readonly batchSize: number }
    | undefined;
  readonly google: GooglePushConfig | undefined;
}

export interface GooglePushConfig {
  readonly account: string;
  readonly dataSourceId: string;
  /** The key file's path (checked at load; read again by the wiring, never kept in the configuration). */
  readonly credentialsFile: string;
  readonly tokenUrl: string;
  readonly apiUrl: string;
  readonly contentLanguage: string;
  readonly feedLabel: string;
  readonly localInventory: boolean;
  readonly quotaRefreshMs: number;
}

/** Thrown with every configuration problem at once; `problems` holds one line per problem. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((line) => `  ${line}`).join('\n')}`);
    this.problems = problems;
  }
}

function withoutEmptyValues(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const cleaned: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value.trim() !== '') cleaned[key] = value.trim();
  }
  return cleaned;
}

const OWN_PREFIXES = [
  'POS_',
  'FEED_',
  'SANDBOX_',
  'SYNC_',
  'WEBHOOK_',
  'CATALOG_SYNC',
  'STOCK_SYNC',
  'ADMIN_',
  'UNIT_STORE',
  'UNIT_STOCK',
  'ENRICHMENT_',
  'PUSH_',
  'GOOGLE_MERCHANT',
  'GOOGLE_OAUTH',
  'GOOGLE_CONTENT',
  'GOOGLE_FEED',
  'GOOGLE_LOCAL',
  'GOOGLE_QUOTA',
  'SHOPTET_',
  'META_',
];
const KNOWN = new Set<string>(CONFIG_VARIABLES);

/** A misspelt setting would otherwise fall back to its default without a word. */
function unknownSettings(values: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  for (const name of Object.keys(values)) {
    if (KNOWN.has(name) || !OWN_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    const closest = closestKnown(name);
    problems.push(`${name}: is not a known setting${closest ? ` (did you mean ${closest}?)` : ''}`);
  }
  return problems;
}

function closestKnown(name: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const known of KNOWN) {
    const distance = editDistance(name, known);
    if (distance <= 3 && (best === undefined || distance < best.distance)) best = { name: known, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * A channel is enabled by its token (Meta: catalog id and token); a channel setting given without it would be
 * silently ignored, so each missing one is a line of its own (docs/decisions/0013-channel-push.md, section 8).
 */
function partlyConfiguredChannels(values: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  const requiredWith = (required: string, given: readonly string[], why: string) => {
    const set = given.filter((name) => values[name] !== undefined);
    if (values[required] === undefined && set.length > 0) {
      problems.push(`${required}: is required when ${set.join(', ')} ${set.length > 1 ? 'are' : 'is'} set (${why})`);
    }
  };
  requiredWith('SHOPTET_API_TOKEN', SHOPTET_SETTINGS, "the shop's API token; without it nothing is pushed to Shoptet");
  requiredWith('META_CATALOG_ID', META_SETTINGS, 'the id of the Meta catalog to update');
  requiredWith('META_ACCESS_TOKEN', META_SETTINGS, 'a system user token with catalog_management');
  requiredWith(
    'GOOGLE_MERCHANT_ACCOUNT_ID',
    GOOGLE_SETTINGS,
    'the Merchant Center account id; without it nothing is pushed to Google',
  );
  if (values['GOOGLE_MERCHANT_ACCOUNT_ID'] !== undefined) {
    requiredWith('GOOGLE_MERCHANT_DATA_SOURCE_ID', ['GOOGLE_MERCHANT_ACCOUNT_ID'], 'the id of the API data source');
    requiredWith('GOOGLE_APPLICATION_CREDENTIALS', ['GOOGLE_MERCHANT_ACCOUNT_ID'], "the service account's JSON key file");
    const file = values['GOOGLE_APPLICATION_CREDENTIALS'];
    const problem = file === undefined ? undefined : serviceAccountFileProblem(file);
    if (problem !== undefined) problems.push(`GOOGLE_APPLICATION_CREDENTIALS: ${problem}`);
  }
  // Asked for explicitly, local inventory without a single store code would silently send nothing.
  const local = values['GOOGLE_LOCAL_INVENTORY'];
  if ((local === 'true' || local === '1') && (values['UNIT_STORE_CODES'] ?? '').trim() === '') {
    problems.push(
      'UNIT_STORE_CODES: is required when GOOGLE_LOCAL_INVENTORY=true is set (the store code of each unit whose local inventory Google gets)',
    );
  }
  return problems;
}

const SHOPTET_SETTINGS = ['SHOPTET_API_URL', 'SHOPTET_STOCK_ID', 'SHOPTET_STOCK_UNIT', 'SHOPTET_STOCK_FIELD'];
const META_SETTINGS = ['META_CATALOG_ID', 'META_ACCESS_TOKEN', 'META_GRAPH_API_URL', 'META_BATCH_SIZE'];
// Not GOOGLE_APPLICATION_CREDENTIALS: Google's own tools read it too, so it may be set for something else.
const GOOGLE_SETTINGS = [
  'GOOGLE_MERCHANT_DATA_SOURCE_ID',
  'GOOGLE_OAUTH_TOKEN_URL',
  'GOOGLE_MERCHANT_API_URL',
  'GOOGLE_CONTENT_LANGUAGE',
  'GOOGLE_FEED_LABEL',
  'GOOGLE_LOCAL_INVENTORY',
  'GOOGLE_QUOTA_REFRESH_MS',
];

function pushConfigOf(e: ConfigEnv): PushConfig {
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
    })),
    google: channel(e.GOOGLE_MERCHANT_ACCOUNT_ID !== undefined, () => ({
      account: e.GOOGLE_MERCHANT_ACCOUNT_ID ?? '',
      dataSourceId: e.GOOGLE_MERCHANT_DATA_SOURCE_ID ?? '',
      credentialsFile: e.GOOGLE_APPLICATION_CREDENTIALS ?? '',
      tokenUrl: e.GOOGLE_OAUTH_TOKEN_URL,
      apiUrl: e.GOOGLE_MERCHANT_API_URL,
      contentLanguage: e.GOOGLE_CONTENT_LANGUAGE,
      feedLabel: e.GOOGLE_FEED_LABEL,
      localInventory: e.GOOGLE_LOCAL_INVENTORY ?? Object.keys(e.UNIT_STORE_CODES).length > 0,
      quotaRefreshMs: e.GOOGLE_QUOTA_REFRESH_MS,
    })),
  };
}

/**
 * Parses the environment once. Unknown variables are ignored (the process environment holds many);
 * every problem with a known one is reported, one line each, naming the variable.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const values = withoutEmptyValues(env);
  const parsed = ConfigSchema.safeParse(values);
  const problems = unknownSettings(values);
  // Checked outside the schema so that it is reported together with every other problem.
  if (values['POS_BASE_URL'] !== undefined && values['POS_API_KEY'] === undefined) {
    problems.push('POS_API_KEY: is required when POS_BASE_URL is set');
  }
  problems.push(...partlyConfiguredChannels(values));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = issue.path.map(String).join('.') || 'configuration';
      // zod leaves `issue.input` out, so the value comes from what was given: a number setting given "eighty"
      // is not "required", it is not a number.
      const given = values[String(issue.path[0])];
      const message =
        issue.code !== 'invalid_type'
          ? issue.message
          : given === undefined
            ? 'is required'
            : `${JSON.stringify(given)} is not a ${issue.expected}`;
      problems.push(`${name}: ${message}`);
    }
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  const e = parsed.data;
  // In sandbox mode the sender is the sandbox, with its own key: that one is always accepted, and POS_API_KEY
  // (left in a .env prepared for the real POS) is not; a WEBHOOK_API_KEY someone set is honoured beside it.
  const webhookKeys =
    e.POS_BASE_URL === undefined ? [e.SANDBOX_API_KEY, e.WEBHOOK_API_KEY] : [e.WEBHOOK_API_KEY ?? e.POS_API_KEY];
  if (e.WEBHOOK_API_KEY_PREVIOUS !== undefined) webhookKeys.push(e.WEBHOOK_API_KEY_PREVIOUS);
  return deepFreeze({
    pos: {
      baseUrl: e.POS_BASE_URL?.replace(/\/+$/, ''),
      apiKey: e.POS_API_KEY,
      exportPathPrefix: e.POS_EXPORT_PATH_PREFIX,
      unitIdentifier: e.POS_UNIT_IDENTIFIER,
      stockExportType: e.POS_STOCK_EXPORT_TYPE,
      stockColumns: e.POS_STOCK_COLUMNS,
      priceListKey: e.POS_PRICE_LIST_KEY,
      stockKey: e.POS_STOCK_KEY,
      pageSize: e.POS_PAGE_SIZE,
      timeoutMs: e.POS_TIMEOUT_MS,
      maxRetries: e.POS_MAX_RETRIES,
      concurrency: e.POS_CONCURRENCY,
      maxPages: e.POS_MAX_PAGES,
      maxPageBytes: e.POS_MAX_PAGE_MB * 1024 * 1024,
      documents: { rowsPerArticle: e.POS_MAX_ROWS_PER_ARTICLE, maxDocumentBytes: e.POS_MAX_DOCUMENT_MB * 1024 * 1024 },
    },
    webhook: {
      apiKeys: [...new Set(webhookKeys.filter((key): key is string => key !== undefined))],
      movementWindowMs: e.WEBHOOK_MOVEMENT_WINDOW_MS,
    },
    http: {
      host: e.HOST,
      port: e.PORT,
      publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
      shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    },
    store: { url: e.STORE_URL },
    group: { instanceId: e.INSTANCE_ID, leaseMs: e.GROUP_LEASE_MS, claimIdleMs: e.WEBHOOK_CLAIM_IDLE_MS },
    sync: {
      catalogCron: e.CATALOG_SYNC_CRON,
      stockCron: e.STOCK_SYNC_CRON,
      timezone: e.SYNC_TIMEZONE,
      maxShrink: e.SYNC_MAX_SHRINK,
      deadlineMs: e.SYNC_DEADLINE_MS,
      unknownStockAvailability: e.UNKNOWN_STOCK_AVAILABILITY,
    },
    feed: {
      currency: e.FEED_CURRENCY,
      productUrl: e.FEED_PRODUCT_URL,
      imageUrl: e.FEED_IMAGE_URL,
      brand: e.FEED_BRAND,
      primaryUnit: e.FEED_PRIMARY_UNIT,
      unitStoreCodes: e.UNIT_STORE_CODES,
      unitStockBuffers: e.UNIT_STOCK_BUFFER,
      stockPolicies: e.FEED_STOCK_POLICY,
      token: e.FEED_TOKEN,
      templatesDir: e.FEED_TEMPLATES_DIR,
      cacheBytes: e.FEED_CACHE_MB * 1024 * 1024,
      fetchLogSize: e.FETCH_LOG_SIZE,
    },
    enrichment: {
      source: e.ENRICHMENT_SOURCE,
      cron: e.ENRICHMENT_SYNC_CRON,
      timeoutMs: e.ENRICHMENT_TIMEOUT_MS,
      maxBytes: e.ENRICHMENT_MAX_MB * 1024 * 1024,
    },
    admin: { token: e.ADMIN_TOKEN, sessionHours: e.ADMIN_SESSION_HOURS },
    push: pushConfigOf(e),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    sandbox: {
      units: e.SANDBOX_UNITS,
      articles: e.SANDBOX_ARTICLES,
      seed: e.SANDBOX_SEED,
      salesPerMinute: e.SANDBOX_SALES_PER_MINUTE,
      port: e.SANDBOX_PORT,
      apiKey: e.SANDBOX_API_KEY,
      webhookUrl: e.SANDBOX_WEBHOOK_URL,
    },
  } satisfies Config);
}
