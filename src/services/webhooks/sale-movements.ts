import type { StockDelta } from '../../core/catalog/apply-stock.js';
import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { FamilyIndex } from '../../core/catalog/family-index.js';
import type { PosMovement, PosSaleEvent } from '../../core/catalog/pos-records.js';
import type { SaleToLookUp } from './movement-lookup.js';
import { ALL_UNITS_REREAD } from './stock-rereads.js';
import type { QueuedEntry } from './webhook-queue.js';

/** All units of the catalog: a sale event without `unitId` (or with an unknown one). */
export const ALL = ALL_UNITS_REREAD;

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
export function unitCodeOf(
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

/** A sale as its movements are looked up. */
export interface QueuedSale extends SaleToLookUp {
  readonly queued: QueuedEntry;
  readonly sale: PosSaleEvent;
}

/** The sales of one unit code (or ALL), with the movements found for each. */
export interface UnitLookup {
  readonly code: string;
  readonly sales: readonly QueuedSale[];
  readonly movements: ReadonlyMap<SaleToLookUp, readonly PosMovement[]>;
}

/** What a batch's sales do to the stock. */
export interface SaleEffects {
  readonly deltas: StockDelta[];
  /** The sale of each delta, for `lastChanges` once they are applied. */
  readonly deltaSales: QueuedEntry[];
  /** Sales whose movements were found. */
  readonly applied: QueuedEntry[];
  /** Sales whose movements were not found: only the re-read of their unit shows them. */
  readonly refetched: QueuedEntry[];
}

/**
 * Turns the movements found into stock deltas; every sale's units go into `refetchUnits` (they are re-read)
 * and `handled` (a retry re-reads them and applies nothing again).
 */
export function saleEffectsOf(
  lookedUp: readonly UnitLookup[],
  snapshot: CatalogSnapshot,
  index: FamilyIndex,
  refetchUnits: Set<string>,
  handled: Map<QueuedEntry, string[]>,
): SaleEffects {
  const effects: SaleEffects = { deltas: [], deltaSales: [], applied: [], refetched: [] };
  for (const { code, sales, movements: found } of lookedUp) {
    for (const entry of sales) {
      const { queued } = entry;
      const own = found.get(entry) ?? [];
      const units = new Set<string>();
      for (const movement of own) {
        const unitCode = unitCodeOf(snapshot, movement.unit) ?? (code === ALL ? undefined : code);
        const articleId = productIdOfMovement(index, movement);
        if (unitCode === undefined || articleId === undefined) continue;
        effects.deltas.push({ unitCode, articleId, delta: movement.count });
        effects.deltaSales.push(queued);
        units.add(unitCode);
      }
      if (units.size > 0) effects.applied.push(queued);
      else {
        effects.refetched.push(queued);
        units.add(code);
      }
      for (const unit of units) refetchUnits.add(unit);
      handled.set(queued, [...units]);
    }
  }
  return effects;
}
