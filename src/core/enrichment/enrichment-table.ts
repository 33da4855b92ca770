import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ProductEnrichment } from '../catalog/catalog.js';
import type {
  EnrichmentKeyColumn,
  EnrichmentProblem,
  EnrichmentProblemCode,
  EnrichmentRow,
  EnrichmentSheet,
} from './enrichment-types.js';

/**
 * A read enrichment sheet in the compact form a full sync applies (docs/decisions/0011-enrichment-sheet.md#memory): each product
 * row's key as UTF-8, and its values as JSON text deflated in blocks of rows, in shared memory with offsets,
 * instead of 100,000 row objects. Czech text held as JS strings takes two bytes a character and an object
 * per row; here a 61 MB sheet takes ~15 MB, which the service keeps and every sync's worker reads in place.
 * A row's values are inflated (its block, cached) and parsed only when the product it names is serialized.
 */
export interface EnrichmentTable {
  readonly keyColumn: EnrichmentKeyColumn;
  /** The recognised value columns, canonical names, in sheet order. */
  readonly columns: readonly string[];
  /** Product rows (duplicates already removed). */
  readonly rowCount: number;
  /** Per product row, its sheet line. */
  readonly lines: Int32Array;
  /** Row `r`'s key is `keys[keyOffsets[r], keyOffsets[r+1])`. */
  readonly keys: Uint8Array;
  readonly keyOffsets: Int32Array;
  /**
   * Rows' values in blocks of `BLOCK_ROWS`: block `b` is `blocks[blockOffsets[b], blockOffsets[b+1])`,
   * deflated; inflated, row `r`'s values' JSON is at `[valueOffsets[r], valueOffsets[r+1])` of its block
   * (the last row of a block ends at the block's end).
   */
  readonly blocks: Uint8Array;
  readonly blockOffsets: Int32Array;
  readonly valueOffsets: Int32Array;
  /** Group rows: few (one per article group), kept as they are. */
  readonly groups: readonly EnrichmentRow[];
  readonly problemCount: number;
  readonly problemCounts: Partial<Record<EnrichmentProblemCode, number>>;
  readonly problems: readonly EnrichmentProblem[];
}

/** Where product rows go as the sheet is read: into a list (`EnrichmentSheet.rows`) or a table. */
export interface EnrichmentRowSink {
  add(row: EnrichmentRow): void;
}

export interface EnrichmentTableBuilder extends EnrichmentRowSink {
  /** The table of the rows added, in shared memory. */
  finish(sheet: Omit<EnrichmentSheet, 'rows' | 'format' | 'encoding' | 'delimiter'>): EnrichmentTable;
}

/** Rows per deflated block: big enough to compress well (~3×), small enough to inflate for one row. */
const BLOCK_ROWS = 16;
/** Decoded blocks kept per table and thread: products are serialized in about the sheet's order. */
const CACHED_BLOCKS = 8;

/** Bytes appended to a buffer that doubles as it grows. */
function createByteSink(initial: number) {
  let bytes = Buffer.allocUnsafe(initial);
  let used = 0;
  return {
    get used() {
      return used;
    },
    append(value: string | Uint8Array): void {
      const length = typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : value.byteLength;
      if (used + length > bytes.length) {
        const grown = Buffer.allocUnsafe(Math.max(used + length, bytes.length * 2));
        bytes.copy(grown, 0, 0, used);
        bytes = grown;
      }
      if (typeof value === 'string') bytes.write(value, used, 'utf8');
      else bytes.set(value, used);
      used += length;
    },
    /** The bytes appended so far (a view, valid until the next append). */
    view(): Buffer {
      return bytes.subarray(0, used);
    },
    reset(): void {
      used = 0;
    },
    /** The bytes appended, copied into shared memory. */
    shared(): Uint8Array {
      const copy = new Uint8Array(new SharedArrayBuffer(Math.max(1, used)), 0, used);
      copy.set(bytes.subarray(0, used));
      return copy;
    },
  };
}

/** Collects rows: keys as they come, values a block at a time, deflated; copied into shared memory at the end. */
export function createEnrichmentTableBuilder(): EnrichmentTableBuilder {
  const keys = createByteSink(64 * 1024);
  const blocks = createByteSink(64 * 1024);
  const block = createByteSink(16 * 1024);
  const keyOffsets: number[] = [0];
  const valueOffsets: number[] = [];
  const blockOffsets: number[] = [0];
  const lines: number[] = [];

  function closeBlock(): void {
    if (block.used === 0) return;
    // Level 6: a sheet is read once, and every sync's memory is what the table takes.
    blocks.append(deflateRawSync(block.view(), { level: 6 }));
    blockOffsets.push(blocks.used);
    block.reset();
  }

  return {
    add(row) {
      if (lines.length > 0 && lines.length % BLOCK_ROWS === 0) closeBlock();
      lines.push(row.line);
      keys.append(row.key);
      keyOffsets.push(keys.used);
      valueOffsets.push(block.used);
      block.append(JSON.stringify(row.values));
    },
    finish(sheet) {
      closeBlock();
      return {
        keyColumn: sheet.keyColumn,
        columns: sheet.columns,
        rowCount: lines.length,
        lines: sharedInts(lines),
        keys: keys.shared(),
        keyOffsets: sharedInts(keyOffsets),
        blocks: blocks.shared(),
        blockOffsets: sharedInts(blockOffsets),
        valueOffsets: sharedInts(valueOffsets),
        groups: sheet.groups,
        problemCount: sheet.problemCount,
        problemCounts: sheet.problemCounts,
        problems: sheet.problems,
      };
    },
  };
}

/** The table of a sheet read into rows (tests, and callers that have the rows already). */
export function tableOf(sheet: EnrichmentSheet): EnrichmentTable {
  const builder = createEnrichmentTableBuilder();
  for (const row of sheet.rows) builder.add(row);
  return builder.finish(sheet);
}

function utf8At(bytes: Uint8Array, from: number, to: number): string {
  // Through Buffer: TextDecoder refuses views of shared memory.
  return Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('utf8');
}

/** Product row `row`'s key as written (trimmed). */
export function tableKey(table: EnrichmentTable, row: number): string {
  return utf8At(table.keys, table.keyOffsets[row] ?? 0, table.keyOffsets[row + 1] ?? 0);
}

/** Product row `row`'s sheet line. */
export function tableLine(table: EnrichmentTable, row: number): number {
  return table.lines[row] ?? 0;
}

/** Per table (this thread's copy of it), the last blocks inflated, most recent last. */
const decodedBlocks = new WeakMap<EnrichmentTable, Map<number, Buffer>>();

function blockAt(table: EnrichmentTable, index: number): Buffer {
  let cache = decodedBlocks.get(table);
  if (cache === undefined) {
    cache = new Map();
    decodedBlocks.set(table, cache);
  }
  const known = cache.get(index);
  if (known !== undefined) return known;
  const from = table.blockOffsets[index] ?? 0;
  const to = table.blockOffsets[index + 1] ?? from;
  const decoded = inflateRawSync(Buffer.from(table.blocks.buffer, table.blocks.byteOffset + from, to - from));
  if (cache.size >= CACHED_BLOCKS) cache.delete(cache.keys().next().value as number);
  cache.set(index, decoded);
  return decoded;
}

/** Product row `row`'s values, parsed now (the caller keeps them only as long as it needs them). */
export function tableValues(table: EnrichmentTable, row: number): ProductEnrichment {
  const index = Math.floor(row / BLOCK_ROWS);
  const block = blockAt(table, index);
  const from = table.valueOffsets[row] ?? 0;
  const last = row % BLOCK_ROWS === BLOCK_ROWS - 1 || row === table.rowCount - 1;
  const to = last ? block.length : (table.valueOffsets[row + 1] ?? block.length);
  return JSON.parse(block.toString('utf8', from, to)) as ProductEnrichment;
}

/** Every product row's key, in row order. */
export function tableKeys(table: EnrichmentTable): string[] {
  const keys = new Array<string>(table.rowCount);
  for (let row = 0; row < table.rowCount; row += 1) keys[row] = tableKey(table, row);
  return keys;
}

/** Bytes the table holds (its shared buffers). */
export function tableBytes(table: EnrichmentTable): number {
  return (
    table.keys.byteLength +
    table.blocks.byteLength +
    table.lines.byteLength +
    table.keyOffsets.byteLength +
    table.blockOffsets.byteLength +
    table.valueOffsets.byteLength
  );
}

function sharedInts(values: readonly number[]): Int32Array {
  const shared = new Int32Array(
    new SharedArrayBuffer(Math.max(1, values.length) * Int32Array.BYTES_PER_ELEMENT),
    0,
    values.length,
  );
  shared.set(values);
  return shared;
}
