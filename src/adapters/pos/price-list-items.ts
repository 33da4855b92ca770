import type { PriceListIssue, PriceListSummary } from '../../core/catalog/pos-documents.js';
import type { PriceListRow } from '../../core/catalog/source.js';
import {
  detach,
  isSharedField,
  localUpperName,
  PATH_ROOT,
  type PathNode,
  sharedText,
  VARIANTS_NODE,
} from './price-list-elements.js';
import {
  type FieldPath,
  type Mutable,
  type Resolved,
  resolve,
  type Scope,
  type Values,
  WAREHOUSE_VALUE,
} from './price-list-values.js';
import { replaceForbidden } from './xml-forbidden-characters.js';

/**
 * The element handlers of the price-list parser (saxes or the byte scanner calls them, `price-list-xml.ts`):
 * SHOPITEM and VARIANT scopes, the texts of the fields we read, and one row per item or variant as each closes.
 */

/** Issue lists keep at most this many entries (counts stay exact), so a bad 100k-item feed keeps memory flat. */
export const MAX_REPORTED = 1000;

/** Longer text in a field we read is not a code, price or label; refusing it keeps one item's memory bounded. */
const MAX_FIELD_CHARS = 1000;

/** One open element inside the current scope; `node` is undefined inside subtrees we do not read. */
interface Frame {
  readonly node: PathNode | undefined;
  text: string;
  overflow: boolean;
}

function newScope(): Scope {
  return { values: new Map(), warehouseValues: [], problems: [], forbiddenCharacters: 0, firstForbidden: 0 };
}

export interface ItemReader {
  /**
   * An element opened (its name as written; its local name upper-cased when the caller has it), then the
   * attribute values' forbidden characters given to it.
   */
  openTag(name: string, localUpper?: string): void;
  /** Whether the text of the element now open is read (the byte scanner decodes no other text). */
  wantsText(): boolean;
  /** Text and CDATA. */
  text(text: string): void;
  /** An element closed; a closing SHOPITEM emits its rows. */
  closeTag(): void;
  /** A character XML forbids, read tolerantly (its code point); it belongs to the next event's scope. */
  forbidden(codePoint: number): void;
  /** Whether `onRow` is running: an error thrown now is the caller's, not the document's. */
  readonly inCallback: boolean;
  /** The parser's summary; `encoding` is the decoder's, for byte input. */
  summary(encoding: string | undefined): PriceListSummary;
}

export interface ItemReaderOptions {
  /**
   * Texts come as flat strings of their own (the byte scanner's), not as slices of the parser's chunk
   * (saxes'), so kept values need no copy (`detach`).
   */
  readonly flatTexts: boolean;
}

/**
 * Creates the handlers that call `onRow` for each row as soon as its SHOPITEM closes.
 */
export function createItemReader(onRow: (row: PriceListRow) => void, { flatTexts }: ItemReaderOptions): ItemReader {
  const keep = flatTexts ? (text: string) => text : detach;
  let rootElement: string | undefined;
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

  let inCallback = false;

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
   * Gives the forbidden characters read since the last event to the item or variant they were in. saxes (and
   * the byte scanner, which mirrors it) reports a character when it reads it, but hands over the text around
   * it (or the tag it sits in) only at the next event, so the characters wait for that event: text before the
   * next tag and a close tag belong to the scope current when the event arrives, an open tag's attribute
   * values to the element it opens (called after the open tag changed the scope). Outside any SHOPITEM they
   * count for the document only.
   */
  function takeForbidden(): void {
    if (itemDepth !== 0) {
      const scope = variant ?? item;
      if (scope.forbiddenCharacters === 0) scope.firstForbidden = pendingFirst;
      scope.forbiddenCharacters += pendingForbidden;
    }
    pendingForbidden = 0;
  }

  function onOpenTag(tagName: string, localUpper: string | undefined): void {
    depth += 1;
    if (depth === 1) rootElement = keep(tagName);
    const name = localUpper ?? localUpperName(tagName);
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
      scope.problems.push(`duplicate ${name} "${keep(text)}" ignored`);
      return;
    }
    scope.values.set(name, isSharedField(name) ? sharedText(text) : keep(text));
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

  return {
    openTag(name, localUpper) {
      onOpenTag(name, localUpper);
      if (pendingForbidden !== 0) takeForbidden();
    },
    wantsText() {
      if (itemDepth === 0) return false;
      const frame = currentFrames().at(-1);
      return frame?.node?.field !== undefined && !frame.overflow;
    },
    text: onText,
    closeTag: onCloseTag,
    forbidden(codePoint) {
      // Read on: the character stays in the text, `store` replaces it in the fields we keep.
      forbiddenCharacters += 1;
      if (pendingForbidden === 0) pendingFirst = codePoint;
      pendingForbidden += 1;
    },
    get inCallback() {
      return inCallback;
    },
    summary(encoding) {
      const summary: Mutable<PriceListSummary> = { itemsSeen, rowsEmitted, skipped, skippedCount, warnings, warningCount };
      if (rootElement !== undefined) summary.rootElement = rootElement;
      if (encoding !== undefined) summary.encoding = encoding;
      if (forbiddenCharacters !== 0) summary.forbiddenCharacters = forbiddenCharacters;
      return summary;
    },
  };
}
