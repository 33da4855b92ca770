import type { PriceListSummary } from '../../core/catalog/pos-documents.js';

/** One way of reading a price list (saxes, or the byte scanner), unguarded: `price-list-xml.ts` guards both. */
export interface PriceListReading {
  write(chunk: string | Uint8Array): void;
  end(): PriceListSummary;
  /** Whether `onRow` is running: an error thrown now is the caller's, not the document's. */
  readonly inCallback: boolean;
}
