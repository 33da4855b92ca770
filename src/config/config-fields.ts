import { isIP } from 'node:net';
import { validate as validateCron } from 'node-cron';
import { z } from 'zod';
import { parseStockPolicies } from '../core/feeds/stock-policy.js';

// The kinds of value a setting of the table (config-schema.ts) takes, each with its checks and messages.

/** The form node-cron accepts, said to whoever typed something else. */
export const CRON_FORM =
  'five fields "minute hour day-of-month month day-of-week" (an optional seconds field may come first), ' +
  'e.g. "*/15 * * * *" (every 15 minutes) or "30 2 * * *" (daily at 02:30)';

export function cron(defaultValue: string, description: string) {
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
export function cronOrOff(defaultValue: string, description: string) {
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

export function int(defaultValue: number, min: number, max: number, description: string) {
  return z.coerce.number().int().min(min).max(max).default(defaultValue).describe(description);
}

export function optionalSecret(description: string, minLength = 8) {
  return z.string().min(minLength, `must be at least ${minLength} characters`).optional().describe(description);
}

/** An absolute http(s) URL, kept without a trailing slash. */
export function httpUrl(defaultValue: string, description: string, ending?: { pattern: RegExp; message: string }) {
  const url = z.url({ protocol: /^https?$/ });
  return (ending === undefined ? url : url.regex(ending.pattern, ending.message))
    .default(defaultValue)
    .transform((value) => value.replace(/\/+$/, ''))
    .describe(description);
}

const LINK_PLACEHOLDERS = ['id', 'ean', 'plu', 'code', 'internalIdentifier'];

/** An absolute http(s) URL template whose `{placeholders}` are all known ones. */
export function linkTemplate(description: string) {
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

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** `A=x,B=y` → `{ A: 'x', B: 'y' }`; entries are trimmed, empty keys or values are an error. */
export const KeyValueMap = z
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
export const StockBufferMap = KeyValueMap.transform((map, ctx) => {
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
export const StockPolicyMap = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined) return {};
    const { policies, problems } = parseStockPolicies(value);
    for (const message of problems) ctx.addIssue({ code: 'custom', message });
    return policies;
  });

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** One entry of `TRUST_PROXY`: an address, a subnet (`10.0.0.0/8`, `fd00::/8`), or one of express's names. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  const prefix = /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
  return prefix >= 0 && prefix <= (family === 4 ? 32 : 128);
}

/** express's `trust proxy` as a setting: a number of hops, or addresses, subnets and names separated by commas. */
export function isTrustProxy(value: string): boolean {
  if (/^\d{1,2}$/.test(value.trim())) return true;
  const entries = value.split(',').map((entry) => entry.trim());
  return entries.length > 0 && entries.every(isProxyEntry);
}
