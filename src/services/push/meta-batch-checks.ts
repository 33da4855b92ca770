import type { MetaBatchStatus } from '../../core/push/meta-batch-status.js';
import { PUSH_MASK, type PushOutbox } from '../../core/push/outbox.js';
import type { CatalogLogger } from '../catalog/catalog-types.js';
import type { MetaBatchVerdicts } from './meta-verdicts.js';
import { cutPushError } from './push-worker.js';

/**
 * Meta ingests an accepted `items_batch` call later; its handle tells how that went (docs/decisions/
 * 0013-channel-push.md, "Meta `items_batch`", "Status"). The leader keeps each handle with the targets it
 * acked, **in memory**: a restart or a leader change loses only the checks of the last minutes, and the
 * nightly reconciliation sends every item whole again. Every `intervalMs` (30 s) the due handles are asked:
 * - scheduled / dispatched / started: asked again later;
 * - finished: the ids Meta found invalid are enqueued again as FULL (the whole item) once; an id invalid
 *   again is rejected (counted, its message kept as the channel's last error);
 * - error / canceled: every target of the call is enqueued again as FULL;
 * - the check itself failed: asked again after `Retry-After` or the interval.
 * Re-enqueues go through the outbox like the deriver's (`enqueue` with the stored cursor left as it is), so
 * they coalesce with newer changes and the worker sends them from the version served then.
 */

export const META_CHECK_INTERVAL_MS = 30_000;
/** Handles kept at most; past it the oldest is forgotten (the reconciliation repairs what it held). */
export const META_MAX_HANDLES = 10_000;
/** Ids re-enqueued once that are remembered; past it the oldest is forgotten (then re-enqueued once more). */
const MAX_RETRIED_IDS = 100_000;

export interface MetaBatchChecksDeps {
  readonly outbox: Pick<PushOutbox, 'cursor' | 'enqueue' | 'reject'>;
  readonly check: (handle: string) => Promise<MetaBatchStatus>;
  readonly now: () => number;
  /** In a group: the lease holder's fence, so a leader that lost its lease enqueues nothing. */
  readonly fence?: () => string | undefined;
  readonly intervalMs?: number;
  /** Called after targets were enqueued again (wakes the Meta worker). */
  readonly onEnqueued?: () => void;
  /**
   * The channel's message, for the worker's status and state (`lastError`; `lastRejected` when `rejected`:
   * an item dropped for good, else a batch enqueued again).
   */
  readonly onError?: (message: string, rejected: boolean) => void;
  /**
   * A finished batch's per-item outcome (Meta's verdicts, docs/channel-push.md#metas-verdicts): the ids it found
   * invalid with its message, and the ids sent whole or deleted it took clean.
   */
  readonly onVerdicts?: (verdicts: MetaBatchVerdicts) => Promise<void>;
  readonly logger: CatalogLogger;
}

export interface MetaBatchChecks {
  /**
   * Keeps an accepted call's handle with the targets it acked (the Meta client's `onHandle`). `settling`: the
   * targets sent whole or deleted (a clean ingest then clears their errors, see `onVerdicts`); a field
   * update's clean ingest says nothing of a whole item Meta refused before.
   */
  track(handle: string, targets: readonly string[], settling?: readonly string[]): void;
  /**
   * Asks every due handle once and acts on the answers; what is still open stays for a later round. Ends
   * early, between handles, once `stopped` answers true (a shutdown).
   */
  checkDue(stopped?: () => boolean): Promise<void>;
  /** Handles not yet final. */
  open(): number;
}

interface Tracked {
  readonly targets: readonly string[];
  readonly settling: ReadonlySet<string>;
  /** When the call was sent. */
  readonly sentMs: number;
  dueMs: number;
}

export function createMetaBatchChecks(deps: MetaBatchChecksDeps): MetaBatchChecks {
  const intervalMs = deps.intervalMs ?? META_CHECK_INTERVAL_MS;
  const handles = new Map<string, Tracked>();
  const retried = new Set<string>();

  async function enqueueFull(targets: readonly string[]): Promise<boolean> {
    if (targets.length === 0) return true;
    const cursor = await deps.outbox.cursor();
    // The cursor stays: these are not a new version's changes. A deriver that enqueued meanwhile makes this stale.
    if (cursor === undefined) return false;
    const atMs = deps.now();
    const updates = targets.map((target) => ({ channel: 'meta' as const, target, mask: PUSH_MASK.FULL, atMs }));
    const result = await deps.outbox.enqueue(cursor, cursor, updates, deps.fence?.());
    if (result.ok) deps.onEnqueued?.();
    return result.ok;
  }

  function recordError(message: string, rejected: boolean): void {
    deps.onError?.(cutPushError(message), rejected);
  }

  /** Invalid ids: the first time enqueued again whole, the second time rejected with Meta's message. */
  async function invalid(tracked: Tracked, status: Extract<MetaBatchStatus, { kind: 'finished' }>): Promise<boolean> {
    const mine = new Set(tracked.targets);
    const again: string[] = [];
    const rejected: string[] = [];
    for (const id of status.invalidIds) {
      const target = `m:${id}`;
      if (!mine.has(target)) continue;
      if (retried.has(target)) rejected.push(target);
      else again.push(target);
    }
    if (!(await enqueueFull(again))) return false;
    await recordVerdicts(tracked, status);
    for (const target of again) remember(target);
    let last: string | undefined;
    for (const target of rejected) {
      retried.delete(target);
      const id = target.slice(2);
      last = `Meta found item ${id} invalid again: ${status.messages?.[id] ?? 'invalid request'}`;
      // The row was acked when the call was accepted: this counts the refusal (and marks a newer row's error).
      await deps.outbox.reject('meta', target, -1, cutPushError(last));
    }
    if (last !== undefined) recordError(last, true);
    if (again.length + rejected.length > 0) {
      deps.logger.warn({ again: again.length, rejected: rejected.length }, 'push: Meta found items of a batch invalid');
    }
    return true;
  }

  /** Meta's word on each item of the batch, kept against the item (a failure to keep it costs no re-send). */
  async function recordVerdicts(tracked: Tracked, status: Extract<MetaBatchStatus, { kind: 'finished' }>): Promise<void> {
    if (deps.onVerdicts === undefined) return;
    const invalidIds = new Set(status.invalidIds);
    const ids = tracked.targets.map((target) => target.slice(2));
    const invalid = ids
      .filter((id) => invalidIds.has(id))
      .map((id) => ({ id, message: status.messages?.[id] ?? 'Meta found the item invalid while ingesting it' }));
    // Only whole sends and deletions clear an error: a clean field update says nothing of the refused fields.
    const valid = ids.filter((id) => !invalidIds.has(id) && tracked.settling.has(`m:${id}`));
    await deps
      .onVerdicts({ invalid, valid, sentAt: new Date(tracked.sentMs).toISOString() })
      .catch((error: unknown) => deps.logger.warn({ err: error }, "push: Meta's verdicts on a batch not kept"));
  }

  function remember(target: string): void {
    retried.delete(target);
    retried.add(target);
    if (retried.size > MAX_RETRIED_IDS) retried.delete(retried.values().next().value as string);
  }

  /** Acts on one answer; `false` keeps the handle for the next round (a re-enqueue that could not be written). */
  async function settle(handle: string, tracked: Tracked, status: MetaBatchStatus, now: number): Promise<boolean> {
    if (status.kind === 'pending') {
      tracked.dueMs = now + intervalMs;
      return false;
    }
    if (status.kind === 'retry') {
      tracked.dueMs = now + Math.max(intervalMs, status.afterMs ?? 0);
      return false;
    }
    if (status.kind === 'finished') return invalid(tracked, status);
    const written = await enqueueFull(tracked.targets);
    if (written) {
      recordError(`Meta batch ${handle} ended ${status.status}: ${tracked.targets.length} items sent again`, false);
    }
    return written;
  }

  return {
    track(handle, targets, settling = []) {
      const now = deps.now();
      handles.set(handle, { targets: [...targets], settling: new Set(settling), sentMs: now, dueMs: now + intervalMs });
      if (handles.size > META_MAX_HANDLES) handles.delete(handles.keys().next().value as string);
    },
    async checkDue(stopped = () => false) {
      for (const [handle, tracked] of [...handles]) {
        if (stopped()) return;
        const now = deps.now();
        if (tracked.dueMs > now) continue;
        const status = await deps.check(handle);
        if (await settle(handle, tracked, status, deps.now())) handles.delete(handle);
        else if (tracked.dueMs <= now) tracked.dueMs = deps.now() + intervalMs;
      }
    },
    open: () => handles.size,
  };
}
