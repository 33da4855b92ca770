import type { PriceListSummary, StockColumnOverride, StockExportSummary } from '../../core/catalog/pos-documents.js';
import type { PosClientRecord, PosMovement, PosRejectedItem } from '../../core/catalog/pos-records.js';
import type { PriceListRow, SourceArticle, SourceUnit, StockRow } from '../../core/catalog/source.js';

/**
 * The POS as the services use it (docs/pos-interface.md, part 4). `adapters/pos/pos-client.ts` implements
 * it over HTTP; tests use a fake. Errors are the three families of `adapters/pos/pos-errors.ts`.
 */

export interface PosListResult<T> {
  readonly items: T[];
  /** Items that failed their schema or repeated an earlier item's id; never fatal. */
  readonly rejected: PosRejectedItem[];
  /** Requests made to read the list. */
  readonly pages: number;
  /** `total` as the POS reported it, for lists that have one. */
  readonly total?: number;
}

export interface PosMovementFilter {
  readonly dateFrom?: string;
  readonly dateTo?: string;
  readonly unit?: string;
  readonly article?: string;
}

/** Lookup fields of client get (interface 4.3). */
export interface PosClientQuery {
  readonly _id?: string;
  readonly externalId?: string;
  readonly email?: string;
  readonly phone?: string;
  readonly clientCardIdentifier?: string;
  readonly company?: { readonly TIN?: string; readonly VATID?: string };
}

/** Per-call options of the POS client's reads. */
export interface RequestOptions {
  readonly signal?: AbortSignal;
}

/** Options of reading a whole document. */
export interface DocumentRequestOptions extends RequestOptions {
  /** Largest body accepted, below the client's own limit (`maxStockExportBytes`): more fails the read. */
  readonly maxBytes?: number;
}

/**
 * A response body streamed chunk by chunk (single use). A body that breaks off mid-stream throws a
 * `PosUnavailableError` from the iteration. Leaving the loop early (or `cancel()`) releases the connection.
 */
export interface PosBodyStream extends AsyncIterable<Uint8Array> {
  readonly contentType?: string;
  cancel(): void;
}

export interface PosClient {
  /** Every unit (POST /ext/unit/list, all pages). */
  listUnits(): Promise<PosListResult<SourceUnit>>;
  /** Every article (POST /ext/assortment/article/list, all pages), gross prices by default. */
  listArticles(options?: { readonly priceOutput?: string }): Promise<PosListResult<SourceArticle>>;
  /** Every stock movement matching the filter (POST /ext/stockholding/movement/list, all pages). */
  listMovements(options?: { readonly filter?: PosMovementFilter }): Promise<PosListResult<PosMovement>>;
  /** One address-book client, or `undefined` when the POS returned no data (POST /ext/address-book/client/get). */
  getClient(query: PosClientQuery): Promise<PosClientRecord | undefined>;
  /** The unit's e-shop price-list XML as a stream (GET {prefix}/unit/{identifier}/price-list/export/eshop-update). */
  fetchPriceListXml(unit: SourceUnit): Promise<PosBodyStream>;
  /**
   * The unit's stock export, whole (GET {prefix}/warehouse/stock/export/{type}/{identifier}). When
   * `options.signal` aborts, the request is cut and no retry follows: it rejects with the signal's reason.
   */
  fetchStockExport(unit: SourceUnit, options?: DocumentRequestOptions): Promise<Uint8Array>;
  /** The stock export of all units, whole (GET {prefix}/warehouse/stock/export/{type}). */
  fetchStockExportAll(): Promise<Uint8Array>;
  /** Closes the Agent the client created; an injected dispatcher is left to its owner. */
  close(): Promise<void>;
}

/** A streaming price-list parser: chunks in, a row out as soon as its item closes. */
export interface PriceListParserPort {
  /** Feeds the next chunk (text, or bytes of any chunking). Throws a coded error on a malformed document. */
  write(chunk: string | Uint8Array): void;
  /** Ends the document: the final checks, then the summary. */
  end(): PriceListSummary;
}

/**
 * The POS's two document formats (docs/pos-interface.md): the price-list XML and the stock export, read by
 * `adapters/pos/` (`pos-document-readers.ts`). The full sync and the stock re-reads parse with these, in
 * whichever thread runs them; a row past the catalog's limits is refused by the caller's `onRow`.
 */
export interface PosDocumentReaders {
  createPriceListParser(onRow: (row: PriceListRow) => void): PriceListParserPort;
  readStockExport(
    input: string | Uint8Array,
    onRow: (row: StockRow) => void,
    options: { readonly columns?: StockColumnOverride },
  ): StockExportSummary;
}

/** Where a full sync reads from: the POS, and the readers of its documents. */
export interface PosSource {
  readonly pos: PosClient;
  readonly documents: PosDocumentReaders;
}
