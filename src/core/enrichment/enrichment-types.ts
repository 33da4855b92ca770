import type { ProductEnrichment } from '../catalog/catalog.js';

/**
 * The enrichment sheet's vocabulary (docs/enrichment.md): key columns, rows, problems, the read result and
 * its limits. Types and constants only, so every reader and builder of the sheet imports them from here.
 */

export const ENRICHMENT_KEY_COLUMNS = ['id', 'ean', 'plu', 'internalIdentifier', 'code'] as const;

export type EnrichmentKeyColumn = (typeof ENRICHMENT_KEY_COLUMNS)[number];

export type EnrichmentValues = ProductEnrichment;

export interface EnrichmentRow {
  /** 1-based: the CSV line where the record starts, or the sheet row number of an .xlsx. */
  readonly line: number;
  /** The key cell, trimmed (for a group row: the `localGroupId` after `group:`). */
  readonly key: string;
  readonly values: EnrichmentValues;
}

export type EnrichmentProblemCode =
  | 'unknown-column'
  | 'ignored-key-column'
  | 'empty-key'
  | 'duplicate-key'
  | 'group-column'
  | 'invalid-value'
  | 'too-long'
  | 'formula'
  | 'too-many-images'
  | 'too-many-rows';

export interface EnrichmentProblem {
  readonly code: EnrichmentProblemCode;
  readonly line?: number;
  /** The column's header as written in the sheet. */
  readonly column?: string;
  readonly message: string;
}

export interface EnrichmentSheet {
  readonly format: 'csv' | 'xlsx';
  readonly encoding?: 'utf-8' | 'utf-16le' | 'windows-1250';
  readonly delimiter?: ';' | ',' | '\t';
  readonly keyColumn: EnrichmentKeyColumn;
  /** The recognised value columns (not the key column), canonical names (`image_link`), in sheet order. */
  readonly columns: readonly string[];
  /** Product rows, sheet order, duplicates removed. */
  readonly rows: readonly EnrichmentRow[];
  /** Group rows (key = the localGroupId). */
  readonly groups: readonly EnrichmentRow[];
  readonly problemCount: number;
  readonly problemCounts: Partial<Record<EnrichmentProblemCode, number>>;
  /** The first `maxProblemExamples` problems. */
  readonly problems: readonly EnrichmentProblem[];
}

export type EnrichmentSheetResult = ({ readonly ok: true } & EnrichmentSheet) | { readonly ok: false; readonly error: string };

export interface EnrichmentLimits {
  /** A larger sheet fails as a whole. */
  readonly maxBytes: number;
  /** Data rows read; later rows are ignored (`too-many-rows`). */
  readonly maxRows: number;
  /** A longer cell is a problem and ignored, checked before any work on its value. */
  readonly maxCellChars: number;
  /** Problems kept as examples (all are counted). */
  readonly maxProblemExamples: number;
}

export const DEFAULT_ENRICHMENT_LIMITS: EnrichmentLimits = {
  maxBytes: 64 * 1024 * 1024,
  maxRows: 1_000_000,
  maxCellChars: 100_000,
  maxProblemExamples: 200,
};

export interface EnrichmentSheetHint {
  readonly name?: string;
  readonly contentType?: string;
}
