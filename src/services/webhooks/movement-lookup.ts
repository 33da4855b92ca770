import type { PosMovement, PosSaleEvent } from '../../core/catalog/pos-records.js';
import type { CatalogLogger } from '../catalog/catalog-types.js';
import type { PosClient } from '../catalog/pos-port.js';

/**
 * Finds the stock movements of sale receipts (the event carries no lines; interface 2.6, 4.2) through the
 * movement list, by time window around the sales and by unit.
 *
 * The window is adaptive. The configured one (`WEBHOOK_MOVEMENT_WINDOW_MS`, default ±10 s) covers any
 * difference between the event's time and the movements' `createdAt`. At 50 sales/s such a window holds
 * ~1,000 movements, and every batch would read and validate all of them again: at 100,000 × 5 that was
 * the main thread's largest cost during a burst (bench/webhook-latency.ts). So the lookup learns how far
 * apart the two times really are (the largest difference among recent matches), asks for that (twice it,
 * plus a second, never more than the configured window) first, and asks again with the whole window for
 * the sales not found in the narrow one. A POS whose times differ more simply widens the learned window.
 */
export interface MovementLookup {
  /** The movements of each sale (an empty list when none were found), looked up together. */
  find(sales: readonly SaleToLookUp[], unit: string | undefined): Promise<Map<SaleToLookUp, readonly PosMovement[]>>;
}

export interface SaleToLookUp {
  readonly sale: PosSaleEvent;
  /** When the sale happened (ms since the epoch, POS clock): see `saleTimeOf`. */
  readonly at: number;
}

/** A day: an event time further than this from its arrival is not believed. */
const PLAUSIBLE_CLOCK_SKEW_MS = 24 * 60 * 60 * 1000;
/** Matches whose time difference the learned window is made of. */
const LEARNED_MATCHES = 200;
/** Matches needed before the window narrows. */
const MIN_MATCHES = 10;
/** Least half-width of a narrowed window. */
const MIN_WINDOW_MS = 1_000;

/**
 * When the sale happened: the event's `timestamp` (any text to the schema), or when it arrived if that
 * is unreadable or implausible (a far-off date would put the movement window out of any date's range).
 */
export function saleTimeOf(timestamp: string, receivedAt: string): number {
  const received = Date.parse(receivedAt);
  const stamp = Date.parse(timestamp);
  return Number.isFinite(stamp) && Math.abs(stamp - received) <= PLAUSIBLE_CLOCK_SKEW_MS ? stamp : received;
}

interface ReceiptIndex {
  readonly byId: Map<string, PosMovement[]>;
  readonly byNumber: Map<string, PosMovement[]>;
}

/** Movements by their receipt's id and number. */
function indexByReceipt(movements: readonly PosMovement[]): ReceiptIndex {
  const index: ReceiptIndex = { byId: new Map(), byNumber: new Map() };
  const add = (map: Map<string, PosMovement[]>, key: string | undefined, movement: PosMovement) => {
    if (key === undefined) return;
    const list = map.get(key);
    if (list === undefined) map.set(key, [movement]);
    else list.push(movement);
  };
  for (const movement of movements) {
    const receipt = movement.warehouseOperation?.receipt;
    add(index.byId, receipt?._id, movement);
    add(index.byNumber, receipt?.number, movement);
  }
  return index;
}

/** The movements of a sale's receipt: by receipt id (its `localId`), else by receipt number. */
function movementsOfSale(index: ReceiptIndex, sale: PosSaleEvent): readonly PosMovement[] {
  const byId = sale.data.localId === undefined ? undefined : index.byId.get(sale.data.localId);
  if (byId !== undefined) return byId;
  // Whether the movement's receipt `_id` is the event's `localId` is not documented: the number then.
  return (sale.data.number === undefined ? undefined : index.byNumber.get(sale.data.number)) ?? [];
}

export function createMovementLookup(deps: {
  readonly pos: Pick<PosClient, 'listMovements'>;
  readonly logger: CatalogLogger;
  /** The configured half-width of the window (ms). */
  readonly windowMs: number;
}): MovementLookup {
  const { pos, logger, windowMs } = deps;
  const differences: number[] = [];

  function learnedWindowMs(): number {
    if (differences.length < MIN_MATCHES) return windowMs;
    const widest = differences.reduce((max, value) => Math.max(max, value), 0);
    return Math.min(windowMs, Math.max(MIN_WINDOW_MS, 2 * widest + 1_000));
  }

  async function list(
    sales: readonly SaleToLookUp[],
    unit: string | undefined,
    halfWidth: number,
  ): Promise<readonly PosMovement[]> {
    const times = sales.map((entry) => entry.at);
    const filter = {
      dateFrom: new Date(Math.min(...times) - halfWidth).toISOString(),
      dateTo: new Date(Math.max(...times) + halfWidth).toISOString(),
      ...(unit === undefined ? {} : { unit }),
    };
    return (await pos.listMovements({ filter })).items;
  }

  function match(
    sales: readonly SaleToLookUp[],
    movements: readonly PosMovement[],
    found: Map<SaleToLookUp, readonly PosMovement[]>,
  ) {
    const index = indexByReceipt(movements);
    for (const entry of sales) {
      const own = movementsOfSale(index, entry.sale);
      if (own.length === 0) continue;
      found.set(entry, own);
      const createdAt = Date.parse(own[0]?.warehouseOperation?.createdAt ?? '');
      if (Number.isFinite(createdAt)) {
        differences.push(Math.abs(createdAt - entry.at));
        if (differences.length > LEARNED_MATCHES) differences.shift();
      }
    }
  }

  return {
    async find(sales, unit) {
      const found = new Map<SaleToLookUp, readonly PosMovement[]>();
      try {
        const narrow = learnedWindowMs();
        match(sales, await list(sales, unit, narrow), found);
        const missing = sales.filter((entry) => !found.has(entry));
        if (missing.length > 0 && narrow < windowMs) match(missing, await list(missing, unit, windowMs), found);
      } catch (error) {
        // The movements are a shortcut; the stock re-read is the answer either way.
        logger.warn({ err: error, unit: unit ?? 'all' }, 'could not list stock movements; re-reading the stock instead');
      }
      for (const entry of sales) if (!found.has(entry)) found.set(entry, []);
      return found;
    },
  };
}
