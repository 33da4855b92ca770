import type { DocumentLimitSettings } from '../core/catalog/document-limits.js';
import type { DocumentThreadsSetting } from '../core/catalog/document-threads.js';
import type { StockPolicySpec } from '../core/feeds/stock-policy.js';
import { partlyConfiguredChannels, unknownSettings } from './config-problems.js';
import { type ConfigEnv, ConfigSchema } from './config-schema.js';
import { type PushConfig, pushConfigOf } from './push-config.js';

export type { GooglePushConfig, PushConfig } from './push-config.js';

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
    /** `POS_PRICE_LIST_EXPORT`: the price-list export's last path segment. */
    readonly priceListExport: 'eshop-update' | 'shoptet-update';
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
  readonly webhook: {
    readonly apiKeys: readonly string[];
    /** Keys accepted from this machine only: the in-process sandbox's well-known one, in sandbox mode. */
    readonly loopbackApiKeys: readonly string[];
    readonly movementWindowMs: number;
  };
  readonly http: {
    readonly host: string;
    readonly port: number;
    readonly publicBaseUrl: string | undefined;
    /** express's `trust proxy`: how many proxies, or which, may name the client and scheme; unset trusts none. */
    readonly trustProxy: number | string | undefined;
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
    /** Threads a full sync reads the units' documents with (decision 0020). */
    readonly documentThreads: DocumentThreadsSetting;
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
    /** `FEED_CACHE_MB`: disk for the rendered feed files. */
    readonly cacheBytes: number;
    /** `FEED_FILES_DIR`; unset: beside a SQLite store, else a temporary folder (`feedFilesDirOf`). */
    readonly filesDir: string | undefined;
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
  /** `METRICS_TOKEN`: opens `/metrics` and the full `/readyz`, nothing else. */
  readonly metricsToken: string | undefined;
  readonly logLevel: ConfigEnv['LOG_LEVEL'];
  readonly logFormat: ConfigEnv['LOG_FORMAT'];
  readonly sandbox: SandboxConfig;
  readonly push: PushConfig;
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

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

type ParsedConfig = ReturnType<typeof ConfigSchema.safeParse>;

/** Every problem at once: unknown settings, settings that need another, then the schema's own (one line each). */
function configProblems(values: Readonly<Record<string, string>>, parsed: ParsedConfig): string[] {
  const problems = unknownSettings(values);
  // Checked outside the schema so that it is reported together with every other problem.
  const posKey = values['POS_API_KEY'];
  if (values['POS_BASE_URL'] !== undefined && posKey === undefined) {
    problems.push('POS_API_KEY: is required when POS_BASE_URL is set');
  }
  // Strangers can try the webhook key: one of a few characters is refused (the POS's own key may be short).
  if (
    values['POS_BASE_URL'] !== undefined &&
    values['WEBHOOK_API_KEY'] === undefined &&
    posKey !== undefined &&
    posKey.length < 8
  ) {
    problems.push(
      'POS_API_KEY: is also the webhook key while WEBHOOK_API_KEY is unset, and must then be at least 8 characters; set WEBHOOK_API_KEY to a key of its own (8 or more) for the webhooks',
    );
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
  return problems;
}

function posConfigOf(e: ConfigEnv): Config['pos'] {
  return {
    baseUrl: e.POS_BASE_URL?.replace(/\/+$/, ''),
    apiKey: e.POS_API_KEY,
    exportPathPrefix: e.POS_EXPORT_PATH_PREFIX,
    priceListExport: e.POS_PRICE_LIST_EXPORT,
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
  };
}

function webhookConfigOf(e: ConfigEnv): Config['webhook'] {
  // In sandbox mode the sender is the in-process sandbox, with its own key: that one is accepted from this
  // machine (the sandbox listens and sends on loopback; the key is well known, so never from elsewhere), and
  // POS_API_KEY (left in a .env prepared for the real POS) is not; a WEBHOOK_API_KEY someone set is honoured.
  const sandboxMode = e.POS_BASE_URL === undefined;
  const webhookKeys = sandboxMode ? [e.WEBHOOK_API_KEY] : [e.WEBHOOK_API_KEY ?? e.POS_API_KEY];
  if (e.WEBHOOK_API_KEY_PREVIOUS !== undefined) webhookKeys.push(e.WEBHOOK_API_KEY_PREVIOUS);
  const apiKeys = [...new Set(webhookKeys.filter((key): key is string => key !== undefined))];
  return {
    apiKeys,
    loopbackApiKeys: sandboxMode && !apiKeys.includes(e.SANDBOX_API_KEY) ? [e.SANDBOX_API_KEY] : [],
    movementWindowMs: e.WEBHOOK_MOVEMENT_WINDOW_MS,
  };
}

function syncConfigOf(e: ConfigEnv): Config['sync'] {
  return {
    catalogCron: e.CATALOG_SYNC_CRON,
    stockCron: e.STOCK_SYNC_CRON,
    timezone: e.SYNC_TIMEZONE,
    maxShrink: e.SYNC_MAX_SHRINK,
    deadlineMs: e.SYNC_DEADLINE_MS,
    documentThreads: e.SYNC_DOCUMENT_THREADS,
    unknownStockAvailability: e.UNKNOWN_STOCK_AVAILABILITY,
  };
}

function feedConfigOf(e: ConfigEnv): Config['feed'] {
  return {
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
    filesDir: e.FEED_FILES_DIR,
    fetchLogSize: e.FETCH_LOG_SIZE,
  };
}

function sandboxConfigOf(e: ConfigEnv): SandboxConfig {
  return {
    units: e.SANDBOX_UNITS,
    articles: e.SANDBOX_ARTICLES,
    seed: e.SANDBOX_SEED,
    salesPerMinute: e.SANDBOX_SALES_PER_MINUTE,
    port: e.SANDBOX_PORT,
    apiKey: e.SANDBOX_API_KEY,
    webhookUrl: e.SANDBOX_WEBHOOK_URL,
  };
}

/**
 * Parses the environment once. Unknown variables are ignored (the process environment holds many);
 * every problem with a known one is reported, one line each, naming the variable.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const values = withoutEmptyValues(env);
  const parsed = ConfigSchema.safeParse(values);
  const problems = configProblems(values, parsed);
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  const e = parsed.data;
  return deepFreeze({
    pos: posConfigOf(e),
    webhook: webhookConfigOf(e),
    http: {
      host: e.HOST,
      port: e.PORT,
      publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
      trustProxy: trustProxyOf(e.TRUST_PROXY),
      shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    },
    store: { url: e.STORE_URL },
    group: { instanceId: e.INSTANCE_ID, leaseMs: e.GROUP_LEASE_MS, claimIdleMs: e.WEBHOOK_CLAIM_IDLE_MS },
    sync: syncConfigOf(e),
    feed: feedConfigOf(e),
    enrichment: {
      source: e.ENRICHMENT_SOURCE,
      cron: e.ENRICHMENT_SYNC_CRON,
      timeoutMs: e.ENRICHMENT_TIMEOUT_MS,
      maxBytes: e.ENRICHMENT_MAX_MB * 1024 * 1024,
    },
    admin: { token: e.ADMIN_TOKEN, sessionHours: e.ADMIN_SESSION_HOURS },
    metricsToken: e.METRICS_TOKEN,
    push: pushConfigOf(e),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    sandbox: sandboxConfigOf(e),
  } satisfies Config);
}

function trustProxyOf(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^\d+$/.test(value.trim()) ? Number(value) : value;
}
