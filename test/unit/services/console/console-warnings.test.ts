import { describe, expect, it } from 'vitest';
import type { FeedReport } from '../../../../src/core/feeds/feed-report.js';
import type { EnrichmentSyncReport } from '../../../../src/services/catalog/enrich-catalog.js';
import type { SyncRunSummary } from '../../../../src/services/catalog/sync-history.js';
import { createConsoleWarnings } from '../../../../src/services/console/console-warning-sources.js';
import {
  type ConsoleWarning,
  collectConsoleWarnings,
  countWarnings,
  type WarningInputs,
} from '../../../../src/services/console/console-warnings.js';
import type { EnrichmentStatus } from '../../../../src/services/enrichment/enrichment-service.js';

const AT = '2026-11-26T10:59:03.000Z';

/** Nothing to warn of: a configured POS, links and brand set, the store up, no feed reports. */
function inputs(overrides: Partial<WarningInputs> = {}): WarningInputs {
  return {
    settings: { productUrl: true, brand: true },
    pos: { sandbox: false, description: 'https://pos.example.cz' },
    lastRuns: {},
    nextTry: {},
    store: { up: true, since: AT },
    enrichment: undefined,
    enrichmentMatch: undefined,
    feedReports: new Map(),
    feeds: [{ file: 'google.xml', title: 'Google' }],
    feedNames: ['google'],
    prewarmFit: undefined,
    ...overrides,
  };
}

function run(overrides: Partial<SyncRunSummary> = {}): SyncRunSummary {
  return {
    runId: 'catalog-1',
    job: 'sync-catalog',
    outcome: 'published',
    startedAt: AT,
    finishedAt: AT,
    durationMs: 1000,
    counts: {},
    rejected: 0,
    unmatched: 0,
    issueCounts: {},
    ...overrides,
  };
}

function feedReport(overrides: Partial<FeedReport> = {}): FeedReport {
  return {
    feed: 'google.xml',
    items: 10,
    records: 10,
    filtered: 0,
    outOfStock: 0,
    dropped: 0,
    truncated: 0,
    excluded: 0,
    warnings: { count: 0, byAttribute: {}, byCode: {}, examples: [] },
    ...overrides,
  };
}

const codes = (warnings: readonly ConsoleWarning[]) => warnings.map((warning) => warning.code);

describe('collectConsoleWarnings', () => {
  it('has nothing to say when all is well', () => {
    expect(collectConsoleWarnings(inputs())).toEqual([]);
  });

  it('warns of a missing link template and brand, unless the sheet has the columns', () => {
    const unset = collectConsoleWarnings(inputs({ settings: { productUrl: false, brand: false } }));
    expect(codes(unset)).toEqual(['no-product-link', 'no-brand']);
    expect(unset[0]?.action.en).toContain('FEED_PRODUCT_URL');
    expect(unset[1]?.message.cs).toContain('FEED_BRAND není nastavená');

    const sheet: EnrichmentStatus = {
      source: 'https://sheet',
      current: { name: 'sheet.csv', fetchedAt: AT, check: { ok: true, columns: ['EAN', 'Link', 'Brand'] } },
    };
    expect(collectConsoleWarnings(inputs({ settings: { productUrl: false, brand: false }, enrichment: sheet }))).toEqual([]);
  });

  it('says plainly that the sandbox is read', () => {
    const [warning] = collectConsoleWarnings(
      inputs({ pos: { sandbox: true, description: 'built-in sandbox at http://127.0.0.1:1' } }),
    );

    expect(warning).toMatchObject({ code: 'sandbox-pos', severity: 'info' });
    expect(warning?.message.en).toContain('built-in sandbox at http://127.0.0.1:1');
    expect(warning?.action).toEqual({
      en: 'Set POS_BASE_URL and POS_API_KEY to read your POS.',
      cs: 'Nastavte POS_BASE_URL a POS_API_KEY, aby bridge četl vaši pokladnu.',
    });
  });

  it('reports a store that does not answer', () => {
    const [warning] = collectConsoleWarnings(inputs({ store: { up: false, since: AT, reason: 'ECONNREFUSED' } }));

    expect(warning).toMatchObject({ code: 'store-down', severity: 'error' });
    expect(warning?.message.en).toContain('since 2026-11-26 10:59 UTC: ECONNREFUSED');
  });

  it('reports failed and refused syncs with the error code, when, and the next try', () => {
    const failed = collectConsoleWarnings(
      inputs({
        lastRuns: {
          'sync-catalog': run({ outcome: 'failed', error: { code: 'POS_UNAVAILABLE', message: 'HTTP 500' } }),
          'sync-stock': run({ job: 'sync-stock', outcome: 'failed', error: { code: 'SYNC_DEADLINE', message: 'too slow' } }),
        },
        nextTry: { 'sync-catalog': '2026-11-26T11:00:00.000Z' },
      }),
    );
    expect(failed.map((warning) => [warning.code, warning.severity, warning.docs])).toEqual([
      ['catalog-sync-failed', 'error', 'POS_UNAVAILABLE'],
      ['stock-sync-failed', 'warning', 'SYNC_DEADLINE'],
    ]);
    expect(failed[0]?.message.en).toBe(
      'The last full catalog sync failed (POS_UNAVAILABLE, 2026-11-26 10:59 UTC): HTTP 500. The last good catalog is still served.',
    );
    expect(failed[0]?.action.cs).toContain('další pokus: 2026-11-26 11:00 UTC');
    expect(failed[1]?.action.en).not.toContain('next try');

    const [refused] = collectConsoleWarnings(
      inputs({ lastRuns: { 'sync-catalog': run({ outcome: 'refused', reason: 'the catalog would shrink by 80 %' }) } }),
    );
    expect(refused).toMatchObject({ code: 'catalog-sync-refused', severity: 'error', docs: 'refused' });
    expect(refused?.message.cs).toContain('the catalog would shrink by 80 %');
  });

  it('lists the rows the last merged full sync reported, one per code, notes as information', () => {
    const warnings = collectConsoleWarnings(
      inputs({ lastMerged: run({ issueCounts: { 'no-price': 3, 'row-unmatched': 12, 'row-duplicate': 2 } }) }),
    );

    expect(warnings.map((warning) => [warning.code, warning.subject, warning.severity, warning.docs])).toEqual([
      ['sync-rows', 'row-unmatched', 'warning', 'row-unmatched'],
      ['sync-rows', 'row-duplicate', 'warning', 'row-duplicate'],
      ['sync-rows', 'no-price', 'info', 'no-price'],
    ]);
    expect(warnings[0]?.message.en).toBe('The last full sync reported 12 rows or articles as row-unmatched.');
    expect(warnings[0]?.message.cs).toBe('Poslední úplná synchronizace nahlásila 12 řádků nebo artiklů s kódem row-unmatched.');
    expect(warnings[1]?.message.cs).toContain('2 řádky nebo artikly');
  });

  it('reports empty feeds, items left out and values the channel recommends', () => {
    const missingLink = { count: 10, byAttribute: { link: 10 }, byCode: { missing: 10 }, examples: [] };
    const empty = collectConsoleWarnings(
      inputs({ feedReports: new Map([['google.xml|all|', feedReport({ items: 0, dropped: 10, warnings: missingLink })]]) }),
    );
    expect(empty).toMatchObject([{ code: 'empty-feed', severity: 'error', subject: 'google.xml' }]);
    expect(empty[0]?.message.cs).toBe(
      'Google (google.xml) je prázdný: pravidly neprojde žádná položka (vynecháno 10 položek, nejčastěji kvůli chybějící nebo neplatné hodnotě link).',
    );
    expect(empty[0]?.action.en).toContain('FEED_PRODUCT_URL');

    const some = collectConsoleWarnings(
      inputs({
        feedReports: new Map([
          [
            'google.xml|all|',
            feedReport({
              items: 8,
              dropped: 2,
              warnings: { ...missingLink, byAttribute: { 'g:image_link': 2 } },
              readiness: { complete: 2, missing: { brand: 6, description: 1 }, examples: [] },
            }),
          ],
          // Another view's report is not the channel's main feed.
          ['google.xml|U1|', feedReport({ items: 0, dropped: 5 })],
        ]),
      }),
    );
    expect(some.map((warning) => [warning.code, warning.severity, warning.subject])).toEqual([
      ['items-left-out', 'warning', 'google.xml'],
      ['poor-feed', 'info', 'brand'],
    ]);
    expect(some[0]?.message.en).toBe(
      'Google (google.xml) leaves out 2 of 10 items for a missing or invalid value (mostly g:image_link).',
    );
    expect(some[0]?.action.en).toContain('FEED_IMAGE_URL');
    expect(some[1]?.message.en).toContain(
      'have no brand, which their channels recommend (items without it / items): Google (google.xml) 6/8.',
    );
    expect(some[1]?.action.cs).toContain('sloupec brand');
  });

  it('reports the enrichment sheet: not updated, poorly matched, excluding from unknown feeds', () => {
    const status: EnrichmentStatus = {
      source: 'https://sheet',
      current: { name: 'sheet.csv', fetchedAt: AT, check: { ok: true, columns: ['ean'], excludeNames: ['google', 'heurekaa'] } },
      problem: { at: AT, code: 'ENRICHMENT_UNREACHABLE', message: 'ENOTFOUND sheet' },
    };
    const match = { rows: 10, matched: 2, keyColumn: 'ean' } as EnrichmentSyncReport;
    const warnings = collectConsoleWarnings(inputs({ enrichment: status, enrichmentMatch: match }));

    expect(warnings.map((warning) => [warning.code, warning.docs])).toEqual([
      ['enrichment-not-updated', 'ENRICHMENT_UNREACHABLE'],
      ['enrichment-poor-match', undefined],
      ['enrichment-unknown-feed', undefined],
    ]);
    expect(warnings[0]?.message.en).toContain('The sheet read before stays in use.');
    expect(warnings[1]?.message.cs).toContain('jen v 2 z 10 řádků');
    expect(warnings[2]?.message.en).toContain(': heurekaa.');
  });

  it('reports a feed cache too small for the pre-rendered feeds', () => {
    const [warning] = collectConsoleWarnings(inputs({ prewarmFit: { bytes: 600 * 1024 * 1024, budget: 512 * 1024 * 1024 } }));

    expect(warning).toMatchObject({ code: 'feed-cache-too-small', severity: 'warning' });
    expect(warning?.action.en).toBe('Set FEED_CACHE_MB to at least 960.');
  });

  it('reports a feed that could not be written to its file as an error, in Czech and English, naming the feed and the error', () => {
    const [warning] = collectConsoleWarnings(
      inputs({ feedFilesError: { at: AT, feed: 'google.xml|U1|', message: 'ENOSPC: no space left on device' } }),
    );

    expect(warning).toMatchObject({ code: 'feed-files-failed', severity: 'error', subject: 'google.xml' });
    expect(warning?.message.en).toContain('google.xml / U1');
    expect(warning?.message.en).toContain('ENOSPC');
    expect(warning?.message.cs).toContain('Dál se posílá jeho předchozí soubor');
    expect(warning?.action.en).toContain('FEED_FILES_DIR');
  });

  it("takes other parts' warnings and sorts everything by severity, keeping the order within one", () => {
    const fetchLog: ConsoleWarning = {
      code: 'feed-not-fetched',
      severity: 'warning',
      subject: 'heureka.xml',
      message: { en: 'not fetched', cs: 'nestaženo' },
      action: { en: 'check', cs: 'zkontrolujte' },
    };
    const warnings = collectConsoleWarnings(
      inputs({
        pos: { sandbox: true, description: 'sandbox' },
        settings: { productUrl: true, brand: false },
        store: { up: false, since: AT },
        extra: [fetchLog],
      }),
    );

    expect(codes(warnings)).toEqual(['store-down', 'no-brand', 'feed-not-fetched', 'sandbox-pos']);
    expect(countWarnings(warnings)).toEqual({ error: 1, warning: 2, info: 1, total: 4 });
  });
});

describe('createConsoleWarnings', () => {
  const base = {
    settings: { productUrl: true, brand: true },
    pos: { sandbox: false, description: 'pos' },
    nextTry: () => undefined,
    store: () => ({ up: true, since: AT }),
    enrichment: () => undefined,
    feeds: { reports: () => new Map(), feeds: [], prewarmFit: () => undefined },
    feedNames: [],
  };

  it("uses the store's newest run and the newest merged one for rows", async () => {
    const warnings = createConsoleWarnings({
      ...base,
      history: async (job) =>
        job === 'sync-catalog'
          ? [
              run({ outcome: 'failed', error: { code: 'POS_REJECTED', message: 'no' } }),
              run({ issueCounts: { 'row-unmatched': 1 } }),
            ]
          : [],
      lastReport: () => undefined,
    });

    expect(codes(await warnings.list())).toEqual(['catalog-sync-failed', 'sync-rows']);
    expect(await warnings.count()).toEqual({ error: 1, warning: 1, info: 0, total: 2 });
  });

  it("falls back to this process's last report when the store does not answer", async () => {
    const warnings = createConsoleWarnings({
      ...base,
      history: () => Promise.reject(new Error('store down')),
      lastReport: (job) =>
        job === 'sync-catalog'
          ? {
              job,
              outcome: 'failed',
              startedAt: AT,
              finishedAt: AT,
              durationMs: 5,
              error: { code: 'SYNC_DEADLINE', message: 'slow' },
            }
          : undefined,
    });

    const [warning] = await warnings.list();
    expect(warning).toMatchObject({ code: 'catalog-sync-failed', docs: 'SYNC_DEADLINE' });
  });
});
