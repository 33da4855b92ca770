import { TextDecoder } from 'node:util';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { PriceListRow } from '../../core/catalog/source.js';
import { PriceListParseError } from './parse-errors.js';
import {
  type FieldPath,
  type Mutable,
  type Resolved,
  resolve,
  type Scope,
  type Values,
  WAREHOUSE_VALUE,
} from './price-list-values.js';
import { concatBytes, ENCODING_SNIFF_BYTES, sniffEncoding } from './xml-encoding.js';
import { forbiddenCharacterOf, replaceForbidden } from './xml-forbidden-characters.js';

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

/** Issue lists keep at most this many entries (counts stay exact), so a bad 100k-item feed keeps memory flat. */
export const MAX_REPORTED = 1000;

/** Longer text in a field we read is not a code, price or label; refusing it keeps one item's memory bounded. */
const MAX_FIELD_CHARS = 1000;

const FIELD_PATHS: readonly FieldPath[] = [
  'CODE',
  'EAN',
  'PLU',
  'PRICE_VAT',
  'PRICE',
  'ACTION_PRICE',
  'STANDARD_PRICE',
  'CURRENCY',
  'AVAILABILITY_IN_STOCK',
  'AVAILABILITY_OUT_OF_STOCK',
  'STOCK',
  'STOCK/AMOUNT',
];

/**
 * The element paths we read, relative to a SHOPITEM or VARIANT, as a tree: an open element finds its
 * node with one map lookup on its parent's node, so no path string is built per element (measured hot).
 */
interface PathNode {
  field: FieldPath | typeof WAREHOUSE_VALUE | undefined;
  readonly children: Map<string, PathNode>;
}

function buildPathTree(fields: readonly (FieldPath | typeof WAREHOUSE_VALUE)[], containers: readonly string[]): PathNode {
  const root: PathNode = { field: undefined, children: new Map() };
  function nodeAt(path: string): PathNode {
    let node = root;
    for (const name of path.split('/')) {
      let child = node.children.get(name);
      if (child === undefined) {
        child = { field: undefined, children: new Map() };
        node.children.set(name, child);
      }
      node = child;
    }
    return node;
  }
  for (const path of containers) nodeAt(path);
  for (const path of fields) nodeAt(path).field = path;
  return root;
}

const PATH_ROOT = buildPathTree([...FIELD_PATHS, WAREHOUSE_VALUE], ['VARIANTS']);
const VARIANTS_NODE = PATH_ROOT.children.get('VARIANTS');

/** One open element inside the current scope; `node` is undefined inside subtrees we do not read. */
interface Frame {
  readonly node: PathNode | undefined;
  text: string;
  overflow: boolean;
}

/**
 * A flat copy of a short string. saxes hands out text as slices of the current chunk, and V8 keeps a
 * sliced string's whole parent alive: one retained 13-character EAN would pin its 64 KiB chunk, and a
 * sync keeping 100k rows would pin the whole document (measured in ADR 0002). A UTF-16 round trip is lossless.
 */
function detach(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, 'utf16le').toString('utf16le');
}

/**
 * Availability labels and the currency repeat in every item of every unit (a handful of distinct texts in
 * 100,000 items): one shared copy of each instead of one string per row. The labels end up in every offer
 * of the catalog, where per-row copies cost ~75 MB for 100,000 articles × 5 units (bench/full-sync.ts).
 * Bounded like `nameCache`; past the bound texts are copied as before.
 */
const sharedTexts = new Map<string, string>();
const SHARED_TEXTS_LIMIT = 1_000;

function sharedText(text: string): string {
  const cached = sharedTexts.get(text);
  if (cached !== undefined) return cached;
  const copy = detach(text);
  if (sharedTexts.size < SHARED_TEXTS_LIMIT) sharedTexts.set(copy, copy);
  return copy;
}

function isSharedField(name: FieldPath): boolean {
  return name === 'AVAILABILITY_IN_STOCK' || name === 'AVAILABILITY_OUT_OF_STOCK' || name === 'CURRENCY';
}

/** Names repeat in every item: caching the normalised name saves a `toUpperCase` per element (measured hot). */
const nameCache = new Map<string, string>();
const NAME_CACHE_LIMIT = 10_000;

function localUpperName(name: string): string {
  const cached = nameCache.get(name);
  if (cached !== undefined) return cached;
  const colon = name.indexOf(':');
  const local = (colon < 0 ? name : name.slice(colon + 1)).toUpperCase();
  // Bounded, so a hostile document with millions of distinct names cannot grow it.
  if (nameCache.size < NAME_CACHE_LIMIT) nameCache.set(name, local);
  return local;
}

function newScope(): Scope {
  return { values: new Map(), warehouseValues: [], problems: [], forbiddenCharacters: 0, firstForbidden: 0 };
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

  let rootElement: string | undefined;
  let encoding: string | undefined;
  let depth = 0;
  let itemsSeen = 0;
  let rowsEmitted = 0;
  let skippedCount = 0;
  let warningCount = 0;
  let forbiddenCharacters = 0;
  // Forbidden characters saxes read since the last event, not yet given to an item: see `takeForbidden`.
  let pendingForbidden = 0;
  let pendingFirst = 0;
  const skipped: PriceListIssue[] = [];
  const warnings: PriceListIssue[] = [];

  // Current SHOPITEM (and VARIANT) state; `itemDepth`/`variantDepth` are 0 outside them.
  let itemDepth = 0;
  let variantDepth = 0;
  let item = newScope();
  let itemFrames: Frame[] = [];
  let variants: Scope[] = [];
  let variant: Scope | undefined;
  let variantFrames: Frame[] = [];

  let failure: unknown;
  let inCallback = false;
  let ended = false;

  let decoder: TextDecoder | undefined;
  let pendingBytes: Uint8Array[] = [];
  let pendingLength = 0;
  let sawText = false;

  function report(list: PriceListIssue[], issue: PriceListIssue): void {
    if (list.length < MAX_REPORTED) list.push(issue);
  }

  function issue(position: number, variantIndex: number | undefined, code: string | undefined, message: string): PriceListIssue {
    const entry: Mutable<PriceListIssue> = { position, message };
    if (variantIndex !== undefined) entry.variant = variantIndex;
    if (code !== undefined) entry.code = code;
    return entry;
  }

  function currentFrames(): Frame[] {
    return variant === undefined ? itemFrames : variantFrames;
  }

  /**
   * Gives the forbidden characters read since the last event to the item or variant they were in. saxes
   * reports a character when it reads it, but hands over the text around it (or the tag it sits in) only
   * at the next event, so the characters wait for that event: text before the next tag and a close tag belong
   * to the scope current when the event arrives, an open tag's attribute values to the element it opens
   * (called after the open tag changed the scope). Outside any SHOPITEM they count for the document only.
   */
  function takeForbidden(): void {
    if (itemDepth !== 0) {
      const scope = variant ?? item;
      if (scope.forbiddenCharacters === 0) scope.firstForbidden = pendingFirst;
      scope.forbiddenCharacters += pendingForbidden;
    }
    pendingForbidden = 0;
  }

  function onOpenTag(tag: SaxesTagPlain): void {
    depth += 1;
    if (depth === 1) rootElement = detach(tag.name);
    const name = localUpperName(tag.name);
    if (itemDepth === 0) {
      if (name !== 'SHOPITEM') return;
      itemDepth = depth;
      itemsSeen += 1;
      item = newScope();
      itemFrames = [];
      variants = [];
      return;
    }
    const frames = currentFrames();
    const parent = frames.length === 0 ? PATH_ROOT : frames.at(-1)?.node;
    if (variant === undefined && name === 'VARIANT' && frames.length === 1 && parent === VARIANTS_NODE) {
      variant = newScope();
      variantFrames = [];
      variantDepth = depth;
      return;
    }
    frames.push({ node: parent?.children.get(name), text: '', overflow: false });
  }

  function onText(text: string): void {
    if (pendingForbidden !== 0) takeForbidden();
    if (itemDepth === 0) return;
    const frame = currentFrames().at(-1);
    if (frame?.node?.field === undefined || frame.overflow) return;
    if (frame.text.length + text.length > MAX_FIELD_CHARS) {
      frame.overflow = true;
      frame.text = '';
      return;
    }
    frame.text += text;
  }

  function onCloseTag(): void {
    if (pendingForbidden !== 0) takeForbidden();
    if (itemDepth !== 0) {
      if (depth === itemDepth) {
        finishItem();
        itemDepth = 0;
      } else if (variant !== undefined && depth === variantDepth) {
        variants.push(variant);
        variant = undefined;
        variantDepth = 0;
      } else {
        const frame = currentFrames().pop();
        if (frame?.node?.field !== undefined) store(variant ?? item, frame.node.field, frame);
      }
    }
    depth -= 1;
  }

  function store(scope: Scope, name: FieldPath | typeof WAREHOUSE_VALUE, frame: Frame): void {
    if (frame.overflow) {
      scope.problems.push(`${name} is longer than ${MAX_FIELD_CHARS} characters, ignored`);
      return;
    }
    // Replaced before trimming: a vertical tab or form feed is no whitespace to XML, and is replaced too.
    const text = (
      scope.forbiddenCharacters === 0
        ? frame.text
        : replaceForbidden(frame.text, name === 'AVAILABILITY_IN_STOCK' || name === 'AVAILABILITY_OUT_OF_STOCK')
    ).trim();
    if (text === '') return; // Empty elements mean "absent" (docs/catalog-rules.md rule 3).
    if (name === WAREHOUSE_VALUE) {
      scope.warehouseValues.push(text);
      return;
    }
    if (scope.values.has(name)) {
      scope.problems.push(`duplicate ${name} "${detach(text)}" ignored`);
      return;
    }
    scope.values.set(name, isSharedField(name) ? sharedText(text) : detach(text));
  }

  function finishItem(): void {
    const position = itemsSeen;
    const base = resolve(item);
    if (variants.length === 0) {
      emit(position, undefined, base, base.values);
      return;
    }
    // Item-level problems are reported once, not once per variant.
    for (const problem of base.problems) {
      warningCount += 1;
      report(warnings, issue(position, undefined, base.code, problem));
    }
    let index = 0;
    for (const scope of variants) {
      index += 1;
      const own = resolve(scope);
      // Identity is never inherited: each VARIANT is its own e-shop product and must carry its own CODE or EAN,
      // otherwise every variant would get the item's code. Other fields fall back to the item level.
      emit(position, index, own, { ...base.values, ...own.values });
    }
  }

  function emit(position: number, variantIndex: number | undefined, identity: Resolved, values: Values): void {
    const code = identity.code ?? identity.ean;
    if (code === undefined) {
      skippedCount += 1;
      const what = variantIndex === undefined ? 'SHOPITEM' : 'VARIANT';
      report(skipped, issue(position, variantIndex, undefined, `${what} has neither CODE nor EAN`));
      return;
    }
    for (const problem of identity.problems) {
      warningCount += 1;
      report(warnings, issue(position, variantIndex, code, problem));
    }
    const row: Mutable<PriceListRow> = { code, position };
    if (identity.ean !== undefined) row.ean = identity.ean;
    if (identity.plu !== undefined) row.plu = identity.plu;
    if (values.priceVat !== undefined) row.priceVat = values.priceVat;
    if (values.priceNet !== undefined) row.priceNet = values.priceNet;
    if (values.actionPrice !== undefined) row.actionPrice = values.actionPrice;
    if (values.standardPrice !== undefined) row.standardPrice = values.standardPrice;
    if (values.currency !== undefined) row.currency = values.currency;
    if (values.stock !== undefined) row.stock = values.stock;
    if (values.availabilityInStock !== undefined) row.availabilityInStock = values.availabilityInStock;
    if (values.availabilityOutOfStock !== undefined) row.availabilityOutOfStock = values.availabilityOutOfStock;
    rowsEmitted += 1;
    inCallback = true;
    onRow(row);
    inCallback = false;
  }

  sax.on('opentag', (tag) => {
    onOpenTag(tag);
    if (pendingForbidden !== 0) takeForbidden();
  });
  sax.on('closetag', onCloseTag);
  sax.on('text', onText);
  sax.on('cdata', onText);
  sax.on('error', (error) => {
    const forbidden = forbiddenCharacterOf(sax, error);
    if (forbidden !== undefined) {
      // Read on: the character stays in saxes' text, `store` replaces it in the fields we keep.
      forbiddenCharacters += 1;
      if (pendingForbidden === 0) pendingFirst = forbidden;
      pendingForbidden += 1;
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
      if (error instanceof PriceListParseError || inCallback) {
        failure = error;
      } else {
        // Defensive: saxes or a decoder failing in an unforeseen way is still "the document could not be read".
        failure = new PriceListParseError('price-list XML could not be parsed', undefined, { cause: error });
      }
      inCallback = false;
      throw failure;
    }
  }

  function feedText(text: string): void {
    if (text === '') return;
    // A BOM is an encoding signature, not content; saxes would otherwise see it as text before the root.
    const content = !sawText && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    sawText = true;
    if (content !== '') sax.write(content);
  }

  function decideEncoding(): void {
    const head = concatBytes(pendingBytes, pendingLength);
    pendingBytes = [];
    pendingLength = 0;
    const label = sniffEncoding(head);
    try {
      decoder = new TextDecoder(label);
    } catch {
      // An encoding TextDecoder does not know: read as UTF-8, which every Shoptet feed is (S1, S5).
      decoder = new TextDecoder('utf-8');
    }
    encoding = decoder.encoding;
    feedText(decoder.decode(head, { stream: true }));
  }

  function writeBytes(bytes: Uint8Array): void {
    if (decoder !== undefined) {
      feedText(decoder.decode(bytes, { stream: true }));
      return;
    }
    pendingBytes.push(bytes);
    pendingLength += bytes.length;
    // Hold bytes back only until the XML declaration (or the first tag) is complete.
    if (pendingLength >= ENCODING_SNIFF_BYTES || bytes.includes(0x3e)) decideEncoding();
  }

  function flushBytes(): void {
    if (decoder === undefined && pendingLength > 0) decideEncoding();
    if (decoder !== undefined) feedText(decoder.decode());
  }

  return {
    write(chunk) {
      guard(() => {
        if (typeof chunk === 'string') {
          flushBytes();
          decoder = undefined;
          feedText(chunk);
        } else {
          writeBytes(chunk);
        }
      });
    },
    end() {
      guard(() => {
        flushBytes();
        sax.close();
      });
      ended = true;
      const summary: Mutable<PriceListSummary> = { itemsSeen, rowsEmitted, skipped, skippedCount, warnings, warningCount };
      if (rootElement !== undefined) summary.rootElement = rootElement;
      if (encoding !== undefined) summary.encoding = encoding;
      if (forbiddenCharacters !== 0) summary.forbiddenCharacters = forbiddenCharacters;
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
