import type { CatalogService, SyncReport } from '../catalog/catalog-service.js';

/** All units of the catalog: a sale event without `unitId` (or with an unknown one). */
export const ALL_UNITS_REREAD = '*';

/** Longest gap between confirming re-reads, however long the last one took. */
const MAX_REFRESH_GAP_MS = 60_000;

/**
 * Re-reads of units' stock after sales, coalesced: requests made during a re-read share the next one.
 * `urgent` when a sale's movements were not found (the re-read is what shows it): as soon as the running
 * re-read ends. Otherwise the re-read only confirms what the movements did, and waits until
 * `intervalMs` (or 5× the last re-read's duration) after the last one, so a burst of sales costs a re-read
 * every few seconds, not one per batch.
 */
export interface StockRereads {
  /** Settles when a re-read that includes `units` (unit codes, or `ALL_UNITS_REREAD`) has ended. */
  request(units: ReadonlySet<string>, urgent: boolean): Promise<void>;
  /** Re-reads running or waiting, for `idle` and `stop`. */
  busy(): Promise<void>[];
  /** A waiting re-read starts at once (shutdown). */
  stop(): void;
}

export function createStockRereads(catalog: Pick<CatalogService, 'syncStock'>, intervalMs: number): StockRereads {
  let refreshing: Promise<void> | undefined;
  let nextRefresh: Promise<void> | undefined;
  const refreshUnits = new Set<string>();
  let lastRefreshEnded = Number.NEGATIVE_INFINITY;
  let lastRefreshMs = 0;
  let wake: (() => void) | undefined;
  let urgent = false;
  let stopped = false;

  async function waitTurn(): Promise<void> {
    // At least `intervalMs`, and 5× what the last re-read took: confirming re-reads then take at most a
    // sixth of the time, however large the catalog (a 100,000-row export takes seconds to read and apply).
    // Capped at a minute: a confirmation that late is no longer worth waiting for.
    const gap = Math.min(Math.max(intervalMs, 5 * lastRefreshMs), MAX_REFRESH_GAP_MS);
    const wait = lastRefreshEnded + gap - performance.now();
    if (urgent || wait <= 0 || stopped) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = undefined;
  }

  async function runRefresh(): Promise<void> {
    nextRefresh = undefined;
    urgent = false;
    const units = refreshUnits.has(ALL_UNITS_REREAD) ? undefined : [...refreshUnits];
    refreshUnits.clear();
    const began = performance.now();
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
      lastRefreshEnded = performance.now();
      lastRefreshMs = lastRefreshEnded - began;
    }
  }

  return {
    request(units, isUrgent) {
      for (const unit of units) refreshUnits.add(unit);
      if (isUrgent) {
        urgent = true;
        wake?.();
      }
      nextRefresh ??= (refreshing ?? Promise.resolve()).then(waitTurn).then(runRefresh);
      return nextRefresh;
    },
    busy: () => [nextRefresh, refreshing].filter((promise) => promise !== undefined),
    stop() {
      stopped = true;
      wake?.();
    },
  };
}
