import type { IdentityRows } from './resolve-identity.js';
import { BLOCK_ROWS, createRowCodes, type RowCodesState, type RowCodeUnits } from './row-codes.js';
import type { PriceListRow } from './source.js';

/**
 * The rows of one unit's price list, read by index. `mergeCatalog` takes plain arrays; a sync collects
 * rows with `createPriceListRowCollector`, which keeps them in typed arrays instead of objects.
 *
 * Why: a price list's rows must all be kept until its document ends (identity ranking samples the whole
 * document), i.e. for seconds. As 100,000 objects per unit they outlived the young generation, were
 * promoted, and died right after the unit was merged: ~200 MB of old-generation garbage per
 * 100,000 × 5 sync, which V8 (growing the old generation up to ~4× its live size between full GCs)
 * turned into ~100 MB more peak RSS (bench/full-sync.ts). Typed arrays are a few objects per unit.
 */
export interface PriceListRows {
  readonly length: number;
  /** The row at `index`, built anew on each call (same fields, same key order as the parser's); `undefined` out of range. */
  row(index: number): PriceListRow | undefined;
  /** Only the identity fields of the row at `index` (what identity resolution reads). */
  identity(index: number): Pick<PriceListRow, 'code' | 'ean' | 'plu'> | undefined;
  /** `identity` without strings, where the rows are held as code units (`RowCodes.unitsInto`). */
  identityUnits?(index: number, into: RowCodeUnits): boolean;
  /** The row's `position` (1-based place of its item in the document). */
  position(index: number): number | undefined;
}

export interface PriceListRowCollector extends PriceListRows {
  push(row: PriceListRow): void;
  /** The rows as plain data a thread can post to another; `createPriceListRowCollector(state)` reads them there. */
  state(): PriceListRowsState;
}

/** A collector's rows: typed arrays, numbers and the distinct label texts (structured-cloneable). */
export interface PriceListRowsState {
  readonly length: number;
  readonly blocks: readonly PriceListBlock[];
  readonly codes: RowCodesState;
  readonly texts: readonly string[];
}

/**
 * The rows as identity resolution reads them, one at a time (their code units too, when they are held so):
 * candidates are never all built at once (kept in an array for the whole resolution they outlived the young
 * generation, ~12 MB per unit; bench/full-sync.ts).
 */
export function priceListIdentityRows(rows: PriceListRows): IdentityRows {
  const { identityUnits } = rows;
  return {
    length: rows.length,
    candidates: (row) => rows.identity(row),
    ...(identityUnits === undefined
      ? {}
      : { unitsInto: (row: number, into: RowCodeUnits) => identityUnits.call(rows, row, into) }),
  };
}

/** The `PriceListRows` view of an array of rows. */
export function priceListRowsOf(rows: readonly PriceListRow[]): PriceListRows {
  return {
    length: rows.length,
    row: (index) => rows[index],
    identity: (index) => rows[index],
    position: (index) => rows[index]?.position,
  };
}

// Slots of the per-row columns (written out rather than looped over: this runs for every row).
const PRICE_VAT = 0;
const PRICE_NET = 1;
const ACTION_PRICE = 2;
const STANDARD_PRICE = 3;
const STOCK = 4;
const NUMBER_COLUMNS = 5;
const CURRENCY = 0;
const IN_STOCK = 1;
const OUT_OF_STOCK = 2;
const TEXT_COLUMNS = 3;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Columns of `BLOCK_ROWS` rows. */
export interface PriceListBlock {
  readonly positions: Int32Array;
  /** Presence bits of the number columns. */
  readonly present: Uint8Array;
  readonly numbers: Float64Array;
  /** 1-based index into the collector's text table; 0 = absent. */
  readonly textRefs: Uint32Array;
}

function newBlock(): PriceListBlock {
  return {
    positions: new Int32Array(BLOCK_ROWS),
    present: new Uint8Array(BLOCK_ROWS),
    numbers: new Float64Array(BLOCK_ROWS * NUMBER_COLUMNS),
    textRefs: new Uint32Array(BLOCK_ROWS * TEXT_COLUMNS),
  };
}

/**
 * Collects rows into typed arrays, in blocks of 4,096 rows: the numbers in a Float64Array (5 per row,
 * with a presence bit each), the code fields' characters in pages of a UTF-16 pool, the currency and
 * availability labels as indices into a table of their distinct texts (a handful per document). About
 * 110 bytes per row outside the JS heap, instead of ~250 bytes of heap objects per row. Blocks and
 * pages are filled, never grown: growing by copying left as much garbage as the rows themselves.
 *
 * @example
 * const rows = createPriceListRowCollector();
 * const parser = createPriceListParser((row) => rows.push(row));
 */
export function createPriceListRowCollector(from?: PriceListRowsState): PriceListRowCollector {
  let length = from?.length ?? 0;
  const blocks: PriceListBlock[] = from === undefined ? [] : [...from.blocks];
  const codes = createRowCodes(from?.codes);
  const texts: string[] = from === undefined ? [] : [...from.texts];
  const textIndex = new Map<string, number>(texts.map((text, at) => [text, at + 1]));

  function textRef(value: string | undefined): number {
    if (value === undefined) return 0;
    let ref = textIndex.get(value);
    if (ref === undefined) {
      texts.push(value);
      ref = texts.length;
      textIndex.set(value, ref);
    }
    return ref;
  }

  function storeNumber(numbers: Float64Array, slot: number, column: number, value: number | undefined): number {
    if (value === undefined) return 0;
    numbers[slot * NUMBER_COLUMNS + column] = value;
    return 1 << column;
  }

  function readNumber(block: PriceListBlock, slot: number, column: number): number | undefined {
    return ((block.present[slot] ?? 0) & (1 << column)) === 0 ? undefined : block.numbers[slot * NUMBER_COLUMNS + column];
  }

  function readText(block: PriceListBlock, slot: number, column: number): string | undefined {
    const ref = block.textRefs[slot * TEXT_COLUMNS + column] ?? 0;
    return ref === 0 ? undefined : texts[ref - 1];
  }

  function blockOf(index: number): PriceListBlock | undefined {
    return index < 0 || index >= length ? undefined : blocks[Math.floor(index / BLOCK_ROWS)];
  }

  function identity(index: number): Pick<PriceListRow, 'code' | 'ean' | 'plu'> | undefined {
    return index < 0 || index >= length ? undefined : codes.readInto(index, { code: '' });
  }

  return {
    get length() {
      return length;
    },
    push(row) {
      const slot = length % BLOCK_ROWS;
      if (slot === 0) blocks.push(newBlock());
      const block = blocks[blocks.length - 1] as PriceListBlock;
      block.positions[slot] = row.position;
      block.present[slot] =
        storeNumber(block.numbers, slot, PRICE_VAT, row.priceVat) |
        storeNumber(block.numbers, slot, PRICE_NET, row.priceNet) |
        storeNumber(block.numbers, slot, ACTION_PRICE, row.actionPrice) |
        storeNumber(block.numbers, slot, STANDARD_PRICE, row.standardPrice) |
        storeNumber(block.numbers, slot, STOCK, row.stock);
      codes.push(row.code, row.ean, row.plu);
      const refs = slot * TEXT_COLUMNS;
      block.textRefs[refs + CURRENCY] = textRef(row.currency);
      block.textRefs[refs + IN_STOCK] = textRef(row.availabilityInStock);
      block.textRefs[refs + OUT_OF_STOCK] = textRef(row.availabilityOutOfStock);
      length += 1;
    },
    identity,
    identityUnits: (index, into) => codes.unitsInto(index, into),
    state: () => ({ length, blocks, codes: codes.state(), texts }),
    position(index) {
      return blockOf(index)?.positions[index % BLOCK_ROWS];
    },
    row(index) {
      const block = blockOf(index);
      if (block === undefined) return undefined;
      const slot = index % BLOCK_ROWS;
      // The parser's key order: code, position, ean, plu, the prices, currency, stock, the labels.
      const row = codes.readInto<Mutable<PriceListRow>>(index, { code: '', position: block.positions[slot] ?? 0 });
      const priceVat = readNumber(block, slot, PRICE_VAT);
      if (priceVat !== undefined) row.priceVat = priceVat;
      const priceNet = readNumber(block, slot, PRICE_NET);
      if (priceNet !== undefined) row.priceNet = priceNet;
      const actionPrice = readNumber(block, slot, ACTION_PRICE);
      if (actionPrice !== undefined) row.actionPrice = actionPrice;
      const standardPrice = readNumber(block, slot, STANDARD_PRICE);
      if (standardPrice !== undefined) row.standardPrice = standardPrice;
      const currency = readText(block, slot, CURRENCY);
      if (currency !== undefined) row.currency = currency;
      const stock = readNumber(block, slot, STOCK);
      if (stock !== undefined) row.stock = stock;
      const inStock = readText(block, slot, IN_STOCK);
      if (inStock !== undefined) row.availabilityInStock = inStock;
      const outOfStock = readText(block, slot, OUT_OF_STOCK);
      if (outOfStock !== undefined) row.availabilityOutOfStock = outOfStock;
      return row;
    },
  };
}
