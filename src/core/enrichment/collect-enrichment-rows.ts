import { normalizeCode } from '../catalog/identity-codes.js';
import { headerMeaning, PRODUCT_ONLY_COLUMNS, type ValueColumn } from './enrichment-columns.js';
import { createProblemTally, quoteValue } from './enrichment-problems.js';
import type { EnrichmentRowSink } from './enrichment-table.js';
import type {
  EnrichmentKeyColumn,
  EnrichmentLimits,
  EnrichmentProblem,
  EnrichmentProblemCode,
  EnrichmentRow,
  EnrichmentSheet,
  EnrichmentSheetResult,
} from './enrichment-types.js';
import { isBlankRecord, isCellIssue, type SheetCell } from './sheet-cells.js';
import { type MutableEnrichment, readEnrichmentValue } from './validate-enrichment-value.js';

/**
 * Turns the records of a sheet (CSV or .xlsx alike) into enrichment rows: the first non-blank record is
 * the header (docs/enrichment.md#the-key-column), every later one a product or group row.
 */

export interface EnrichmentCollector {
  /** One record, in sheet order. `false`: stop reading (the header failed, or the row limit is reached). */
  record(line: number, cells: readonly SheetCell[]): boolean;
  finish(layout: Pick<EnrichmentSheet, 'format' | 'encoding' | 'delimiter'>): EnrichmentSheetResult;
}

interface ValueSlot {
  readonly index: number;
  readonly column: ValueColumn;
  /** As written in the sheet. */
  readonly header: string;
}

interface HeaderPlan {
  readonly keyIndex: number;
  readonly keyColumn: EnrichmentKeyColumn;
  readonly keyHeader: string;
  readonly slots: readonly ValueSlot[];
  /** Columns without a header name (blank header cells, cells past the header's end) whose data is ignored. */
  readonly named: readonly boolean[];
}

const GROUP_PREFIX = 'group:';
const ACCEPTED_KEYS = 'id, ean, plu, internalIdentifier (or internal_identifier) or code';

/**
 * `sink` takes the product rows as they are read (a table builder); without one they are collected into the
 * result's `rows`.
 */
export function createEnrichmentCollector(limits: EnrichmentLimits, sink?: EnrichmentRowSink): EnrichmentCollector {
  const listed: EnrichmentRow[] = [];
  const target: EnrichmentRowSink = sink ?? { add: (row) => listed.push(row) };
  const problems = createProblemTally<EnrichmentProblem>(limits.maxProblemExamples);
  const report: Report = (code, line, column, message) =>
    problems.add(column === undefined ? { code, line, message } : { code, line, column, message });
  let plan: HeaderPlan | undefined;
  let reader: RowReader | undefined;
  let error: string | undefined;
  let dataRows = 0;

  return {
    record(line, cells) {
      if (error !== undefined || isBlankRecord(cells)) return error === undefined;
      if (reader === undefined) {
        const read = readHeader(line, cells, report);
        if (typeof read === 'string') error = read;
        else [plan, reader] = [read, createRowReader(read, target, report)];
        return error === undefined;
      }
      dataRows += 1;
      if (dataRows > limits.maxRows) {
        report('too-many-rows', line, undefined, `more than ${limits.maxRows} rows: this row and all later ones are ignored`);
        return false;
      }
      reader.read(line, cells);
      return true;
    },
    finish(layout) {
      if (error !== undefined) return { ok: false, error };
      if (plan === undefined || reader === undefined) return { ok: false, error: 'the sheet is empty: it has no header row' };
      return {
        ok: true,
        ...layout,
        keyColumn: plan.keyColumn,
        columns: plan.slots.map((slot) => slot.column),
        rows: listed,
        groups: reader.groups,
        problemCount: problems.count,
        problemCounts: problems.counts,
        problems: problems.examples,
      };
    },
  };
}

interface RowReader {
  read(line: number, cells: readonly SheetCell[]): void;
  readonly groups: readonly EnrichmentRow[];
}

/** Reads the data rows under `header`: keys, duplicates, values; product rows go to `rows`. */
function createRowReader(header: HeaderPlan, rows: EnrichmentRowSink, report: Report): RowReader {
  const groups: EnrichmentRow[] = [];
  const seen = new Map<string, number>();
  const seenGroups = new Map<string, number>();
  const reportedUnnamed = new Set<number>();

  function reportUnnamed(line: number, cells: readonly SheetCell[]): void {
    for (let index = 0; index < cells.length; index += 1) {
      if (header.named[index] === true || cells[index] === undefined || reportedUnnamed.has(index)) continue;
      reportedUnnamed.add(index);
      report('unknown-column', line, '', `column ${index + 1} has no header: its cells are ignored`);
    }
  }

  return {
    groups,
    read(line, cells) {
      const key = readKey(header, line, cells[header.keyIndex], report);
      if (key === undefined) return;
      const target = key.group ? seenGroups : seen;
      const normalized = key.group ? key.id : dedupeKey(header.keyColumn, key.id);
      const first = target.get(normalized);
      if (first !== undefined) {
        report(
          'duplicate-key',
          line,
          header.keyHeader,
          `${quoteValue(key.text)} was already on line ${first}; the first row wins`,
        );
        return;
      }
      target.set(normalized, line);
      const values = readValues(header, line, cells, key.group, report);
      if (key.group) groups.push({ line, key: key.id, values });
      else rows.add({ line, key: key.id, values });
      reportUnnamed(line, cells);
    },
  };
}

type Report = (code: EnrichmentProblemCode, line: number, column: string | undefined, message: string) => void;

/** The header's plan, or the error that fails the sheet (no key column). */
function readHeader(line: number, cells: readonly SheetCell[], report: Report): HeaderPlan | string {
  let key: Pick<HeaderPlan, 'keyIndex' | 'keyColumn' | 'keyHeader'> | undefined;
  const slots: ValueSlot[] = [];
  const named: boolean[] = [];
  const headers: string[] = [];
  for (const [index, cell] of cells.entries()) {
    if (isCellIssue(cell)) report(cell.issue, line, '', `header of column ${index + 1}: ${cell.message}`);
    const header = typeof cell === 'string' ? cell : '';
    headers.push(header);
    const meaning = headerMeaning(header);
    named.push(meaning.kind !== 'blank');
    if (meaning.kind === 'key' && key === undefined) {
      key = { keyIndex: index, keyColumn: meaning.key, keyHeader: header };
    } else if (meaning.kind === 'key') {
      report('ignored-key-column', line, header, `only the first key column (${key?.keyHeader}) identifies products`);
    } else if (meaning.kind === 'value' && slots.some((slot) => slot.column === meaning.column)) {
      report('unknown-column', line, header, `a second ${meaning.column} column is ignored`);
    } else if (meaning.kind === 'value') {
      slots.push({ index, column: meaning.column, header });
    } else if (meaning.kind === 'unknown') {
      report('unknown-column', line, header, `${quoteValue(header)} is not a column of the enrichment sheet: ignored`);
    }
  }
  if (key === undefined) {
    const found = headers.slice(0, 30).map(quoteValue).join(', ');
    return `line ${line}: no key column. The header reads ${found}${headers.length > 30 ? ', …' : ''}; the first column named ${ACCEPTED_KEYS} identifies the products`;
  }
  return { ...key, slots, named };
}

interface RowKey {
  readonly group: boolean;
  /** The product key, or the group id after `group:`. */
  readonly id: string;
  /** The cell as written, for reports. */
  readonly text: string;
}

function readKey(header: HeaderPlan, line: number, cell: SheetCell, report: Report): RowKey | undefined {
  if (isCellIssue(cell)) {
    report(cell.issue, line, header.keyHeader, `${cell.message}; the row is ignored`);
    return undefined;
  }
  if (cell === undefined) {
    report('empty-key', line, header.keyHeader, 'the key cell is empty; the row is ignored');
    return undefined;
  }
  if (cell.length < GROUP_PREFIX.length || cell.slice(0, GROUP_PREFIX.length).toLowerCase() !== GROUP_PREFIX) {
    return { group: false, id: cell, text: cell };
  }
  const id = cell.slice(GROUP_PREFIX.length).trim();
  if (id === '') {
    report('empty-key', line, header.keyHeader, `${quoteValue(cell)} names no group; the row is ignored`);
    return undefined;
  }
  return { group: true, id, text: cell };
}

/** The key as duplicates compare: EANs without leading zeros, PLUs as numbers (as identity matching does). */
function dedupeKey(keyColumn: EnrichmentKeyColumn, key: string): string {
  if (keyColumn === 'ean' || keyColumn === 'plu') return normalizeCode(keyColumn, key) ?? key;
  return key;
}

function readValues(
  header: HeaderPlan,
  line: number,
  cells: readonly SheetCell[],
  group: boolean,
  report: Report,
): MutableEnrichment {
  const values: MutableEnrichment = {};
  for (const slot of header.slots) {
    const cell = cells[slot.index];
    if (cell === undefined) continue;
    if (isCellIssue(cell)) {
      report(cell.issue, line, slot.header, `${cell.message}; the cell is ignored`);
    } else if (group && PRODUCT_ONLY_COLUMNS.has(slot.column)) {
      report('group-column', line, slot.header, `a group row cannot set ${slot.column}: the cell is ignored`);
    } else {
      readEnrichmentValue(values, slot.column, cell, (code, message) => report(code, line, slot.header, message));
    }
  }
  return values;
}
