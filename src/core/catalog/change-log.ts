import { createSlicer } from '../async/create-slicer.js';
import { ALL_UNITS, type CatalogSnapshot, type Offer, type Product, type ProductEnrichment } from './catalog.js';
import { enrichmentTagAt, familyEnrichmentTags } from './family-enrichment.js';

/** What changed in an item; `details` covers name, identifiers, measure unit, the stock-item flag and the enrichment sheet's values. */
export type ChangedField = 'price' | 'salePrice' | 'standardPrice' | 'stock' | 'availability' | 'details';

/** What happened to one item in one view between two versions. */
type Change = 'added' | 'removed' | ReadonlySet<ChangedField>;

interface Transition {
  readonly from: string;
  readonly to: string;
  /** view (unit code or `all`) → item id → change */
  readonly views: ReadonlyMap<string, ReadonlyMap<string, Change>>;
}

export type ChangeKind = 'added' | 'changed' | 'removed';

export interface ItemChange {
  readonly id: string;
  readonly change: ChangeKind;
  /** For `changed`: what changed (price, salePrice, standardPrice, stock, availability, details). */
  readonly fields?: readonly ChangedField[];
}

export type ChangesSince =
  | { readonly ok: true; readonly changes: readonly ItemChange[] }
  /** The cursor is not a version this log knows (too old, from before a restart, or made up). */
  | { readonly ok: false };

/** A transition as stored beside the catalog (JSON), so that cursors outlive a restart and work on every instance. */
export interface StoredTransition {
  readonly from: string;
  readonly to: string;
  /** Per view: `[id, 'added' | 'removed' | changed fields]`; `null` when it was too large to store. */
  readonly views: Readonly<Record<string, readonly (readonly [string, string | readonly ChangedField[]])[]>> | null;
}

/** Where transitions are kept beyond this process (docs/http-interface.md, the changes feed). */
export interface ChangeHistory {
  /** Keeps a transition (this instance may decline: in a group, only the leader stores). */
  save(transition: StoredTransition): Promise<void>;
  /** The stored transitions from the one that starts at `since` to the newest, oldest first; `[]` if none does. */
  from(since: string): Promise<readonly StoredTransition[]>;
}

/** A transition with more changes than this is stored without them (cursors before it get `410`). */
const MAX_STORED_CHANGES = 20_000;

export interface ChangeLog {
  /**
   * Records the transition between the served version and the next one. The comparison runs in the
   * background, in slices (a new catalog of 100,000 products takes ~250 ms to compare); transitions are
   * computed in the order they were recorded.
   */
  record(previous: CatalogSnapshot | undefined, next: CatalogSnapshot, changedPositions?: readonly number[]): void;
  /**
   * The net changes in `view` from version `since` to the newest recorded version (once it is computed), or
   * to `current` (the version served) when stored transitions reach it.
   */
  changesSince(since: string, view: string, current?: string): Promise<ChangesSince>;
}

const FIELDS = ['price', 'salePrice', 'standardPrice', 'stock', 'availability'] as const satisfies readonly ChangedField[];
const DETAIL_FIELDS = ['name', 'groupId', 'ean', 'plu', 'internalIdentifier', 'measureUnit', 'isStockItem'] as const;

function offerFields(before: Offer | undefined, after: Offer | undefined): ChangedField[] {
  const fields: ChangedField[] = [];
  for (const field of FIELDS) {
    if (before?.[field] !== after?.[field]) fields.push(field);
  }
  return fields;
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return a.every((value, index) => value === b[index]);
}

/** Whether the enrichment sheet's values of a product differ (a sheet change publishes as `details`). */
function enrichmentChanged(before: ProductEnrichment | undefined, after: ProductEnrichment | undefined): boolean {
  if (before === after) return false;
  if (before === undefined || after === undefined) return true;
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]) as Set<keyof ProductEnrichment>;
  for (const key of keys) {
    const a = before[key];
    const b = after[key];
    if (Array.isArray(a) || Array.isArray(b)) {
      if (!sameList(a as readonly string[] | undefined, b as readonly string[] | undefined)) return true;
    } else if (a !== b) return true;
  }
  return false;
}

/** Where a product is in each of the two versions compared. */
interface Pair {
  readonly previous: CatalogSnapshot;
  readonly next: CatalogSnapshot;
  readonly oldPosition: number;
  readonly position: number;
}

/**
 * Whether the sheet's values differ: by the families' tags where the main thread keeps the values off its
 * products (`family-enrichment.ts`), else by the values themselves.
 */
function enrichmentDiffers(pair: Pair, before: Product, after: Product): boolean {
  if (familyEnrichmentTags(pair.previous) === undefined && familyEnrichmentTags(pair.next) === undefined) {
    return enrichmentChanged(before.enrichment, after.enrichment);
  }
  return enrichmentTagAt(pair.previous, pair.oldPosition) !== enrichmentTagAt(pair.next, pair.position);
}

function detailsChanged(pair: Pair, before: Product, after: Product): boolean {
  return DETAIL_FIELDS.some((field) => before[field] !== after[field]) || enrichmentDiffers(pair, before, after);
}

function add(views: Map<string, Map<string, Change>>, view: string, id: string, change: Change): void {
  let changes = views.get(view);
  if (changes === undefined) {
    changes = new Map();
    views.set(view, changes);
  }
  changes.set(id, change);
}

/**
 * Compact per-view change records between consecutive versions, for the changes feed (docs/http-interface.md). Only
 * ids and changed field names are kept: item states are read from the served version when asked.
 * Products shared by reference between versions (a stock update touches few) cost nothing to compare.
 */
/** Whether both lists hold the same product ids in the same order (cheap when they share most objects). */
function sameProductsInPlace(before: readonly Product[], after: readonly Product[]): boolean {
  if (before.length !== after.length) return false;
  for (let position = 0; position < after.length; position += 1) {
    const old = before[position];
    const product = after[position];
    if (old !== product && old?.id !== product?.id) return false;
  }
  return true;
}

/** The changes of one product present in both versions, per view. */
function compare(
  views: Map<string, Map<string, Change>>,
  unitCodes: readonly string[],
  pair: Pair,
  old: Product,
  product: Product,
): void {
  const details = detailsChanged(pair, old, product);
  const aggregate = offerFields(old.aggregate, product.aggregate);
  if (details) aggregate.push('details');
  if (aggregate.length > 0) add(views, ALL_UNITS, product.id, new Set(aggregate));
  for (const unit of unitCodes) {
    const was = old.offers.find((offer) => offer.unit === unit);
    const is = product.offers.find((offer) => offer.unit === unit);
    if (was === undefined && is !== undefined) {
      add(views, unit, product.id, 'added');
      continue;
    }
    if (was !== undefined && is === undefined) {
      add(views, unit, product.id, 'removed');
      continue;
    }
    const fields = offerFields(was, is);
    if (details) fields.push('details');
    if (fields.length > 0) add(views, unit, product.id, new Set(fields));
  }
}

export function createChangeLog(options: {
  readonly maxTransitions: number;
  /** Transitions kept beside the catalog: cursors from before a restart or from another instance. */
  readonly history?: ChangeHistory;
  readonly onHistoryError?: (error: unknown) => void;
}): ChangeLog {
  const transitions: Transition[] = [];
  /** The comparisons recorded and not yet done, in order. */
  let computing: Promise<void> = Promise.resolve();

  async function diff(previous: CatalogSnapshot, next: CatalogSnapshot, changed?: readonly number[]): Promise<Transition> {
    const views = new Map<string, Map<string, Change>>();
    const unitCodes = next.units.map((unit) => unit.code);
    const slicer = createSlicer();
    // The caller knows which products a stock change replaced: only those are compared.
    if (changed !== undefined && previous.products.length === next.products.length) {
      for (const position of changed) {
        const old = previous.products[position];
        const product = next.products[position];
        if (old !== undefined && product !== undefined && old !== product && old.id === product.id)
          compare(views, unitCodes, { previous, next, oldPosition: position, position }, old, product);
      }
      return { from: previous.version, to: next.version, views };
    }
    // Fast path: a version made by stock changes has the same products in the same places, most of them
    // the very same objects; only the others need comparing, and no map of every product is built (a
    // burst of sales makes many versions a second; bench/webhook-latency.ts).
    if (sameProductsInPlace(previous.products, next.products)) {
      for (const [position, product] of next.products.entries()) {
        const old = previous.products[position];
        if (old !== product && old !== undefined)
          compare(views, unitCodes, { previous, next, oldPosition: position, position }, old, product);
        if ((position & 1023) === 1023) await slicer.next();
      }
      return { from: previous.version, to: next.version, views };
    }
    const before = new Map<string, number>();
    for (const [position, product] of previous.products.entries()) {
      before.set(product.id, position);
      if ((position & 1023) === 1023) await slicer.next();
    }
    for (const [position, product] of next.products.entries()) {
      if ((position & 255) === 255) await slicer.next();
      const oldPosition = before.get(product.id);
      before.delete(product.id);
      const old = oldPosition === undefined ? undefined : previous.products[oldPosition];
      if (old === product) continue;
      if (old === undefined) {
        add(views, ALL_UNITS, product.id, 'added');
        for (const offer of product.offers) add(views, offer.unit, product.id, 'added');
        continue;
      }
      compare(views, unitCodes, { previous, next, oldPosition: oldPosition ?? -1, position }, old, product);
    }
    for (const removedAt of before.values()) {
      const removed = previous.products[removedAt] as Product;
      add(views, ALL_UNITS, removed.id, 'removed');
      for (const offer of removed.offers) add(views, offer.unit, removed.id, 'removed');
    }
    return { from: previous.version, to: next.version, views };
  }

  function append(transition: Transition): void {
    const last = transitions.at(-1);
    // A gap (a version published elsewhere and never seen here) makes older cursors unreliable.
    if (last !== undefined && last.to !== transition.from) transitions.length = 0;
    transitions.push(transition);
    if (transitions.length > options.maxTransitions) transitions.splice(0, transitions.length - options.maxTransitions);
    options.history?.save(storedOf(transition)).catch((error: unknown) => options.onHistoryError?.(error));
  }

  /** The transitions from `since` to the newest known here or to `current`, with stored ones where needed. */
  async function chainFrom(since: string, current: string | undefined): Promise<readonly Transition[] | undefined> {
    const start = transitions.findIndex((transition) => transition.from === since);
    if (start >= 0) return transitions.slice(start);
    if (options.history === undefined) return undefined;
    let stored: readonly StoredTransition[];
    try {
      stored = await options.history.from(since);
    } catch (error) {
      options.onHistoryError?.(error);
      return undefined;
    }
    const older = stored.map(transitionOf);
    if (older.length === 0 || older.some((transition) => transition === undefined)) return undefined;
    const chain = older as Transition[];
    const end = (chain.at(-1) as Transition).to;
    // Joined to what this instance recorded since, or reaching the version it serves.
    const join = transitions.findIndex((transition) => transition.from === end);
    if (join >= 0) return [...chain, ...transitions.slice(join)];
    const newest = transitions.at(-1)?.to ?? current;
    return end === newest ? chain : undefined;
  }

  return {
    record(previous, next, changedPositions) {
      if (previous === undefined || previous.version === next.version) return;
      computing = computing.then(async () => {
        try {
          append(await diff(previous, next, changedPositions));
        } catch {
          // Cannot happen with well-formed snapshots; older cursors are then answered "unknown".
          transitions.length = 0;
        }
      });
    },

    async changesSince(since, view, current) {
      await computing;
      const newest = transitions.at(-1)?.to ?? current;
      if (since === newest) return { ok: true, changes: [] };
      const chain = await chainFrom(since, current);
      if (chain === undefined) return { ok: false };
      // Per id: whether it existed at `since` (its first recorded change was not an addition) and where it ends.
      const net = new Map<string, { existedBefore: boolean; exists: boolean; fields: Set<ChangedField> }>();
      for (const transition of chain) {
        for (const [id, change] of transition.views.get(view) ?? []) {
          let entry = net.get(id);
          if (entry === undefined) {
            entry = { existedBefore: change !== 'added', exists: true, fields: new Set() };
            net.set(id, entry);
          }
          if (change === 'added') {
            // Removed and added again within the window: its state may differ in every way.
            if (!entry.exists) for (const field of FIELD_ORDER) entry.fields.add(field);
            entry.exists = true;
          } else if (change === 'removed') entry.exists = false;
          else for (const field of change) entry.fields.add(field);
        }
      }
      const changes: ItemChange[] = [];
      for (const [id, entry] of net) {
        if (!entry.existedBefore && entry.exists) changes.push({ id, change: 'added' });
        else if (entry.existedBefore && !entry.exists) changes.push({ id, change: 'removed' });
        else if (entry.existedBefore && entry.exists && entry.fields.size > 0) {
          changes.push({ id, change: 'changed', fields: FIELD_ORDER.filter((field) => entry.fields.has(field)) });
        }
      }
      return { ok: true, changes };
    },
  };
}

const FIELD_ORDER: readonly ChangedField[] = [...FIELDS, 'details'];

/** A transition as stored; `views: null` when it has too many changes to be worth storing. */
function storedOf(transition: Transition): StoredTransition {
  let count = 0;
  for (const changes of transition.views.values()) count += changes.size;
  if (count > MAX_STORED_CHANGES) return { from: transition.from, to: transition.to, views: null };
  const views: Record<string, (readonly [string, string | readonly ChangedField[]])[]> = {};
  for (const [view, changes] of transition.views) {
    views[view] = [...changes].map(([id, change]) => [id, typeof change === 'string' ? change : [...change]] as const);
  }
  return { from: transition.from, to: transition.to, views };
}

/** A stored transition back; `undefined` when it was stored without its changes. */
function transitionOf(stored: StoredTransition): Transition | undefined {
  if (stored.views === null) return undefined;
  const views = new Map<string, Map<string, Change>>();
  for (const [view, changes] of Object.entries(stored.views)) {
    views.set(
      view,
      new Map(
        changes.map(([id, change]) => [id, typeof change === 'string' ? (change as 'added' | 'removed') : new Set(change)]),
      ),
    );
  }
  return { from: stored.from, to: stored.to, views };
}
