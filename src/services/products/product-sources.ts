import type { CatalogSnapshot, Product } from '../../core/catalog/catalog.js';
import { articleCode } from '../../core/catalog/identity-codes.js';
import type { SourceReport } from '../../core/catalog/merge-catalog.js';
import type { IdentityKey } from '../../core/catalog/source.js';
import { type FamilySourceRows, productSourceRows } from '../../core/catalog/source-rows.js';
import type { SyncReport } from '../catalog/catalog-types.js';
import type { LastStockChange, LastStockChanges } from './last-stock-changes.js';

/**
 * Where a product's values came from (docs/console.md#sources): per unit, the row of the price list and
 * of the stock export that the full sync which built the served family matched to the product (its place
 * in the document, the key and the code it matched by: `source-rows.ts`), or that none did; the keys the
 * documents were matched by; and the last sale webhook that changed its stock. A family this instance did
 * not build by a full sync (loaded from the store, or a group's follower) has no rows: then only the keys
 * and the product's codes under them are given, which is what a matching row carries.
 */

/** The product's code under one key, as rows are compared with it (resolve-identity.ts). */
export interface KeyCode {
  readonly key: IdentityKey;
  readonly code: string;
}

/** The row matched to the product: its 1-based place in the document (price-list item, stock-export line). */
export interface MatchedRow {
  readonly row: number;
  readonly key: IdentityKey;
  readonly code: string;
}

export interface DocumentSource {
  /** `price-list` (the unit's price-list XML) or `stock-export` (its stock export). */
  readonly document: 'price-list' | 'stock-export';
  /** Whether the last sync read the document (`null`: no sync report since start, e.g. a catalog loaded from the store). */
  readonly present: boolean | null;
  /** When the document was read: the last full sync, or for stock a later stock sync. */
  readonly readAt: string | null;
  /** The keys that matched rows of the document, in the order tried (a row takes the first that names one article). */
  readonly keyOrder: readonly IdentityKey[];
  /** The product's codes under those keys: a row matched to it carries one of them. Empty: no row can name it. */
  readonly codes: readonly KeyCode[];
  /** The row that named the product (`null`: none did); absent when not known (see the module comment). */
  readonly row?: MatchedRow | null;
}

export interface UnitSources {
  readonly unit: string;
  readonly priceList: DocumentSource;
  /** The price's source: the price-list row, the article's own sales price, or none (absent: not known). */
  readonly priceFrom?: 'price-list' | 'article' | 'none';
  readonly stock: DocumentSource;
  /** The stock's source in the full sync: the export's row, the price list's `STOCK` element, or none (absent: not known). */
  readonly stockFrom?: 'stock-export' | 'price-list' | 'none';
  /** A stock sync re-read the units' exports after the full sync (ISO 8601): the stock is from that re-read. */
  readonly stockRereadAt?: string;
  /** The last sale webhook that changed the product's stock in this unit, as this instance processed it. */
  readonly lastSale: LastStockChange | null;
  /** The last sale that made this unit's stock be re-read (its movements not found). */
  readonly lastReread: LastStockChange | null;
}

export interface SourceReports {
  readonly catalog: SyncReport | undefined;
  readonly stock: SyncReport | undefined;
}

/** The rows of the served family's full sync, and the product's place in it. */
export interface ProductRows {
  readonly family: FamilySourceRows | undefined;
  readonly position: number;
}

function matched(
  product: Product,
  row: { readonly key: IdentityKey } | undefined,
  number: number | undefined,
): MatchedRow | null {
  if (row === undefined || number === undefined) return null;
  const code = codesOf(product, [row.key])[0]?.code ?? '';
  return { row: number, key: row.key, code };
}

function codesOf(product: Product, keys: readonly IdentityKey[]): KeyCode[] {
  const article = {
    localId: product.id,
    ...(product.internalIdentifier === undefined ? {} : { internalIdentifier: product.internalIdentifier }),
    ...(product.plu === undefined ? {} : { plu: product.plu }),
    ...(product.ean === undefined ? {} : { ean: product.ean }),
  };
  return keys.flatMap((key) => {
    const code = articleCode(key, article);
    return code === undefined ? [] : [{ key, code }];
  });
}

function documentSource(
  document: DocumentSource['document'],
  report: SourceReport | undefined,
  readAt: string | undefined,
  product: Product,
  row: MatchedRow | null | undefined,
): DocumentSource {
  // Keys that matched no row of the document cannot be the one a row of this product was matched by.
  const keyOrder = (report?.keyOrder ?? []).filter((key) => (report?.keyCounts[key] ?? 0) > 0);
  return {
    document,
    present: report === undefined ? null : report.present,
    readAt: readAt ?? null,
    keyOrder,
    codes: codesOf(product, keyOrder),
    ...(row === undefined ? {} : { row }),
  };
}

/** When a stock sync last re-read the exports, if after the rows were read. */
function rereadAfter(reports: SourceReports, readAt: string | undefined): string | undefined {
  const stock = reports.stock?.outcome === 'published' ? reports.stock.finishedAt : undefined;
  return stock !== undefined && readAt !== undefined && stock > readAt ? stock : undefined;
}

/** The rows of one unit, when this instance's full sync built the served family. */
function unitRows(product: Product, rows: ProductRows, unit: string, hasStock: boolean) {
  const unitRows = rows.family?.rows.units.find((entry) => entry.unit === unit);
  if (unitRows === undefined) return undefined;
  const found = productSourceRows(unitRows, rows.position);
  const priceRow = matched(product, found.priceList, found.priceList?.row);
  const stockRow = matched(product, found.stock, found.stock?.line);
  const stockFrom = stockRow !== null ? 'stock-export' : hasStock && priceRow !== null ? 'price-list' : 'none';
  return { priceRow, stockRow, priceFrom: found.price, stockFrom } as const;
}

/** Per unit of the snapshot, the documents and rows that gave the product's offer its values. */
export function sourcesOf(
  snapshot: CatalogSnapshot,
  product: Product,
  context: {
    readonly reports: SourceReports;
    readonly rows: ProductRows;
    readonly changes: Pick<LastStockChanges, 'of' | 'rereadOf'>;
  },
): UnitSources[] {
  const { reports, rows, changes } = context;
  // A refused or failed run's documents are not those of the served catalog.
  const served = reports.catalog?.outcome === 'published' || reports.catalog?.outcome === 'unchanged';
  const merged = served ? reports.catalog?.merge : undefined;
  const sales = changes.of(product.id);
  const readAt = rows.family?.readAt ?? (merged === undefined ? undefined : reports.catalog?.finishedAt);

  const reread = rereadAfter(reports, readAt);
  return snapshot.units.map((unit) => {
    const report = merged?.units.find((entry) => entry.unit === unit.code);
    const offer = product.offers.find((candidate) => candidate.unit === unit.code);
    const found = unitRows(product, rows, unit.code, offer?.stock !== undefined);
    return {
      unit: unit.code,
      priceList: documentSource('price-list', report?.priceList, readAt, product, found?.priceRow),
      ...(found === undefined ? {} : { priceFrom: found.priceFrom }),
      stock: documentSource('stock-export', report?.stock, readAt, product, found?.stockRow),
      ...(found === undefined ? {} : { stockFrom: found.stockFrom }),
      ...(reread === undefined ? {} : { stockRereadAt: reread }),
      lastSale: sales.find((sale) => sale.unit === unit.code) ?? null,
      lastReread: changes.rereadOf(unit.code) ?? changes.rereadOf('*') ?? null,
    };
  });
}
