import { describe, expect, it } from 'vitest';
import type { Consumer } from '../../../../src/core/fetches/classify-consumer.js';
import {
  addToSummary,
  type FetchEntry,
  type FetchSummary,
  KEPT_TIMES,
  mergeSummaries,
  summarize,
  usualIntervalSeconds,
} from '../../../../src/core/fetches/fetch-summary.js';
import { neverFetchedNotes, staleFetchWarnings } from '../../../../src/core/fetches/fetch-warnings.js';
import { roughDuration } from '../../../../src/core/text/local-text.js';

const HOUR = 3_600_000;
const START = Date.parse('2026-11-20T00:00:00Z');

function entry(at: number, consumer: Consumer = 'google', overrides: Partial<FetchEntry> = {}): FetchEntry {
  return {
    at,
    feed: 'google.xml',
    view: 'all',
    consumer,
    userAgent: 'x',
    status: 200,
    encoding: 'gzip',
    bytes: 1000,
    ...overrides,
  };
}

/** `count` fetches `everyMs` apart from START. */
function fetchedEvery(everyMs: number, count: number, consumer: Consumer = 'google'): FetchSummary {
  let summary: FetchSummary | undefined;
  for (let i = 0; i < count; i++) summary = addToSummary(summary, entry(START + i * everyMs, consumer));
  return summary as FetchSummary;
}

describe('fetch summaries', () => {
  it('keeps the last fetch, the count and the latest fetch times', () => {
    const summary = fetchedEvery(HOUR, 20);
    expect(summary.count).toBe(20);
    expect(summary.lastAt).toBe(START + 19 * HOUR);
    expect(summary.times).toHaveLength(KEPT_TIMES);
    expect(summary.times.at(-1)).toBe(START + 19 * HOUR);
  });

  it('takes the later fetch as the last when entries come out of order', () => {
    const later = addToSummary(undefined, entry(START + HOUR, 'google', { status: 304, bytes: 0 }));
    const merged = addToSummary(later, entry(START, 'google', { status: 200 }));
    expect(merged).toMatchObject({ lastAt: START + HOUR, lastStatus: 304, lastBytes: 0, count: 2 });
    expect(merged.times).toEqual([START, START + HOUR]);
  });

  it('merges two instances’ summaries of the same key', () => {
    const a = fetchedEvery(2 * HOUR, 3);
    const b = addToSummary(undefined, entry(START + HOUR));
    const merged = mergeSummaries(a, b);
    expect(merged.count).toBe(4);
    expect(merged.times).toEqual([START, START + HOUR, START + 2 * HOUR, START + 4 * HOUR]);
  });

  it('summarizes a batch by feed, view and consumer', () => {
    const summaries = summarize([entry(START), entry(START + 1, 'browser'), entry(START + 2)]);
    expect([...summaries.keys()].sort()).toEqual(['google.xml|all|browser', 'google.xml|all|google']);
  });
});

describe('usual interval', () => {
  it('is the median interval, from the third fetch on', () => {
    expect(usualIntervalSeconds(fetchedEvery(HOUR, 2))).toBeUndefined();
    expect(usualIntervalSeconds(fetchedEvery(HOUR, 3))).toBe(3600);
  });

  it('is not moved by a retry or a missed poll', () => {
    let summary = fetchedEvery(HOUR, 6);
    summary = addToSummary(summary, entry(START + 5 * HOUR + 10_000));
    summary = addToSummary(summary, entry(START + 8 * HOUR));
    expect(usualIntervalSeconds(summary)).toBe(3600);
  });
});

describe('stale fetchers', () => {
  const hourly = fetchedEvery(HOUR, 10);
  const last = START + 9 * HOUR;

  it('warns once a channel is more than twice its usual interval late, in English and Czech', () => {
    expect(staleFetchWarnings([hourly], new Date(last + 2 * HOUR))).toEqual([]);
    const [warning] = staleFetchWarnings([hourly], new Date(last + 5 * HOUR));
    expect(warning).toMatchObject({ kind: 'stale', severity: 'warning', consumer: 'google', url: '/feeds/all/google.xml' });
    expect(warning?.usualIntervalSeconds).toBe(3600);
    expect(warning?.message.en).toBe('Google has not fetched /feeds/all/google.xml for 5 h; it usually fetches it every 1 h.');
    expect(warning?.message.cs).toBe('Robot Google nestahuje /feeds/all/google.xml už 5 h; obvykle ho stahuje jednou za 1 h.');
  });

  it('does not warn about people, scripts, bursts or channels seen twice only', () => {
    const now = new Date(last + 48 * HOUR);
    expect(staleFetchWarnings([fetchedEvery(HOUR, 10, 'browser'), fetchedEvery(HOUR, 10, 'other')], now)).toEqual([]);
    expect(staleFetchWarnings([fetchedEvery(1_000, 10)], now)).toEqual([]);
    expect(staleFetchWarnings([fetchedEvery(HOUR, 2)], now)).toEqual([]);
  });

  it('waits at least 15 minutes however often a channel fetches', () => {
    const everyTwoMinutes = fetchedEvery(120_000, 10);
    const lastFetch = START + 9 * 120_000;
    expect(staleFetchWarnings([everyTwoMinutes], new Date(lastFetch + 10 * 60_000))).toEqual([]);
    expect(staleFetchWarnings([everyTwoMinutes], new Date(lastFetch + 16 * 60_000))).toHaveLength(1);
  });
});

describe('never fetched', () => {
  const since = new Date(START);

  it('notes channel feeds their channel has not fetched, whoever else did', () => {
    const byBrowser = fetchedEvery(HOUR, 3, 'browser');
    const notes = neverFetchedNotes(['google.xml', 'heureka.xml', 'woocommerce.csv'], [byBrowser], since);
    expect(notes.map((note) => [note.feed, note.consumer, note.severity])).toEqual([
      ['google.xml', 'google', 'note'],
      ['heureka.xml', 'heureka', 'note'],
    ]);
    expect(notes[1]?.message.cs).toContain('Od robota Heureka zatím na /feeds/all/heureka.xml nepřišel žádný požadavek');
  });

  it('says nothing of a feed its channel fetched on any view', () => {
    const onUnit = addToSummary(undefined, entry(START, 'google', { view: 'U1' }));
    expect(neverFetchedNotes(['google.xml'], [onUnit], since)).toEqual([]);
  });
});

describe('roughDuration', () => {
  it('says durations with Czech plural forms', () => {
    expect(roughDuration(40, 'cs')).toBe('40 s');
    expect(roughDuration(25 * 60, 'en')).toBe('25 min');
    expect(roughDuration(1.5 * 3600, 'cs')).toBe('1,5 h');
    expect(roughDuration(24 * 3600 * 1, 'en')).toBe('24 h');
    expect(roughDuration(24 * 3600 * 2, 'cs')).toBe('2 dny');
    expect(roughDuration(24 * 3600 * 5, 'cs')).toBe('5 dní');
    expect(roughDuration(24 * 3600 * 5, 'en')).toBe('5 days');
  });
});
