import { describe, expect, it } from 'vitest';
import type { FetchWarning } from '../../../../src/core/fetches/fetch-warnings.js';
import { fetchLogWarnings } from '../../../../src/services/fetches/fetch-log-warnings.js';

const stale: FetchWarning = {
  kind: 'stale',
  severity: 'warning',
  feed: 'google.xml',
  view: 'all',
  url: '/feeds/all/google.xml',
  consumer: 'google',
  lastAt: '2026-11-26T01:00:00.000Z',
  usualIntervalSeconds: 3_600,
  silentSeconds: 5 * 3_600,
  message: { en: 'Google has not fetched /feeds/all/google.xml for 5 h', cs: 'Google nestáhl /feeds/all/google.xml 5 h' },
};
const never = (url: string): FetchWarning => ({
  kind: 'never',
  severity: 'note',
  feed: url.split('/').pop() ?? url,
  view: 'all',
  url,
  consumer: 'heureka',
  message: { en: `never ${url}`, cs: `nikdy ${url}` },
});

describe('the fetch log on the warnings page', () => {
  it('makes a channel gone quiet a warning of its own, with what to do in both languages', () => {
    const [warning] = fetchLogWarnings({ staleFetchers: () => [stale], neverFetched: () => [] });
    expect(warning).toMatchObject({ code: 'feed-not-fetched', severity: 'warning', subject: 'google /feeds/all/google.xml' });
    expect(warning?.message.en).toContain('5 h');
    expect(warning?.action.cs).toMatch(/Otevřete/);
  });

  it('folds the feeds never fetched into one note, and says nothing when there are none', () => {
    const warnings = fetchLogWarnings({
      staleFetchers: () => [],
      neverFetched: () => [never('/feeds/all/heureka.xml'), never('/feeds/all/zbozi.xml')],
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: 'feed-never-fetched', severity: 'info' });
    expect(warnings[0]?.message.en).toContain('/feeds/all/heureka.xml, /feeds/all/zbozi.xml');
    expect(fetchLogWarnings({ staleFetchers: () => [], neverFetched: () => [] })).toEqual([]);
  });
});
