import type { CatalogService, ReplicationState } from '../catalog/catalog-service.js';
import type { SharedInboxStats } from '../webhooks/webhook-inbox.js';
import type { GroupCoordinator, GroupRole } from './group-coordinator.js';

/** What `/readyz`, the status page and `/metrics` show of the group (docs/scale-out.md). */
export interface GroupStatus extends GroupRole {
  /** The version this instance serves. */
  readonly servedVersion: string | undefined;
  /** The version the group's change stream ends on. */
  readonly groupVersion: string | undefined;
  /** Changes of the group this instance has not applied yet. */
  readonly behind: number;
  readonly loads: number;
  readonly inbox: SharedInboxStats | undefined;
  /** When this was measured (ISO 8601). */
  readonly checkedAt: string;
}

/** Measurements in a row behind the group on one version before the stored version is loaded instead. */
const LAGGING_CHECKS = 5;

export interface GroupMonitor {
  start(): void;
  stop(): void;
  /** The last measurement; `undefined` before the first. */
  status(): GroupStatus | undefined;
  /** Measures now. */
  refresh(): Promise<GroupStatus>;
}

/**
 * Measures the group every `intervalMs` (Redis round trips: not on every `/readyz`). A measurement that
 * fails (Redis does not answer) keeps the role, which needs no Redis, and says why.
 */
export function createGroupMonitor(deps: {
  readonly coordinator: GroupCoordinator;
  readonly catalog: Pick<CatalogService, 'current' | 'groupState' | 'catchUpWithGroup'>;
  readonly inboxStats: (() => Promise<SharedInboxStats>) | undefined;
  readonly now: () => Date;
  readonly intervalMs?: number;
  readonly onStatus?: (status: GroupStatus) => void;
}): GroupMonitor {
  let last: GroupStatus | undefined;
  let timer: NodeJS.Timeout | undefined;
  let lagging = 0;

  async function refresh(): Promise<GroupStatus> {
    const role = deps.coordinator.state();
    let replication: ReplicationState | undefined;
    let inbox: SharedInboxStats | undefined;
    let error = role.error;
    try {
      [replication, inbox] = await Promise.all([deps.catalog.groupState(), deps.inboxStats?.()]);
    } catch (failure) {
      error ??= failure instanceof Error ? failure.message : String(failure);
    }
    // Polling as the fallback of the change stream: behind for a while on the same version, catch up.
    const servedVersion = deps.catalog.current()?.version;
    lagging = (replication?.behind ?? 0) > 0 && servedVersion === last?.servedVersion ? lagging + 1 : 0;
    if (lagging >= LAGGING_CHECKS) {
      lagging = 0;
      await deps.catalog.catchUpWithGroup().catch(() => false);
    }
    const status: GroupStatus = {
      ...role,
      error,
      servedVersion: deps.catalog.current()?.version,
      groupVersion: replication?.groupVersion ?? last?.groupVersion,
      behind: replication?.behind ?? last?.behind ?? 0,
      loads: replication?.loads ?? last?.loads ?? 0,
      inbox: inbox ?? last?.inbox,
      checkedAt: deps.now().toISOString(),
    };
    last = status;
    deps.onStatus?.(status);
    return status;
  }

  return {
    start() {
      timer ??= setInterval(() => void refresh().catch(() => undefined), deps.intervalMs ?? 1_000);
      timer.unref();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
    status() {
      if (last === undefined) return undefined;
      // The role is known without Redis, and changes between measurements.
      const role = deps.coordinator.state();
      return { ...last, ...role, error: role.error ?? last.error, servedVersion: deps.catalog.current()?.version };
    },
    refresh,
  };
}
