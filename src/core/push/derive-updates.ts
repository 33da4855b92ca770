import { ALL_UNITS, type CatalogSnapshot, type Product } from '../catalog/catalog.js';
import type { ChangedField, ItemChange } from '../catalog/change-log.js';
import { productCode } from '../feeds/to-feed-item.js';
import type { PushAction, PushField } from './channel-client.js';
import { type PendingUpdate, PUSH_MASK } from './outbox.js';
import { productById } from './product-lookup.js';
import type { PushChannel } from './push-channel.js';

/**
 * From the change log's item changes to pending outbox rows (docs/decisions/0013-channel-push.md, sections
 * 1 and 2). Pure: the deriver reads the changes and the served snapshot, this decides what each enabled
 * channel is told.
 */

/** Which channels and targets are enabled (a channel is absent when its enabling variable is unset). */
export interface PushTargetsConfig {
  /** Google products (`p:{id}`, view `all`) and local inventory per unit with a store code (`l:{id}:{unit}`). */
  readonly google?: { readonly localUnits: readonly string[] };
  /** Shoptet stock (`s:{code}`) from SHOPTET_STOCK_UNIT's view. */
  readonly shoptet?: { readonly unit: string };
  /** Meta items (`m:{id}`, view `all`). */
  readonly meta?: true;
  /**
   * Whether the Meta feed's stock policy (a buffer, a threshold) can turn a stock change alone into another
   * availability: then Meta listens to stock changes too, and the feed's availability is sent.
   */
  readonly metaStock?: boolean;
  /** The same for Google products (`p:{id}`) and the `google` feed's stock policy. */
  readonly googleStock?: boolean;
}

/** The views whose changes the enabled channels need. */
export function viewsNeeded(config: PushTargetsConfig): string[] {
  const views = new Set<string>();
  if (config.google !== undefined || config.meta !== undefined) views.add(ALL_UNITS);
  for (const unit of config.google?.localUnits ?? []) views.add(unit);
  if (config.shoptet !== undefined) views.add(config.shoptet.unit);
  return [...views];
}

const FIELD_BITS: Partial<Record<ChangedField, number>> = {
  price: PUSH_MASK.PRICE,
  salePrice: PUSH_MASK.SALE,
  availability: PUSH_MASK.AVAIL,
  stock: PUSH_MASK.STOCK,
};

/** The relevance filter: the field bits each kind of target listens to (`details`, `standardPrice` never). */
const RELEVANT = {
  product: PUSH_MASK.PRICE | PUSH_MASK.SALE | PUSH_MASK.AVAIL,
  // The decision lists the unit's price; its sale price too, since the local inventory payload carries it.
  local: PUSH_MASK.STOCK | PUSH_MASK.AVAIL | PUSH_MASK.PRICE | PUSH_MASK.SALE,
  shoptet: PUSH_MASK.STOCK,
} as const;

/**
 * The mask of one change for one kind of target, or 0 when nothing relevant changed. The safety rule: a
 * stock that is now unknown (it changed, so it was known before) sends no STOCK and no AVAIL, since unknown
 * stock reads as out of stock and would advertise a sell-out that did not happen.
 */
export function changeMask(change: ItemChange, relevant: number, stockKnown: boolean): number {
  if (change.change === 'added') return PUSH_MASK.ADDED;
  if (change.change === 'removed') return PUSH_MASK.REMOVED;
  let mask = 0;
  for (const field of change.fields ?? []) mask |= FIELD_BITS[field] ?? 0;
  if (!stockKnown) mask &= ~(PUSH_MASK.STOCK | PUSH_MASK.AVAIL);
  return mask & relevant;
}

export interface DeriveInput {
  readonly config: PushTargetsConfig;
  /** `changesSince` per view (the views of `viewsNeeded`). */
  readonly changes: ReadonlyMap<string, readonly ItemChange[]>;
  /** The served snapshot the changes lead to: stock knowledge and Shoptet codes are read from it. */
  readonly snapshot: CatalogSnapshot;
  readonly atMs: number;
}

function stockKnown(product: Product | undefined, view: string): boolean {
  if (product === undefined) return true;
  const offer = view === ALL_UNITS ? product.aggregate : product.offers.find((candidate) => candidate.unit === view);
  return offer?.stock !== undefined;
}

/** Pending updates for every enabled channel's targets, one per (channel, target) at most. */
export function deriveUpdates(input: DeriveInput): PendingUpdate[] {
  const { config, changes, snapshot, atMs } = input;
  // Only the changed ids are looked up, through an index built once per catalog family (not per version).
  const byId = { get: (id: string) => productById(snapshot, id) };
  const updates: PendingUpdate[] = [];
  const push = (channel: PushChannel, target: string, mask: number): void => {
    if (mask !== 0) updates.push({ channel, target, mask, atMs });
  };
  for (const change of changes.get(ALL_UNITS) ?? []) {
    const known = stockKnown(byId.get(change.id), ALL_UNITS);
    const googleRelevant = config.googleStock === true ? RELEVANT.product | PUSH_MASK.STOCK : RELEVANT.product;
    if (config.google !== undefined) push('google', `p:${change.id}`, changeMask(change, googleRelevant, known));
    const metaRelevant = config.metaStock === true ? RELEVANT.product | PUSH_MASK.STOCK : RELEVANT.product;
    if (config.meta !== undefined) push('meta', `m:${change.id}`, changeMask(change, metaRelevant, known));
  }
  for (const unit of config.google?.localUnits ?? []) {
    for (const change of changes.get(unit) ?? []) {
      push('google', `l:${change.id}:${unit}`, changeMask(change, RELEVANT.local, stockKnown(byId.get(change.id), unit)));
    }
  }
  if (config.shoptet !== undefined) {
    const unit = config.shoptet.unit;
    for (const change of changes.get(unit) ?? []) {
      const product = byId.get(change.id);
      // A removed item sends nothing to Shoptet (its endpoint cannot delete), and its code is gone with it.
      if (product === undefined) continue;
      push('shoptet', `s:${productCode(product)}`, changeMask(change, RELEVANT.shoptet, stockKnown(product, unit)));
    }
  }
  return updates;
}

/** Every target of every enabled channel with FULL: the reconciliation (section 5) and the catch-up fallback. */
export function fullReconciliation(config: PushTargetsConfig, snapshot: CatalogSnapshot, atMs: number): PendingUpdate[] {
  const updates: PendingUpdate[] = [];
  const full = (channel: PushChannel, target: string): void => {
    updates.push({ channel, target, mask: PUSH_MASK.FULL, atMs });
  };
  for (const product of snapshot.products) {
    if (config.google !== undefined) full('google', `p:${product.id}`);
    if (config.meta !== undefined) full('meta', `m:${product.id}`);
    for (const unit of config.google?.localUnits ?? []) {
      if (product.offers.some((offer) => offer.unit === unit)) full('google', `l:${product.id}:${unit}`);
    }
    const shoptetUnit = config.shoptet?.unit;
    // `all` (SHOPTET_STOCK_UNIT's default) is the sum over units: every product is in it, no offer is named so.
    const inShoptetView = shoptetUnit === ALL_UNITS || product.offers.some((offer) => offer.unit === shoptetUnit);
    if (shoptetUnit !== undefined && inShoptetView) {
      full('shoptet', `s:${productCode(product)}`);
    }
  }
  return updates;
}

const MASK_FIELDS: readonly (readonly [number, PushField])[] = [
  [PUSH_MASK.PRICE, 'price'],
  [PUSH_MASK.SALE, 'salePrice'],
  [PUSH_MASK.AVAIL, 'availability'],
  [PUSH_MASK.STOCK, 'stock'],
];

/**
 * What a claimed row asks of the channel, given whether the item is in the version served now. The served
 * version decides between create and remove for ADDED/REMOVED/FULL: the row may be older than the state.
 */
export function actionOf(mask: number, present: boolean): PushAction {
  if (!present) return { kind: 'remove' };
  if ((mask & (PUSH_MASK.ADDED | PUSH_MASK.FULL | PUSH_MASK.REMOVED)) !== 0) return { kind: 'create' };
  return { kind: 'update', fields: MASK_FIELDS.filter(([bit]) => (mask & bit) !== 0).map(([, field]) => field) };
}
