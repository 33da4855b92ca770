import type { PosClient } from '../adapters/pos/pos-client.js';
import type { PosMovement, PosSaleEvent, PosWebhookEvent } from '../adapters/pos/pos-schema.js';
import type { InboxEntry, WebhookInbox } from '../adapters/store/keyv-webhook-inbox.js';
import type { StockDelta } from '../core/catalog/apply-stock.js';
import type { CatalogSnapshot } from '../core/catalog/catalog.js';
import type { CatalogService, SyncReport } from './catalog-service.js';

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
}

export interface WebhookProcessorDeps {
  readonly inbox: WebhookInbox<StoredWebhookEvent>;
  readonly pos: Pick<PosClient, 'listMovements'>;
  readonly catalog: Pick<CatalogService, 'current' | 'applyStockDeltas' | 'syncStock'>;
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
  /** Stores the event durably (SPEC §6: before the 200), then queues it. */
  accept(dedupeKey: string, event: StoredWebhookEvent): Promise<{ readonly duplicate: boolean }>;
  /** Queues what the inbox still holds (events accepted before a restart). */
  resume(): Promise<number>;
  /** Settles when nothing is queued, running, or waiting to be completed (tests, shutdown). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** All units of the catalog: a sale event without `unitId` (or with an unknown one). */
const ALL = '*';

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

/** Lookup of products by the identifiers a movement's article carries (unique values only). */
interface ArticleLookup {
  readonly ids: ReadonlySet<string>;
  readonly byInternal: ReadonlyMap<string, string | null>;
  readonly byPlu: ReadonlyMap<number, string | null>;
  readonly byEan: ReadonlyMap<string, string | null>;
}

const lookups = new WeakMap<CatalogSnapshot, ArticleLookup>();

function lookupOf(snapshot: CatalogSnapshot): ArticleLookup {
  const known = lookups.get(snapshot);
  if (known !== undefined) return known;
  const byInternal = new Map<string, string | null>();
  const byPlu = new Map<number, string | null>();
  const byEan = new Map<string, string | null>();
  // `null` marks a value two products share: such a movement matches neither.
  const add = <K>(map: Map<K, string | null>, key: K | undefined, id: string) => {
    if (key === undefined) return;
    map.set(key, map.has(key) && map.get(key) !== id ? null : id);
  };
  const ids = new Set<string>();
  for (const product of snapshot.products) {
    ids.add(product.id);
    add(byInternal, product.internalIdentifier, product.id);
    add(byPlu, product.plu, product.id);
    add(byEan, product.ean, product.id);
  }
  const lookup = { ids, byInternal, byPlu, byEan };
  lookups.set(snapshot, lookup);
  return lookup;
}

/** The product a movement's article names: its `_id` as a `localId`, else a unique internal id, PLU or EAN. */
export function productIdOfMovement(snapshot: CatalogSnapshot, movement: PosMovement): string | undefined {
  const article = movement.article;
  if (article === undefined) return undefined;
  const lookup = lookupOf(snapshot);
  if (article._id !== undefined && lookup.ids.has(article._id)) return article._id;
  const candidates = [
    article.internalIdentifier === undefined ? undefined : lookup.byInternal.get(article.internalIdentifier),
    article.plu === undefined ? undefined : lookup.byPlu.get(article.plu),
    article.ean === undefined ? undefined : lookup.byEan.get(article.ean),
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

function timeOf(entry: InboxEntry<StoredWebhookEvent>): number {
  const stamp = Date.parse(entry.event.timestamp);
  return Number.isFinite(stamp) ? stamp : Date.parse(entry.receivedAt);
}

/** Whether a movement belongs to a sale's receipt (by receipt id, else number). */
function isOfReceipt(movement: PosMovement, sale: PosSaleEvent): boolean {
  const receipt = movement.warehouseOperation?.receipt;
  if (receipt === undefined) return false;
  if (sale.data.localId !== undefined && receipt._id !== undefined) return receipt._id === sale.data.localId;
  return sale.data.number !== undefined && receipt.number === sale.data.number;
}

interface QueuedEntry {
  readonly entry: InboxEntry<StoredWebhookEvent>;
  attempts: number;
  /** Monotonic ms when it was queued (latency metric). */
  readonly queuedAt: number;
}

/**
 * Processes accepted webhook events (SPEC §6). Sales are taken in batches: per unit (or across all
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
  const queue: QueuedEntry[] = [];
  const queuedIds = new Set<string>();
  let running: Promise<void> | undefined;
  const inFlight = new Set<Promise<unknown>>();
  const retryTimers = new Set<NodeJS.Timeout>();
  let stopped = false;

  // ---- coalesced re-reads of units' stock -------------------------------------------------------
  let refreshing: Promise<void> | undefined;
  let nextRefresh: Promise<void> | undefined;
  const refreshUnits = new Set<string>();

  function refresh(units: ReadonlySet<string>): Promise<void> {
    for (const unit of units) refreshUnits.add(unit);
    nextRefresh ??= (refreshing ?? Promise.resolve()).then(runRefresh, runRefresh);
    return nextRefresh;
  }

  async function runRefresh(): Promise<void> {
    nextRefresh = undefined;
    const units = refreshUnits.has(ALL) ? undefined : [...refreshUnits];
    refreshUnits.clear();
    const run = (async () => {
      const report: SyncReport = await catalog.syncStock(units === undefined ? {} : { units });
      if (report.outcome === 'failed') {
        throw new Error(`re-reading stock failed: ${report.error?.message ?? 'unknown error'}`);
      }
    })();
    refreshing = run.then(
      () => undefined,
      () => undefined,
    );
    try {
      await run;
    } finally {
      refreshing = undefined;
    }
  }

  // ---- the queue --------------------------------------------------------------------------------
  function enqueue(entry: InboxEntry<StoredWebhookEvent>, attempts = 0): void {
    if (stopped || queuedIds.has(entry.id)) return;
    queuedIds.add(entry.id);
    queue.push({ entry, attempts, queuedAt: performance.now() });
    kick();
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

  function retryLater(batch: readonly QueuedEntry[]): void {
    const again = batch.filter((queued) => queued.attempts + 1 < maxAttempts);
    const dropped = batch.filter((queued) => queued.attempts + 1 >= maxAttempts);
    for (const queued of batch) queuedIds.delete(queued.entry.id);
    if (dropped.length > 0) {
      logger.warn(
        { events: dropped.length },
        'webhook events dropped after failed attempts; the scheduled stock sync catches up',
      );
      for (const queued of dropped)
        if (queued.entry.event.kind === 'sale') deps.onSale?.('dropped', performance.now() - queued.queuedAt);
      track(inbox.complete(dropped.map((queued) => queued.entry.id)));
    }
    if (again.length === 0 || stopped) return;
    const timer = setTimeout(() => {
      retryTimers.delete(timer);
      for (const queued of again) enqueue(queued.entry, queued.attempts + 1);
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
    if (snapshot === undefined || sales.length === 0) {
      // Points changes need nothing more; without a catalog the first full sync reads the stock anyway.
      for (const queued of batch) queuedIds.delete(queued.entry.id);
      track(inbox.complete(batch.map((queued) => queued.entry.id)));
      return;
    }

    // Per unit code (or ALL): the sales, and the POS's unit reference to filter movements by.
    const groups = new Map<string, { filterUnit: string | undefined; sales: QueuedEntry[] }>();
    for (const queued of sales) {
      const event = queued.entry.event as PosSaleEvent;
      const code = unitCodeOf(snapshot, event.unitId) ?? ALL;
      const group = groups.get(code) ?? { filterUnit: code === ALL ? undefined : event.unitId, sales: [] };
      group.sales.push(queued);
      groups.set(code, group);
    }

    const deltas: StockDelta[] = [];
    const refetchUnits = new Set<string>();
    const applied: QueuedEntry[] = [];
    const refetched: QueuedEntry[] = [];
    for (const [code, group] of groups) {
      const times = group.sales.map((queued) => timeOf(queued.entry));
      const dateFrom = new Date(Math.min(...times) - options.movementWindowMs).toISOString();
      const dateTo = new Date(Math.max(...times) + options.movementWindowMs).toISOString();
      let movements: readonly PosMovement[] = [];
      try {
        const filter = { dateFrom, dateTo, ...(group.filterUnit === undefined ? {} : { unit: group.filterUnit }) };
        movements = (await pos.listMovements({ filter })).items;
      } catch (error) {
        // The movements are a shortcut; the re-read below is the answer either way.
        logger.warn({ err: error, unit: code }, 'could not list stock movements; re-reading the stock instead');
      }
      for (const queued of group.sales) {
        const sale = queued.entry.event as PosSaleEvent;
        const own = movements.filter((movement) => isOfReceipt(movement, sale));
        let found = false;
        for (const movement of own) {
          const unitCode = unitCodeOf(snapshot, movement.unit) ?? (code === ALL ? undefined : code);
          const articleId = productIdOfMovement(snapshot, movement);
          if (unitCode === undefined || articleId === undefined) continue;
          deltas.push({ unitCode, articleId, delta: movement.count });
          refetchUnits.add(unitCode);
          found = true;
        }
        if (found) applied.push(queued);
        else {
          refetched.push(queued);
          refetchUnits.add(code);
        }
      }
    }

    const result = deltas.length > 0 ? catalog.applyStockDeltas(deltas) : undefined;
    const servedAt = performance.now();
    for (const queued of applied) deps.onSale?.('applied', servedAt - queued.queuedAt);
    const reread = refresh(refetchUnits).then(() => {
      const done = performance.now();
      for (const queued of refetched) deps.onSale?.('refetched', done - queued.queuedAt);
    });
    // Out of the inbox once stored and re-read; on failure, the whole batch again later.
    const finished = Promise.all([result?.persisted, reread]).then(
      async () => {
        for (const queued of batch) queuedIds.delete(queued.entry.id);
        await inbox.complete(batch.map((queued) => queued.entry.id));
      },
      (error: unknown) => {
        logger.warn({ err: error, events: batch.length }, 'stock after webhooks not re-read or stored; retrying');
        retryLater(batch);
      },
    );
    track(finished);
  }

  return {
    async accept(dedupeKey, event) {
      const { entry, duplicate } = await inbox.accept(dedupeKey, event, deps.now());
      if (!duplicate) enqueue(entry);
      return { duplicate };
    },
    async resume() {
      const loading = inbox.pending();
      // `idle()` waits for it too.
      track(loading);
      const pending = await loading;
      for (const entry of pending) enqueue(entry);
      return pending.length;
    },
    async idle() {
      for (;;) {
        const busy = [running, nextRefresh, refreshing, ...inFlight].filter((promise) => promise !== undefined);
        if (busy.length === 0 && queue.length === 0 && retryTimers.size === 0) return;
        await Promise.allSettled(busy);
        if (busy.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async stop() {
      stopped = true;
      for (const timer of retryTimers) clearTimeout(timer);
      retryTimers.clear();
      await Promise.allSettled([running, nextRefresh, refreshing, ...inFlight]);
    },
  };
}
