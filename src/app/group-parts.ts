import { openRedisGroup, type RedisGroup } from '../adapters/group/redis-group.js';
import type { Config } from '../config/load-config.js';
import { createGroupLeadership, type GroupLeadership } from '../services/group/group-leadership.js';
import type { AppPart, Shared } from './app-part.js';
import { type GroupParts, instanceIdOf, isGroupStore } from './catalog-parts.js';

/**
 * Several instances on one Redis (docs/scale-out.md), wired: the group's Redis connection and this instance's
 * leadership (`services/group/group-leadership.ts`). `undefined` when the store is not Redis.
 */
export interface InstanceGroup extends GroupLeadership {
  readonly parts: GroupParts;
  readonly redis: RedisGroup;
  /** Takes part in the lease at start (before the stored catalog is loaded); closes the connection last. */
  readonly connectionPart: AppPart;
}

/** How long a follower waits for the leader to answer a job it asked for, beyond the sync's own deadline. */
const REMOTE_JOB_MARGIN_MS = 30_000;

export function createGroupParts(config: Config, shared: Shared): InstanceGroup | undefined {
  if (!isGroupStore(config)) return undefined;
  const instance = instanceIdOf(config);
  const redis = openRedisGroup(config.store.url, { instance, leaseMs: config.group.leaseMs });
  const leadership = createGroupLeadership({
    redis,
    instance,
    leaseMs: config.group.leaseMs,
    remoteJobTimeoutMs: config.sync.deadlineMs + REMOTE_JOB_MARGIN_MS,
    metrics: shared.metrics,
    logger: shared.logger.child({ component: 'group', instance }),
    now: shared.now,
  });
  return {
    ...leadership,
    parts: { redis, isLeader: leadership.coordinator.isLeader },
    redis,
    connectionPart: { name: 'group', start: () => leadership.coordinator.start(), stop: () => redis.close() },
  };
}
