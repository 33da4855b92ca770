import type { PriceListSummary } from '../../core/catalog/pos-documents.js';
import type { PriceListRow } from '../../core/catalog/source.js';
import { PriceListParseError } from './parse-errors.js';
import { createByteReading } from './price-list-bytes.js';
import type { PriceListReading } from './price-list-reading.js';
import { createSaxesReading } from './price-list-saxes.js';

export { MAX_REPORTED } from './price-list-items.js';
export { forbiddenCharacterProblem } from './xml-forbidden-characters.js';

/**
 * Tolerant, streaming parser of a unit's e-shop price-list XML (interface 4.5), which is Shoptet's
 * update-import form (docs/pos-interface.md, the price-list XML; docs/catalog-rules.md rule 3). Streaming
 * rather than a document tree (docs/decisions/0002-price-list-xml-streaming.md); UTF-8 bytes are read by a
 * byte scanner, everything else by saxes (docs/decisions/0021-price-list-byte-scanner.md). Both give the
 * same rows and summary, and reject the same documents with the same error (two kinds named at another
 * place: see the decision).
 *
 * Tolerance rules, all decided here so the sync never has to look at XML:
 * - `SHOPITEM` is found at any depth under any root (`SHOP`, the doc example's `<root/>`, wrappers).
 * - Element names are matched by local name and case-insensitively (`s:SHOPITEM`, `shopitem`);
 *   namespace prefixes are not resolved, unknown elements and attributes are ignored.
 * - Fields are recognised by their path relative to the item (or variant), so `PRICELISTS/PRICELIST/PRICE`,
 *   `RELATED_PRODUCTS/CODE` or `PARAMETERS/PARAMETER/VALUE` never leak into the row.
 * - Empty and whitespace-only elements mean "absent".
 * - Problems of one item (no CODE/EAN, a non-numeric or negative price, a duplicate element) are reported
 *   in the summary, never thrown. Only a document that is not well-formed XML throws, always as
 *   `PriceListParseError`.
 * - One exception to well-formedness: a character XML 1.0 forbids (a C0 control other than TAB, LF, CR;
 *   U+FFFE, U+FFFF; a lone surrogate) in text, an attribute value or a comment is read, not thrown. A real
 *   POS writes such characters into article names, and one of them must not freeze every price of the
 *   catalog. In the fields we read it becomes U+FFFD (availability texts lose it), and the item or variant is
 *   reported once in `warnings` (`forbiddenCharacterProblem`).
 *   In markup (a tag or attribute name, the XML declaration) or outside the document element it still throws:
 *   that is a broken document, not a bad value.
 *
 * The element handlers are `price-list-items.ts`, the reading of values `price-list-values.ts`.
 */

/**
 * After a `PriceListParseError` every later call throws the same error again. Calling either method
 * after `end()` is a programming error and throws a plain `Error`.
 */
export interface PriceListParser {
  /** Feeds the next chunk of the document (text, or bytes of any chunking). Throws `PriceListParseError`. */
  write(chunk: string | Uint8Array): void;
  /** Ends the document: final well-formedness checks, then the summary. Throws `PriceListParseError`. */
  end(): PriceListSummary;
}

/**
 * Creates a streaming parser that calls `onRow` for each row as soon as its SHOPITEM closes; the
 * document itself is never retained. Feed it the chunks of an HTTP body as they arrive. The first chunk
 * decides the path: bytes go to the byte scanner (or saxes, for another encoding), text to saxes.
 *
 * Errors thrown by `onRow` propagate unchanged and end the parser.
 *
 * @example
 * const parser = createPriceListParser((row) => rows.push(row));
 * for await (const chunk of response.body) parser.write(chunk);
 * const summary = parser.end();
 */
export function createPriceListParser(onRow: (row: PriceListRow) => void): PriceListParser {
  return guardReading((first) => (typeof first === 'string' ? createSaxesReading(onRow) : createByteReading(onRow)));
}

/** The saxes path whatever the input: the reference the byte scanner is compared with in tests. */
export function createSaxesPriceListParser(onRow: (row: PriceListRow) => void): PriceListParser {
  return guardReading(() => createSaxesReading(onRow));
}

function guardReading(choose: (first: string | Uint8Array) => PriceListReading): PriceListParser {
  let reading: PriceListReading | undefined;
  let failure: unknown;
  let ended = false;

  function guard<T>(action: () => T): T {
    if (failure !== undefined) throw failure;
    if (ended) throw new Error('price-list parser already ended');
    try {
      return action();
    } catch (error) {
      if (error instanceof PriceListParseError || reading?.inCallback === true) {
        failure = error;
      } else {
        // Defensive: a parser or a decoder failing in an unforeseen way is still "the document could not be read".
        failure = new PriceListParseError('price-list XML could not be parsed', undefined, { cause: error });
      }
      throw failure;
    }
  }

  return {
    write(chunk) {
      guard(() => {
        reading ??= choose(chunk);
        reading.write(chunk);
      });
    },
    end() {
      const summary = guard(() => {
        reading ??= choose(new Uint8Array(0));
        return reading.end();
      });
      ended = true;
      return summary;
    },
  };
}

/**
 * Parses a whole price-list document; convenient for small documents and tests. Large feeds should be
 * streamed through `createPriceListParser`.
 *
 * @throws PriceListParseError when the document is not well-formed XML.
 */
export function parsePriceListXml(xml: string | Uint8Array): { rows: PriceListRow[]; summary: PriceListSummary } {
  const rows: PriceListRow[] = [];
  const parser = createPriceListParser((row) => {
    rows.push(row);
  });
  parser.write(xml);
  return { rows, summary: parser.end() };
}
