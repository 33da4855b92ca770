import type { CatalogSnapshot } from './catalog.js';
import { IDENTITY_KEYS } from './identity-codes.js';
import type { IdentityKey } from './source.js';

/**
 * Which rows of a full sync's documents gave each product its values (docs/console.md#sources): per unit
 * and product position, the price-list item's place in its document, the stock export's line, and the key
 * each was matched by. Typed arrays filled as the merge resolves each document (no object per row):
 * 10 bytes per product and unit, ~5 MB for 100,000 products × 5 units.
 */
export interface UnitSourceRows {
  readonly unit: string;
  /** The matched price-list item's 1-based place in its document (`0`: no row named the product). */
  readonly priceRows: Int32Array;
  /** 1 + the index in `IDENTITY_KEYS` of the key that row matched by (`0`: none). */
  readonly priceKeys: Uint8Array;
  /** Where the offer's price came from: `PRICE_FROM_ROW`, `PRICE_FROM_ARTICLE` or `0` (no price). */
  readonly priceFrom: Uint8Array;
  /** The matched stock-export row's 1-based line (`0`: no row gave the product a quantity). */
  readonly stockLines: Int32Array;
  readonly stockKeys: Uint8Array;
}

export interface CatalogSourceRows {
  readonly units: readonly UnitSourceRows[];
}

export const PRICE_FROM_ROW = 1;
export const PRICE_FROM_ARTICLE = 2;

export function createUnitSourceRows(unit: string, products: number): UnitSourceRows {
  return {
    unit,
    priceRows: new Int32Array(products),
    priceKeys: new Uint8Array(products),
    priceFrom: new Uint8Array(products),
    stockLines: new Int32Array(products),
    stockKeys: new Uint8Array(products),
  };
}

/** The code stored for a key. */
export function keyCode(key: IdentityKey): number {
  return IDENTITY_KEYS.indexOf(key) + 1;
}

/** One product's rows in one unit, as a product's page shows them. */
export interface ProductSourceRows {
  /** Absent: the unit's price list had no row for the product. */
  readonly priceList?: { readonly row: number; readonly key: IdentityKey };
  readonly price: 'price-list' | 'article' | 'none';
  /** Absent: no stock-export row gave it a quantity. */
  readonly stock?: { readonly line: number; readonly key: IdentityKey };
}

export function productSourceRows(rows: UnitSourceRows, position: number): ProductSourceRows {
  const row = rows.priceRows[position] ?? 0;
  const line = rows.stockLines[position] ?? 0;
  const priceKey = IDENTITY_KEYS[(rows.priceKeys[position] ?? 0) - 1];
  const stockKey = IDENTITY_KEYS[(rows.stockKeys[position] ?? 0) - 1];
  const from = rows.priceFrom[position];
  return {
    ...(row > 0 && priceKey !== undefined ? { priceList: { row, key: priceKey } } : {}),
    price: from === PRICE_FROM_ROW ? 'price-list' : from === PRICE_FROM_ARTICLE ? 'article' : 'none',
    ...(line > 0 && stockKey !== undefined ? { stock: { line, key: stockKey } } : {}),
  };
}

/** The rows of the full sync that built (or last confirmed) a catalog family, and when it read them. */
export interface FamilySourceRows {
  readonly rows: CatalogSourceRows;
  /** ISO 8601. */
  readonly readAt: string;
}

/** Per catalog family (keyed as `catalog-family.ts` keys families), the rows of its last full sync. */
export interface SourceRowsRegistry {
  set(snapshot: CatalogSnapshot, rows: FamilySourceRows): void;
  get(snapshot: CatalogSnapshot): FamilySourceRows | undefined;
}

export function createSourceRowsRegistry(): SourceRowsRegistry {
  const byFamily = new WeakMap<CatalogSnapshot['units'], { readonly products: number; readonly rows: FamilySourceRows }>();
  return {
    set(snapshot, rows) {
      byFamily.set(snapshot.units, { products: snapshot.products.length, rows });
    },
    get(snapshot) {
      const entry = byFamily.get(snapshot.units);
      return entry !== undefined && entry.products === snapshot.products.length ? entry.rows : undefined;
    },
  };
}
