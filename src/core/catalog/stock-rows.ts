import type { IdentityRows } from './resolve-identity.js';
import { BLOCK_ROWS, createRowCodes, type RowCodesState, type RowCodeUnits } from './row-codes.js';
import type { StockRow } from './source.js';

/**
 * The rows of one unit's stock export as the merge reads them: codes, quantity and line, by index.
 * The merge and the stock sync take plain arrays too (`stockRowsOf`); a sync collects rows with
 * `createStockRowCollector`, which keeps them in typed arrays instead of objects.
 *
 * Why: the rows of an export are all kept until the export is parsed (identity ranking samples the whole
 * document). As objects (~320 bytes per row with the name) they outlived the young generation and
 * became ~30 MB of old-generation garbage per 100,000-row unit once merged, which held the peak RSS of a
 * 100,000 × 5 sync up until the next full GC (bench/full-sync.ts). Typed arrays are a few objects per unit.
 */
export interface StockRows {
  readonly length: number;
  /** The identifying codes of the row at `index` (built anew on each call); `undefined` out of range. */
  codes(index: number): StockRow['codes'] | undefined;
  /** `codes` without strings, where the rows are held as code units (`RowCodes.unitsInto`). */
  codeUnits?(index: number, into: RowCodeUnits): boolean;
  quantity(index: number): number | undefined;
  /** 1-based line of the row in the export, for reports. */
  line(index: number): number | undefined;
}

export interface StockRowCollector extends StockRows {
  /** Keeps the row's codes, quantity and line; its name, measure unit and unit column are not kept. */
  push(row: StockRow): void;
  /** The rows as plain data a thread can post to another; `createStockRowCollector(state)` reads them there. */
  state(): StockRowsState;
}

/** A collector's rows: typed arrays and numbers only (structured-cloneable). */
export interface StockRowsState {
  readonly length: number;
  readonly codes: RowCodesState;
  readonly quantities: readonly Float64Array[];
  readonly lines: readonly Int32Array[];
}

/** The `StockRows` view of an array of rows. */
export function stockRowsOf(rows: readonly StockRow[]): StockRows {
  return {
    length: rows.length,
    codes: (index) => rows[index]?.codes,
    quantity: (index) => rows[index]?.quantity,
    line: (index) => rows[index]?.line,
  };
}

/** The rows as identity resolution reads them (their code units too, when they are held so). */
export function stockIdentityRows(rows: StockRows): IdentityRows {
  const { codeUnits } = rows;
  return {
    length: rows.length,
    candidates: (row) => rows.codes(row),
    ...(codeUnits === undefined ? {} : { unitsInto: (row: number, into: RowCodeUnits) => codeUnits.call(rows, row, into) }),
  };
}

/** `rows` as `StockRows`, whether it is an array or already a view. */
export function asStockRows(rows: readonly StockRow[] | StockRows): StockRows {
  return 'codes' in rows ? rows : stockRowsOf(rows);
}

/** About 30 bytes per row plus the codes' characters, outside the JS heap. */
export function createStockRowCollector(from?: StockRowsState): StockRowCollector {
  let length = from?.length ?? 0;
  const codes = createRowCodes(from?.codes);
  const quantities: Float64Array[] = from === undefined ? [] : [...from.quantities];
  const lines: Int32Array[] = from === undefined ? [] : [...from.lines];

  function inRange(index: number): boolean {
    return index >= 0 && index < length;
  }

  return {
    get length() {
      return length;
    },
    push(row) {
      const slot = length % BLOCK_ROWS;
      if (slot === 0) {
        quantities.push(new Float64Array(BLOCK_ROWS));
        lines.push(new Int32Array(BLOCK_ROWS));
      }
      (quantities[quantities.length - 1] as Float64Array)[slot] = row.quantity;
      (lines[lines.length - 1] as Int32Array)[slot] = row.line;
      codes.push(row.codes.code, row.codes.ean, row.codes.plu);
      length += 1;
    },
    state: () => ({ length, codes: codes.state(), quantities, lines }),
    codes(index) {
      return inRange(index) ? codes.readInto(index, {}) : undefined;
    },
    codeUnits: (index, into) => codes.unitsInto(index, into),
    quantity(index) {
      return inRange(index) ? quantities[Math.floor(index / BLOCK_ROWS)]?.[index % BLOCK_ROWS] : undefined;
    },
    line(index) {
      return inRange(index) ? lines[Math.floor(index / BLOCK_ROWS)]?.[index % BLOCK_ROWS] : undefined;
    },
  };
}
