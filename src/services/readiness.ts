import type { CatalogService, SyncJob } from './catalog-service.js';
import type { WebhookProcessor } from './webhook-processor.js';

const JOBS: readonly SyncJob[] = ['sync-catalog', 'sync-stock'];

export interface Readiness {
  readonly ready: boolean;
  readonly [detail: string]: unknown;
}

/** What `/readyz` reports: whether a catalog is served, how old, the last runs, webhooks, event-loop delay. */
export function createReadiness(deps: {
  readonly catalog: Pick<CatalogService, 'current' | 'lastReport'>;
  readonly webhooks: Pick<WebhookProcessor, 'stats'>;
  readonly eventLoop: () => object;
  readonly now: () => Date;
}): () => Readiness {
  const { catalog, webhooks, now } = deps;
  return () => {
    const snapshot = catalog.current();
    const lastRuns: Record<string, unknown> = {};
    for (const job of JOBS) {
      const report = catalog.lastReport(job);
      lastRuns[job] = report
        ? {
            outcome: report.outcome,
            finishedAt: report.finishedAt,
            durationMs: report.durationMs,
            ...(report.error ? { error: report.error } : {}),
            ...(report.reason ? { reason: report.reason } : {}),
          }
        : null;
    }
    const degraded = JOBS.some((job) => {
      const outcome = catalog.lastReport(job)?.outcome;
      return outcome === 'failed' || outcome === 'refused';
    });
    const common = { jobs: lastRuns, webhooks: webhooks.stats(), eventLoopDelay: deps.eventLoop() };
    if (snapshot === undefined) {
      const reason = catalog.lastReport('sync-catalog')
        ? 'the first catalog could not be built yet'
        : 'the first sync is running';
      return { ready: false, reason, ...common };
    }
    return {
      ready: true,
      degraded,
      version: snapshot.version,
      generatedAt: snapshot.generatedAt,
      ageSeconds: Math.max(0, Math.round((now().getTime() - Date.parse(snapshot.generatedAt)) / 1000)),
      products: snapshot.products.length,
      units: snapshot.units.map((unit) => unit.code),
      ...common,
    };
  };
}
