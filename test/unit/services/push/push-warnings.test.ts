import { describe, expect, it } from 'vitest';
import {
  PUSH_RATE_LIMITED_AFTER_MS,
  PUSH_STALLED_AFTER_S,
  type PushWarningStatus,
  pushWarnings,
} from '../../../../src/services/push/push-warnings.js';

/** The push's status → the warnings page's warnings (docs/report-codes.md#push-warnings). */

const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const live: PushWarningStatus = { mode: 'live', pending: 0 };

const codes = (statuses: Record<string, PushWarningStatus>) => pushWarnings(statuses, NOW).map((w) => `${w.subject}:${w.code}`);

describe('pushWarnings', () => {
  it('says nothing for a healthy live channel, or when no channel is configured', () => {
    expect(pushWarnings(undefined, NOW)).toEqual([]);
    expect(pushWarnings({}, NOW)).toEqual([]);
    expect(codes({ meta: { ...live, pending: 3, oldestPendingAgeS: 2, lastSuccessAt: ago(1_000) } })).toEqual([]);
  });

  it('a refused credential, failing now, is an error quoting the channel and naming the setting', () => {
    const status: PushWarningStatus = {
      ...live,
      pending: 4,
      lastSuccessAt: ago(60_000),
      lastErrorAt: ago(1_000),
      lastError: 'HTTP 401 code 190: Invalid OAuth access token. <script>',
      lastErrorKind: 'auth',
    };
    const [warning] = pushWarnings({ meta: status }, NOW);
    expect(warning).toMatchObject({ code: 'PUSH_AUTH_FAILED', severity: 'error', subject: 'meta' });
    expect(warning?.message.en).toContain('Invalid OAuth access token.');
    expect(warning?.message.cs).toContain('Invalid OAuth access token.');
    expect(warning?.action.en).toContain('META_ACCESS_TOKEN');
    // Once the channel accepted a request again, it is history, not a warning.
    expect(codes({ meta: { ...status, lastSuccessAt: ago(0) } })).toEqual([]);
  });

  it('a rate limit is said only once it has lasted a while', () => {
    const limited = (sinceMs: number): PushWarningStatus => ({
      ...live,
      lastErrorAt: ago(1_000),
      lastError: 'HTTP 429 code 80014',
      lastErrorKind: 'rate-limit',
      failingSince: ago(sinceMs),
    });
    expect(codes({ meta: limited(60_000) })).toEqual([]);
    expect(codes({ meta: limited(PUSH_RATE_LIMITED_AFTER_MS + 1_000) })).toEqual(['meta:PUSH_RATE_LIMITED']);
  });

  it('a spent quota: from the last error, or from the quota figures', () => {
    expect(codes({ google: { ...live, lastErrorAt: ago(0), lastError: 'daily quota', lastErrorKind: 'quota' } })).toEqual([
      'google:PUSH_QUOTA_EXHAUSTED',
    ]);
    const full = pushWarnings({ google: { ...live, quota: { used: 1000, limit: 1000, resetAt: '2026-11-27T12:00:00Z' } } }, NOW);
    expect(full.map((w) => w.code)).toEqual(['PUSH_QUOTA_EXHAUSTED']);
    expect(full[0]?.message.en).toContain('1000/1000, reset 2026-11-27 12:00 UTC');
    expect(codes({ google: { ...live, quota: { used: 10, limit: 1000 } } })).toEqual([]);
  });

  it('refused items are reported with the message for a day', () => {
    const status: PushWarningStatus = {
      ...live,
      rejected: 3,
      lastRejectedAt: ago(60_000),
      lastRejected: 'unknown-product: Product with code "X" not found.',
    };
    const [warning] = pushWarnings({ shoptet: status }, NOW);
    expect(warning).toMatchObject({ code: 'PUSH_REJECTED', severity: 'warning', subject: 'shoptet' });
    expect(warning?.message.en).toContain('Product with code "X" not found.');
    expect(warning?.message.en).toContain('so far: 3');
    expect(codes({ shoptet: { ...status, lastRejectedAt: ago(25 * 60 * 60 * 1000) } })).toEqual([]);
  });

  it('a live channel whose oldest update waits too long is stalled; paused and dry run are information', () => {
    const old = PUSH_STALLED_AFTER_S + 60;
    expect(codes({ meta: { ...live, pending: 9, oldestPendingAgeS: old } })).toEqual(['meta:PUSH_STALLED']);
    expect(codes({ meta: { mode: 'paused', pending: 9, oldestPendingAgeS: old } })).toEqual(['meta:PUSH_PAUSED']);
    expect(codes({ shoptet: { mode: 'dry-run', pending: 0 } })).toEqual(['shoptet:PUSH_DRY_RUN']);
    const [paused] = pushWarnings({ meta: { mode: 'paused', pending: 9 } }, NOW);
    expect(paused?.severity).toBe('info');
    expect(paused?.message.cs).toContain('pozastavený');
  });
});
