import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';
import { createTestConfig } from '../../helpers/test-config.js';

/** The channel push settings (docs/channel-push.md, docs/decisions/0013-channel-push.md section 8). */

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('config/push', () => {
  it('enables no channel when nothing is configured', () => {
    const { push } = createTestConfig();
    expect(push).toMatchObject({ dryRun: false, paused: [], shoptet: undefined, meta: undefined });
  });

  it('enables Shoptet by its token, with the defaults of the other settings', () => {
    const { push } = createTestConfig({ SHOPTET_API_TOKEN: 'tok-123' });
    expect(push.shoptet).toEqual({
      token: 'tok-123',
      baseUrl: 'https://api.myshoptet.com',
      stockId: 1,
      unit: 'all',
      field: 'realStock',
    });
    expect(push.meta).toBeUndefined();
  });

  it('enables Meta with both its catalog id and its token', () => {
    const { push } = createTestConfig({
      META_CATALOG_ID: '42',
      META_ACCESS_TOKEN: 'abc',
      META_GRAPH_API_URL: 'http://127.0.0.1:9/v21.0/',
    });
    expect(push.meta).toEqual({
      catalogId: '42',
      token: 'abc',
      graphUrl: 'http://127.0.0.1:9/v21.0',
      batchSize: 3000,
      diagnosticsIntervalMs: 86_400_000,
    });
  });

  it('stops a partly configured channel with one line per missing setting', () => {
    expect(problemsOf({ META_CATALOG_ID: '42', SHOPTET_STOCK_ID: '2' })).toEqual([
      "SHOPTET_API_TOKEN: is required when SHOPTET_STOCK_ID is set (the shop's API token; without it nothing is pushed to Shoptet)",
      'META_ACCESS_TOKEN: is required when META_CATALOG_ID is set (a system user token with catalog_management)',
    ]);
    expect(problemsOf({ META_ACCESS_TOKEN: 'abc' })).toEqual([
      'META_CATALOG_ID: is required when META_ACCESS_TOKEN is set (the id of the Meta catalog to update)',
    ]);
  });

  it.each([
    ['PUSH_DRY_RUN', 'yes'],
    ['PUSH_PAUSED', 'meta,tiktok'],
    ['SHOPTET_STOCK_FIELD', 'stock'],
    ['SHOPTET_API_URL', 'ftp://x'],
    ['META_GRAPH_API_URL', 'https://graph.facebook.com'],
    ['META_CATALOG_ID', '12ab'],
    ['META_BATCH_SIZE', '5001'],
  ])('refuses %s=%s naming the setting', (name, value) => {
    const problems = problemsOf({ SHOPTET_API_TOKEN: 't', META_CATALOG_ID: '1', META_ACCESS_TOKEN: 'a', [name]: value });
    expect(problems.some((line) => line.startsWith(`${name}:`))).toBe(true);
  });

  it('reads dry run and paused channels, and flags a misspelt push setting', () => {
    const { push } = createTestConfig({ PUSH_DRY_RUN: '1', PUSH_PAUSED: ' meta , shoptet,meta' });
    expect(push.dryRun).toBe(true);
    expect(push.paused).toEqual(['meta', 'shoptet']);
    expect(problemsOf({ PUSH_DRYRUN: 'true' })).toEqual(['PUSH_DRYRUN: is not a known setting (did you mean PUSH_DRY_RUN?)']);
  });
});

describe('config/push reconciliation', () => {
  it('runs the nightly reconciliation at 03:30 by default, and not at all with off', () => {
    expect(createTestConfig().push.reconcileCron).toBe('30 3 * * *');
    expect(createTestConfig({ PUSH_RECONCILE_CRON: 'off' }).push.reconcileCron).toBeUndefined();
    expect(createTestConfig({ PUSH_RECONCILE_CRON: '0 2 * * 1' }).push.reconcileCron).toBe('0 2 * * 1');
  });

  it('refuses a PUSH_RECONCILE_CRON that is no cron expression, naming the setting', () => {
    const problems = problemsOf({ PUSH_RECONCILE_CRON: 'nightly' });
    expect(problems.some((problem) => problem.startsWith('PUSH_RECONCILE_CRON:') && problem.includes('off'))).toBe(true);
  });
});
