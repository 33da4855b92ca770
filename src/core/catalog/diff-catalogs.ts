import type { CatalogSnapshot } from './catalog.js';
import { type OfferView, type ProductView, viewProduct } from './view-product.js';

/** What changed in an item; `details` covers name, identifiers, measure unit and availability label. */
export type ChangedField = 'price' | 'salePrice' | 'standardPrice' | 'stock' | 'availability' | 'details';

export interface ChangedItem {
  readonly id: string;
  /** In the order of `ChangedField`. In the `all` view a field counts when it changed in any offer. */
  readonly fields: readonly ChangedField[];
  readonly item: ProductView;
}

export interface CatalogDiff {
  readonly unit: string;
  readonly fromVersion?: string;
  readonly toVersion: string;
  /** In the order of the next catalog. */
  readonly added: readonly ProductView[];
  /** Ids, in the order of the previous catalog. */
  readonly removed: readonly string[];
  /** In the order of the next catalog. */
  readonly changed: readonly ChangedItem[];
}

const MONEY_AND_STOCK = [
  'price',
  'salePrice',
  'standardPrice',
  'stock',
  'availability',
] as const satisfies readonly ChangedField[];
const DETAILS = ['name', 'groupId', 'ean', 'plu', 'internalIdentifier', 'measureUnit', 'availabilityText'] as const;

/**
 * The changes between two catalog versions in the view of `unit` (a unit code or `all`), for the
 * changes feed (SPEC §5). Without a previous catalog everything is added. A product counts as present
 * in a view when it has an offer there (a new unit adds all its products, a vanished one removes them).
 * O(products × units).
 */
export function diffCatalogs(previous: CatalogSnapshot | undefined, next: CatalogSnapshot, unit: string): CatalogDiff {
  const before = new Map<string, ProductView>();
  for (const product of previous?.products ?? []) {
    const view = viewProduct(product, unit);
    if (view !== undefined) before.set(product.id, view);
  }
  const added: ProductView[] = [];
  const changed: ChangedItem[] = [];
  const seen = new Set<string>();
  for (const product of next.products) {
    const view = viewProduct(product, unit);
    if (view === undefined) continue;
    seen.add(product.id);
    const old = before.get(product.id);
    if (old === undefined) {
      added.push(view);
      continue;
    }
    const fields = changedFields(old, view);
    if (fields.length > 0) changed.push({ id: product.id, fields, item: view });
  }
  const removed: string[] = [];
  for (const id of before.keys()) {
    if (!seen.has(id)) removed.push(id);
  }
  return {
    unit,
    ...(previous === undefined ? {} : { fromVersion: previous.version }),
    toVersion: next.version,
    added,
    removed,
    changed,
  };
}

function changedFields(old: ProductView, next: ProductView): ChangedField[] {
  const fields: ChangedField[] = [];
  for (const field of MONEY_AND_STOCK) {
    if (old[field] !== next[field] || offersDiffer(old.offers, next.offers, field)) fields.push(field);
  }
  if (DETAILS.some((field) => old[field] !== next[field])) fields.push('details');
  return fields;
}

function offersDiffer(old: readonly OfferView[], next: readonly OfferView[], field: (typeof MONEY_AND_STOCK)[number]): boolean {
  if (old.length !== next.length) return true;
  for (const [index, offer] of next.entries()) {
    const before = old[index];
    if (before === undefined || before.unit !== offer.unit || before[field] !== offer[field]) return true;
  }
  return false;
}
