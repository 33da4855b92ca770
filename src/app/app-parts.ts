import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../adapters/logger/create-logger.js';
import type { Metrics } from '../adapters/metrics/create-metrics.js';
import type { CatalogSnapshot } from '../core/catalog/catalog.js';
import type { CatalogService } from '../services/catalog/catalog-service.js';
import type { FeedPrewarm } from '../services/feeds/feed-prewarm.js';
import type { FeedService } from '../services/feeds/feed-service.js';
import { createStoreHealth, type StoreHealth, waitForStore } from '../services/health/store-health.js';
import type { WebhookProcessor } from '../services/webhooks/webhook-processor.js';
import type { CatalogParts } from './wiring.js';

/** The composition root's helpers (`app.ts`): the watched store, the close order, metrics of sales and versions. */
/**
 * The store, watched (docs/failure-modes.md): waited for at start with a log line per attempt (never a
 * silent wait), marked (the mark tells a store that lost everything, a Redis restarted empty, from one
 * that holds the catalog), then probed; a store found without the mark gets the served catalog back.
 */
export async function watchStore(options: {
  readonly parts: CatalogParts;
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly probeMs: number | undefined;
  readonly mayWriteBack: (() => boolean) | undefined;
}): Promise<StoreHealth> {
  const { parts, metrics, logger, probeMs } = options;
  await waitForStore({
    location: parts.storeLocation,
    probe: () => parts.store.readMark(),
    logger,
    ...(probeMs === undefined ? {} : { retryMs: probeMs }),
  });
  const mark = (await parts.store.readMark()) ?? randomUUID();
  await parts.store.writeMark(mark);
  metrics.storeUp.set(1);
  return createStoreHealth({
    location: parts.storeLocation,
    probe: async () => (await parts.store.readMark()) !== undefined,
    serving: () => parts.catalog.current() !== undefined,
    writeBack: async () => {
      await parts.catalog.rewriteStore();
      await parts.store.writeMark(mark);
    },
    logger,
    now: options.now,
    ...(options.mayWriteBack === undefined ? {} : { mayWriteBack: options.mayWriteBack }),
    ...(probeMs === undefined ? {} : { intervalMs: probeMs }),
    onChange: (state) => {
      metrics.storeUp.set(state.up ? 1 : 0);
      if (!state.up) metrics.storeOutages.inc();
    },
  });
}

/**
 * After the HTTP server and the scheduler: webhook processing stops and the served catalog is stored, then
 * the render thread, the inbox, the worker threads, the POS client and the store close.
 */
export async function closeParts(parts: {
  readonly storeHealth: StoreHealth;
  readonly logger: Logger;
  readonly prewarm: FeedPrewarm;
  readonly eventLoop: { stop(): void };
  readonly catalog: CatalogService;
  readonly webhooks: WebhookProcessor;
  readonly feeds: FeedService;
  readonly closeStores: () => Promise<void>;
}): Promise<void> {
  const { logger, catalog } = parts;
  parts.storeHealth.stop();
  parts.prewarm.stop();
  parts.eventLoop.stop();
  const flushFailed = (error: unknown) => logger.error({ err: error }, 'could not store the served catalog');
  // Started first: processing may be waiting for a delayed store.
  const flushing = catalog.flush().catch(flushFailed);
  await parts.webhooks.stop();
  await flushing;
  await catalog.flush().catch(flushFailed);
  await parts.feeds.close();
  await parts.closeStores();
}

export function recordSale(metrics: Metrics, outcome: 'applied' | 'refetched' | 'dropped', latencyMs: number): void {
  metrics.webhookSales.inc({ outcome });
  if (outcome !== 'dropped') metrics.webhookApplyLatency.observe(latencyMs / 1000);
}

/** Events accepted before a restart and not processed yet. */
export function resumeWebhooks(webhooks: WebhookProcessor, logger: Logger): void {
  webhooks.resume().then(
    (count) => {
      if (count > 0) logger.info({ events: count }, 'processing webhook events left from before the restart');
    },
    (error: unknown) => logger.error({ err: error }, 'could not read the webhook inbox'),
  );
}

/** Per-unit item counts change only with the products' offers: counted once per catalog family, in slices. */
export function recordCatalogMetrics(metrics: Metrics, snapshot: CatalogSnapshot, catalog: CatalogService): void {
  metrics.catalogItems.set({ unit: 'all' }, snapshot.products.length);
  metrics.catalogGeneratedAt.set(Date.parse(snapshot.generatedAt) / 1000);
  catalog.familyIndex(snapshot).then(
    (index) => {
      for (const unit of snapshot.units) metrics.catalogItems.set({ unit: unit.code }, index.unitCounts.get(unit.code) ?? 0);
    },
    () => undefined,
  );
}

export function localUrlOf(server: Server, host: string): string {
  const { port } = server.address() as AddressInfo;
  const reachableHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${reachableHost}:${port}`;
}
