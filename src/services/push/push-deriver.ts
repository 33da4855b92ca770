import { createSlicer } from '../../core/async/create-slicer.js';
import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { ChangeLog, ItemChange } from '../../core/catalog/change-log.js';
import { deriveUpdates, fullReconciliation, type PushTargetsConfig, viewsNeeded } from '../../core/push/derive-updates.js';
import type { PendingUpdate, PushOutbox } from '../../core/push/outbox.js';
import { prepareProductLookup } from '../../core/push/product-lookup.js';
import type { CatalogLogger } from '../catalog/catalog-types.js';
import type { ServedCatalog } from '../catalog/served-catalog.js';

/**
 * Turns published versions into outbox rows (docs/decisions/0013-channel-push.md, section 2): on every change
 * of the served catalog, and only while this instance is the leader, it asks the change log for the changes
 * since the outbox's cursor and enqueues them with the new cursor. A cursor the change log does not know
 * (older than its window, a transition stored without its changes, no cursor yet) enqueues a full
 * reconciliation instead, so no change is lost silently.
 */

/** At most this many targets per `enqueue` call, so a reconciliation of 100,000 items is not one huge transaction. */
export const PUSH_ENQUEUE_CHUNK = 5_000;

/**
 * The cursor held while a reconciliation is enqueued in chunks from no cursor at all: the change log knows no
 * such version, so a crash before the last chunk reconciles again rather than trusting half of it.
 */
export const PUSH_CURSOR_RECONCILING = '!reconciling';

export interface PushDeriverDeps {
  readonly catalog: Pick<ServedCatalog, 'onChange' | 'current'>;
  readonly changeLog: Pick<ChangeLog, 'changesSince'>;
  readonly outbox: Pick<PushOutbox, 'cursor' | 'enqueue'>;
  readonly config: PushTargetsConfig;
  readonly isLeader: () => boolean;
  readonly now: () => number;
  /** The group lease holder's `instance|token` (Redis fencing); absent on a single instance. */
  readonly fence?: () => string | undefined;
  readonly logger: CatalogLogger;
  readonly chunkSize?: number;
  /** Told after changes were enqueued (the workers' `wake`), so delivery does not wait for the next poll. */
  readonly onEnqueued?: () => void;
}

export interface PushDeriver {
  /** Subscribes to the served catalog and catches up once (call again on becoming leader: `catchUp`). */
  start(): void;
  /** Enqueues what changed since the stored cursor; runs one at a time, a call during a run runs once more after it. */
  catchUp(): Promise<void>;
}

type Derived = { readonly kind: 'changes'; readonly updates: PendingUpdate[] } | { readonly kind: 'reconcile' };

async function derive(deps: PushDeriverDeps, cursor: string | undefined, snapshot: CatalogSnapshot): Promise<Derived> {
  if (cursor === undefined) return { kind: 'reconcile' };
  const changes = new Map<string, readonly ItemChange[]>();
  for (const view of viewsNeeded(deps.config)) {
    const result = await deps.changeLog.changesSince(cursor, view, snapshot.version);
    if (!result.ok) return { kind: 'reconcile' };
    changes.set(view, result.changes);
  }
  return { kind: 'changes', updates: deriveUpdates({ config: deps.config, changes, snapshot, atMs: deps.now() }) };
}

/**
 * Enqueues `updates` in chunks; only the last carries the new cursor, so a crash in between leaves the old
 * cursor and the next run derives the same changes again (merging them twice is harmless). Answers why the
 * outbox refused (another deriver moved the cursor, or this one lost the lease), or `ok`.
 */
async function enqueueChunks(
  deps: PushDeriverDeps,
  cursor: string | undefined,
  newCursor: string,
  updates: readonly PendingUpdate[],
  fence: string | undefined,
): Promise<Outcome> {
  const size = deps.chunkSize ?? PUSH_ENQUEUE_CHUNK;
  let expected = cursor;
  for (let start = 0; ; start += size) {
    const last = start + size >= updates.length;
    const keep = expected ?? PUSH_CURSOR_RECONCILING;
    const result = await deps.outbox.enqueue(expected, last ? newCursor : keep, updates.slice(start, start + size), fence);
    if (!result.ok) {
      deps.logger.warn({ reason: result.reason }, 'push: the outbox refused an enqueue');
      return result.reason;
    }
    if (last) return 'ok';
    expected = keep;
  }
}

type Outcome = 'ok' | 'stale-cursor' | 'fenced';

/** Products per `fullReconciliation` call: ~1–2 ms at 100,000 × 5 with every channel (11 targets a product). */
export const PUSH_RECONCILE_SLICE = 500;

/** `fullReconciliation` over the whole catalog in slices that yield (in one go it took ~200 ms at 100,000 × 5). */
async function reconcileSliced(config: PushTargetsConfig, snapshot: CatalogSnapshot, atMs: number): Promise<PendingUpdate[]> {
  const updates: PendingUpdate[] = [];
  const slicer = createSlicer();
  for (let start = 0; start < snapshot.products.length; start += PUSH_RECONCILE_SLICE) {
    const slice = { ...snapshot, products: snapshot.products.slice(start, start + PUSH_RECONCILE_SLICE) };
    for (const update of fullReconciliation(config, slice, atMs)) updates.push(update);
    await slicer.next();
  }
  return updates;
}

/**
 * One derivation under one `fence` (the lease value read once, so every chunk is fenced by the same lease);
 * answers `stale-cursor` when it should run again from the cursor another writer stored.
 */
async function runOnce(deps: PushDeriverDeps, fence: string | undefined): Promise<Outcome> {
  const snapshot = deps.catalog.current();
  if (snapshot === undefined || !deps.isLeader()) return 'ok';
  const cursor = await deps.outbox.cursor();
  if (cursor === snapshot.version) return 'ok';
  // A new catalog family (a full sync) is indexed in slices here, not in one stretch by the lookups below.
  await prepareProductLookup(snapshot);
  const derived = await derive(deps, cursor, snapshot);
  if (derived.kind === 'reconcile') {
    const updates = await reconcileSliced(deps.config, snapshot, deps.now());
    deps.logger.info(
      { cursor, version: snapshot.version, targets: updates.length },
      'push: cursor unknown, reconciling every target',
    );
    const outcome = await enqueueChunks(deps, cursor, snapshot.version, updates, fence);
    if (outcome === 'ok') deps.onEnqueued?.();
    return outcome;
  }
  const outcome = await enqueueChunks(deps, cursor, snapshot.version, derived.updates, fence);
  if (outcome === 'ok' && derived.updates.length > 0) deps.onEnqueued?.();
  return outcome;
}

/** Re-runs after a stale cursor per call: another writer moving it again and again is not chased forever. */
const MAX_STALE_RERUNS = 3;

export function createPushDeriver(deps: PushDeriverDeps): PushDeriver {
  let running: Promise<void> | undefined;
  let again = false;
  // The lease value an enqueue was fenced out with: this instance lost the lease (decision 0013, section 2).
  // Nothing is derived under it again; a new lease (leading again) has a new token, so deriving resumes.
  let fencedOut: { readonly fence: string | undefined } | undefined;

  const loop = async (): Promise<void> => {
    let stale = 0;
    do {
      again = false;
      try {
        const fence = deps.fence?.();
        if (fencedOut !== undefined && fencedOut.fence === fence) continue;
        const outcome = await runOnce(deps, fence);
        if (outcome === 'fenced') {
          fencedOut = { fence };
          deps.logger.warn({}, 'push: this instance no longer holds the group lease; deriving stops until it leads again');
        }
        // The changes are still unenqueued: derive again from the cursor now stored, without waiting for a change.
        if (outcome === 'stale-cursor' && stale < MAX_STALE_RERUNS) {
          stale += 1;
          again = true;
        }
      } catch (error) {
        // The cursor did not move: the next change (or catch-up) derives the same changes again.
        deps.logger.error({ err: error }, 'push: deriving changes failed');
      }
    } while (again);
  };

  const catchUp = (): Promise<void> => {
    if (running !== undefined) {
      again = true;
      return running;
    }
    running = loop().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    start() {
      deps.catalog.onChange(() => {
        void catchUp();
      });
      void catchUp();
    },
    catchUp,
  };
}
