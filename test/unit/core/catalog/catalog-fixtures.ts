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
