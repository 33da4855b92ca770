import type { CatalogSnapshot, Product } from '../core/catalog/catalog.js';
import type { SourceReport } from '../core/catalog/merge-catalog.js';
import { articleCode } from '../core/catalog/resolve-identity.js';
import type { IdentityKey } from '../core/catalog/source.js';
import type { SyncReport } from './catalog/catalog-types.js';
import type { LastStockChange, LastStockChanges } from './last-stock-changes.js';

/**
 * Where a product's values came from (docs/console.md#sources). The merge runs in a worker and keeps no
 * row numbers once a unit is merged (read-catalog.ts: every unit's rows are dropped as soon as they are
 * merged, to keep a 100,000 × 5 sync within its memory bar), so rows are identified by their keys: the
 * unit's document, the keys its rows were matched by (in the order the last sync tried them), and the
 * product's code under each key, which is what the matching row carries.
 */

/** The product's code under one key, as rows are compared with it (resolve-identity.ts). */
export interface KeyCode {
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
}

export interface UnitSources {
  readonly unit: string;
  readonly priceList: DocumentSource;
  readonly stock: DocumentSource;
  /** The last sale webhook that changed the product's stock in this unit, as this instance processed it. */
  readonly lastSale: LastStockChange | null;
  /** The last sale that made this unit's stock be re-read (its movements not found). */
  readonly lastReread: LastStockChange | null;
}

export interface SourceReports {
  readonly catalog: SyncReport | undefined;
  readonly stock: SyncReport | undefined;
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
): DocumentSource {
  // Keys that matched no row of the document cannot be the one a row of this product was matched by.
  const keyOrder = (report?.keyOrder ?? []).filter((key) => (report?.keyCounts[key] ?? 0) > 0);
  return {
    document,
    present: report === undefined ? null : report.present,
    readAt: readAt ?? null,
    keyOrder,
    codes: codesOf(product, keyOrder),
  };
}

/** The later of the full sync's and the stock sync's reading of the unit's stock export. */
function stockReadAt(reports: SourceReports): string | undefined {
  const full = reports.catalog?.merge === undefined ? undefined : reports.catalog.finishedAt;
  const stock = reports.stock?.outcome === 'published' ? reports.stock.finishedAt : undefined;
  if (full === undefined) return stock;
  return stock !== undefined && stock > full ? stock : full;
}

/** Per unit of the snapshot, the documents that gave the product's offer its values. */
export function sourcesOf(
  snapshot: CatalogSnapshot,
  product: Product,
  reports: SourceReports,
  changes: Pick<LastStockChanges, 'of' | 'rereadOf'>,
): UnitSources[] {
  const merged = reports.catalog?.merge;
  const sales = changes.of(product.id);
  return snapshot.units.map((unit) => {
    const report = merged?.units.find((entry) => entry.unit === unit.code);
    const readAt = merged === undefined ? undefined : reports.catalog?.finishedAt;
    return {
      unit: unit.code,
      priceList: documentSource('price-list', report?.priceList, readAt, product),
      stock: documentSource('stock-export', report?.stock, stockReadAt(reports), product),
      lastSale: sales.find((sale) => sale.unit === unit.code) ?? null,
      lastReread: changes.rereadOf(unit.code) ?? changes.rereadOf('*') ?? null,
    };
  });
}
