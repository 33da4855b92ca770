import type { CatalogService } from '../catalog/catalog-service.js';
import type { PosClient } from '../catalog/pos-port.js';
import { createLastStockChanges, type LastStockChanges } from '../products/last-stock-changes.js';
import { createMovementLookup } from './movement-lookup.js';
import { createSaleBatchProcessor, type SaleOutcome } from './sale-batch.js';
import { createStockRereads } from './stock-rereads.js';
import type { StoredWebhookEvent } from './webhook-events.js';
import type { WebhookInbox } from './webhook-inbox.js';
import { createWebhookQueue, freshEntry, type QueuedEntry } from './webhook-queue.js';

export { dedupeKeyOf, type StoredWebhookEvent } from './webhook-events.js';

export interface WebhookProcessorOptions {
  /** Movements are looked for from this long before the earliest to this long after the latest sale of a batch. */
  readonly movementWindowMs: number;
  /** Attempts of a batch whose stock could not be re-read (POS down) before it is left to the scheduled stock sync. */
  readonly maxAttempts?: number;
  /** Wait before another attempt. */
  readonly retryDelayMs?: number;
  /** Most events processed together. */
  readonly batchSize?: number;
  /**
   * Least time between the starts of two batches (default 100 ms). Each batch of sales makes a catalog
   * version, and each version copies the list of products (800 KB at 100,000 products), which only a full GC
   * frees: at 50 sales/s one version per sale churned ~40 MB a second on the main thread.
   */
  readonly batchGapMs?: number;
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

const DEFAULT_BATCH_GAP_MS = 100;

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
  const sales = { applied: 0, refetched: 0, dropped: 0 };
  let lastSaleServedAt: string | undefined;
  function saleDone(outcome: SaleOutcome, queued: QueuedEntry): void {
    sales[outcome] += 1;
    if (outcome !== 'dropped') lastSaleServedAt = deps.now().toISOString();
    deps.onSale?.(outcome, performance.now() - queued.queuedAt);
  }
  const rereads = createStockRereads(catalog, options.refreshIntervalMs ?? 2_000);
  const lastChanges = createLastStockChanges();
  const queue = createWebhookQueue({
    inbox,
    logger,
    maxAttempts: options.maxAttempts ?? 5,
    retryDelayMs: options.retryDelayMs ?? 5_000,
    batchSize: options.batchSize ?? 500,
    batchGapMs: options.batchGapMs ?? DEFAULT_BATCH_GAP_MS,
    processBatch: (batch) => processBatch(batch),
    onDropped: (queued) => {
      if (queued.entry.event.kind === 'sale') saleDone('dropped', queued);
    },
  });
  const processBatch = createSaleBatchProcessor({
    catalog,
    movements: createMovementLookup({ pos, logger, windowMs: options.movementWindowMs }),
    rereads,
    lastChanges,
    queue,
    logger,
    now: deps.now,
    saleDone,
  });
  const busy = () => [...queue.busy(), ...rereads.busy()];

  return {
    async accept(dedupeKey, event) {
      const { entry, duplicate } = await inbox.accept(dedupeKey, event, deps.now());
      // A shared inbox hands the event to one instance of the group, maybe this one (`resume`).
      if (!duplicate && inbox.shared === undefined) queue.enqueue(freshEntry(entry));
      return { duplicate };
    },
    async resume() {
      if (inbox.shared !== undefined) {
        inbox.shared.consume((entries) => {
          for (const entry of entries) queue.enqueue(freshEntry(entry));
        });
        return 0;
      }
      const discarding = inbox.discardForeign();
      queue.track(discarding);
      const discarded = await discarding;
      if (discarded > 0) {
        // Another POS's sales (the sandbox's, say) must not move this one's stock; the start sync reads it anyway.
        logger.warn({ events: discarded }, 'dropped webhook events accepted for another source');
      }
      const loading = inbox.pending();
      // `idle()` waits for it too.
      queue.track(loading);
      const pending = await loading;
      for (const entry of pending) queue.enqueue(freshEntry(entry));
      return pending.length;
    },
    async idle() {
      while (!queue.stopped()) {
        const waiting = busy();
        if (waiting.length === 0 && queue.empty()) return;
        await Promise.allSettled(waiting);
        if (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    lastChanges,
    stats() {
      return {
        pending: queue.pending(),
        sales: { ...sales },
        ...(lastSaleServedAt === undefined ? {} : { lastSaleServedAt }),
      };
    },
    async stop() {
      queue.stop();
      rereads.stop();
      // Work already started may start more (a batch's re-read, then its completion): wait for all of it.
      for (;;) {
        const waiting = busy();
        if (waiting.length === 0) return;
        await Promise.allSettled(waiting);
      }
    },
  };
}
