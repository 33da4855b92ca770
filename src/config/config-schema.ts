import { z } from 'zod';
import {
  CRON_FORM,
  cron,
  int,
  isTimeZone,
  isTrustProxy,
  KeyValueMap,
  linkTemplate,
  optionalSecret,
  StockBufferMap,
  StockPolicyMap,
} from './config-fields.js';
import { PUSH_SETTINGS } from './push-settings.js';

export { CRON_FORM };

/**
 * The single table of settings (README, Configuration). Every environment variable the bridge reads is a key here,
 * with its default and a description; `.env.example` is checked against this table by a test.
 * Empty strings count as unset (an `.env` line `FEED_TOKEN=` means "no token").
 */

const AVAILABILITIES = ['in_stock', 'out_of_stock'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
const IDENTITY_KEYS = ['auto', 'localId', 'internalIdentifier', 'plu', 'ean'] as const;
/** The two names of the price-list export (docs/pos-interface.md, 4.5). */
export const PRICE_LIST_EXPORTS = ['eshop-update', 'shoptet-update'] as const;
/** The stock export parser's fields (kept equal to its STOCK_COLUMNS by a test). */
export const STOCK_COLUMN_FIELDS: readonly string[] = ['code', 'plu', 'ean', 'name', 'quantity', 'measureUnit', 'unit'];

export const ConfigSchema = z.object({
  POS_BASE_URL: z.url().optional().describe('Base URL of the POS interface; unset starts the built-in sandbox POS'),
  // Also the webhook key unless WEBHOOK_API_KEY is set: then at least 8 characters (load-config.ts).
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
  POS_PRICE_LIST_EXPORT: z
    .enum(PRICE_LIST_EXPORTS)
    .default('eshop-update')
    .describe(
      "The last segment of the price-list export path (interface 4.5): eshop-update as the interface names it, or shoptet-update as the vendor's public pages do (KASAmax)",
    ),
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
  POS_TIMEOUT_MS: int(
    30_000,
    100,
    600_000,
    'Timeout of one POS request in milliseconds (documents: until their headers, then for each stall in the body)',
  ),
  POS_MAX_RETRIES: int(3, 0, 10, 'Retries of a failed POS request (network errors, timeouts, 429, 5xx)'),
  POS_CONCURRENCY: int(4, 1, 32, 'Parallel POS requests (pages, per-unit documents; the sync thread parses at most 2 at once)'),
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
    .min(8, 'must be at least 8 characters')
    .optional()
    .describe(
      'The x-api-key the POS sends with webhooks (default: POS_API_KEY; in sandbox mode SANDBOX_API_KEY is accepted instead of POS_API_KEY)',
    ),
  WEBHOOK_API_KEY_PREVIOUS: z
    .string()
    .min(8, 'must be at least 8 characters')
    .optional()
    .describe('A second accepted webhook key while rotating keys'),
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
  TRUST_PROXY: z
    .string()
    .refine(isTrustProxy, {
      message:
        'must be a number of proxies (1) or a comma-separated list of addresses, subnets (10.0.0.0/8) and the names loopback, linklocal, uniquelocal',
    })
    .optional()
    .describe(
      "Which proxies in front may name the client (X-Forwarded-For) and the scheme (X-Forwarded-Proto): express's trust proxy, e.g. loopback; unset trusts none (docs/security.md)",
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
  SYNC_DOCUMENT_THREADS: z
    .enum(['auto', '1', '2'])
    .default('auto')
    .transform((value) => (value === 'auto' ? value : value === '2' ? 2 : 1))
    .describe(
      "Threads a full sync reads the units' price lists and stock exports with: 1, 2 (a second thread beside the sync's: faster on two cores, more memory at the peak), or auto (two for a catalog of 250,000 articles or more, else one)",
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
    4_096,
    16,
    1_048_576,
    'Disk space for rendered feed files (each feed as it is, gzip and br); least recently used feeds are deleted beyond it, never the pre-rendered ones of the all view',
  ),
  FEED_FILES_DIR: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Folder of the rendered feed files, served after a restart at once (default: beside a SQLite store, e.g. data/catalog.feeds; a temporary folder with a Redis or memory store); one per bridge',
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
  METRICS_TOKEN: optionalSecret(
    'A token for /metrics and the full /readyz only (Authorization: Bearer ...), for a monitoring system; at least 16 characters',
    16,
  ),
  ADMIN_SESSION_HOURS: int(8, 1, 168, 'How long a sign-in to the admin area (/admin) lasts, in hours'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info').describe('pino log level'),
  LOG_FORMAT: z
    .enum(LOG_FORMATS)
    .default('auto')
    .describe('Log lines: json (one JSON object a line), pretty (readable, for people), auto (pretty on a terminal, else json)'),
  // Pushing changes to the channels (docs/channel-push.md, docs/decisions/0013-channel-push.md section 8).
  ...PUSH_SETTINGS,
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
