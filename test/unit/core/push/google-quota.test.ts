import { describe, expect, it } from 'vitest';
import { classifyDataSource, dataSourceHttpProblem } from '../../../../src/core/push/google-data-source.js';
import {
  callLimitsOf,
  GOOGLE_DEFAULT_CALLS_PER_MINUTE,
  GOOGLE_RECONCILE_UNKNOWN_BUDGET,
  isDailyQuotaMessage,
  parseQuotaPage,
  planQuota,
  reconcileBudget,
} from '../../../../src/core/push/google-quota.js';
import { nextMiddayUtc } from '../../../../src/core/push/pacer.js';

const NOW = Date.parse('2026-11-26T13:00:00Z');

function group(usage: number, dailyLimit: number, minuteLimit: number, methods: string[]) {
  return { name: 'g', usage, dailyLimit, minuteLimit, methods };
}

describe('Google quotas (quota_v1 quotaGroups)', () => {
  it('parses int64 texts and the method paths; refuses what is not a quota answer', () => {
    const page = parseQuotaPage({
      quotaGroups: [
        {
          name: 'accounts/1/quotas/products',
          quotaUsage: '120',
          quotaLimit: '10000',
          quotaMinuteLimit: '600',
          methodDetails: [{ path: 'products/v1/productInputs.insert', method: 'productInputs.insert' }],
        },
      ],
      nextPageToken: 'p2',
    });
    expect(page).toEqual({
      groups: [
        {
          name: 'accounts/1/quotas/products',
          usage: 120,
          dailyLimit: 10000,
          minuteLimit: 600,
          methods: ['products/v1/productInputs.insert'],
        },
      ],
      nextPageToken: 'p2',
    });
    expect(parseQuotaPage({ quotaGroups: [{ quotaUsage: 'many' }] })).toMatch(/quotas answer not understood/);
    expect(parseQuotaPage({})).toEqual({ groups: [] });
  });

  it('paces at 80 % of the smallest per-minute limit among the push methods; other groups are ignored', () => {
    const plan = planQuota(
      [
        group(10, 1000, 600, ['products/v1/productInputs.insert']),
        group(5, 1000, 100, ['inventories/v1/localInventories.insert']),
        group(0, 10, 1, ['reports/v1/reports.search']),
      ],
      NOW,
    );
    expect(plan.callLimits.refillPerSecond).toBeCloseTo(80 / 60);
    expect(plan.closedUntil).toBeUndefined();
    expect(plan.quota).toEqual({ used: 10, limit: 1000, resetAt: '2026-11-27T12:00:00.000Z' });
  });

  it('closes until the next 12:00 UTC when a push group has spent its day', () => {
    const plan = planQuota([group(1000, 1000, 600, ['products/v1/productInputs.patch'])], NOW);
    expect(plan.closedUntil).toBe(Date.parse('2026-11-27T12:00:00Z'));
    expect(plan.quota).toMatchObject({ used: 1000, limit: 1000 });
    const morning = Date.parse('2026-11-26T08:00:00Z');
    expect(planQuota([group(5, 5, 60, ['products/v1/productInputs.insert'])], morning).closedUntil).toBe(
      Date.parse('2026-11-26T12:00:00Z'),
    );
  });

  it('next reset: today at noon before noon, tomorrow at or after it', () => {
    expect(nextMiddayUtc(Date.parse('2026-11-26T11:59:59Z'))).toBe(Date.parse('2026-11-26T12:00:00Z'));
    expect(nextMiddayUtc(Date.parse('2026-11-26T12:00:00Z'))).toBe(Date.parse('2026-11-27T12:00:00Z'));
    expect(nextMiddayUtc(Date.parse('2026-12-31T23:00:00Z'))).toBe(Date.parse('2027-01-01T12:00:00Z'));
  });

  it('without limits paces at the default rate; limits always grant at least one call', () => {
    expect(planQuota([], NOW).callLimits).toEqual(callLimitsOf(GOOGLE_DEFAULT_CALLS_PER_MINUTE));
    expect(callLimitsOf(0.5).capacity).toBe(1);
    expect(callLimitsOf(6000)).toEqual({ capacity: 100, refillPerSecond: 100, maxConcurrent: 10 });
  });

  it('tells a daily-limit 429 from a per-minute one', () => {
    expect(isDailyQuotaMessage('HTTP 429 RESOURCE_EXHAUSTED: quota/daily_limit_exceeded (daily limit)')).toBe(true);
    expect(isDailyQuotaMessage('HTTP 429 RESOURCE_EXHAUSTED: quota/request_rate_too_high')).toBe(false);
    expect(isDailyQuotaMessage(undefined)).toBe(false);
  });
});

describe('Google data source kind (datasources_v1)', () => {
  const name = 'accounts/1/dataSources/2';
  it('primary and supplemental API sources; others name the data source', () => {
    expect(classifyDataSource(name, { input: 'API', primaryProductDataSource: {} })).toBe('primary');
    expect(classifyDataSource(name, { input: 'API', supplementalProductDataSource: {} })).toBe('supplemental');
    expect(classifyDataSource(name, { input: 'FILE', primaryProductDataSource: {} })).toEqual({
      problem: expect.stringContaining('accounts/1/dataSources/2 is not an API data source') as unknown,
    });
    expect(classifyDataSource(name, { input: 'API', localInventoryDataSource: {} })).toHaveProperty('problem');
  });
  it('404 and 403 are final; 5xx, 429 and 401 are tried again', () => {
    expect(dataSourceHttpProblem(name, 404)).toMatchObject({
      retry: false,
      problem: expect.stringContaining('not found') as unknown,
    });
    expect(dataSourceHttpProblem(name, 403).retry).toBe(false);
    expect(dataSourceHttpProblem(name, 503).retry).toBe(true);
    expect(dataSourceHttpProblem(name, 401).retry).toBe(true);
  });
});

describe('Google reconciliation budget (PUSH_GOOGLE_RECONCILE_SHARE)', () => {
  it('is the share of the quota left, rounded down; 1,000 targets while no quota is known', () => {
    expect(reconcileBudget({ used: 99_960, limit: 100_000 }, 0.5)).toBe(20);
    expect(reconcileBudget({ used: 0, limit: 100_000 }, 0.5)).toBe(50_000);
    expect(reconcileBudget({ used: 0, limit: 7 }, 0.5)).toBe(3);
    expect(reconcileBudget({ used: 100_000, limit: 100_000 }, 1)).toBe(0);
    expect(reconcileBudget({ used: 120, limit: 100 }, 0.5)).toBe(0);
    expect(reconcileBudget(undefined, 0.5)).toBe(GOOGLE_RECONCILE_UNKNOWN_BUDGET);
    expect(GOOGLE_RECONCILE_UNKNOWN_BUDGET).toBe(1_000);
  });
});
