import { SaxesParser } from 'saxes';
import type { PriceListSummary } from '../../core/catalog/pos-documents.js';
import type { PriceListRow } from '../../core/catalog/source.js';
import { PriceListParseError } from './parse-errors.js';
import { createXmlTextFeed } from './price-list-decoding.js';
import { createItemReader } from './price-list-items.js';
import { forbiddenCharacterOf } from './xml-forbidden-characters.js';

export { MAX_REPORTED } from './price-list-items.js';
export { forbiddenCharacterProblem } from './xml-forbidden-characters.js';

/**
 * Tolerant, streaming parser of a unit's e-shop price-list XML (interface 4.5), which is Shoptet's
 * update-import form (docs/pos-interface.md, the price-list XML; docs/catalog-rules.md rule 3). Streaming
 * (saxes) rather than a document tree: see docs/decisions/0002-price-list-xml-streaming.md for the measurements.
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
 * Here saxes is wired up; the element handlers are `price-list-items.ts`, the decoding of byte chunks
 * `price-list-decoding.ts`, the reading of values `price-list-values.ts`.
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
 * document itself is never retained. Feed it the chunks of an HTTP body as they arrive.
 *
 * Errors thrown by `onRow` propagate unchanged and end the parser.
 *
 * @example
 * const parser = createPriceListParser((row) => rows.push(row));
 * for await (const chunk of response.body) parser.write(chunk);
 * const summary = parser.end();
 */
export function createPriceListParser(onRow: (row: PriceListRow) => void): PriceListParser {
  const sax = new SaxesParser({ xmlns: false, position: true });
  const items = createItemReader(onRow);
  const feed = createXmlTextFeed((text) => sax.write(text));

  let failure: unknown;
  let ended = false;

  sax.on('opentag', items.openTag);
  sax.on('closetag', items.closeTag);
  sax.on('text', items.text);
  sax.on('cdata', items.text);
  sax.on('error', (error) => {
    const forbidden = forbiddenCharacterOf(sax, error);
    if (forbidden !== undefined) {
      items.forbidden(forbidden);
      return;
    }
    // Throwing here stops saxes at the first problem (its default would be to report and carry on).
    // saxes prefixes its messages with "line:column: "; the typed error carries the position separately.
    // Its `column` is 0-based for the next character, i.e. the 1-based column of the offending one.
    const problem = error.message.replace(/^\d+:\d+: /, '').replace(/\.$/, '');
    throw new PriceListParseError(`price-list XML is not well-formed: ${problem}`, {
      line: sax.line,
      column: Math.max(1, sax.column),
    });
  });

  function guard(action: () => void): void {
    if (failure !== undefined) throw failure;
    if (ended) throw new Error('price-list parser already ended');
    try {
      action();
    } catch (error) {
      if (error instanceof PriceListParseError || items.inCallback) {
        failure = error;
      } else {
        // Defensive: saxes or a decoder failing in an unforeseen way is still "the document could not be read".
        failure = new PriceListParseError('price-list XML could not be parsed', undefined, { cause: error });
      }
      throw failure;
    }
  }

  return {
    write(chunk) {
      guard(() => {
        if (typeof chunk === 'string') feed.writeText(chunk);
        else feed.writeBytes(chunk);
      });
    },
    end() {
      guard(() => {
        feed.flush();
        sax.close();
      });
      ended = true;
      return items.summary(feed.encoding());
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
