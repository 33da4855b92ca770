import { describe, expect, it } from 'vitest';
import { createFeedReporter, type FeedReport, MISSING } from '../../../../src/core/feeds/feed-report.js';
import {
  emptyFeedWarnings,
  enrichmentMatchWarnings,
  enrichmentWarnings,
  excludeNameWarnings,
  feedCacheWarnings,
  feedFilesWarnings,
  operatorWarnings,
  readinessWarnings,
} from '../../../../src/services/feeds/feed-warnings.js';

function reportOf(feed: string, build: (reporter: ReturnType<typeof createFeedReporter>) => void): FeedReport {
  const reporter = createFeedReporter(feed);
  build(reporter);
  return reporter.report();
}

const FEEDS = [
  { file: 'google.xml', title: 'Google Merchant Center' },
  { file: 'heureka.xml', title: 'Heureka.cz' },
  { file: 'meta.csv', title: 'Meta' },
];

describe('emptyFeedWarnings', () => {
  it('names a channel feed of the all view that every item was left out of, the rule, and what to set', () => {
    const reports = new Map<string, FeedReport>([
      [
        'google.xml|all|',
        reportOf('google', (reporter) => {
          for (let n = 0; n < 5; n += 1) {
            reporter.warn(`a-${n}`, 'link', MISSING);
            reporter.dropped++;
          }
        }),
      ],
      [
        'meta.csv|all|',
        reportOf('meta', (reporter) => {
          reporter.warn('a-1', 'brand|gtin', MISSING);
          reporter.dropped++;
        }),
      ],
      // Not empty: one item went out.
      ['heureka.xml|all|', reportOf('heureka', (reporter) => reporter.countItem())],
    ]);
    expect(emptyFeedWarnings(reports, FEEDS)).toEqual([
      'Google Merchant Center (google.xml) is empty: no item passes its rules (5 left out, 5 of them for a missing or invalid link); set FEED_PRODUCT_URL (e.g. https://shop.example.cz/p/{code}) or give the enrichment sheet a link column',
      'Meta (meta.csv) is empty: no item passes its rules (1 left out, 1 of them for a missing or invalid brand|gtin); set FEED_BRAND or give the enrichment sheet a brand column',
    ]);
  });

  it('says nothing of feeds not rendered yet, of unit views, or of feeds empty by their filter alone', () => {
    const filteredOnly = reportOf('heureka', (reporter) => {
      reporter.filtered = 3;
    });
    const unitView = reportOf('google', (reporter) => {
      reporter.warn('a-1', 'link', MISSING);
      reporter.dropped++;
    });
    const reports = new Map([
      ['heureka.xml|all|', filteredOnly],
      ['google.xml|U1|', unitView],
    ]);
    expect(emptyFeedWarnings(reports, FEEDS)).toEqual([]);
  });
});

describe('enrichmentWarnings', () => {
  it('says which sheet stays in use when a read failed, and nothing when all is well', () => {
    const current = { name: 'sheet.csv', fetchedAt: '2026-11-26T06:00:00.000Z', check: { ok: true } };
    expect(enrichmentWarnings(undefined)).toEqual([]);
    expect(enrichmentWarnings({ source: 'https://x/sheet.csv', current })).toEqual([]);
    expect(
      enrichmentWarnings({
        source: 'https://x/sheet.csv',
        current,
        problem: { at: '2026-11-26T07:00:00.000Z', code: 'ENRICHMENT_HTTP_STATUS', message: 'answered HTTP 500' },
      }),
    ).toEqual([
      'enrichment sheet https://x/sheet.csv not updated (ENRICHMENT_HTTP_STATUS): answered HTTP 500; the sheet read 2026-11-26T06:00:00.000Z stays in use',
    ]);
  });
});

describe('readinessWarnings', () => {
  it('names a recommended value most items of a channel feed lack, and what to add; not one most items have', () => {
    const google = reportOf('google', (reporter) => {
      for (let n = 0; n < 4; n += 1) {
        reporter.recommendMissing(`a-${n}`, n < 3 ? ['brand', 'description'] : ['description']);
        reporter.countItem();
      }
      reporter.recommendMissing('a-4', []);
      reporter.countItem();
    });
    expect(readinessWarnings(new Map([['google.xml|all|', google]]), FEEDS)).toEqual([
      'Google Merchant Center (google.xml): 3 of 5 items have no brand, which the channel recommends; add a brand column in the enrichment sheet, or FEED_BRAND',
      'Google Merchant Center (google.xml): 4 of 5 items have no description, which the channel recommends; add a description column in the enrichment sheet',
    ]);
    const fine = reportOf('google', (reporter) => {
      reporter.recommendMissing('a-1', ['brand']);
      reporter.countItem();
      reporter.recommendMissing('a-2', []);
      reporter.countItem();
      reporter.recommendMissing('a-3', []);
      reporter.countItem();
    });
    expect(readinessWarnings(new Map([['google.xml|all|', fine]]), FEEDS)).toEqual([]);
  });
});

describe('enrichmentMatchWarnings', () => {
  const report = (matched: number, rows: number) => ({
    name: 'sheet.csv',
    fetchedAt: '2026-11-26T06:00:00.000Z',
    keyColumn: 'ean' as const,
    rows,
    groups: 0,
    matched,
    unmatched: rows - matched,
    ambiguous: 0,
    duplicates: 0,
    groupsUnmatched: 0,
    enrichedProducts: matched,
    fields: {},
    problemCount: rows - matched,
    problemCounts: { unmatched: rows - matched },
    problems: [{ code: 'unmatched' as const, line: 2, key: 'a-1', message: 'no product has the ean "a-1"' }],
  });

  it('asks about the key column when most rows name no product, and is quiet otherwise', () => {
    expect(enrichmentMatchWarnings(report(1, 40))).toEqual([
      'the enrichment sheet sheet.csv names a product in 1 of its 40 rows (key column ean; 39 unmatched, 0 ambiguous, e.g. line 2: no product has the ean "a-1"); is the key column the right one?',
    ]);
    expect(enrichmentMatchWarnings(report(30, 40))).toEqual([]);
    expect(enrichmentMatchWarnings(undefined)).toEqual([]);
  });
});

describe('excludeNameWarnings', () => {
  it("names the exclude column's feed names that no feed has", () => {
    const status = (excludeNames: string[]) => ({
      source: 'sheet.csv',
      current: { name: 'sheet.csv', fetchedAt: '2026-11-26T06:00:00.000Z', check: { ok: true, excludeNames } },
    });
    expect(excludeNameWarnings(status(['heureka', 'facebook']), ['google', 'heureka', 'meta'])).toEqual([
      "the enrichment sheet's exclude column names feeds that do not exist, so those exclusions do nothing: facebook (the feeds: google, heureka, meta; * for all)",
    ]);
    expect(excludeNameWarnings(status(['heureka']), ['google', 'heureka'])).toEqual([]);
    expect(excludeNameWarnings(undefined, ['google'])).toEqual([]);
  });
});

describe('feedCacheWarnings', () => {
  it('says how large FEED_CACHE_MB must be when a pre-render pass does not fit it', () => {
    const MIB = 1024 * 1024;
    expect(feedCacheWarnings({ bytes: 900 * MIB, budget: 512 * MIB })).toEqual([
      'the pre-rendered feeds take 900 MiB on disk (as they are, gzip and br), more than the space for feed files (FEED_CACHE_MB=512): they are kept anyway, so the bridge uses more disk than that, and other feeds (those of single units, downloads) are deleted as soon as another is rendered, so their pollers wait while they are rendered again; set FEED_CACHE_MB to at least 1408',
    ]);
    expect(feedCacheWarnings({ bytes: 300 * MIB, budget: 512 * MIB })).toEqual([]);
    expect(feedCacheWarnings(undefined)).toEqual([]);
  });
});

describe('feedFilesWarnings', () => {
  it('names the feed, the folder and the error of a failed write, and nothing once it is written again', () => {
    const failed = { at: '2026-11-29T10:00:00.000Z', feed: 'google.xml|all|', message: 'ENOSPC: no space left on device' };

    expect(feedFilesWarnings({ dir: '/var/lib/bridge/catalog.feeds', lastError: failed })).toEqual([
      "could not render the feed google.xml|all| into its file in /var/lib/bridge/catalog.feeds at 2026-11-29T10:00:00.000Z (ENOSPC: no space left on device); its previous file is served meanwhile: check the folder's free space and permissions",
    ]);
    expect(feedFilesWarnings({ dir: '/var/lib/bridge/catalog.feeds' })).toEqual([]);
    expect(feedFilesWarnings(undefined)).toEqual([]);
  });
});

describe('operatorWarnings', () => {
  it('gathers every source into one list, and is empty when all is well', () => {
    const MIB = 1024 * 1024;
    const quiet = {
      feeds: { reports: () => new Map<string, FeedReport>(), feeds: FEEDS, prewarmFit: () => undefined },
      feedNames: ['google', 'heureka', 'meta'],
      enrichment: () => undefined,
      lastEnrichmentMatch: () => undefined,
    };
    expect(operatorWarnings(quiet)).toEqual([]);
    const warnings = operatorWarnings({
      ...quiet,
      feeds: { ...quiet.feeds, prewarmFit: () => ({ bytes: 900 * MIB, budget: 512 * MIB }) },
      enrichment: () => ({
        source: 'sheet.csv',
        problem: { at: '2026-11-26T07:00:00.000Z', code: 'ENRICHMENT_TIMEOUT' as const, message: 'no answer' },
      }),
    });
    expect(warnings).toEqual([expect.stringContaining('ENRICHMENT_TIMEOUT'), expect.stringContaining('FEED_CACHE_MB=512')]);
  });
});
