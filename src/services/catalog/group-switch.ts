/**
 * The port of the group's catalog switch, as the catalog service uses it; `adapters/group/redis-switch.ts`
 * implements it under the leader's lease.
 */

/** Switching the group to a new catalog at one moment (docs/decisions/0010-scale-out-on-redis.md). */
export interface GroupSwitch {
  /** Counts this instance as a member of the group (every lease round). */
  heartbeat(): Promise<void>;
  /** This instance has loaded `version` and can serve it at once. */
  markReady(version: string): Promise<void>;
  /**
   * Waits until every other live member has loaded `version`, at most `timeoutMs`; resolves with how many
   * had, and how many were waited for.
   */
  waitReady(version: string, timeoutMs: number): Promise<{ readonly ready: number; readonly members: number }>;
  /** Makes `version` the group's (head and `serve` entry), under the lease. */
  switchTo(version: string, source: string): Promise<string>;
}
