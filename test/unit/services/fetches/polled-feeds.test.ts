import { describe, expect, it } from 'vitest';
import type { FetchSummaryView } from '../../../../src/services/fetches/fetch-log.js';
import { polledFeeds } from '../../../../src/services/fetches/polled-feeds.js';

const NOW = new Date('2026-11-29T10:00:00Z');

function summary(overrides: Partial<FetchSummaryView>): FetchSummaryView {
  return {
    feed: 'google.xml',
    view: 'all',
    url: '/feeds/all/google.xml',
    consumer: 'google',
    lastAt: '2026-11-29T09:00:00.000Z',
    lastStatus: 304,
    lastEncoding: 'gzip',
    lastBytes: 0,
    count: 10,
    ...overrides,
  };
}

describe('services/fetches/polled-feeds', () => {
  it('names the feeds answered more than once in the last week, most asked first, each view once', () => {
    const summaries = [
      summary({ feed: 'heureka.xml', count: 3 }),
      summary({ feed: 'google.xml', view: 'U1', count: 4, consumer: 'google' }),
      summary({ feed: 'google.xml', view: 'U1', count: 4, consumer: 'other' }),
      summary({ feed: 'zbozi.xml', count: 1 }),
      summary({ feed: 'meta.csv', count: 50, lastStatus: 401 }),
      summary({ feed: 'products.csv', count: 50, lastAt: '2026-11-20T09:00:00.000Z' }),
    ];

    expect(polledFeeds({ summaries: () => summaries }, NOW)).toEqual([
      { file: 'google.xml', view: 'U1' },
      { file: 'heureka.xml', view: 'all' },
    ]);
  });
});
