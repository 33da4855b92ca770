import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { createMutex } from '../../core/async/create-mutex.js';
import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import { fullReconciliation, type PushTargetsConfig } from '../../core/push/derive-updates.js';
import type { PendingUpdate, PushChannel, PushOutbox } from '../../core/push/outbox.js';
import type { CatalogLogger } from '../catalog/catalog-types.js';
import { PUSH_ENQUEUE_CHUNK } from './push-deriver.js';

/**
 * The full reconciliation on demand (docs/decisions/0013-channel-push.md, section 5; docs/channel-push.md):
 * every target of the chosen channels is enqueued with FULL from the served version, so a lost update (the
 * channel answered success and did not apply it) or a dry run's "sent" changes are repaired.
 *
 * Two things keep it from hurting the live push:
 * - the event loop: the products are walked in slices, each enqueued as its own call, yielding between them
 *   (100,000 articles × 5 units are 500,000 targets);
 * - live changes go first: the new rows come due spread over time at about the channel's sending pace, so
 *   a sale derived meanwhile (due now) is claimed before the reconciliation's later rows. A row already
 *   pending keeps its earlier due time when FULL merges into it (the outbox's merge), so no live change waits.
 * The cursor is not moved: the reconciliation is enqueued with the stored cursor as both expected and new.
 */

export interface PushReconcilerDeps {
  readonly catalog: { current(): CatalogSnapshot | undefined };
  readonly outbox: Pick<PushOutbox, 'cursor' | 'enqueue' | 'patchState'>;
  /** Every enabled channel's targets; a call chooses among them. */
  readonly config: PushTargetsConfig;
  /** About how many targets per second each channel is sent at: its reconciliation rows come due at this pace. */
  readonly pace: Partial<Record<PushChannel, number>>;
  readonly now: () => number;
  readonly isLeader: () => boolean;
  /** The group lease holder's `instance|token` (Redis fencing); absent on a single instance. */
  readonly fence?: () => string | undefined;
  readonly logger: CatalogLogger;
  /** Targets per `enqueue` call at most (default PUSH_ENQUEUE_CHUNK, as the deriver). */
  readonly chunkSize?: number;
  /** Told after rows were enqueued (the workers' `wake`). */
  readonly onEnqueued?: () => void;
}

export type ReconcileOutcome =
  | { readonly ok: true; readonly version: string; readonly targets: Partial<Record<PushChannel, number>> }
  | {
      readonly ok: false;
      /**
       * `no-catalog`: nothing served yet; `not-leader`: only the group's leader pushes; `no-cursor`: nothing
       * was derived yet (the first derivation reconciles every target anyway); `fenced`: the lease was lost;
       * `stale-cursor`: the deriver kept moving the cursor (try again).
       */
      readonly reason: 'no-catalog' | 'not-leader' | 'no-cursor' | 'fenced' | 'stale-cursor';
    };

export interface PushReconciler {
  /** Enqueues FULL for every target of `channels` (enabled ones; others are ignored). One run at a time. */
  reconcile(channels: readonly PushChannel[], why: string): Promise<ReconcileOutcome>;
}

/** Rows of the reconciliation come due no sooner than this after it starts: changes derived meanwhile go first. */
export const RECONCILE_LEAD_MS = 1_000;

/** Tries per slice when the deriver moved the cursor in between (it is re-read each time). */
const STALE_TRIES = 5;

/** The targets config narrowed to `channels`. */
function onlyChannels(config: PushTargetsConfig, channels: readonly PushChannel[]): PushTargetsConfig {
  return {
    ...(config.google !== undefined && channels.includes('google') ? { google: config.google } : {}),
    ...(config.shoptet !== undefined && channels.includes('shoptet') ? { shoptet: config.shoptet } : {}),
    ...(config.meta !== undefined && channels.includes('meta') ? { meta: config.meta } : {}),
  };
}

/** How many targets one product gives at most (so a slice of products stays within the chunk size). */
function targetsPerProduct(config: PushTargetsConfig): number {
  return (
    (config.google === undefined ? 0 : 1 + config.google.localUnits.length) +
    (config.meta === undefined ? 0 : 1) +
    (config.shoptet === undefined ? 0 : 1)
  );
}

export function createPushReconciler(deps: PushReconcilerDeps): PushReconciler {
  const serial = createMutex();

  /** Enqueues one slice under the stored cursor; re-reads it when the deriver moved it meanwhile. */
  async function enqueueSlice(updates: readonly PendingUpdate[]): Promise<Extract<ReconcileOutcome, { ok: false }> | undefined> {
    for (let attempt = 0; attempt < STALE_TRIES; attempt += 1) {
      const cursor = await deps.outbox.cursor();
      if (cursor === undefined) return { ok: false, reason: 'no-cursor' };
      const result = await deps.outbox.enqueue(cursor, cursor, updates, deps.fence?.());
      if (result.ok) return undefined;
      if (result.reason === 'fenced') return { ok: false, reason: 'fenced' };
    }
    return { ok: false, reason: 'stale-cursor' };
  }

  async function run(channels: readonly PushChannel[], why: string): Promise<ReconcileOutcome> {
    const snapshot = deps.catalog.current();
    if (snapshot === undefined) return { ok: false, reason: 'no-catalog' };
    if (!deps.isLeader()) return { ok: false, reason: 'not-leader' };
    if ((await deps.outbox.cursor()) === undefined) return { ok: false, reason: 'no-cursor' };
    const config = onlyChannels(deps.config, channels);
    const perProduct = Math.max(1, targetsPerProduct(config));
    const sliceProducts = Math.max(1, Math.floor((deps.chunkSize ?? PUSH_ENQUEUE_CHUNK) / perProduct));
    const startMs = deps.now();
    const counts: Partial<Record<PushChannel, number>> = {};
    deps.logger.info({ channels, version: snapshot.version, why }, 'push: reconciliation started');
    for (let start = 0; start < snapshot.products.length; start += sliceProducts) {
      const slice = { ...snapshot, products: snapshot.products.slice(start, start + sliceProducts) };
      const updates = fullReconciliation(config, slice, 0).map((update) => {
        const index = counts[update.channel] ?? 0;
        counts[update.channel] = index + 1;
        const pace = Math.max(1, deps.pace[update.channel] ?? 1);
        return { ...update, atMs: startMs + RECONCILE_LEAD_MS + Math.floor((index / pace) * 1000) };
      });
      const refused = await enqueueSlice(updates);
      if (refused !== undefined) {
        deps.logger.warn({ channels, reason: refused.reason, why }, 'push: reconciliation stopped');
        return refused;
      }
      deps.onEnqueued?.();
      await yieldToLoop();
    }
    const at = new Date(deps.now()).toISOString();
    for (const channel of channels) {
      if (!(channel in config)) continue;
      await deps.outbox.patchState(channel, { lastReconcile: at });
    }
    deps.logger.info({ channels, version: snapshot.version, targets: counts, why }, 'push: reconciliation enqueued');
    return { ok: true, version: snapshot.version, targets: counts };
  }

  return { reconcile: (channels, why) => serial(() => run(channels, why)) };
}
