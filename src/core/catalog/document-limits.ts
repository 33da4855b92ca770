/**
 * How much of a unit's price list and stock export the bridge reads before it gives up on the document
 * (docs/failure-modes.md): limits that follow the catalog, so that a shop of a million articles works and
 * a shop of a few hundred is not exposed to gigabytes from a POS that misbehaves. A document of a unit
 * holds about one row per article; a limit of `rowsPerArticle` rows per article (default 2) plus a
 * margin leaves room for variants and duplicates, and a byte limit of a generous size per allowed row
 * (with a floor for small shops, and an overall cap) stops a body whose rows never come.
 */

export interface DocumentLimitSettings {
  /** Rows a document may hold per article of the article list (`POS_MAX_ROWS_PER_ARTICLE`). */
  readonly rowsPerArticle: number;
  /** The largest document of any catalog, in bytes (`POS_MAX_DOCUMENT_MB`). */
  readonly maxDocumentBytes: number;
}

export interface DocumentLimits {
  /** Rows one price list or stock export may hold. */
  readonly maxRows: number;
  readonly maxPriceListBytes: number;
  readonly maxStockExportBytes: number;
  /** For messages: the article count the limits were derived from (NaN: not known). */
  readonly articles: number;
  readonly rowsPerArticle: number;
}

/** Rows allowed beyond `rowsPerArticle × articles`: a small shop's documents may list a few extra. */
export const ROW_MARGIN = 1_000;
/** A price-list item (`<SHOPITEM>` with its fields) is well under 1 KiB; four are allowed per row. */
export const PRICE_LIST_BYTES_PER_ROW = 4_096;
/** A stock-export line is well under 100 bytes; five times that is allowed per row. */
export const STOCK_EXPORT_BYTES_PER_ROW = 512;
/** Floors, so that limits never bite a small shop's ordinary documents. */
export const MIN_PRICE_LIST_BYTES = 16 * 1024 * 1024;
export const MIN_STOCK_EXPORT_BYTES = 8 * 1024 * 1024;

export function documentLimits(articles: number, settings: DocumentLimitSettings): DocumentLimits {
  const maxRows = Math.ceil(Math.max(0, articles) * settings.rowsPerArticle) + ROW_MARGIN;
  const cap = (floor: number, perRow: number) => Math.min(settings.maxDocumentBytes, Math.max(floor, maxRows * perRow));
  return {
    maxRows,
    maxPriceListBytes: cap(MIN_PRICE_LIST_BYTES, PRICE_LIST_BYTES_PER_ROW),
    maxStockExportBytes: cap(MIN_STOCK_EXPORT_BYTES, STOCK_EXPORT_BYTES_PER_ROW),
    articles,
    rowsPerArticle: settings.rowsPerArticle,
  };
}

/** The limits when the article count is not known (a stock sync on a catalog loaded from the store). */
export function unknownCatalogLimits(settings: DocumentLimitSettings): DocumentLimits {
  return {
    maxRows: Number.POSITIVE_INFINITY,
    maxPriceListBytes: settings.maxDocumentBytes,
    maxStockExportBytes: settings.maxDocumentBytes,
    articles: Number.NaN,
    rowsPerArticle: settings.rowsPerArticle,
  };
}

/** Why a document is over its limit, in words for the report. */
export function describeRowLimit(limits: DocumentLimits): string {
  return Number.isNaN(limits.articles)
    ? `${limits.maxRows} rows`
    : `${limits.maxRows} rows (${limits.rowsPerArticle} per article of the ${limits.articles} in the article list, plus ${ROW_MARGIN}; POS_MAX_ROWS_PER_ARTICLE)`;
}

/** A byte limit in words for the report. */
export function describeByteLimit(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB (POS_MAX_DOCUMENT_MB caps it; it follows the article count)`;
}

/**
 * A price list or stock export went past its limits (docs/failure-modes.md): more rows than the catalog
 * allows, or more bytes. The read stops at once; the sync fails and the last good catalog stays.
 */
export class DocumentTooLargeError extends Error {
  override readonly name = 'DocumentTooLargeError';
  readonly code = 'POS_RESPONSE_TOO_LARGE';
}
