import { quoteValue } from './enrichment-problems.js';

/**
 * One cell as the CSV and .xlsx readers hand it on: its trimmed text, `undefined` when empty, or why it
 * has no usable value (reported against its row and column by the collector).
 */
export type SheetCell = string | CellIssue | undefined;

export interface CellIssue {
  readonly issue: 'formula' | 'invalid-value' | 'too-long';
  readonly message: string;
}

/** The cell's trimmed text; a cell over `maxCellChars` is refused before any other work on it. */
export function textCell(raw: string, maxCellChars: number): SheetCell {
  if (raw.length > maxCellChars) {
    return {
      issue: 'too-long',
      message: `the cell has ${raw.length} characters, more than the limit of ${maxCellChars}: ${quoteValue(raw)}`,
    };
  }
  const text = raw.trim();
  return text === '' ? undefined : text;
}

export function isCellIssue(cell: SheetCell): cell is CellIssue {
  return typeof cell === 'object';
}

/** Whether no cell of the record holds anything (Excel writes such `;;;` lines for formatted empty rows). */
export function isBlankRecord(cells: readonly SheetCell[]): boolean {
  for (const cell of cells) {
    if (cell !== undefined) return false;
  }
  return true;
}
