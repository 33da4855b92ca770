/**
 * Typed errors of the tolerant POS document parsers. They are data errors (the POS sent a document
 * that cannot be read as a whole), a different family from transport errors in `pos-errors.ts`: the
 * sync keeps the last good catalog version and reports the code, line and message.
 * Problems confined to one item or row are never thrown; the parsers report them in their summaries.
 */

/** The price-list XML is not a well-formed XML document (the only error `price-list-xml.ts` throws). */
export class PriceListParseError extends Error {
  override readonly name = 'PriceListParseError';
  readonly code = 'PRICE_LIST_INVALID';
  /** 1-based line of the problem, when known. */
  readonly line?: number;
  /** 1-based column (in characters) of the problem, when known. */
  readonly column?: number;

  constructor(message: string, position?: { readonly line: number; readonly column: number }, options?: ErrorOptions) {
    super(position === undefined ? message : `${message} (line ${position.line}, column ${position.column})`, options);
    if (position !== undefined) {
      this.line = position.line;
      this.column = position.column;
    }
  }
}

/** The stock export cannot be read at all (no usable header), the only error `stock-export.ts` throws. */
export class StockExportParseError extends Error {
  override readonly name = 'StockExportParseError';
  readonly code = 'STOCK_EXPORT_INVALID';
  /** 1-based line of the header (or of the first line) the parser looked at, when known. */
  readonly line?: number;
  /** The header cells the parser saw, when it found a line to look at. */
  readonly header?: readonly string[];

  constructor(message: string, details?: { readonly line: number; readonly header: readonly string[] }) {
    super(message);
    if (details !== undefined) {
      this.line = details.line;
      this.header = details.header;
    }
  }
}
