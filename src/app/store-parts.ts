import { randomUUID } from 'node:crypto';
import type { Logger } from '../adapters/logger/create-logger.js';
import type { Metrics } from '../adapters/metrics/create-metrics.js';
import { createStoreHealth, type StoreHealth, waitForStore } from '../services/health/store-health.js';
import type { AppPart } from './app-part.js';
import type { CatalogParts } from './catalog-parts.js';

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

/** The store's probes: started with the jobs' order, stopped before the pre-rendering. */
export function storeHealthPart(storeHealth: StoreHealth): AppPart {
  return { name: 'store-health', start: () => storeHealth.start(), stop: () => storeHealth.stop() };
}
