import type { FeedContext, FeedItem } from './feed-item.js';

/**
 * The columns of the catalog as a table: `products.csv` (both profiles) and `products.xlsx` write
 * exactly these, in this order, so the two downloads never drift apart. Each renderer decides how a
 * type is written (render-csv-feed.ts, spreadsheet-rows.ts).
 *
 * - `code`: an identifier kept as text (id, EAN, internal code, group): leading zeros matter.
 * - `numberCode`: an identifier the POS keeps as a number (PLU): digits in the CSV, a text cell in the
 *   workbook (a code is never summed, and a sheet must not show it as `1.00E+05`).
 * - `text`: free text (name, measure unit, links).
 * - `money`: an amount in the catalog's currency, two decimals.
 * - `quantity`: stock in the measure unit, possibly fractional (kg).
 */
export type ProductColumnType = 'code' | 'numberCode' | 'text' | 'money' | 'quantity';

export interface ProductColumn {
  /** The header cell (the JSON feed's field name, or `stock:{unit}`). */
  readonly header: string;
  readonly type: ProductColumnType;
  /** Width of the column in the workbook, in characters. */
  readonly width: number;
  readonly value: (item: FeedItem, context: FeedContext) => string | number | undefined;
}

/** The columns of every view, in order: the JSON feed's item fields plus `currency`. */
export const PRODUCT_COLUMNS: readonly ProductColumn[] = [
  { header: 'id', type: 'code', width: 14, value: (item) => item.id },
  { header: 'name', type: 'text', width: 48, value: (item) => item.name },
  { header: 'ean', type: 'code', width: 16, value: (item) => item.ean },
  { header: 'plu', type: 'numberCode', width: 9, value: (item) => item.plu },
  { header: 'internalIdentifier', type: 'code', width: 18, value: (item) => item.internalIdentifier },
  { header: 'groupId', type: 'code', width: 10, value: (item) => item.groupId },
  { header: 'measureUnit', type: 'text', width: 12, value: (item) => item.measureUnit },
  { header: 'price', type: 'money', width: 12, value: (item) => item.price },
  { header: 'salePrice', type: 'money', width: 12, value: (item) => item.salePrice },
  { header: 'standardPrice', type: 'money', width: 14, value: (item) => item.standardPrice },
  { header: 'currency', type: 'text', width: 9, value: (_item, context) => context.currency },
  { header: 'stock', type: 'quantity', width: 11, value: (item) => item.stock },
  { header: 'availability', type: 'text', width: 13, value: (item) => item.availability },
  { header: 'link', type: 'text', width: 40, value: (item) => item.link },
  { header: 'imageLink', type: 'text', width: 40, value: (item) => item.imageLink },
  // The enrichment sheet's values (docs/enrichment.md), named as in products.json.
  { header: 'title', type: 'text', width: 48, value: (item) => item.enrichment?.title },
  { header: 'description', type: 'text', width: 48, value: (item) => item.enrichment?.description },
  { header: 'brand', type: 'text', width: 16, value: (item) => item.enrichment?.brand },
  { header: 'category', type: 'text', width: 32, value: (item) => item.enrichment?.category },
  {
    header: 'googleProductCategory',
    type: 'text',
    width: 24,
    value: (item) => item.enrichment?.googleProductCategory,
  },
  { header: 'heurekaCategory', type: 'text', width: 32, value: (item) => item.enrichment?.heurekaCategory },
  { header: 'zboziCategory', type: 'text', width: 32, value: (item) => item.enrichment?.zboziCategory },
  {
    header: 'additionalImageLinks',
    type: 'text',
    width: 40,
    value: (item) => item.enrichment?.additionalImageLinks?.join(' '),
  },
  { header: 'customLabel0', type: 'text', width: 14, value: (item) => item.enrichment?.customLabel0 },
  { header: 'customLabel1', type: 'text', width: 14, value: (item) => item.enrichment?.customLabel1 },
  { header: 'customLabel2', type: 'text', width: 14, value: (item) => item.enrichment?.customLabel2 },
  { header: 'customLabel3', type: 'text', width: 14, value: (item) => item.enrichment?.customLabel3 },
  { header: 'customLabel4', type: 'text', width: 14, value: (item) => item.enrichment?.customLabel4 },
  { header: 'exclude', type: 'text', width: 12, value: (item) => item.enrichment?.exclude?.join(',') },
];

/** The stock of one unit, for the `all` view's `stock:{unit}` columns (what the marketing team compares). */
function unitStockColumn(unit: string): ProductColumn {
  return {
    header: `stock:${unit}`,
    type: 'quantity',
    width: Math.max(11, unit.length + 7),
    value: (item) => item.offers.find((offer) => offer.unit === unit)?.stock,
  };
}

/** `PRODUCT_COLUMNS`, then a `stock:{unit}` column per unit code in `unitColumns` (the `all` view passes every unit). */
export function productColumns(unitColumns: readonly string[] = []): readonly ProductColumn[] {
  return unitColumns.length === 0 ? PRODUCT_COLUMNS : [...PRODUCT_COLUMNS, ...unitColumns.map(unitStockColumn)];
}
