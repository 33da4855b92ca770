import { describe, expect, it } from 'vitest';
import { sendJson } from '../sandbox/sandbox-test-kit.js';
import { CASES, hostile, MEMORY_BOUND_MB, measured, runHostileCase, useHostilePos } from './hostile-pos-kit.js';

/** A full and a stock sync against a POS hostile in its price lists and stock exports (see the kit). */
describe('catalog/ a sync against a POS hostile in its price lists and stock exports', () => {
  useHostilePos();

  it.each(CASES.filter((entry) => entry.endpoint === 'price-list' || entry.endpoint === 'stock-export'))(
    '$endpoint $mode: ends with $code, keeps the catalog, bounded memory',
    runHostileCase,
  );

  it('names the limit a price list went past, with the article count it follows', async () => {
    await sendJson(`${hostile.sandbox.url}/sandbox/faults`, 'PUT', { endpoint: 'price-list', mode: 'endless' });
    const report = await hostile.service.syncCatalog();
    expect(report.error?.message).toMatch(/has more than 1600 rows \(2 per article of the 300 in the article list/);
  });

  it("reports a stock export's own error code from the worker thread that parsed it", async () => {
    await sendJson(`${hostile.sandbox.url}/sandbox/faults`, 'PUT', { endpoint: 'stock-export', mode: 'entities' });
    const report = await hostile.service.syncStock();
    expect(report.outcome).toBe('failed');
    expect(report.error?.code, report.error?.message).toBe('STOCK_EXPORT_INVALID');
  });

  it('ends a stock sync whose export never ends at its byte limit', async () => {
    await sendJson(`${hostile.sandbox.url}/sandbox/faults`, 'PUT', { endpoint: 'stock-export', mode: 'endless' });
    const { result: report, growthMb } = await measured(() => hostile.service.syncStock());
    expect(report.outcome).toBe('failed');
    expect(report.error?.code).toBe('POS_RESPONSE_TOO_LARGE');
    expect(report.error?.message).toContain('larger than 8 MiB');
    expect(growthMb).toBeLessThan(MEMORY_BOUND_MB);
  });
});
