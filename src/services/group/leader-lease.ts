/**
 * The port of the group's leader lease (docs/decisions/0010-scale-out-on-redis.md), as the coordinator
 * uses it; `adapters/group/redis-lease.ts` implements it in Redis.
 */

export interface LeaseHolder {
  readonly instance: string;
  readonly token: number;
}

/** The leader lease: taken when free, renewed and released only by its holder. */
export interface LeaderLease {
  /** The value held (`instance|token`), used by fenced writes; `undefined` when not held. */
  held(): string | undefined;
  /** Takes the lease if it is free; the fencing token when taken. */
  acquire(): Promise<number | undefined>;
  /** Whether the lease was still this instance's and was extended; when not, it is no longer held. */
  renew(): Promise<boolean>;
  /** Gives the lease up (shutdown), if it is still this instance's. */
  release(): Promise<void>;
  /** Who holds the lease now. */
  holder(): Promise<LeaseHolder | undefined>;
}
