import type { CatalogService, SyncJob, SyncReport } from '../catalog/catalog-service.js';
import type { NotServedCatalog } from '../catalog/catalog-start.js';
import type { EnrichmentStatus } from '../enrichment/enrichment-service.js';
import type { GroupStatus } from '../group/group-monitor.js';
import type { WebhookProcessor } from '../webhooks/webhook-processor.js';
import type { StoreState } from './store-health.js';

const JOBS: readonly SyncJob[] = ['sync-catalog', 'sync-stock'];

export interface Readiness {
  readonly ready: boolean;
  readonly [detail: string]: unknown;
}

/** Whether a job runs now, and when it runs next: its retry after a failure, or its next scheduled run. */
export interface JobTiming {
  readonly running: boolean;
  readonly next: Date | undefined;
}

/**
 * Why no catalog is served yet, in one sentence for `/readyz` and the status page: the first sync from
 * `source` is running, or it failed (or was refused) at a time and is tried again at another.
 */
export function waitingReason(source: string, report: SyncReport | undefined, timing: JobTiming | undefined): string {
  if (report === undefined || (report.outcome !== 'failed' && report.outcome !== 'refused')) {
    return `the first sync from ${source} is running`;
  }
  const what = report.outcome === 'failed' ? 'failed' : 'was refused by the publish guard';
  const next = timing?.running ? 'trying again now' : `next try at ${timing?.next?.toISOString() ?? 'the next scheduled run'}`;
  return `the first sync from ${source} ${what} at ${report.finishedAt}; ${next}`;
}

/** What `/readyz` reports: whether a catalog is served, how old, the last runs, webhooks, event-loop delay. */
export function createReadiness(deps: {
  readonly catalog: Pick<CatalogService, 'current' | 'lastReport'>;
  readonly webhooks: Pick<WebhookProcessor, 'stats'>;
  readonly eventLoop: () => object;
  readonly now: () => Date;
  /** The configured source, for people. */
  readonly source: string;
  /** Which POS is read (the sandbox with its URL, and why), for people. */
  readonly pos?: string;
  /** A stored catalog of another source, kept but not served. */
  readonly notServed?: () => NotServedCatalog | undefined;
  readonly timing?: (job: SyncJob) => JobTiming | undefined;
  /** Whether the bridge is shutting down: then not ready, so that a load balancer stops sending it requests. */
  readonly stopping?: () => boolean;
  /** Whether the store answers; while it does not, a served catalog is degraded. */
  readonly store?: () => StoreState;
  /** With several instances on Redis: this instance's role and how far behind the group it is. */
  readonly group?: () => GroupStatus | undefined;
  /** The enrichment sheet (`ENRICHMENT_SOURCE`): the one in use and the last problem. */
  readonly enrichment?: () => EnrichmentStatus | undefined;
  /** What the operator should fix (empty channel feeds, an enrichment sheet that failed); not degraded. */
  readonly warnings?: () => readonly string[];
  /** Per configured channel: the push's state (docs/channel-push.md); `undefined` when none is configured. */
  readonly push?: () => object | undefined;
}): () => Readiness {
  const { catalog, webhooks, now } = deps;
  return () => {
    if (deps.stopping?.() === true) {
      return { ready: false, reason: 'shutting down: finishing the requests in flight', stopping: true };
    }
    const snapshot = catalog.current();
    const lastRuns: Record<string, unknown> = {};
    for (const job of JOBS) {
      const report = catalog.lastReport(job);
      const timing = deps.timing?.(job);
      const retrying = report?.outcome === 'failed' && timing?.running === false && timing.next !== undefined;
      lastRuns[job] = report
        ? {
            outcome: report.outcome,
            finishedAt: report.finishedAt,
            durationMs: report.durationMs,
            ...(report.error ? { error: report.error } : {}),
            ...(report.reason ? { reason: report.reason } : {}),
            ...(timing?.running ? { running: true } : {}),
            ...(retrying ? { nextTryAt: timing.next?.toISOString() } : {}),
          }
        : null;
    }
    const store = deps.store?.();
    const group = deps.group?.();
    const groupProblem = groupProblemOf(group);
    const degraded =
      store?.up === false ||
      groupProblem !== undefined ||
      JOBS.some((job) => {
        const outcome = catalog.lastReport(job)?.outcome;
        return outcome === 'failed' || outcome === 'refused';
      });
    const enrichment = enrichmentSummary(deps.enrichment?.());
    const push = deps.push?.();
    const common = {
      source: deps.source,
      ...(deps.pos === undefined ? {} : { pos: deps.pos }),
      warnings: deps.warnings?.() ?? [],
      ...(enrichment === undefined ? {} : { enrichment }),
      ...(store === undefined ? {} : { store }),
      ...(group === undefined ? {} : { group }),
      ...(push === undefined ? {} : { push }),
      jobs: lastRuns,
      webhooks: webhooks.stats(),
      eventLoopDelay: deps.eventLoop(),
    };
    if (snapshot === undefined) {
      const report = catalog.lastReport('sync-catalog');
      const timing = deps.timing?.('sync-catalog');
      const notServed = deps.notServed?.();
      return {
        ready: false,
        reason: waitingReason(deps.source, report, timing),
        ...(report?.outcome === 'failed' ? { failedAt: report.finishedAt } : {}),
        ...(report?.outcome === 'refused' ? { refusedAt: report.finishedAt } : {}),
        ...(report !== undefined && timing?.running === false && timing.next !== undefined
          ? { nextTryAt: timing.next.toISOString() }
          : {}),
        ...(notServed === undefined ? {} : { storedCatalogNotServed: notServed }),
        ...common,
      };
    }
    return {
      ready: true,
      degraded,
      ...(store?.up === false
        ? { reason: `the store does not answer since ${store.since}: ${store.reason ?? ''}` }
        : groupProblem === undefined
          ? {}
          : { reason: groupProblem }),
      version: snapshot.version,
      generatedAt: snapshot.generatedAt,
      ageSeconds: Math.max(0, Math.round((now().getTime() - Date.parse(snapshot.generatedAt)) / 1000)),
      products: snapshot.products.length,
      units: snapshot.units.map((unit) => unit.code),
      ...common,
    };
  };
}

/**
 * The enrichment sheet as `/readyz` (no token) shows it: counts and codes, never the sheet's cells (its
 * problems quote them); the details are on the status page and in `/feeds`, behind `FEED_TOKEN`.
 */
function enrichmentSummary(status: EnrichmentStatus | undefined): object | undefined {
  if (status === undefined) return undefined;
  const { current, problem } = status;
  return {
    source: status.source,
    ...(status.lastCheckAt === undefined ? {} : { lastCheckAt: status.lastCheckAt }),
    ...(current === undefined
      ? {}
      : {
          current: {
            fetchedAt: current.fetchedAt,
            rows: current.check.rows,
            groups: current.check.groups,
            problemCount: current.check.problemCount ?? 0,
          },
        }),
    ...(problem === undefined ? {} : { problem: { at: problem.at, code: problem.code } }),
  };
}

/** Why the group makes this instance degraded: Redis does not answer, or it serves an older version than the group. */
function groupProblemOf(group: GroupStatus | undefined): string | undefined {
  if (group === undefined) return undefined;
  if (group.error !== undefined) return `the group's Redis does not answer: ${group.error}`;
  if (group.behind > 0)
    return `this instance is ${group.behind} change(s) behind the group's version ${group.groupVersion ?? ''}`;
  return undefined;
}
