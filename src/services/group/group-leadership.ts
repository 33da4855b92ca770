import type { CatalogService } from '../catalog/catalog-service.js';
import type { ServiceLogger as Logger } from '../logging/service-logger.js';
import type { CounterPort, GaugePort } from '../metrics/metric-ports.js';
import type { SharedInboxStats } from '../webhooks/webhook-inbox.js';
import { createGroupCoordinator, type GroupCoordinator } from './group-coordinator.js';
import { createGroupMonitor, type GroupMonitor, type GroupStatus } from './group-monitor.js';
import type { GroupRedis } from './group-redis.js';

/**
 * What this instance does in a group of instances on Redis (docs/scale-out.md): the lease, and as leader the
 * scheduled syncs, the jobs the others ask for and storing the catalog; as follower, jobs asked of the leader.
 */

/** A job's run as the scheduler reports it (`jobs/scheduler.ts`'s `JobOutcome`, which services do not import). */
export type GroupJobOutcome =
  | { readonly job: string; readonly ok: true; readonly startedAt: Date; readonly durationMs: number; readonly result: unknown }
  | { readonly job: string; readonly ok: false; readonly startedAt: Date; readonly durationMs: number; readonly error: Error };

/** The scheduler, as the group runs its jobs (a port: the scheduler lives in `jobs/`). */
export interface GroupJobs {
  runNow(job: string): Promise<GroupJobOutcome>;
}

/** The group's series (`catalog_bridge_group_*`, `catalog_bridge_webhook_inbox_*`). */
export interface GroupMetrics {
  readonly groupLeader: GaugePort;
  readonly groupLeaseRenewals: CounterPort;
  readonly groupTakeovers: CounterPort;
  readonly groupVersionsBehind: GaugePort;
  readonly inboxDepth: GaugePort;
  readonly inboxPending: GaugePort;
  readonly inboxClaims: GaugePort;
}

export interface GroupLeadership {
  readonly coordinator: GroupCoordinator;
  /** After `coordinator.start()` and loading the stored catalog: follows the change stream, measures the group. */
  begin(deps: {
    readonly catalog: CatalogService;
    readonly jobs: GroupJobs;
    readonly inboxStats: (() => Promise<SharedInboxStats>) | undefined;
  }): Promise<void>;
  /** `POST /admin/sync`: on the leader, here or there; with no leader, here after taking the lease. */
  runJob(job: string): Promise<GroupJobOutcome>;
  status(): GroupStatus | undefined;
  /** Stops leading (the lease is released: another instance takes over at once) and following. */
  stop(): Promise<void>;
}

export interface GroupLeadershipDeps {
  readonly redis: GroupRedis;
  readonly instance: string;
  readonly leaseMs: number;
  /** How long a follower waits for the leader to answer a job it asked for. */
  readonly remoteJobTimeoutMs: number;
  readonly metrics: GroupMetrics;
  readonly logger: Logger;
  readonly now: () => Date;
}

export function createGroupLeadership(deps: GroupLeadershipDeps): GroupLeadership {
  const { redis, metrics, logger: log, now } = deps;
  let jobs: GroupJobs | undefined;
  let catalog: CatalogService | undefined;
  let serving: Promise<{ stop(): Promise<void> }> | undefined;
  let monitor: GroupMonitor | undefined;

  function onLeadership(leader: boolean): void {
    metrics.groupLeader.set(leader ? 1 : 0);
    if (leader) {
      serving ??= redis.serveJobRequests(async (job) => {
        const outcome = await (jobs as GroupJobs).runNow(job);
        return outcome.ok ? outcome.result : Promise.reject(outcome.error);
      });
      serving.catch((error: unknown) => log.warn({ err: error }, 'could not listen for job requests'));
      // What the followers served while nobody stored it (this instance just took over) goes to the store.
      catalog?.flush().catch((error: unknown) => log.warn({ err: error }, 'could not store the served catalog'));
      // Taking over a group that serves nothing yet (the leader died before its first sync): sync now.
      if (catalog !== undefined && catalog.current() === undefined) {
        jobs?.runNow('sync-catalog').catch((error: unknown) => log.warn({ err: error }, 'the sync on taking over failed'));
      }
    } else {
      const stopping = serving;
      serving = undefined;
      void stopping?.then((subscription) => subscription.stop()).catch(() => undefined);
    }
  }

  const coordinator = createGroupCoordinator({
    lease: redis.lease,
    instance: deps.instance,
    leaseMs: deps.leaseMs,
    logger: log,
    onLeadership,
    onRenewal: () => metrics.groupLeaseRenewals.inc(),
    heartbeat: () => redis.switching.heartbeat(),
    onTakeover: () => metrics.groupTakeovers.inc(),
  });

  async function runHere(job: string): Promise<GroupJobOutcome> {
    return (jobs as GroupJobs).runNow(job);
  }

  return {
    coordinator,
    async begin(begun) {
      jobs = begun.jobs;
      catalog = begun.catalog;
      metrics.groupLeader.set(coordinator.isLeader() ? 1 : 0);
      begun.catalog.startFollowing();
      monitor = createGroupMonitor({
        coordinator,
        catalog: begun.catalog,
        inboxStats: begun.inboxStats,
        now,
        onStatus(status) {
          metrics.groupVersionsBehind.set(status.behind);
          if (status.inbox !== undefined) {
            metrics.inboxDepth.set(status.inbox.depth);
            metrics.inboxPending.set(status.inbox.pending);
            metrics.inboxClaims.set(status.inbox.claimed);
          }
        },
      });
      monitor.start();
      await monitor.refresh().catch(() => undefined);
    },
    async runJob(job) {
      if (coordinator.isLeader()) return runHere(job);
      const startedAt = now();
      const began = performance.now();
      const answer = await redis.requestJob(job, deps.remoteJobTimeoutMs);
      if (answer === undefined) {
        // Nobody leads (the leader just died): lead, and run it here.
        if (await coordinator.tryLead()) return runHere(job);
        throw new Error('no instance of the group leads now and this one could not take the lease; try again');
      }
      const durationMs = performance.now() - began;
      return answer.ok
        ? { job, ok: true, startedAt, durationMs, result: answer.result }
        : { job, ok: false, startedAt, durationMs, error: new Error(answer.error ?? 'the leader failed to run it') };
    },
    status: () => monitor?.status(),
    async stop() {
      monitor?.stop();
      await Promise.all([coordinator.stop(), catalog?.stopFollowing()]);
    },
  };
}
