import type { GroupSwitch } from '../catalog/group-switch.js';
import type { LeaderLease } from './leader-lease.js';

/** What a job run on the leader for another instance answered. */
export interface RemoteRun {
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: string;
}

/**
 * The port of the group's Redis connection as leadership uses it (`adapters/group/redis-group.ts` implements it):
 * the lease, the catalog switch, and jobs asked of the leader.
 */
export interface GroupRedis {
  readonly lease: LeaderLease;
  readonly switching: GroupSwitch;
  /** On the leader: runs the jobs other instances ask for, until `stop` is called. */
  serveJobRequests(run: (job: string) => Promise<unknown>): Promise<{ stop(): Promise<void> }>;
  /**
   * Asks the leader to run `job` and waits for its answer; `undefined` when no leader listens (the caller
   * may take the lease and run it itself).
   */
  requestJob(job: string, timeoutMs: number): Promise<RemoteRun | undefined>;
}
