import type { Logger } from '../adapters/logger/create-logger.js';
import type { Metrics } from '../adapters/metrics/create-metrics.js';
import type { Config } from '../config/load-config.js';
import { createMutex } from '../core/async/create-mutex.js';
import { createScheduler, type Scheduler } from '../jobs/scheduler.js';
import type { CatalogService, SyncReport } from '../services/catalog/catalog-service.js';
import type { EnrichmentService } from '../services/enrichment/enrichment-service.js';
import type { PushWiring } from './push-parts.js';

/**
 * The scheduled syncs; the full and the stock sync never run at once (both derive from the served version).
 * A failed full sync is retried after `retryDelay(failures)`; one refused by the publish guard is not: the
 * POS answered, and what it answered would be refused again (the next scheduled run reads it anew).
 */
export function createJobs(parts: {
  readonly config: Config;
  readonly catalog: CatalogService;
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly retryDelay: (failures: number) => number;
  /** In a group: whether this instance leads (only the leader runs scheduled syncs). */
  readonly leader: (() => boolean) | undefined;
  readonly enrichment: EnrichmentService | undefined;
  /** The channel push, when a channel is configured: its nightly reconciliation is a job. */
  readonly push?: PushWiring | undefined;
}): Scheduler {
  const { config, catalog, metrics, logger, now, leader } = parts;
  const jobs = createScheduler({
    timezone: config.sync.timezone,
    logger: logger.child({ component: 'scheduler' }),
    now,
    ...(leader === undefined ? {} : { shouldRun: async () => leader() }),
    onOutcome(outcome) {
      const report = outcome.ok ? (outcome.result as { outcome?: string; error?: { code: string } } | undefined) : undefined;
      metrics.jobRuns.inc({ job: outcome.job, outcome: outcome.ok ? (report?.outcome ?? 'ok') : 'crashed' });
      metrics.jobDuration.observe({ job: outcome.job }, outcome.durationMs / 1000);
      if (report?.error !== undefined) metrics.posErrors.inc({ family: report.error.code, operation: outcome.job });
    },
  });
  const exclusive = createMutex();
  jobs.schedule<SyncReport>({
    name: 'sync-catalog',
    cron: config.sync.catalogCron,
    run: async (signal) => {
      // The first catalog carries the sheet: read once before this instance's first full sync (outside the
      // lock, so stock syncs of a stored catalog go on meanwhile).
      await parts.enrichment?.firstRead(signal);
      return exclusive(() => catalog.syncCatalog({ signal }));
    },
    retry: { failed: (report) => report.outcome === 'failed', delayMs: parts.retryDelay },
  });
  jobs.schedule({
    name: 'sync-stock',
    cron: config.sync.stockCron,
    run: (signal) => exclusive(() => catalog.syncStock({ signal })),
  });
  const { enrichment } = parts;
  if (enrichment !== undefined) {
    jobs.schedule({
      name: 'sync-enrichment',
      cron: config.enrichment.cron,
      run: async (signal) => {
        const outcome = await enrichment.refresh(signal);
        // A new sheet is a change like any other: a full sync publishes it (not awaited: its own job).
        if (outcome === 'adopted') void jobs.runNow('sync-catalog');
        return { outcome };
      },
    });
  }
  const { push } = parts;
  const reconcileCron = config.push.reconcileCron;
  if (push !== undefined && reconcileCron !== undefined) {
    jobs.schedule({ name: PUSH_RECONCILE_JOB, cron: reconcileCron, run: () => runPushReconcile(push) });
  }
  return jobs;
}

export const PUSH_RECONCILE_JOB = 'push-reconcile';

/**
 * The nightly full reconciliation (docs/decisions/0013-channel-push.md, section 5): every target of every
 * enabled channel is enqueued with FULL from the served version, so an update a channel lost is repaired.
 * Leader only (the scheduler asks in a group; the reconciler asks again). `outcome` is the job metric's label.
 */
export async function runPushReconcile(push: Pick<PushWiring, 'reconcile'>): Promise<{ outcome: string; message?: string }> {
  const result = await push.reconcile(undefined, 'nightly');
  return result.ok ? { outcome: 'enqueued' } : { outcome: result.reason, message: result.message };
}
