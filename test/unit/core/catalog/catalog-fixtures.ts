import type { CatalogSnapshot } from '../../../../src/core/catalog/catalog.js';
import { mergeCatalog } from '../../../../src/core/catalog/merge-catalog.js';
import type { PriceListRow, SourceArticle, SourceUnit, StockRow } from '../../../../src/core/catalog/source.js';

/** Inline fixtures for the catalog core tests: small builders with explicit overrides. */

export const NOW = new Date('2026-11-22T10:00:00.000Z');

export function article(localId: string, overrides: Partial<SourceArticle> = {}): SourceArticle {
  return { localId, name: `Article ${localId}`, salesPrice: 100, ...overrides };
}

export function unit(code: string, overrides: Partial<SourceUnit> = {}): SourceUnit {
  return { localId: `l-${code}`, code, name: `Unit ${code}`, priceLists: [], ...overrides };
}

export function priceRow(code: string, overrides: Partial<PriceListRow> = {}): PriceListRow {
  return { code, position: 1, ...overrides };
}

export function stockRow(codes: StockRow['codes'], quantity: number, line = 2): StockRow {
  return { codes, quantity, line };
}

/** Units U1 and U2 with `articles` and `stock` (no price lists), merged as version `v-1` at `NOW`. */
export function stockedSnapshot(
  articles: readonly SourceArticle[],
  stock: ReadonlyMap<string, readonly StockRow[]>,
): CatalogSnapshot {
  return mergeCatalog({ units: [unit('U1'), unit('U2')], articles, priceLists: new Map(), stock }, MERGE_OPTIONS, NOW).snapshot;
}

/** Merge options of version `v-1` with automatic identity keys. */
export const MERGE_OPTIONS = {
  version: 'v-1',
  currency: 'CZK',
  unknownStockAvailability: 'out_of_stock',
  priceListKey: 'auto',
  stockKey: 'auto',
} as const;
