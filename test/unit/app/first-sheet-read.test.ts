import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/adapters/metrics/create-metrics.js';
import { createJobs } from '../../../src/app/jobs.js';
import type { CatalogService } from '../../../src/services/catalog/catalog-service.js';
import type { EnrichmentService } from '../../../src/services/enrichment/enrichment-service.js';
import { createTestConfig } from '../../helpers/test-config.js';

/**
 * Every full sync of an instance waits for its first read of the sheet, whoever asks for the sync: the start,
 * a new leader taking over an empty group, a person in the console. Before, only the start read it first.
 */
function setup(firstRead: () => Promise<void>) {
  const events: string[] = [];
  const catalog = {
    syncCatalog: async () => {
      events.push('sync');
      return { outcome: 'published' };
    },
  } as unknown as CatalogService;
  const enrichment = {
    firstRead: async () => {
      events.push('read:start');
      await firstRead();
      events.push('read:end');
    },
  } as unknown as EnrichmentService;
  const jobs = createJobs({
    config: createTestConfig({ ENRICHMENT_SOURCE: '/tmp/sheet.csv' }),
    catalog,
    metrics: createMetrics({ defaultMetrics: false }),
    logger: pino({ level: 'silent' }),
    now: () => new Date(),
    retryDelay: () => 60_000,
    leader: undefined,
    enrichment,
  });
  return { jobs, events };
}

describe('app: the first full sync waits for the first read of the sheet', () => {
  it('reads the sheet before the sync a new leader asks for (no start sync ran here)', async () => {
    let release: () => void = () => undefined;
    const { jobs, events } = setup(() => new Promise<void>((resolve) => (release = resolve)));
    const run = jobs.runNow('sync-catalog');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual(['read:start']);
    release();
    expect((await run).ok).toBe(true);
    expect(events).toEqual(['read:start', 'read:end', 'sync']);
  });
});
