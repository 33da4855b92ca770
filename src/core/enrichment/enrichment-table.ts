import type { ProductEnrichment } from '../catalog/catalog.js';
import type {
  EnrichmentKeyColumn,
  EnrichmentProblem,
  EnrichmentProblemCode,
  EnrichmentRow,
  EnrichmentSheet,
} from './enrichment-sheet.js';

/**
 * A read enrichment sheet in the compact form a full sync applies (docs/enrichment.md#memory): each product
 * row's key and values as UTF-8 (the values as their JSON text) in one shared buffer, with offsets, instead
 * of 100,000 row objects. Czech text held as JS strings takes two bytes a character and an object per row;
 * here a 60 MB sheet stays ~60 MB, in shared memory, so the service keeps it and every sync's worker reads it
 * in place. A row's values are parsed only when the product it names is serialized.
 */
export interface EnrichmentTable {
  readonly keyColumn: EnrichmentKeyColumn;
  /** The recognised value columns, canonical names, in sheet order. */
  readonly columns: readonly string[];
  /** Product rows (duplicates already removed). */
  readonly rowCount: number;
  /** Per product row, its sheet line. */
  readonly lines: Int32Array;
  /** Row `r`'s key is `text[offsets[2r], offsets[2r+1])`, its values' JSON `text[offsets[2r+1], offsets[2r+2])`. */
  readonly offsets: Int32Array;
  readonly text: Uint8Array;
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

const INITIAL_BYTES = 64 * 1024;

/** Collects rows into growing buffers, copied once into shared memory at the end. */
export function createEnrichmentTableBuilder(): EnrichmentTableBuilder {
  let text = Buffer.allocUnsafe(INITIAL_BYTES);
  let used = 0;
  let offsets: Int32Array = new Int32Array(1024);
  let lines: Int32Array = new Int32Array(512);
  let rows = 0;

  function append(value: string): void {
    const needed = used + Buffer.byteLength(value, 'utf8');
    if (needed > text.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, text.length * 2));
      text.copy(grown, 0, 0, used);
      text = grown;
    }
    used += text.write(value, used, 'utf8');
  }

  return {
    add(row) {
      if (2 * rows + 3 > offsets.length) offsets = grownInts(offsets);
      if (rows + 1 > lines.length) lines = grownInts(lines);
      lines[rows] = row.line;
      offsets[2 * rows] = used;
      append(row.key);
      offsets[2 * rows + 1] = used;
      append(JSON.stringify(row.values));
      rows += 1;
      offsets[2 * rows] = used;
    },
    finish(sheet) {
      const shared = new Uint8Array(new SharedArrayBuffer(used));
      shared.set(text.subarray(0, used));
      const table: EnrichmentTable = {
        keyColumn: sheet.keyColumn,
        columns: sheet.columns,
        rowCount: rows,
        lines: sharedInts(lines, rows),
        offsets: sharedInts(offsets, 2 * rows + 1),
        text: shared,
        groups: sheet.groups,
        problemCount: sheet.problemCount,
        problemCounts: sheet.problemCounts,
        problems: sheet.problems,
      };
      text = Buffer.alloc(0);
      return table;
    },
  };
}

/** The table of a sheet read into rows (tests, and callers that have the rows already). */
export function tableOf(sheet: EnrichmentSheet): EnrichmentTable {
  const builder = createEnrichmentTableBuilder();
  for (const row of sheet.rows) builder.add(row);
  return builder.finish(sheet);
}

function textAt(table: EnrichmentTable, from: number, to: number): string {
  // Through Buffer: TextDecoder refuses views of shared memory.
  return Buffer.from(table.text.buffer, table.text.byteOffset + from, to - from).toString('utf8');
}

/** Product row `row`'s key as written (trimmed). */
export function tableKey(table: EnrichmentTable, row: number): string {
  return textAt(table, table.offsets[2 * row] ?? 0, table.offsets[2 * row + 1] ?? 0);
}

/** Product row `row`'s sheet line. */
export function tableLine(table: EnrichmentTable, row: number): number {
  return table.lines[row] ?? 0;
}

/** Product row `row`'s values, parsed now (the caller keeps them only as long as it needs them). */
export function tableValues(table: EnrichmentTable, row: number): ProductEnrichment {
  return JSON.parse(textAt(table, table.offsets[2 * row + 1] ?? 0, table.offsets[2 * row + 2] ?? 0)) as ProductEnrichment;
}

/** Every product row's key, in row order. */
export function tableKeys(table: EnrichmentTable): string[] {
  const keys = new Array<string>(table.rowCount);
  for (let row = 0; row < table.rowCount; row += 1) keys[row] = tableKey(table, row);
  return keys;
}

/** Bytes the table holds (its shared buffers). */
export function tableBytes(table: EnrichmentTable): number {
  return table.text.byteLength + table.offsets.byteLength + table.lines.byteLength;
}

function grownInts(ints: Int32Array): Int32Array {
  const grown = new Int32Array(ints.length * 2);
  grown.set(ints);
  return grown;
}

function sharedInts(ints: Int32Array, length: number): Int32Array {
  const shared = new Int32Array(new SharedArrayBuffer(Math.max(1, length) * Int32Array.BYTES_PER_ELEMENT), 0, length);
  shared.set(ints.subarray(0, length));
  return shared;
}
