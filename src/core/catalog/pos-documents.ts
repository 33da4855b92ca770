/**
 * What reading the POS's two documents reports (docs/pos-interface.md): the summary of a unit's
 * price-list XML and of a stock export, and the stock export's column vocabulary, which the operator's
 * `POS_STOCK_COLUMNS` speaks. The parsers that fill them are `adapters/pos/price-list-xml.ts` and
 * `adapters/pos/stock-export.ts`.
 */

/** One skipped item or variant, or one field-level problem of an emitted row. */
export interface PriceListIssue {
  /** 1-based position of the SHOPITEM in the document. */
  readonly position: number;
  /** 1-based index of the VARIANT inside its SHOPITEM, for variant products. */
  readonly variant?: number;
  /** The row code, when the item had one. */
  readonly code?: string;
  readonly message: string;
}

export interface PriceListSummary {
  /** Name of the document element as written (`SHOP`, `root`, ...); absent only before any element was seen. */
  readonly rootElement?: string;
  /** Character encoding used for byte input (`utf-8` unless a BOM or the XML declaration says otherwise). */
  readonly encoding?: string;
  /** SHOPITEM elements seen. */
  readonly itemsSeen: number;
  /** Rows passed to `onRow` (one per simple item, one per VARIANT of a variant product). */
  readonly rowsEmitted: number;
  /** Items or variants that gave no row, with the reason; at most `MAX_REPORTED` entries. */
  readonly skipped: readonly PriceListIssue[];
  readonly skippedCount: number;
  /** Rows emitted without one of their fields, with the reason; at most `MAX_REPORTED` entries. */
  readonly warnings: readonly PriceListIssue[];
  readonly warningCount: number;
  /**
   * Characters XML forbids that were read tolerantly, in rows or between them; absent when there were none.
   * Each item or variant that had any is also in `warnings` (once, however many it had).
   */
  readonly forbiddenCharacters?: number;
}

export const STOCK_COLUMNS = ['code', 'plu', 'ean', 'name', 'quantity', 'measureUnit', 'unit'] as const;
export type StockColumn = (typeof STOCK_COLUMNS)[number];

/** Header names chosen by the operator, e.g. from `POS_STOCK_COLUMNS=code=Kód,quantity=Množství`. */
export type StockColumnOverride = Readonly<Partial<Record<StockColumn, string>>>;

export type StockDelimiter = ';' | ',' | '\t' | '|';

export interface StockColumnMatch {
  /** 0-based index of the column in each record. */
  readonly index: number;
  /** The header cell as written. */
  readonly header: string;
}

export interface StockExportSkip {
  readonly line: number;
  readonly reason: string;
}

export interface StockExportSummary {
  /** `utf-8` or `windows-1250` for byte input; absent for string input. */
  readonly encoding?: string;
  /** Absent only for an empty document. */
  readonly delimiter?: StockDelimiter;
  /** 1-based line of the header; absent only for an empty document. */
  readonly headerLine?: number;
  readonly header: readonly string[];
  readonly mapping: Readonly<Partial<Record<StockColumn, StockColumnMatch>>>;
  /** Non-empty data records after the header. */
  readonly rowsRead: number;
  /** Records that gave no row, with the reason; at most `MAX_SKIPS_REPORTED` entries. */
  readonly skipped: readonly StockExportSkip[];
  readonly skippedCount: number;
}
