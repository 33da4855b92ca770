import { z } from 'zod';
import { PUSH_CHANNELS } from '../core/push/push-channel.js';
import { cronOrOff, httpUrl, int } from './config-fields.js';

/** The channels PUSH_PAUSED may name. */
const PUSH_CHANNEL_NAMES: readonly string[] = PUSH_CHANNELS;

/** The push's settings (docs/channel-push.md, docs/decisions/0013-channel-push.md section 8), part of the table in config-schema.ts. */
export const PUSH_SETTINGS = {
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
  GOOGLE_MERCHANT_FILE_DATA_SOURCE_ID: z
    .string()
    .regex(/^[0-9]{1,20}$/, 'must be digits only')
    .optional()
    .describe(
      "Google push: the id of the file data source that fetches google.xml, whose last fetch is read back with Google's verdicts",
    ),
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
  GOOGLE_STATUS_INTERVAL_MS: int(
    1_800_000,
    1_000,
    86_400_000,
    "Google push: how often Google's verdict on every product (approved, pending, disapproved, its issues) is read back, in milliseconds; each read takes one call per 1,000 products",
  ),
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
  META_DIAGNOSTICS_INTERVAL_MS: int(
    86_400_000,
    1_000,
    604_800_000,
    "Meta push: how often the catalog's diagnostics (issues Meta finds across the catalog) are read, in milliseconds; each read takes a call or two",
  ),
};
