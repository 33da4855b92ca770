import { z } from 'zod';
import { nextMiddayUtc, type PacerLimits } from './pacer.js';

/**
 * The Merchant API's quotas as the push reads them (docs/decisions/0013-channel-push.md, "Google Merchant API
 * v1", Quotas): `GET quota/v1/accounts/{a}/quotas` answers `quotaGroups[]` (`Schema$QuotaGroup` of
 * `@googleapis/merchantapi` quota_v1), each with the day's `quotaUsage`, `quotaLimit`, `quotaMinuteLimit`
 * (int64 as text) and the methods sharing it. Pure: parsing and the pacing/exhaustion decision.
 */

/** The method paths the push calls (`Schema$MethodDetails.path`). */
export const GOOGLE_PUSH_METHODS: readonly string[] = [
  'products/v1/productInputs.insert',
  'products/v1/productInputs.patch',
  'products/v1/productInputs.delete',
  'inventories/v1/localInventories.insert',
  'inventories/v1/localInventories.delete',
];

/** The share of a per-minute limit the push uses (the rest is left to other tools of the account). */
export const GOOGLE_MINUTE_SHARE = 0.8;
/** Calls in flight at once (decision 0013, "Batching": concurrency 10). */
export const GOOGLE_MAX_CONCURRENT = 10;

const Int64 = z.union([z.string().regex(/^\d{1,18}$/), z.number().int().nonnegative()]).transform(Number);

const QuotaGroupSchema = z.object({
  name: z.string().optional(),
  quotaUsage: Int64.optional(),
  quotaLimit: Int64.optional(),
  quotaMinuteLimit: Int64.optional(),
  methodDetails: z.array(z.object({ path: z.string().nullish(), method: z.string().nullish() })).optional(),
});

export const QuotaPageSchema = z.object({
  quotaGroups: z.array(QuotaGroupSchema).optional(),
  nextPageToken: z.string().optional(),
});

export interface GoogleQuotaGroup {
  readonly name: string;
  readonly usage: number;
  /** Calls per day; `undefined` when Google gave none. */
  readonly dailyLimit?: number;
  readonly minuteLimit?: number;
  readonly methods: readonly string[];
}

/** One page of the quotas answer, or a message naming what is wrong with it. */
export function parseQuotaPage(value: unknown): { groups: GoogleQuotaGroup[]; nextPageToken?: string } | string {
  const parsed = QuotaPageSchema.safeParse(value);
  if (!parsed.success) return `quotas answer not understood: ${parsed.error.issues[0]?.message ?? 'invalid'}`;
  const groups = (parsed.data.quotaGroups ?? []).map((group) => ({
    name: group.name ?? '(unnamed)',
    usage: group.quotaUsage ?? 0,
    ...(group.quotaLimit === undefined ? {} : { dailyLimit: group.quotaLimit }),
    ...(group.quotaMinuteLimit === undefined ? {} : { minuteLimit: group.quotaMinuteLimit }),
    methods: (group.methodDetails ?? []).flatMap((method) => (method.path ? [method.path] : [])),
  }));
  return parsed.data.nextPageToken ? { groups, nextPageToken: parsed.data.nextPageToken } : { groups };
}

/** What a quota read means for the push. */
export interface GoogleQuotaPlan {
  /** Per-call pacing: 80 % of the smallest per-minute limit among the push's groups (one rate for every call). */
  readonly callLimits: PacerLimits;
  /** The day's use of the push's most used group (`/readyz` `quota`); absent when Google reported no daily limit. */
  readonly quota?: { readonly used: number; readonly limit: number; readonly resetAt: string };
  /** Set when a group the push needs is spent for the day: nothing is sent before this time. */
  readonly closedUntil?: number;
}

/** Pacing when Google reports no per-minute limit for the push's methods (before the first read, too). */
export const GOOGLE_DEFAULT_CALLS_PER_MINUTE = 60;

/** Limits for a rate in calls per minute: one second's worth of burst, at most 10 in flight. */
export function callLimitsOf(perMinute: number): PacerLimits {
  const refillPerSecond = Math.max(perMinute, 1) / 60;
  return { capacity: Math.max(1, Math.floor(refillPerSecond)), refillPerSecond, maxConcurrent: GOOGLE_MAX_CONCURRENT };
}

/**
 * The pacing and the daily state from the quota groups. Groups that list none of the push's methods are
 * ignored; when no group names them (a listing without method details) every group counts. One rate for all
 * calls: the busiest method's budget, so a round of mixed calls never outruns any of them.
 */
export function planQuota(groups: readonly GoogleQuotaGroup[], now: number): GoogleQuotaPlan {
  const named = groups.filter((group) => group.methods.some((method) => GOOGLE_PUSH_METHODS.includes(method)));
  const relevant = named.length > 0 ? named : groups;
  const minutes = relevant.flatMap((group) =>
    group.minuteLimit !== undefined && group.minuteLimit > 0 ? [group.minuteLimit] : [],
  );
  const perMinute = minutes.length === 0 ? GOOGLE_DEFAULT_CALLS_PER_MINUTE : Math.min(...minutes) * GOOGLE_MINUTE_SHARE;
  const resetAt = nextMiddayUtc(now);
  let busiest: { used: number; limit: number } | undefined;
  let exhausted = false;
  for (const group of relevant) {
    if (group.dailyLimit === undefined || group.dailyLimit <= 0) continue;
    if (group.usage >= group.dailyLimit) exhausted = true;
    if (busiest === undefined || group.usage / group.dailyLimit > busiest.used / busiest.limit) {
      busiest = { used: group.usage, limit: group.dailyLimit };
    }
  }
  return {
    callLimits: callLimitsOf(perMinute),
    ...(busiest === undefined ? {} : { quota: { ...busiest, resetAt: new Date(resetAt).toISOString() } }),
    ...(exhausted ? { closedUntil: resetAt } : {}),
  };
}

/** Whether a channel message is Google's daily-limit answer (`quota/daily_limit_exceeded`, "daily limit"). */
export function isDailyQuotaMessage(message: string | undefined): boolean {
  return message !== undefined && /(RESOURCE_EXHAUSTED|HTTP 429)/.test(message) && DAILY_WORDING.test(message);
}

/** How Google's quota errors name a daily limit (`quota/daily_limit_exceeded`, "… per day"). */
export const DAILY_WORDING = /daily|per[ _-]day/i;

/** Targets a reconciliation run may enqueue for Google while no daily quota is known yet (none read, or none given). */
export const GOOGLE_RECONCILE_UNKNOWN_BUDGET = 1_000;

/**
 * The Google targets one reconciliation run may enqueue (decision 0013, section 5): `share` of the day's quota
 * left by the last read, so live changes keep the rest until the 12:00 UTC reset; about one call per target.
 */
export function reconcileBudget(quota: { readonly used: number; readonly limit: number } | undefined, share: number): number {
  if (quota === undefined) return GOOGLE_RECONCILE_UNKNOWN_BUDGET;
  return Math.max(0, Math.floor(share * Math.max(0, quota.limit - quota.used)));
}
