import { openRedisGroup, type RedisGroup } from '../adapters/group/redis-group.js';
import type { Logger } from '../adapters/logger/create-logger.js';
import type { Metrics } from '../adapters/metrics/create-metrics.js';
import type { SharedInboxStats } from '../adapters/store/webhook-inbox.js';
import type { Config } from '../config/load-config.js';
import type { JobOutcome, Scheduler } from '../jobs/scheduler.js';
import type { CatalogService } from '../services/catalog-service.js';
import { createGroupCoordinator, type GroupCoordinator } from '../services/group/group-coordinator.js';
import { createGroupMonitor, type GroupMonitor, type GroupStatus } from '../services/group/group-monitor.js';
import { type GroupParts, instanceIdOf, isGroupStore } from './wiring.js';

/**
 * Several instances on one Redis (docs/scale-out.md), wired: the group's Redis parts, the lease, and
 * what this instance does as leader (scheduled syncs, jobs asked for by the others, storing the catalog).
 */
export interface InstanceGroup {
  readonly parts: GroupParts;
  readonly redis: RedisGroup;
  readonly coordinator: GroupCoordinator;
  /** After `coordinator.start()` and loading the stored catalog: follows the change stream, measures the group. */
  begin(deps: {
    readonly catalog: CatalogService;
    readonly jobs: Scheduler;
    readonly inboxStats: (() => Promise<SharedInboxStats>) | undefined;
  }): Promise<void>;
  /** `POST /admin/sync`: on the leader, here or there; with no leader, here after taking the lease. */
  runJob(job: string): Promise<JobOutcome>;
  status(): GroupStatus | undefined;
  /** Stops leading (the lease is released: another instance takes over at once) and following. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

/** How long a follower waits for the leader to answer a job it asked for, beyond the sync's own deadline. */
const REMOTE_JOB_MARGIN_MS = 30_000;

export function openInstanceGroup(config: Config, metrics: Metrics, logger: Logger): InstanceGroup | undefined {
  if (!isGroupStore(config)) return undefined;
  const instance = instanceIdOf(config);
  const log = logger.child({ component: 'group', instance });
  const redis = openRedisGroup(config.store.url, { instance, leaseMs: config.group.leaseMs });
  let jobs: Scheduler | undefined;
  let catalog: CatalogService | undefined;
  let serving: Promise<{ stop(): Promise<void> }> | undefined;
  let monitor: GroupMonitor | undefined;

  function onLeadership(leader: boolean): void {
    metrics.groupLeader.set(leader ? 1 : 0);
    if (leader) {
      serving ??= redis.serveJobRequests(async (job) => {
        const outcome = await (jobs as Scheduler).runNow(job);
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
    instance,
    leaseMs: config.group.leaseMs,
    logger: log,
    onLeadership,
    onRenewal: () => metrics.groupLeaseRenewals.inc(),
    heartbeat: () => redis.switching.heartbeat(),
    onTakeover: () => metrics.groupTakeovers.inc(),
  });

  async function runHere(job: string): Promise<JobOutcome> {
    return (jobs as Scheduler).runNow(job);
  }

  return {
    parts: { redis, isLeader: coordinator.isLeader },
    redis,
    coordinator,
    async begin(deps) {
      jobs = deps.jobs;
      catalog = deps.catalog;
      metrics.groupLeader.set(coordinator.isLeader() ? 1 : 0);
      deps.catalog.startFollowing();
      monitor = createGroupMonitor({
        coordinator,
        catalog: deps.catalog,
        inboxStats: deps.inboxStats,
        now: () => new Date(),
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
      const startedAt = new Date();
      const began = performance.now();
      const answer = await redis.requestJob(job, config.sync.deadlineMs + REMOTE_JOB_MARGIN_MS);
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
    close: () => redis.close(),
  };
}
