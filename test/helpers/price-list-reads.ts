import { PriceListParseError } from '../../src/adapters/pos/parse-errors.js';
import type { PriceListParser } from '../../src/adapters/pos/price-list-xml.js';
import type { PriceListSummary } from '../../src/core/catalog/pos-documents.js';
import type { PriceListRow } from '../../src/core/catalog/source.js';

/** `createPriceListParser` or `createSaxesPriceListParser`: the two paths the price-list tests compare. */
export type PriceListParserFactory = (onRow: (row: PriceListRow) => void) => PriceListParser;

export type PriceListRead =
  | { readonly rows: PriceListRow[]; readonly summary: PriceListSummary }
  | { readonly error: PriceListParseError };

/** Feeds `chunks` to a new parser: its rows and summary, or the `PriceListParseError` (any other error is thrown). */
export function readPriceList(create: PriceListParserFactory, chunks: readonly Uint8Array[]): PriceListRead {
  const rows: PriceListRow[] = [];
  const parser = create((row) => rows.push(row));
  try {
    for (const chunk of chunks) parser.write(chunk);
    return { rows, summary: parser.end() };
  } catch (error) {
    if (!(error instanceof PriceListParseError)) throw error;
    return { error };
  }
}
