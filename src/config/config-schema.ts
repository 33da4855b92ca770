import { validate as validateCron } from 'node-cron';
import { z } from 'zod';
import { parseStockPolicies } from '../core/feeds/stock-policy.js';
import { PUSH_CHANNELS } from '../core/push/push-channel.js';

/**
 * The single table of settings (README, Configuration). Every environment variable the bridge reads is a key here,
 * with its default and a description; `.env.example` is checked against this table by a test.
 * Empty strings count as unset (an `.env` line `FEED_TOKEN=` means "no token").
 */

const AVAILABILITIES = ['in_stock', 'out_of_stock'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
const IDENTITY_KEYS = ['auto', 'localId', 'internalIdentifier', 'plu', 'ean'] as const;
/** The stock export parser's fields (kept equal to its STOCK_COLUMNS by a test). */
export const STOCK_COLUMN_FIELDS: readonly string[] = ['code', 'plu', 'ean', 'name', 'quantity', 'measureUnit', 'unit'];

/** The form node-cron accepts, said to whoever typed something else. */
export const CRON_FORM =
  'five fields "minute hour day-of-month month day-of-week" (an optional seconds field may come first), ' +
  'e.g. "*/15 * * * *" (every 15 minutes) or "30 2 * * *" (daily at 02:30)';

function cron(defaultValue: string, description: string) {
  return z
    .string()
    .default(defaultValue)
    .superRefine((value, ctx) => {
      if (!validateCron(value)) {
        ctx.addIssue({
          code: 'custom',
          message: `${JSON.stringify(value)} is not a valid cron expression; expected ${CRON_FORM}`,
        });
      }
    })
    .describe(description);
}

/** A cron expression, or `off` (the job is not scheduled). */
function cronOrOff(defaultValue: string, description: string) {
  return z
    .string()
    .default(defaultValue)
    .superRefine((value, ctx) => {
      if (value !== 'off' && !validateCron(value)) {
        ctx.addIssue({
          code: 'custom',
          message: `${JSON.stringify(value)} is not a valid cron expression; expected ${CRON_FORM}, or off`,
        });
      }
    })
    .describe(description);
}

function int(defaultValue: number, min: number, max: number, description: string) {
  return z.coerce.number().int().min(min).max(max).default(defaultValue).describe(description);
}

function optionalSecret(description: string, minLength = 8) {
  return z.string().min(minLength, `must be at least ${minLength} characters`).optional().describe(description);
}

/** The channels PUSH_PAUSED may name. */
const PUSH_CHANNEL_NAMES: readonly string[] = PUSH_CHANNELS;

/** An absolute http(s) URL, kept without a trailing slash. */
function httpUrl(defaultValue: string, description: string, ending?: { pattern: RegExp; message: string }) {
  const url = z.url({ protocol: /^https?$/ });
  return (ending === undefined ? url : url.regex(ending.pattern, ending.message))
    .default(defaultValue)
    .transform((value) => value.replace(/\/+$/, ''))
    .describe(description);
}

const LINK_PLACEHOLDERS = ['id', 'ean', 'plu', 'code', 'internalIdentifier'];

/** An absolute http(s) URL template whose `{placeholders}` are all known ones. */
function linkTemplate(description: string) {
  return z
    .string()
    .superRefine((value, ctx) => {
      const unknown = [...value.matchAll(/\{([^}]*)\}/g)]
        .map((match) => match[1] ?? '')
        .filter((name) => !LINK_PLACEHOLDERS.includes(name));
      if (unknown.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `has unknown placeholders ${unknown.map((name) => `{${name}}`).join(', ')} (known: ${LINK_PLACEHOLDERS.map((name) => `{${name}}`).join(', ')})`,
        });
        return;
      }
      const filled = value.replace(/\{[^}]*\}/g, 'x');
      if (!URL.canParse(filled) || !/^https?:$/.test(new URL(filled).protocol)) {
        ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL template such as https://shop.example/p/{id}' });
      }
    })
    .optional()
    .describe(description);
}

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** `A=x,B=y` → `{ A: 'x', B: 'y' }`; entries are trimmed, empty keys or values are an error. */
const KeyValueMap = z
  .string()
  .optional()
  .transform((value, ctx) => {
    const map: Record<string, string> = {};
    if (value === undefined) return map;
    for (const entry of value.split(',')) {
      if (entry.trim() === '') continue;
      const eq = entry.indexOf('=');
      const key = eq < 0 ? '' : entry.slice(0, eq).trim();
      const mapped = eq < 0 ? '' : entry.slice(eq + 1).trim();
      if (key === '' || mapped === '') {
        ctx.addIssue({ code: 'custom', message: `entry "${entry.trim()}" is not of the form KEY=VALUE` });
        return z.NEVER;
      }
      map[key] = mapped;
    }
    return map;
  });

/** `U1=2,*=1` → `{ U1: 2, '*': 1 }`: pieces kept back per unit, non-negative numbers; `*` is every unit not named. */
const StockBufferMap = KeyValueMap.transform((map, ctx) => {
  const buffers: Record<string, number> = {};
  for (const [unit, text] of Object.entries(map)) {
    const buffer = /^\d+(?:\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isFinite(buffer)) {
      ctx.addIssue({ code: 'custom', message: `entry "${unit}=${text}": the buffer must be a non-negative number of pieces` });
      continue;
    }
    buffers[unit] = buffer;
  }
  return buffers;
});

/**
 * `google:buffer=1;google-local-inventory:buffer=1,limitedBelow=5;heureka:outOfStock=omit`, checked key by key
 * (core/feeds/stock-policy.ts); the feed names are checked where the templates are loaded.
 */
const StockPolicyMap = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined) return {};
    const { policies, problems } = parseStockPolicies(value);
    for (const message of problems) ctx.addIssue({ code: 'custom', message });
    return policies;
  });

export const ConfigSchema = z.object({
  POS_BASE_URL: z.url().optional().describe('Base URL of the POS interface; unset starts the built-in sandbox POS'),
  POS_API_KEY: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Sent as x-api-key on every POS call (required with POS_BASE_URL; ignored in sandbox mode, which uses SANDBOX_API_KEY)',
    ),
  POS_EXPORT_PATH_PREFIX: z
    .string()
    .regex(/^(\/[A-Za-z0-9._~-]+)*$/, 'must be empty or a path such as /ext (no trailing slash)')
    .default('')
    .describe('Prefix of the export/import paths (interface 4.5-4.9), e.g. /ext'),
  POS_UNIT_IDENTIFIER: z
    .enum(['localId', 'code'])
    .default('localId')
    .describe('Which unit field goes into {identifier} of per-unit paths'),
  POS_STOCK_EXPORT_TYPE: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'must be a plain path segment such as csv')
    .default('csv')
    .describe('The {type} of the stock export'),
  POS_STOCK_COLUMNS: KeyValueMap.refine((map) => Object.keys(map).every((key) => STOCK_COLUMN_FIELDS.includes(key)), {
    message: `may only name the fields ${STOCK_COLUMN_FIELDS.join(', ')}`,
  }).describe(
    'Override of the stock export header mapping, e.g. code=Kód,quantity=Množství (fields: code, plu, ean, name, quantity, measureUnit, unit = sales point)',
  ),
  POS_PRICE_LIST_KEY: z
    .enum(IDENTITY_KEYS)
    .default('auto')
    .describe('Which article field the price-list XML CODE matches: auto (best match) or a fixed key'),
  POS_STOCK_KEY: z
    .enum(IDENTITY_KEYS)
    .default('auto')
    .describe('Which article field the stock export code matches: auto (best match) or a fixed key'),
  POS_PAGE_SIZE: int(500, 1, 10_000, 'Page size asked of the POS list operations (the POS may cap it)'),
  POS_TIMEOUT_MS: int(30_000, 100, 600_000, 'Timeout of one POS request in milliseconds'),
  POS_MAX_RETRIES: int(3, 0, 10, 'Retries of a failed POS request (network errors, timeouts, 429, 5xx)'),
  POS_CONCURRENCY: int(4, 1, 32, 'Parallel POS requests (pages, per-unit exports)'),
  POS_MAX_ROWS_PER_ARTICLE: int(
    2,
    1,
    1_000,
    "Rows a unit's price list or stock export may hold per article of the article list (plus 1,000); more fails the sync (POS_RESPONSE_TOO_LARGE)",
  ),
  POS_MAX_DOCUMENT_MB: int(
    1_024,
    1,
    65_536,
    'Largest price list or stock export of one unit, in MiB; below it the limit follows the article count (4 KiB per allowed price-list row, 512 bytes per stock row; at least 16 and 8 MiB)',
  ),
  POS_MAX_PAGE_MB: int(16, 1, 4_096, 'Largest JSON answer of the POS (one page of a list), in MiB'),
  POS_MAX_PAGES: int(10_000, 1, 1_000_000, 'Hard limit of pages read from one list before the sync fails'),
  WEBHOOK_API_KEY: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The x-api-key the POS sends with webhooks (default: POS_API_KEY; in sandbox mode SANDBOX_API_KEY is accepted instead of POS_API_KEY)',
    ),
  WEBHOOK_API_KEY_PREVIOUS: z.string().min(1).optional().describe('A second accepted webhook key while rotating keys'),
  WEBHOOK_MOVEMENT_WINDOW_MS: int(
    10_000,
    0,
    86_400_000,
    "How far before and after a sale event's timestamp its receipt's stock movements are looked for, in milliseconds",
  ),
  HOST: z.string().min(1).default('0.0.0.0').describe('Address the HTTP server listens on'),
  PORT: int(3000, 0, 65_535, 'Port the HTTP server listens on (0: any free port)'),
  SHUTDOWN_GRACE_MS: int(
    25_000,
    0,
    600_000,
    'On SIGTERM/SIGINT, how long responses in flight (feed downloads included) may take to finish before connections are cut, in milliseconds',
  ),
  PUBLIC_BASE_URL: z
    .url()
    .optional()
    .describe('Public base URL of this service, used in printed and listed feed URLs (default: http://localhost:PORT)'),
  STORE_URL: z
    .string()
    .regex(/^(sqlite:\/\/.+|redis(s)?:\/\/.+|memory:\/\/)$/, 'must be sqlite://PATH, redis://HOST:PORT or memory://')
    .default('sqlite://data/catalog.sqlite')
    .describe('keyv store: sqlite://PATH (embedded), redis://... (shared by several instances), memory:// (tests)'),
  INSTANCE_ID: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,100}$/, 'may hold letters, digits and . _ : - (at most 100)')
    .optional()
    .describe(
      'Name of this instance in a group on Redis, shown as leader and used as its inbox consumer (default: host name, process id and a random suffix)',
    ),
  GROUP_LEASE_MS: int(
    10_000,
    1_000,
    600_000,
    'With STORE_URL=redis://: how long the leader lease lasts unless renewed (renewed every third of it); a dead leader is replaced within it, in milliseconds',
  ),
  WEBHOOK_CLAIM_IDLE_MS: int(
    30_000,
    1_000,
    3_600_000,
    'With STORE_URL=redis://: how long a webhook event may stay with an instance that does not complete it (it died) before another takes it over, in milliseconds',
  ),
  CATALOG_SYNC_CRON: cron('*/15 * * * *', 'Full sync: units, price lists, articles, stock'),
  STOCK_SYNC_CRON: cron('*/5 * * * *', 'Stock sync: stock exports merged onto the current catalog'),
  SYNC_TIMEZONE: z
    .string()
    .default('UTC')
    .refine(isTimeZone, 'is not an IANA time zone')
    .describe('Time zone of the cron expressions'),
  SYNC_MAX_SHRINK: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe('Largest share of items a sync may remove before it refuses to publish (0-1)'),
  SYNC_DEADLINE_MS: int(
    600_000,
    1_000,
    86_400_000,
    'Longest a full or stock sync may run, in milliseconds; past it the sync is aborted and reported failed, and the last good catalog stays served',
  ),
  UNKNOWN_STOCK_AVAILABILITY: z
    .enum(AVAILABILITIES)
    .default('out_of_stock')
    .describe('Availability of a stock item whose stock is unknown'),
  FEED_CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as CZK')
    .default('CZK')
    .describe('Currency of all prices'),
  FEED_PRODUCT_URL: linkTemplate(
    'Template of product links with placeholders {id}, {ean}, {plu}, {code}, {internalIdentifier} (default in sandbox mode: the sandbox pages)',
  ),
  FEED_IMAGE_URL: linkTemplate('Template of image links, same placeholders as FEED_PRODUCT_URL'),
  FEED_BRAND: z.string().optional().describe('Brand for channels that require one'),
  FEED_PRIMARY_UNIT: z
    .string()
    .optional()
    .describe('Unit code whose prices the aggregate "all" view shows (default: the first unit of the unit list)'),
  UNIT_STORE_CODES: KeyValueMap.describe('Map from POS unit code to channel store code, e.g. U1=praha-1,U2=brno'),
  ENRICHMENT_SOURCE: z
    .string()
    .superRefine((value, ctx) => {
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !/^https?:\/\/[^/\s]+/i.test(value)) {
        ctx.addIssue({ code: 'custom', message: 'must be a file path or an http(s) URL' });
      }
    })
    .optional()
    .describe(
      "The marketer's enrichment sheet (docs/enrichment.md): a file path or an http(s) URL (e.g. a published Google Sheets CSV); CSV in Excel's dialects or .xlsx",
    ),
  ENRICHMENT_SYNC_CRON: cron(
    '*/5 * * * *',
    'When the enrichment sheet is read again (conditionally: unchanged costs nothing); a changed sheet publishes with a full sync',
  ),
  ENRICHMENT_TIMEOUT_MS: int(30_000, 1_000, 600_000, 'Longest one read of the enrichment sheet may take, in milliseconds'),
  ENRICHMENT_MAX_MB: int(64, 1, 1_024, 'Largest enrichment sheet read, in MiB'),
  UNIT_STOCK_BUFFER: StockBufferMap.describe(
    "Pieces kept back from each unit's stock in every channel feed, e.g. U1=2,U2=0,*=1 (* = every unit not named); a feed's own buffer is added",
  ),
  FEED_TEMPLATES_DIR: z
    .string()
    .optional()
    .describe('Folder of the feed templates, one JSON file per feed (default: the templates/ folder shipped with the bridge)'),
  FEED_STOCK_POLICY: StockPolicyMap.describe(
    "Per-feed stock policy over the templates' stockPolicy, key by key, e.g. google:buffer=1;google-local-inventory:buffer=1,limitedBelow=5;heureka:outOfStock=omit (keys: buffer, outOfStockBelow, limitedBelow, outOfStock=list|omit)",
  ),
  FEED_CACHE_MB: int(
    512,
    16,
    65_536,
    'Memory for rendered feeds (their gzip and br forms); least recently used feeds are dropped beyond it, never the pre-rendered ones of the all view',
  ),
  FETCH_LOG_SIZE: int(
    5_000,
    10,
    100_000,
    'Feed requests kept in the fetch log (who fetched which feed, docs/console.md); per feed and consumer, a summary outlives them',
  ),
  FEED_TOKEN: optionalSecret('When set, every feed URL requires ?token=... or Authorization: Bearer ...'),
  // Longer than the others: it unlocks purchase prices and syncs, and a guesser gets ten tries per 15 minutes.
  ADMIN_TOKEN: optionalSecret(
    'Enables the admin area and endpoints (Authorization: Bearer ..., or the login form at /admin); at least 16 characters',
    16,
  ),
  ADMIN_SESSION_HOURS: int(8, 1, 168, 'How long a sign-in to the admin area (/admin) lasts, in hours'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info').describe('pino log level'),
  LOG_FORMAT: z
    .enum(LOG_FORMATS)
    .default('auto')
    .describe('Log lines: json (one JSON object a line), pretty (readable, for people), auto (pretty on a terminal, else json)'),
  // Pushing changes to the channels (docs/channel-push.md, docs/decisions/0013-channel-push.md section 8).
  PUSH_DRY_RUN: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((value) => value === 'true' || value === '1')
    .describe('Push: log what would be sent to the channels instead of sending it (true/false)'),
  PUSH_PAUSED: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const names = value
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '');
      const unknown = names.filter((name) => !PUSH_CHANNEL_NAMES.includes(name));
      if (unknown.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `unknown channels ${unknown.join(', ')} (known: ${PUSH_CHANNEL_NAMES.join(', ')})`,
        });
      }
      return [...new Set(names)];
    })
    .describe('Push: comma list of channels (google, shoptet, meta) whose changes are kept but not sent'),
  PUSH_RECONCILE_CRON: cronOrOff(
    '30 3 * * *',
    'Push: when every target of every enabled channel is sent again in full (the nightly reconciliation, in SYNC_TIMEZONE); off disables it',
  ),
  PUSH_GOOGLE_RECONCILE_SHARE: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe(
      "Push: the share of Google's daily quota left that one reconciliation run may use (0-1); the rest of the catalog follows in the next runs",
    ),
  PUSH_TIMEOUT_MS: int(30_000, 1_000, 600_000, 'Push: the most one request to a channel may take (ms)'),
  PUSH_MAX_BACKOFF_MS: int(300_000, 1_000, 3_600_000, 'Push: the longest wait before retrying a failed update (ms)'),
  GOOGLE_MERCHANT_ACCOUNT_ID: z
    .string()
    .regex(/^[0-9]{1,20}$/, 'must be digits only')
    .optional()
    .describe('Google push: the Merchant Center account id; enables pushing to the Merchant API'),
  GOOGLE_MERCHANT_DATA_SOURCE_ID: z
    .string()
    .regex(/^[0-9]{1,20}$/, 'must be digits only')
    .optional()
    .describe('Google push: the id of the API data source the products are sent to (primary or supplemental)'),
  GOOGLE_APPLICATION_CREDENTIALS: z
    .string()
    .optional()
    .describe("Google push: path of the service account's JSON key file (read at start, never logged)"),
  GOOGLE_OAUTH_TOKEN_URL: httpUrl('https://oauth2.googleapis.com/token', 'Google push: the OAuth token endpoint'),
  GOOGLE_MERCHANT_API_URL: httpUrl('https://merchantapi.googleapis.com', "Google push: the Merchant API's origin"),
  GOOGLE_CONTENT_LANGUAGE: z
    .string()
    .regex(/^[a-z]{2}$/, 'must be an ISO 639-1 code, e.g. cs')
    .default('cs')
    .describe("Google push: the products' content language (ISO 639-1)"),
  GOOGLE_FEED_LABEL: z
    .string()
    .regex(/^[A-Z0-9_-]{1,20}$/, 'must be 1-20 of A-Z, 0-9, _ and -')
    .default('CZ')
    .describe("Google push: the products' feed label"),
  GOOGLE_LOCAL_INVENTORY: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true' || value === '1'))
    .describe('Google push: send local inventory per unit with a store code (default: on when UNIT_STORE_CODES is set)'),
  GOOGLE_QUOTA_REFRESH_MS: int(600_000, 1_000, 3_600_000, "Google push: how often the account's quotas are read (ms)"),
  SHOPTET_API_TOKEN: z
    .string()
    .regex(/^\S+$/, 'must not contain whitespace')
    .optional()
    .describe("Shoptet push: the shop's API token; enables pushing stock to Shoptet"),
  SHOPTET_API_URL: httpUrl('https://api.myshoptet.com', "Shoptet push: the API's origin"),
  SHOPTET_STOCK_ID: int(1, 1, 2_147_483_647, 'Shoptet push: the id of the Shoptet stock whose amounts are set'),
  SHOPTET_STOCK_UNIT: z
    .string()
    .min(1)
    .default('all')
    .describe("Shoptet push: whose stock is sent: all (summed over units) or one unit's code"),
  SHOPTET_STOCK_FIELD: z
    .enum(['realStock', 'quantity'])
    .default('realStock')
    .describe('Shoptet push: the stock movement field set: realStock or quantity'),
  META_CATALOG_ID: z
    .string()
    .regex(/^[0-9]{1,30}$/, 'must be digits only')
    .optional()
    .describe('Meta push: the catalog id; with META_ACCESS_TOKEN enables pushing to Meta'),
  META_ACCESS_TOKEN: z
    .string()
    .regex(/^\S+$/, 'must not contain whitespace')
    .optional()
    .describe('Meta push: a system user access token with catalog_management'),
  META_GRAPH_API_URL: httpUrl('https://graph.facebook.com/v23.0', 'Meta push: the Graph API base URL, version included', {
    pattern: /\/v[0-9]+\.[0-9]+\/*$/,
    message: 'must end in the API version, e.g. /v23.0',
  }),
  META_BATCH_SIZE: int(3_000, 1, 5_000, 'Meta push: items per items_batch call'),
  SANDBOX_UNITS: int(3, 1, 50, 'Sandbox: number of units'),
  SANDBOX_ARTICLES: int(500, 1, 1_000_000, 'Sandbox: number of articles'),
  SANDBOX_SEED: int(42, 0, 2_147_483_647, 'Sandbox: seed of the generated demo data'),
  SANDBOX_SALES_PER_MINUTE: z.coerce
    .number()
    .min(0)
    .max(6_000)
    .default(6)
    .describe('Sandbox: simulated sales per minute (0 turns them off)'),
  SANDBOX_PORT: int(4010, 0, 65_535, 'Sandbox: port of `npm run sandbox` (in-process sandbox uses any free port)'),
  SANDBOX_API_KEY: z
    .string()
    .min(1)
    .default('sandbox-key')
    .describe(
      'Sandbox: the API key it requires and sends; in sandbox mode the bridge sends and accepts it in place of POS_API_KEY',
    ),
  SANDBOX_WEBHOOK_URL: z
    .url()
    .optional()
    .describe("Sandbox: receiver of its webhooks (default in-process: this bridge's /webhooks/pos)"),
});

export type ConfigEnv = z.infer<typeof ConfigSchema>;

/** Names of every variable of the table, in order (used by `.env.example` and the README checks). */
export const CONFIG_VARIABLES = Object.keys(ConfigSchema.shape) as (keyof ConfigEnv)[];
