/**
 * The durable outbox of channel changes (docs/decisions/0013-channel-push.md, sections 1 and 3): one row
 * per (channel, target), merged on every enqueue, claimed with a lease by the leader's worker. The payload
 * is not stored: it is built at send time from the version served then, so coalescing is structural.
 */

import type { PushChannel, PushErrorCause } from './push-channel.js';

/** Bits of a row's `mask`: what changed since the channel was last told (decision 0013, section 1). */
export const PUSH_MASK = {
  PRICE: 1,
  SALE: 2,
  AVAIL: 4,
  STOCK: 8,
  ADDED: 16,
  REMOVED: 32,
  /** Re-send everything the channel should hold (reconciliation; also what ADDED + REMOVED net to). */
  FULL: 64,
} as const;

/** Every field bit: what "changed everything" sets besides FULL. */
export const PUSH_MASK_ALL_FIELDS = PUSH_MASK.PRICE | PUSH_MASK.SALE | PUSH_MASK.AVAIL | PUSH_MASK.STOCK;

export const PUSH_MASK_ADDED_AND_REMOVED = PUSH_MASK.ADDED | PUSH_MASK.REMOVED;

/**
 * Merges a pending row's mask with a new change: the bits are OR-ed, except that ADDED and REMOVED
 * together cancel to "changed everything" (FULL and every field), as the change log's `changesSince` nets
 * a removal and a re-addition. Which came last is not kept: the payload is built from the version served at
 * send time, so FULL sends what the channel should hold then (the item, or its removal).
 * Commutative and idempotent; the result never holds both ADDED and REMOVED.
 */
export function mergeMask(pending: number, incoming: number): number {
  const merged = pending | incoming;
  if ((merged & PUSH_MASK_ADDED_AND_REMOVED) !== PUSH_MASK_ADDED_AND_REMOVED) return merged;
  return (merged & ~PUSH_MASK_ADDED_AND_REMOVED) | PUSH_MASK_ALL_FIELDS | PUSH_MASK.FULL;
}

/**
 * Whether a row (by its merged mask) is a reconciliation's pure re-send, claimed only after every due live
 * change: exactly FULL. A live change merged into it (FULL plus a field, or ADDED + REMOVED netted to FULL
 * and every field) makes it high priority.
 */
export function isLowPriority(mask: number): boolean {
  return mask === PUSH_MASK.FULL;
}

/** One change to enqueue: what changed for one channel's target (`p:{id}`, `l:{id}:{unit}`, `s:{code}`, `m:{id}`). */
export interface PendingUpdate {
  readonly channel: PushChannel;
  readonly target: string;
  readonly mask: number;
  /** When the change was derived: a new row's `sinceMs`, and the row is due then (an earlier due time stays). */
  readonly atMs: number;
}

/** A pending row (decision 0013, section 1). */
export interface OutboxRow {
  readonly channel: PushChannel;
  readonly target: string;
  readonly mask: number;
  /** Incremented on every merge: an ack of an older gen leaves the row for the change that came meanwhile. */
  readonly gen: number;
  /** When the oldest change in this row was enqueued (the oldest-pending age on the status page). */
  readonly sinceMs: number;
  /** When the row may be claimed next (after a claim: the end of its lease). */
  readonly dueMs: number;
  /** Failed deliveries (retries) of this row so far. */
  readonly attempts: number;
  readonly lastError?: string;
}

/** A claimed row: `dueMs` is the end of the lease, after which it comes due again (a crashed leader). */
export type ClaimedRow = OutboxRow;

export type EnqueueResult =
  | { readonly ok: true }
  /** The stored cursor is not the expected one: another deriver enqueued meanwhile; nothing was written. */
  | { readonly ok: false; readonly reason: 'stale-cursor'; readonly cursor: string | undefined }
  /** The caller no longer holds the group lease (Redis only); nothing was written. */
  | { readonly ok: false; readonly reason: 'fenced' };

export interface OutboxStats {
  readonly pending: number;
  /** `sinceMs` of the oldest pending row; `undefined` when none is pending. */
  readonly oldestSinceMs?: number;
  /** Rows dropped by `reject` since the outbox was created. */
  readonly rejected: number;
}

/** What the status page shows per channel besides the counts (decision 0013, section 6). */
export interface PushChannelState {
  readonly lastSuccessAt?: string;
  readonly lastErrorAt?: string;
  /** The channel's own message (cut to 300 characters). */
  readonly lastError?: string;
  /** Why the last error happened (the warnings' PUSH_AUTH_FAILED, PUSH_RATE_LIMITED, PUSH_QUOTA_EXHAUSTED). */
  readonly lastErrorKind?: PushErrorCause;
  /** The first error since the last success: how long the channel has been failing (cleared by a success). */
  readonly failingSince?: string;
  /** When the channel last refused an item for good, and its message (PUSH_REJECTED). */
  readonly lastRejectedAt?: string;
  readonly lastRejected?: string;
  readonly quota?: { readonly used?: number; readonly limit?: number; readonly resetAt?: string };
  /** When the last full reconciliation of the channel was enqueued (ISO). */
  readonly lastReconcile?: string;
  /** A channel reconciled in parts (Google, PUSH_GOOGLE_RECONCILE_SHARE): the product index the next run starts at. */
  readonly reconcileFrom?: number;
  /** What the last run of such a channel covered, e.g. "products 1-20 of 60 this run (…); next from product 21". */
  readonly reconcileProgress?: string;
  /** When such a channel's runs last completed a pass over the whole catalog (ISO). */
  readonly lastFullReconcile?: string;
  /** The mode the channel last started in: a start live after a dry run reconciles the channel. */
  readonly lastMode?: 'live' | 'dry-run';
  /** Who paused the channel: PUSH_PAUSED (lifted when the setting no longer names it) or the operator. */
  readonly pausedBy?: 'config' | 'operator';
}

/** A change of some state fields: a value sets the field, `null` removes it, an absent field is kept. */
export type PushStatePatch = { readonly [K in keyof PushChannelState]?: PushChannelState[K] | null };

/** `state` with `patch` applied (the memory and SQLite outboxes; Redis sets each field in its hash). */
export function applyStatePatch(state: PushChannelState, patch: PushStatePatch): PushChannelState {
  const next: Record<string, unknown> = { ...state };
  for (const [field, value] of Object.entries(patch)) {
    if (value === null) delete next[field];
    else if (value !== undefined) next[field] = value;
  }
  return next as PushChannelState;
}

export interface PushOutbox {
  /**
   * In one transaction: refuses unless the stored cursor is `expectedCursor` (`undefined`: none stored
   * yet), merges each update into its row, and stores `newCursor`. `fence` is the lease holder's
   * `instance|token` in a group; the single-instance stores ignore it.
   */
  enqueue(
    expectedCursor: string | undefined,
    newCursor: string,
    updates: readonly PendingUpdate[],
    fence?: string,
  ): Promise<EnqueueResult>;
  /**
   * Up to `limit` rows of the channel due at `now`, each leased until `now + leaseMs`. Live changes go
   * first: the due high-priority rows (earliest due first), then the rest of `limit` from the due
   * low-priority ones (`isLowPriority`: a pure re-send of the reconciliation), so a sale never waits behind
   * a backlog of re-sends that came due faster than the channel sends them. Ties by target. `fence` as for
   * `enqueue`: in a group, an instance that no longer holds the lease claims nothing (the others ignore it).
   */
  claim(channel: PushChannel, now: number, limit: number, leaseMs: number, fence?: string): Promise<readonly ClaimedRow[]>;
  /** Delivered: deletes the row if it is still `gen`; else (merged during the send) it stays, due as merged. */
  ack(channel: PushChannel, target: string, gen: number): Promise<boolean>;
  /**
   * Delivery failed, try again: counts the attempt and keeps the error; the row is due at `dueMs` if it is
   * still `gen` (a merged row keeps its earlier due time: its newer change was never tried).
   */
  retry(channel: PushChannel, target: string, gen: number, dueMs: number, error: string): Promise<void>;
  /**
   * The channel refused the item for good: counts it (always) and drops the row if it is still `gen` (a
   * merged row stays, with the error: its newer change may be accepted). Returns whether the row was dropped.
   */
  reject(channel: PushChannel, target: string, gen: number, error: string): Promise<boolean>;
  stats(channel: PushChannel): Promise<OutboxStats>;
  /** The last version whose changes are in the outbox; `undefined` before the first enqueue. */
  cursor(): Promise<string | undefined>;
  paused(channel: PushChannel): Promise<boolean>;
  setPaused(channel: PushChannel, paused: boolean): Promise<void>;
  state(channel: PushChannel): Promise<PushChannelState>;
  /**
   * Sets the fields given, removes those given as `null`, keeps the others, atomically: the state has several
   * writers (the worker's results, the reconciliation, a channel's quota), and none may overwrite another's.
   */
  patchState(channel: PushChannel, patch: PushStatePatch): Promise<void>;
  close(): Promise<void>;
}
