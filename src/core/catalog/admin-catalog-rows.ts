import type { CsvDialect } from '../feeds/csv-dialect.js';
import { formatMoney } from '../feeds/format-number.js';
import type { InternalProductData, Product } from './catalog.js';

/**
 * One line of the admin-only internal catalog (docs/console.md#admin-area): a product's identifiers, its
 * price in the `all` view (the primary unit's) and its purchase prices. No margin: the POS does not say
 * whether purchase prices include VAT, and a margin computed on a guess would mislead.
 */
export interface AdminCatalogRow {
  readonly id: string;
  readonly name: string;
  readonly ean?: string;
  readonly plu?: number;
  readonly internalIdentifier?: string;
  readonly price?: number;
  readonly purchasePrice?: number;
  readonly avgPurchasePrice?: number;
}

export const ADMIN_CSV_COLUMNS = [
  'id',
  'name',
  'ean',
  'plu',
  'internalIdentifier',
  'price',
  'purchasePrice',
  'avgPurchasePrice',
  'currency',
] as const;

export function adminRowOf(product: Product, internal: InternalProductData | undefined): AdminCatalogRow {
  return {
    id: product.id,
    name: product.name,
    ...(product.ean === undefined ? {} : { ean: product.ean }),
    ...(product.plu === undefined ? {} : { plu: product.plu }),
    ...(product.internalIdentifier === undefined ? {} : { internalIdentifier: product.internalIdentifier }),
    ...(product.aggregate.price === undefined ? {} : { price: product.aggregate.price }),
    ...(internal?.purchasePrice === undefined ? {} : { purchasePrice: internal.purchasePrice }),
    ...(internal?.avgPurchasePrice === undefined ? {} : { avgPurchasePrice: internal.avgPurchasePrice }),
  };
}

/** The row as one JSON object, money with two decimals as in `products.json` (absent values omitted). */
export function adminJsonItem(row: AdminCatalogRow): string {
  const fields = [`"id":${JSON.stringify(row.id)}`, `"name":${JSON.stringify(row.name)}`];
  if (row.ean !== undefined) fields.push(`"ean":${JSON.stringify(row.ean)}`);
  if (row.plu !== undefined) fields.push(`"plu":${row.plu}`);
  if (row.internalIdentifier !== undefined) fields.push(`"internalIdentifier":${JSON.stringify(row.internalIdentifier)}`);
  for (const name of ['price', 'purchasePrice', 'avgPurchasePrice'] as const) {
    const money = row[name] === undefined ? undefined : formatMoney(row[name]);
    if (money !== undefined) fields.push(`"${name}":${money}`);
  }
  return `{${fields.join(',')}}`;
}

export function adminCsvHeader(dialect: CsvDialect): string {
  return `${dialect.preamble}${ADMIN_CSV_COLUMNS.join(dialect.delimiter)}${dialect.newline}`;
}

export function adminCsvLine(row: AdminCatalogRow, currency: string, dialect: CsvDialect): string {
  const money = (value: number | undefined) => (value === undefined ? '' : (formatMoney(value, dialect.decimalSeparator) ?? ''));
  const cells = [
    dialect.code(row.id),
    dialect.text(row.name),
    row.ean === undefined ? '' : dialect.code(row.ean),
    row.plu === undefined ? '' : dialect.code(String(row.plu)),
    row.internalIdentifier === undefined ? '' : dialect.code(row.internalIdentifier),
    money(row.price),
    money(row.purchasePrice),
    money(row.avgPurchasePrice),
    dialect.text(currency),
  ];
  return `${cells.join(dialect.delimiter)}${dialect.newline}`;
}
