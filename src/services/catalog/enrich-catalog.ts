import {
  type EnrichmentPlan,
  type EnrichmentReport,
  type MatchedProduct,
  planEnrichment,
} from '../../core/enrichment/apply-enrichment.js';
import { type CompiledEnrichment, compileEnrichmentSheet } from '../../core/enrichment/compile-enrichment.js';
import type { EnrichmentTable } from '../../core/enrichment/enrichment-table.js';

/**
 * The enrichment sheet in worker threads (docs/decisions/0011-enrichment-sheet.md#memory): a new sheet is read once, in a worker,
 * into its table (`checkEnrichmentSheet`); every full sync's worker matches that table to the merged products
 * and puts each product's values on it as the product is serialized, so that the values are part of the
 * version's content (fingerprint, ETags, changes feed) like the POS's.
 */

/** The bytes of a sheet to read, as the enrichment service hands them to a worker (shared, not copied). */
export interface EnrichmentSheetInput {
  readonly bytes: Uint8Array;
  /** File name (a format hint). */
  readonly name: string;
  readonly contentType?: string;
  /** When it was read: shown in the sync report. */
  readonly fetchedAt: string;
  /** `ENRICHMENT_MAX_MB` in bytes: the reader's limit must be the source's. */
  readonly maxBytes?: number;
}

/** The last good sheet as a full sync applies it: its table (in shared memory) and what it is. */
export interface EnrichmentTableInput {
  readonly table: EnrichmentTable;
  readonly name: string;
  readonly fetchedAt: string;
}

/** The sync report's part for the sheet: what was matched and what was not. */
export interface EnrichmentSyncReport extends EnrichmentReport {
  readonly name: string;
  readonly fetchedAt: string;
}

/** Reads a sheet into its table and says whether it can be used. */
export function checkEnrichmentSheet(sheet: EnrichmentSheetInput): Promise<CompiledEnrichment> {
  const hint = { name: sheet.name, ...(sheet.contentType === undefined ? {} : { contentType: sheet.contentType }) };
  return compileEnrichmentSheet(sheet.bytes, hint, sheet.maxBytes === undefined ? {} : { maxBytes: sheet.maxBytes });
}

/** The sheet's table matched to the merged products; its report once every product was enriched. */
export function planCatalogEnrichment(
  products: readonly MatchedProduct[],
  input: EnrichmentTableInput,
): { readonly plan: EnrichmentPlan; report(): EnrichmentSyncReport } {
  const plan = planEnrichment(products, input.table);
  return { plan, report: () => ({ ...plan.report(), name: input.name, fetchedAt: input.fetchedAt }) };
}
