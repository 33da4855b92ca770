import type { PosSaleEvent } from '../../core/catalog/pos-records.js';
import { saleTimeOf } from '../webhooks/movement-lookup.js';
import type { InboxEntry } from '../webhooks/webhook-inbox.js';

/**
 * Which sale webhook changed a product's stock last (docs/console.md#product-detail), for the product's
 * page. Kept in memory by the instance that processed the sale, for the most recently changed products
 * only: a group's followers apply replicated stock changes that do not carry the sale (docs/scale-out.md),
 * so they know only the sales they processed themselves.
 */

/** One sale's change of one product's stock in one unit. */
export interface LastStockChange {
  readonly unit: string;
  /** The inbox entry's id (derived from the receipt: the same sale always has the same id). */
  readonly eventId: string;
  /** The receipt's `localId`, else its number, when the event names it. */
  readonly receipt?: string;
  /** When the sale happened (the event's time when plausible, else when it was received), ISO 8601. */
  readonly saleAt: string;
  /** When this instance applied it, ISO 8601. */
  readonly appliedAt: string;
  /** `movements`: the receipt's stock movements were applied; `reread`: they were not found, the unit's stock was re-read. */
  readonly how: 'movements' | 'reread';
  /** The movement's quantity change (`movements` only). */
  readonly delta?: number;
}

export interface LastStockChanges {
  /** A sale's movement applied to one product (replaces that product's earlier change in the same unit). */
  record(productId: string, change: LastStockChange): void;
  /** A sale whose movements were not found: the unit's stock was re-read, which products it changed is not known. */
  recordReread(change: LastStockChange): void;
  /** The product's last change per unit, newest first. */
  of(productId: string): readonly LastStockChange[];
  /** The last sale that made a unit's stock be re-read. */
  rereadOf(unit: string): LastStockChange | undefined;
  readonly size: number;
}

/** The change a sale's webhook made, as its product's page tells it. */
export function saleChangeOf(
  entry: InboxEntry<PosSaleEvent>,
  change: { readonly unit: string; readonly how: LastStockChange['how']; readonly appliedAt: Date; readonly delta?: number },
): LastStockChange {
  const { data, timestamp } = entry.event;
  const receipt = data.localId ?? data.number;
  return {
    unit: change.unit,
    eventId: entry.id,
    ...(receipt === undefined ? {} : { receipt: String(receipt) }),
    saleAt: new Date(saleTimeOf(timestamp, entry.receivedAt)).toISOString(),
    appliedAt: change.appliedAt.toISOString(),
    how: change.how,
    ...(change.delta === undefined ? {} : { delta: change.delta }),
  };
}

/** Products remembered by default: the most recently changed ones. */
export const DEFAULT_MAX_PRODUCTS = 10_000;

export function createLastStockChanges(maxProducts: number = DEFAULT_MAX_PRODUCTS): LastStockChanges {
  // A Map iterates in insertion order: deleting before setting keeps the most recent last, the oldest first.
  const byProduct = new Map<string, LastStockChange[]>();
  const rereads = new Map<string, LastStockChange>();
  return {
    record(productId, change) {
      const kept = (byProduct.get(productId) ?? []).filter((entry) => entry.unit !== change.unit);
      byProduct.delete(productId);
      byProduct.set(productId, [change, ...kept]);
      for (const oldest of byProduct.keys()) {
        if (byProduct.size <= maxProducts) break;
        byProduct.delete(oldest);
      }
    },
    recordReread(change) {
      rereads.set(change.unit, change);
    },
    of: (productId) => byProduct.get(productId) ?? [],
    rereadOf: (unit) => rereads.get(unit),
    get size() {
      return byProduct.size;
    },
  };
}
