import { type ApplyStockReport, applyStock, type StockDelta } from '../../core/catalog/apply-stock.js';
import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import { createCatalogVersion } from '../../core/catalog/catalog-version.js';
import type { CatalogLogger, CatalogServiceOptions } from './catalog-types.js';
import type { CatalogWriter } from './catalog-writer.js';
import type { Replication } from './replication.js';
import type { ServedCatalog, ServedVersion } from './served-catalog.js';
import { MAX_RESOLVE_ATTEMPTS } from './stock-exports.js';

/** A change overtaken by another instance's is made again from the newer version, at most this often. */
export const MAX_APPEND_ATTEMPTS = 20;
/** How long to wait for the other instance's change to arrive before making ours again. */
export const APPEND_RETRY_WAIT_MS = 1_000;

export interface StockDeltaResult {
  /** The version served after the change (the same as before when nothing changed). */
  readonly version: string;
  readonly report: ApplyStockReport;
  /** Settles when a version at least as new as `version` is in the store. */
  readonly persisted: Promise<void>;
}

/**
 * Serves a version made by stock changes: at once on a single instance, through the group's change
 * stream with several (`false` when another instance's change came first).
 */
export type PublishDerived = (
  latest: ServedVersion,
  snapshot: CatalogSnapshot,
  positions: readonly number[],
  units: readonly string[],
) => Promise<boolean>;

export interface StockDeltasDeps {
  readonly served: ServedCatalog;
  readonly writer: CatalogWriter;
  readonly options: CatalogServiceOptions;
  readonly logger: CatalogLogger;
  readonly now: () => Date;
  readonly replication?: Replication;
  readonly publishDerived: PublishDerived;
}

/**
 * Applies stock changes (sales) to the served version at once and stores it in the background
 * (`persisted`; stores coalesce, the newest served version wins). Nothing happens before a first version.
 */
export async function applyStockDeltas(
  deps: StockDeltasDeps,
  deltas: readonly StockDelta[],
): Promise<StockDeltaResult | undefined> {
  const { served, writer, options, logger, now, publishDerived } = deps;
  for (let attempt = 1; ; attempt += 1) {
    const family = served.latest();
    if (family === undefined) return undefined;
    // The family's positions, built in slices once per family: not ~30 ms at once on the first sale.
    const index = await served.indexOf(family.snapshot);
    const latest = served.latest();
    if (latest === undefined) return undefined;
    if (latest.family !== family.family && attempt < MAX_RESOLVE_ATTEMPTS) continue;
    const at = now();
    const version = createCatalogVersion(at, latest.snapshot.version);
    const applied = applyStock(
      latest.snapshot,
      deltas,
      {
        version,
        unknownStockAvailability: options.unknownStockAvailability,
        ...(latest.family === family.family ? { positions: index.positions } : {}),
      },
      at,
    );
    if (applied.report.changedProducts === 0) {
      return { version: latest.snapshot.version, report: applied.report, persisted: writer.persistServed() };
    }
    const units = [...new Set(deltas.map((delta) => delta.unitCode))];
    if (!(await publishDerived(latest, applied.snapshot, applied.changedPositions, units))) {
      if (attempt >= MAX_APPEND_ATTEMPTS) throw new Error('other instances kept changing the stock; the sale is tried again');
      await deps.replication?.waitPast(latest, APPEND_RETRY_WAIT_MS);
      continue;
    }
    const stored = writer.persistSoon();
    // Callers may not wait; a failed write is logged here and retried by the next change or sync.
    stored.catch((error: unknown) => logger.error({ err: error, version }, 'could not store the catalog after stock changes'));
    // In a group the change is durable once it is in the change stream; the leader stores the version.
    const persisted = deps.replication === undefined ? stored : Promise.resolve();
    return { version, report: applied.report, persisted };
  }
}
