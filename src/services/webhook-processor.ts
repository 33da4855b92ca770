import type { PosClient } from '../adapters/pos/pos-client.js';
import type { PosMovement, PosSaleEvent, PosWebhookEvent } from '../adapters/pos/pos-schema.js';
import type { StockDelta } from '../core/catalog/apply-stock.js';
import type { CatalogSnapshot } from '../core/catalog/catalog.js';
import type { FamilyIndex } from '../core/catalog/family-index.js';
import type { CatalogService } from './catalog/catalog-service.js';
import {
  createLastStockChanges,
  type LastStockChange,
  type LastStockChanges,
  saleChangeOf,
} from './products/last-stock-changes.js';
import { createMovementLookup, saleTimeOf } from './webhooks/movement-lookup.js';
import { ALL_UNITS_REREAD, createStockRereads } from './webhooks/stock-rereads.js';
import type { InboxEntry, WebhookInbox } from './webhooks/webhook-inbox.js';

/** Events the inbox keeps: the known kinds (unknown kinds are answered and dropped by the route). */
export type StoredWebhookEvent = Exclude<PosWebhookEvent, { kind: 'unknown' }>;

export interface WebhookProcessorOptions {
  /** Movements are looked for from this long before the earliest to this long after the latest sale of a batch. */
  readonly movementWindowMs: number;
  /** Attempts of a batch whose stock could not be re-read (POS down) before it is left to the scheduled stock sync. */
  readonly maxAttempts?: number;
  /** Wait before another attempt. */
  readonly retryDelayMs?: number;
  /** Most events processed together. */
  readonly batchSize?: number;
  /** Least time between re-reads of stock that only confirm applied movements. Default 2 s. */
  readonly refreshIntervalMs?: number;
}

export interface WebhookProcessorDeps {
  readonly inbox: WebhookInbox<StoredWebhookEvent>;
  readonly pos: Pick<PosClient, 'listMovements'>;
  readonly catalog: Pick<CatalogService, 'current' | 'applyStockDeltas' | 'syncStock' | 'flush' | 'familyIndex'>;
  readonly logger: {
    info(meta: object, message: string): void;
    warn(meta: object, message: string): void;
    error(meta: object, message: string): void;
  };
  readonly now: () => Date;
  readonly options: WebhookProcessorOptions;
  /** Observations for metrics: a processed sale and how long from acceptance until its stock was served. */
  readonly onSale?: (outcome: 'applied' | 'refetched' | 'dropped', latencyMs: number) => void;
}

export interface WebhookProcessor {
  /** Stores the event durably (docs/webhooks.md: before the 200), then queues it. */
  accept(dedupeKey: string, event: StoredWebhookEvent): Promise<{ readonly duplicate: boolean }>;
  /** Drops the inbox's events of another source, then queues what it still holds (events accepted before a restart). */
  resume(): Promise<number>;
  /** Settles when nothing is queued, running, or waiting to be completed (tests, shutdown). */
  idle(): Promise<void>;
  stop(): Promise<void>;
  /** For `/readyz` and the status page: what is waiting, and what happened to the sales since start. */
  stats(): WebhookStats;
  /** Which sale changed a product's stock last, as this instance processed it (a product's console page). */
  readonly lastChanges: Pick<LastStockChanges, 'of' | 'rereadOf'>;
}

export interface WebhookStats {
  /** Accepted events not yet out of the inbox (queued, being processed, or waiting for a retry). */
  readonly pending: number;
  readonly sales: Readonly<Record<'applied' | 'refetched' | 'dropped', number>>;
  /** When the last sale's stock was served (ISO 8601). */
  readonly lastSaleServedAt?: string;
}

/** All units of the catalog: a sale event without `unitId` (or with an unknown one). */
const ALL = ALL_UNITS_REREAD;

/**
 * What the bridge deduplicates on: the receipt (its `localId`, else number and time) for a sale; the
 * receipt and client for a points change. The same sale delivered twice has the same key.
 */
export function dedupeKeyOf(event: StoredWebhookEvent): string {
  if (event.kind === 'sale') {
    const receipt = event.data.localId ?? `${event.unitId ?? ''}|${event.data.number ?? ''}|${event.timestamp}`;
    return `sale|${receipt}`;
  }
  const receipt = event.data.receipt?.localId ?? `${event.data.receipt?.number ?? ''}|${event.timestamp}`;
  return `points|${receipt}|${event.data.client?.localId ?? ''}`;
}

/** The product a movement's article names: its `_id` as a `localId`, else a unique internal id, PLU or EAN. */
export function productIdOfMovement(index: FamilyIndex, movement: PosMovement): string | undefined {
  const article = movement.article;
  if (article === undefined) return undefined;
  if (article._id !== undefined && index.positions.has(article._id)) return article._id;
  const candidates = [
    article.internalIdentifier === undefined ? undefined : index.byInternal.get(article.internalIdentifier),
    article.plu === undefined ? undefined : index.byPlu.get(article.plu),
    article.ean === undefined ? undefined : index.byEan.get(article.ean),
  ];
  for (const candidate of candidates) if (typeof candidate === 'string') return candidate;
  return undefined;
}

/** The unit code a unit reference (`unitId` of an event, `unit` of a movement) names, by localId or code. */
function unitCodeOf(
  snapshot: CatalogSnapshot,
  ref: { readonly _id?: string | undefined; readonly code?: string | undefined } | string | undefined,
): string | undefined {
  if (ref === undefined) return undefined;
  const keys = typeof ref === 'string' ? [ref] : [ref.code, ref._id];
  for (const key of keys) {
    if (key === undefined) continue;
    const unit = snapshot.units.find((entry) => entry.code === key || entry.localId === key);
    if (unit !== undefined) return unit.code;
  }
  return undefined;
}

interface QueuedEntry {
  readonly entry: InboxEntry<StoredWebhookEvent>;
  readonly attempts: number;
  /** Monotonic ms when it was first queued (latency metric). */
  readonly queuedAt: number;
  /**
   * Set once the sale's movements were applied (or found missing): a retry then only re-reads these
   * units and stores the result, and never applies the movements twice.
   */
  readonly handled?: { readonly units: readonly string[] };
}

/**
 * Processes accepted webhook events (docs/webhooks.md). Sales are taken in batches: per unit (or across all
 * units for events without `unitId`), one movement-list call covering the batch's time window finds the
 * receipts' movements, which are applied to the served stock at once (`applyStockDeltas`); then the
 * stock of every affected unit is re-read from the POS (`syncStock({ units })`), coalesced: requests
 * during a re-read share the next one. A sale whose movements are not found only causes the re-read.
 * Events leave the inbox once their changes are stored and their units re-read; when the POS stays
 * down, a batch is retried a few times, then left to the scheduled stock sync. Points changes are
 * accepted, stored and counted; they do not change the catalog.
 */
export function createWebhookProcessor(deps: WebhookProcessorDeps): WebhookProcessor {
  const { inbox, pos, catalog, logger, options } = deps;
  const maxAttempts = options.maxAttempts ?? 5;
  const retryDelayMs = options.retryDelayMs ?? 5_000;
  const batchSize = options.batchSize ?? 500;
  const refreshIntervalMs = options.refreshIntervalMs ?? 2_000;
  const movements = createMovementLookup({ pos, logger, windowMs: options.movementWindowMs });
  const queue: QueuedEntry[] = [];
  const queuedIds = new Set<string>();
  let running: Promise<void> | undefined;
  const inFlight = new Set<Promise<unknown>>();
  const retryTimers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const sales = { applied: 0, refetched: 0, dropped: 0 };
  let lastSaleServedAt: string | undefined;
  function saleDone(outcome: keyof typeof sales, queued: QueuedEntry): void {
    sales[outcome] += 1;
    if (outcome !== 'dropped') lastSaleServedAt = deps.now().toISOString();
    deps.onSale?.(outcome, performance.now() - queued.queuedAt);
  }

  const rereads = createStockRereads(catalog, refreshIntervalMs);
  const lastChanges = createLastStockChanges();
  const changeOf = (queued: QueuedEntry, unit: string, how: LastStockChange['how'], delta?: number) =>
    saleChangeOf(queued.entry as InboxEntry<PosSaleEvent>, {
      unit,
      how,
      appliedAt: deps.now(),
      ...(delta === undefined ? {} : { delta }),
    });

  // ---- the queue --------------------------------------------------------------------------------
  function enqueue(queued: QueuedEntry): void {
    if (stopped || queuedIds.has(queued.entry.id)) return;
    queuedIds.add(queued.entry.id);
    queue.push(queued);
    kick();
  }

  function fresh(entry: InboxEntry<StoredWebhookEvent>): QueuedEntry {
    return { entry, attempts: 0, queuedAt: performance.now() };
  }

  function kick(): void {
    running ??= drain().finally(() => {
      running = undefined;
      // Queued after the loop's last look.
      if (queue.length > 0 && !stopped) kick();
    });
  }

  async function drain(): Promise<void> {
    // Let the events of one burst gather into one batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (queue.length > 0 && !stopped) {
      const batch = queue.splice(0, batchSize);
      try {
        await processBatch(batch);
      } catch (error) {
        logger.error({ err: error, events: batch.length }, 'webhook batch failed');
        retryLater(batch);
      }
    }
  }

  /** Removes events from the inbox; they stay known as queued until that is done (so `resume` skips them). */
  function complete(entries: readonly QueuedEntry[]): void {
    if (entries.length === 0) return;
    const ids = entries.map((queued) => queued.entry.id);
    track(
      inbox.complete(ids).finally(() => {
        for (const id of ids) queuedIds.delete(id);
      }),
    );
  }

  function retryLater(batch: readonly QueuedEntry[], counts = true): void {
    const step = counts ? 1 : 0;
    const again = batch.filter((queued) => queued.attempts + step < maxAttempts);
    const dropped = batch.filter((queued) => queued.attempts + step >= maxAttempts);
    if (dropped.length > 0) {
      logger.warn(
        { events: dropped.length },
        'webhook events dropped after failed attempts; the scheduled stock sync catches up',
      );
      for (const queued of dropped) if (queued.entry.event.kind === 'sale') saleDone('dropped', queued);
      complete(dropped);
    }
    if (again.length === 0) return;
    if (stopped) {
      // Left in the inbox for the next start.
      for (const queued of again) queuedIds.delete(queued.entry.id);
      return;
    }
    const timer = setTimeout(() => {
      retryTimers.delete(timer);
      // Still known as queued (see `complete`): straight back into the queue.
      for (const queued of again) queue.push({ ...queued, attempts: queued.attempts + step });
      kick();
    }, retryDelayMs);
    retryTimers.add(timer);
  }

  function track<T>(promise: Promise<T>): void {
    const settled = promise.then(
      () => undefined,
      (error: unknown) => logger.error({ err: error }, 'webhook inbox update failed'),
    );
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  }

  async function processBatch(batch: readonly QueuedEntry[]): Promise<void> {
    const snapshot = catalog.current();
    const sales = batch.filter((queued) => queued.entry.event.kind === 'sale');
    if (sales.length === 0) {
      // Points changes need nothing more.
      complete(batch);
      return;
    }
    if (snapshot === undefined) {
      // No catalog yet (first start): kept until there is one to apply them to; not a failed attempt.
      retryLater(batch, false);
      return;
    }

    // Per unit code (or ALL): the sales, and the POS's unit reference to filter movements by.
    const groups = new Map<string, { filterUnit: string | undefined; sales: QueuedEntry[] }>();
    const deltas: StockDelta[] = [];
    /** The sale of each delta, for `lastChanges` once they are applied. */
    const deltaSales: QueuedEntry[] = [];
    const refetchUnits = new Set<string>();
    const applied: QueuedEntry[] = [];
    const refetched: QueuedEntry[] = [];
    /** The batch as it is retried: what each sale did, so that a retry does not do it again. */
    const handled = new Map<QueuedEntry, string[]>();
    for (const queued of sales) {
      if (queued.handled === undefined) continue;
      for (const unit of queued.handled.units) refetchUnits.add(unit);
      handled.set(queued, [...queued.handled.units]);
    }
    for (const queued of sales) {
      if (queued.handled !== undefined) continue;
      const event = queued.entry.event as PosSaleEvent;
      const code = unitCodeOf(snapshot, event.unitId) ?? ALL;
      const group = groups.get(code) ?? { filterUnit: code === ALL ? undefined : event.unitId, sales: [] };
      group.sales.push(queued);
      groups.set(code, group);
    }

    // Every unit's movements at once: a slow answer for one unit does not hold up the others.
    const lookedUp = await Promise.all(
      [...groups].map(async ([code, group]) => {
        const sales = group.sales.map((queued) => ({
          queued,
          sale: queued.entry.event as PosSaleEvent,
          at: saleTimeOf(queued.entry.event.timestamp, queued.entry.receivedAt),
        }));
        return { code, sales, movements: await movements.find(sales, group.filterUnit) };
      }),
    );
    // Built in slices once per catalog family; the versions since `snapshot` are of its family or newer.
    const index = await catalog.familyIndex(catalog.current() ?? snapshot);
    for (const { code, sales, movements: found } of lookedUp) {
      for (const entry of sales) {
        const { queued } = entry;
        const own = found.get(entry) ?? [];
        const units = new Set<string>();
        for (const movement of own) {
          const unitCode = unitCodeOf(snapshot, movement.unit) ?? (code === ALL ? undefined : code);
          const articleId = productIdOfMovement(index, movement);
          if (unitCode === undefined || articleId === undefined) continue;
          deltas.push({ unitCode, articleId, delta: movement.count });
          deltaSales.push(queued);
          units.add(unitCode);
        }
        if (units.size > 0) applied.push(queued);
        else {
          refetched.push(queued);
          units.add(code);
        }
        for (const unit of units) refetchUnits.add(unit);
        handled.set(queued, [...units]);
      }
    }

    const result = deltas.length > 0 ? await catalog.applyStockDeltas(deltas) : undefined;
    for (const [i, delta] of deltas.entries()) {
      lastChanges.record(delta.articleId, changeOf(deltaSales[i] as QueuedEntry, delta.unitCode, 'movements', delta.delta));
    }
    for (const queued of refetched) {
      for (const unit of handled.get(queued) ?? []) lastChanges.recordReread(changeOf(queued, unit, 'reread'));
    }
    for (const queued of applied) saleDone('applied', queued);
    const reread = rereads.request(refetchUnits, refetched.length > 0).then(() => {
      for (const queued of refetched) saleDone('refetched', queued);
    });
    // What the store holds once this settles includes the applied movements (and, for a retry, whatever
    // its earlier attempt served).
    const stored = result?.persisted ?? catalog.flush();
    const retry = (entries: readonly QueuedEntry[]) => (error: unknown) => {
      logger.warn({ err: error, events: entries.length }, 'stock after webhooks not re-read or stored; retrying');
      retryLater(
        entries.map((queued) => {
          const units = handled.get(queued);
          return units === undefined ? queued : { ...queued, handled: { units: units.includes(ALL) ? [ALL] : units } };
        }),
      );
    };
    // Sales whose movements were applied now (and points changes) are done once the store has them: the
    // re-read only confirms them, and completing them at once leaves no window in which a restart would
    // apply them again. Sales shown only by the re-read (and retries) wait for it.
    const byStore = batch.filter(
      (queued) => queued.entry.event.kind !== 'sale' || (applied.includes(queued) && queued.handled === undefined),
    );
    const byReread = batch.filter((queued) => !byStore.includes(queued));
    track(stored.then(() => complete(byStore), retry(byStore)));
    track(Promise.all([stored, reread]).then(() => complete(byReread), retry(byReread)));
  }

  return {
    async accept(dedupeKey, event) {
      const { entry, duplicate } = await inbox.accept(dedupeKey, event, deps.now());
      // A shared inbox hands the event to one instance of the group, maybe this one (`resume`).
      if (!duplicate && inbox.shared === undefined) enqueue(fresh(entry));
      return { duplicate };
    },
    async resume() {
      if (inbox.shared !== undefined) {
        inbox.shared.consume((entries) => {
          for (const entry of entries) enqueue(fresh(entry));
        });
        return 0;
      }
      const discarding = inbox.discardForeign();
      track(discarding);
      const discarded = await discarding;
      if (discarded > 0) {
        // Another POS's sales (the sandbox's, say) must not move this one's stock; the start sync reads it anyway.
        logger.warn({ events: discarded }, 'dropped webhook events accepted for another source');
      }
      const loading = inbox.pending();
      // `idle()` waits for it too.
      track(loading);
      const pending = await loading;
      for (const entry of pending) enqueue(fresh(entry));
      return pending.length;
    },
    async idle() {
      while (!stopped) {
        const busy = [running, ...rereads.busy(), ...inFlight].filter((promise) => promise !== undefined);
        if (busy.length === 0 && queue.length === 0 && retryTimers.size === 0) return;
        await Promise.allSettled(busy);
        if (busy.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    lastChanges,
    stats() {
      return { pending: queuedIds.size, sales: { ...sales }, ...(lastSaleServedAt === undefined ? {} : { lastSaleServedAt }) };
    },
    async stop() {
      stopped = true;
      rereads.stop();
      for (const timer of retryTimers) clearTimeout(timer);
      retryTimers.clear();
      // Work already started may start more (a batch's re-read, then its completion): wait for all of it.
      for (;;) {
        const busy = [running, ...rereads.busy(), ...inFlight].filter((promise) => promise !== undefined);
        if (busy.length === 0) return;
        await Promise.allSettled(busy);
      }
    },
  };
}
