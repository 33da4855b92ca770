import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { PosSaleEvent } from '../../core/catalog/pos-records.js';
import type { CatalogService } from '../catalog/catalog-service.js';
import { type LastStockChange, type LastStockChanges, saleChangeOf } from '../products/last-stock-changes.js';
import { type MovementLookup, saleTimeOf } from './movement-lookup.js';
import { ALL, type SaleEffects, saleEffectsOf, type UnitLookup, unitCodeOf } from './sale-movements.js';
import type { StockRereads } from './stock-rereads.js';
import type { InboxEntry } from './webhook-inbox.js';
import type { QueuedEntry, WebhookQueue } from './webhook-queue.js';

export type SaleOutcome = 'applied' | 'refetched' | 'dropped';

export interface SaleBatchDeps {
  readonly catalog: Pick<CatalogService, 'current' | 'applyStockDeltas' | 'flush' | 'familyIndex'>;
  readonly movements: MovementLookup;
  readonly rereads: StockRereads;
  readonly lastChanges: LastStockChanges;
  readonly queue: Pick<WebhookQueue, 'complete' | 'retryLater' | 'track'>;
  readonly logger: { warn(meta: object, message: string): void };
  readonly now: () => Date;
  /** A sale's stock is served (or given up on). */
  readonly saleDone: (outcome: SaleOutcome, queued: QueuedEntry) => void;
}

/** The sales of a batch before their movements are looked up. */
interface BatchPlan {
  /** Per unit code (or ALL): the sales, and the POS's unit reference to filter movements by. */
  readonly groups: Map<string, { filterUnit: string | undefined; sales: QueuedEntry[] }>;
  readonly refetchUnits: Set<string>;
  /** The batch as it is retried: what each sale did, so that a retry does not do it again. */
  readonly handled: Map<QueuedEntry, string[]>;
}

function planOf(sales: readonly QueuedEntry[], snapshot: CatalogSnapshot): BatchPlan {
  const plan: BatchPlan = { groups: new Map(), refetchUnits: new Set(), handled: new Map() };
  for (const queued of sales) {
    if (queued.handled === undefined) continue;
    for (const unit of queued.handled.units) plan.refetchUnits.add(unit);
    plan.handled.set(queued, [...queued.handled.units]);
  }
  for (const queued of sales) {
    if (queued.handled !== undefined) continue;
    const event = queued.entry.event as PosSaleEvent;
    const code = unitCodeOf(snapshot, event.unitId) ?? ALL;
    const group = plan.groups.get(code) ?? { filterUnit: code === ALL ? undefined : event.unitId, sales: [] };
    group.sales.push(queued);
    plan.groups.set(code, group);
  }
  return plan;
}

/**
 * One batch of accepted events (see `createWebhookProcessor`): the sales' movements are looked up per unit and
 * applied at once, their units re-read; each event leaves the inbox once what shows it is stored.
 */
export function createSaleBatchProcessor(deps: SaleBatchDeps): (batch: readonly QueuedEntry[]) => Promise<void> {
  const { catalog, rereads, lastChanges, queue, logger } = deps;
  const changeOf = (queued: QueuedEntry, unit: string, how: LastStockChange['how'], delta?: number) =>
    saleChangeOf(queued.entry as InboxEntry<PosSaleEvent>, {
      unit,
      how,
      appliedAt: deps.now(),
      ...(delta === undefined ? {} : { delta }),
    });

  /** Every unit's movements at once: a slow answer for one unit does not hold up the others. */
  function lookUp(plan: BatchPlan): Promise<UnitLookup[]> {
    return Promise.all(
      [...plan.groups].map(async ([code, group]) => {
        const sales = group.sales.map((queued) => ({
          queued,
          sale: queued.entry.event as PosSaleEvent,
          at: saleTimeOf(queued.entry.event.timestamp, queued.entry.receivedAt),
        }));
        return { code, sales, movements: await deps.movements.find(sales, group.filterUnit) };
      }),
    );
  }

  /** Applies the deltas, records what changed each product, and completes the batch once it is stored. */
  async function settle(batch: readonly QueuedEntry[], plan: BatchPlan, effects: SaleEffects): Promise<void> {
    const { deltas, deltaSales, applied, refetched } = effects;
    const { handled } = plan;
    const result = deltas.length > 0 ? await catalog.applyStockDeltas(deltas) : undefined;
    for (const [i, delta] of deltas.entries()) {
      lastChanges.record(delta.articleId, changeOf(deltaSales[i] as QueuedEntry, delta.unitCode, 'movements', delta.delta));
    }
    for (const queued of refetched) {
      for (const unit of handled.get(queued) ?? []) lastChanges.recordReread(changeOf(queued, unit, 'reread'));
    }
    for (const queued of applied) deps.saleDone('applied', queued);
    const reread = rereads.request(plan.refetchUnits, refetched.length > 0).then(() => {
      for (const queued of refetched) deps.saleDone('refetched', queued);
    });
    // What the store holds once this settles includes the applied movements (and, for a retry, whatever
    // its earlier attempt served).
    const stored = result?.persisted ?? catalog.flush();
    const retry = (entries: readonly QueuedEntry[]) => (error: unknown) => {
      // Nothing waited on it (a confirming re-read of sales already done): every batch of a burst shares
      // one re-read, and one cut short by a stop warned once per batch, hundreds of times.
      if (entries.length === 0) return;
      logger.warn({ err: error, events: entries.length }, 'stock after webhooks not re-read or stored; retrying');
      queue.retryLater(
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
    queue.track(stored.then(() => queue.complete(byStore), retry(byStore)));
    queue.track(Promise.all([stored, reread]).then(() => queue.complete(byReread), retry(byReread)));
  }

  return async function processBatch(batch: readonly QueuedEntry[]): Promise<void> {
    const snapshot = catalog.current();
    const sales = batch.filter((queued) => queued.entry.event.kind === 'sale');
    if (sales.length === 0) {
      // Points changes need nothing more.
      queue.complete(batch);
      return;
    }
    if (snapshot === undefined) {
      // No catalog yet (first start): kept until there is one to apply them to; not a failed attempt.
      queue.retryLater(batch, false);
      return;
    }
    const plan = planOf(sales, snapshot);
    const lookedUp = await lookUp(plan);
    // Built in slices once per catalog family; the versions since `snapshot` are of its family or newer.
    const index = await catalog.familyIndex(catalog.current() ?? snapshot);
    const effects = saleEffectsOf(lookedUp, snapshot, index, plan.refetchUnits, plan.handled);
    await settle(batch, plan, effects);
  };
}
