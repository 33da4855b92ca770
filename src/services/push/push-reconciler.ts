import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { createMutex } from '../../core/async/create-mutex.js';
import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import { fullReconciliation, type PushTargetsConfig } from '../../core/push/derive-updates.js';
import type { PendingUpdate, PushOutbox } from '../../core/push/outbox.js';
import type { PushChannel } from '../../core/push/push-channel.js';
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
 *
 * A channel with a `budget` (Google: a share of the day's quota left, PUSH_GOOGLE_RECONCILE_SHARE) gets at
 * most that many targets per run, whole products from where the last run stopped (`reconcileFrom` in its
 * state), wrapping at the end: 100,000 products × 5 units would take more than Google's daily quota in one
 * run and starve the live changes until 12:00 UTC (decision 0013, section 5).
 */

export interface PushReconcilerDeps {
  readonly catalog: { current(): CatalogSnapshot | undefined };
  readonly outbox: Pick<PushOutbox, 'cursor' | 'enqueue' | 'patchState' | 'state'>;
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
  /** Targets one run may enqueue per channel (read at the run's start); a channel without one gets them all. */
  readonly budget?: Partial<Record<PushChannel, () => number | undefined>>;
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

/** The targets config without `channels`. */
function withoutChannels(config: PushTargetsConfig, channels: readonly PushChannel[]): PushTargetsConfig {
  const kept = (['google', 'shoptet', 'meta'] as const).filter((channel) => !channels.includes(channel));
  return onlyChannels(config, kept);
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
    const budgets = budgetsOf(config);
    const whole = withoutChannels(config, Object.keys(budgets) as PushChannel[]);
    const perProduct = Math.max(1, targetsPerProduct(config));
    const sliceProducts = Math.max(1, Math.floor((deps.chunkSize ?? PUSH_ENQUEUE_CHUNK) / perProduct));
    const startMs = deps.now();
    const counts: Partial<Record<PushChannel, number>> = {};
    const due = (update: PendingUpdate): PendingUpdate => {
      const index = counts[update.channel] ?? 0;
      counts[update.channel] = index + 1;
      const pace = Math.max(1, deps.pace[update.channel] ?? 1);
      return { ...update, atMs: startMs + RECONCILE_LEAD_MS + Math.floor((index / pace) * 1000) };
    };
    deps.logger.info({ channels, version: snapshot.version, why }, 'push: reconciliation started');
    const hasWhole = targetsPerProduct(whole) > 0;
    for (let start = 0; hasWhole && start < snapshot.products.length; start += sliceProducts) {
      const slice = { ...snapshot, products: snapshot.products.slice(start, start + sliceProducts) };
      const refused = await enqueueSlice(fullReconciliation(whole, slice, 0).map(due));
      if (refused !== undefined) return stopped(refused, channels, why);
      deps.onEnqueued?.();
      await yieldToLoop();
    }
    const at = new Date(deps.now()).toISOString();
    const progress: Partial<Record<PushChannel, string>> = {};
    for (const [channel, budget] of Object.entries(budgets) as [PushChannel, number][]) {
      const part = await reconcilePart(channel, budget, snapshot, config, due, at);
      if ('reason' in part) return stopped(part, channels, why);
      progress[channel] = part.note;
    }
    for (const channel of channels) {
      if (!(channel in config)) continue;
      await deps.outbox.patchState(channel, { lastReconcile: at });
    }
    deps.logger.info({ channels, version: snapshot.version, targets: counts, progress, why }, 'push: reconciliation enqueued');
    return { ok: true, version: snapshot.version, targets: counts };
  }

  function stopped(refused: Extract<ReconcileOutcome, { ok: false }>, channels: readonly PushChannel[], why: string) {
    deps.logger.warn({ channels, reason: refused.reason, why }, 'push: reconciliation stopped');
    return refused;
  }

  /** The budgets of the chosen channels that have one (whole numbers ≥ 0). */
  function budgetsOf(config: PushTargetsConfig): Partial<Record<PushChannel, number>> {
    const budgets: Partial<Record<PushChannel, number>> = {};
    for (const [channel, read] of Object.entries(deps.budget ?? {}) as [PushChannel, () => number | undefined][]) {
      const budget = channel in config ? read() : undefined;
      if (budget !== undefined && Number.isFinite(budget)) budgets[channel] = Math.max(0, Math.floor(budget));
    }
    return budgets;
  }

  /**
   * One channel's part of the catalog within `budget` targets: whole products from the stored position,
   * wrapping at the end; the next position, a progress note and (when the end was passed) the time of the
   * last full pass are stored in the channel's state.
   */
  async function reconcilePart(
    channel: PushChannel,
    budget: number,
    snapshot: CatalogSnapshot,
    config: PushTargetsConfig,
    due: (update: PendingUpdate) => PendingUpdate,
    at: string,
  ): Promise<{ note: string } | Extract<ReconcileOutcome, { ok: false }>> {
    const only = onlyChannels(config, [channel]);
    const products = snapshot.products;
    const total = products.length;
    const stored = (await deps.outbox.state(channel)).reconcileFrom;
    const from = stored !== undefined && Number.isInteger(stored) && stored >= 0 && stored < total ? stored : 0;
    const chunk = deps.chunkSize ?? PUSH_ENQUEUE_CHUNK;
    let index = from;
    let taken = 0;
    let used = 0;
    let wrapped = false;
    let full = false;
    while (taken < total && !full) {
      const updates: PendingUpdate[] = [];
      while (taken < total && updates.length < chunk) {
        const product = products[index];
        const targets = product === undefined ? [] : fullReconciliation(only, { ...snapshot, products: [product] }, 0);
        if (used + targets.length > budget) {
          full = true;
          break;
        }
        used += targets.length;
        for (const update of targets) updates.push(due(update));
        taken += 1;
        index += 1;
        if (index >= total) {
          index = 0;
          wrapped = true;
        }
      }
      if (updates.length > 0) {
        const refused = await enqueueSlice(updates);
        if (refused !== undefined) return refused;
        deps.onEnqueued?.();
      }
      await yieldToLoop();
    }
    const passed = wrapped || (taken === total && total > 0);
    const note =
      taken === 0
        ? `no products this run (budget ${budget} targets); next from product ${from + 1} of ${total}`
        : `products ${from + 1}-${((from + taken - 1) % total) + 1} of ${total} this run (${used} targets, budget ${budget}); next from product ${index + 1}`;
    await deps.outbox.patchState(channel, {
      reconcileFrom: index,
      reconcileProgress: note,
      ...(passed ? { lastFullReconcile: at } : {}),
    });
    return { note };
  }

  return { reconcile: (channels, why) => serial(() => run(channels, why)) };
}
