import { describe, expect, it } from 'vitest';
import type { SyncReport } from '../../../../src/services/catalog/catalog-types.js';
import { asRunSummary, newRunId, summarizeReport } from '../../../../src/services/catalog/sync-history.js';

const report = {
  job: 'sync-catalog',
  outcome: 'published',
  startedAt: '2026-11-26T10:59:03.120Z',
  finishedAt: '2026-11-26T10:59:04.410Z',
  durationMs: 1290,
  version: 'v-2',
  products: 148,
  sources: {
    units: { count: 2, rejected: [{ index: 1, issues: ['code: required'] }], pages: 1 },
    articles: { count: 150, rejectedCount: 3, rejected: [], pages: 1 },
    priceLists: {
      U1: { rows: 150, skippedCount: 1, warningCount: 0, skipped: [] },
      U2: { rows: 140, skippedCount: 0, warningCount: 0, skipped: [] },
    },
    stock: { U1: { rows: 149, header: [], skippedCount: 2, skipped: [] } },
  },
  merge: { issueCounts: { 'row-unmatched': 4, 'row-ambiguous': 1, 'row-duplicate': 2, 'no-price': 5 } },
} as unknown as SyncReport;

describe('summarizeReport', () => {
  it('counts what each source gave, and the rejected and unmatched rows', () => {
    expect(summarizeReport(report, 'catalog-1')).toEqual({
      runId: 'catalog-1',
      job: 'sync-catalog',
      outcome: 'published',
      startedAt: report.startedAt,
      finishedAt: report.finishedAt,
      durationMs: 1290,
      version: 'v-2',
      products: 148,
      counts: { units: 2, articles: 150, priceListRows: 290, stockRows: 149 },
      // 1 unit + 3 articles + 1 price-list line + 2 stock lines + 2 duplicate rows.
      rejected: 9,
      unmatched: 5,
      issueCounts: { 'row-unmatched': 4, 'row-ambiguous': 1, 'row-duplicate': 2, 'no-price': 5 },
    });
  });

  it('summarises a failed run that read nothing, and a stock run', () => {
    const failed = summarizeReport(
      {
        job: 'sync-catalog',
        outcome: 'failed',
        startedAt: report.startedAt,
        finishedAt: report.finishedAt,
        durationMs: 5,
        error: { code: 'POS_UNAVAILABLE', message: 'x' },
      },
      'f',
    );
    expect(failed).toMatchObject({ counts: {}, rejected: 0, unmatched: 0, issueCounts: {}, error: { code: 'POS_UNAVAILABLE' } });
    expect(failed).not.toHaveProperty('products');

    const stock = summarizeReport(
      {
        job: 'sync-stock',
        outcome: 'published',
        startedAt: report.startedAt,
        finishedAt: report.finishedAt,
        durationMs: 20,
        sources: { stock: { U1: { rows: 10, header: [], skippedCount: 0, skipped: [] } } },
        stock: { changedProducts: 3, issueCounts: { 'unknown-article': 1 } },
      } as unknown as SyncReport,
      's',
    );
    expect(stock).toMatchObject({ counts: { stockRows: 10, changedProducts: 3 }, rejected: 1, unmatched: 0 });
  });

  it("reads a stored summary as it is, and a previous release's whole report as a summary", () => {
    const summary = summarizeReport(report, 'catalog-1');
    expect(asRunSummary(summary, 'catalog-1')).toEqual(summary);
    expect(asRunSummary(report, 'legacy-1')).toEqual({ ...summary, runId: 'legacy-1' });
    expect(asRunSummary('garbage', 'x')).toBeUndefined();
  });
});

describe('newRunId', () => {
  it('names the job and the start time, with a random suffix', () => {
    const id = newRunId('sync-stock', '2026-11-26T10:59:03.120Z');
    expect(id).toMatch(/^stock-20261126T105903Z-[0-9a-f]{6}$/);
    expect(newRunId('sync-stock', '2026-11-26T10:59:03.120Z')).not.toBe(id);
    expect(newRunId('sync-catalog', 'not a date')).toMatch(/^catalog-run-[0-9a-f]{6}$/);
  });
});
