import type { Product } from '../../core/catalog/catalog.js';
import { applyEnrichment, type EnrichmentReport } from '../../core/enrichment/apply-enrichment.js';
import { checkOf, type EnrichmentCheck } from '../../core/enrichment/enrichment-check.js';
import { readEnrichmentSheet } from '../../core/enrichment/enrichment-sheet.js';

/**
 * The enrichment sheet inside a full sync's worker (docs/enrichment.md): read from its bytes and applied to
 * the merged products before they are serialized, so that its values are part of the version's content
 * (fingerprint, ETags, changes feed) like the POS's.
 */

/** The bytes of the last good sheet, as the full sync hands them to its worker (copied, not shared). */
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

/** The sync report's part for the sheet: what was matched and what was not. */
export interface EnrichmentSyncReport extends EnrichmentReport {
  readonly name: string;
  readonly fetchedAt: string;
}

export class EnrichmentUnusableError extends Error {
  override readonly name = 'EnrichmentUnusableError';
  readonly code = 'ENRICHMENT_INVALID';
}

function hintOf(sheet: EnrichmentSheetInput): { name: string; contentType?: string } {
  return { name: sheet.name, ...(sheet.contentType === undefined ? {} : { contentType: sheet.contentType }) };
}

function limitsOf(sheet: EnrichmentSheetInput): { maxBytes?: number } {
  return sheet.maxBytes === undefined ? {} : { maxBytes: sheet.maxBytes };
}

export async function checkEnrichmentSheet(sheet: EnrichmentSheetInput): Promise<EnrichmentCheck> {
  return checkOf(await readEnrichmentSheet(sheet.bytes, hintOf(sheet), limitsOf(sheet)));
}

/**
 * The products with the sheet's values. A sheet is checked before it is adopted, so one that cannot be read
 * here is a fault: the sync fails (`ENRICHMENT_INVALID`) rather than publish a catalog without the values.
 */
export async function enrichProducts(
  products: readonly Product[],
  sheet: EnrichmentSheetInput,
): Promise<{ products: Product[]; report: EnrichmentSyncReport }> {
  const read = await readEnrichmentSheet(sheet.bytes, hintOf(sheet), limitsOf(sheet));
  if (!read.ok) throw new EnrichmentUnusableError(`the enrichment sheet ${sheet.name} cannot be used: ${read.error}`);
  const applied = applyEnrichment(products, read);
  return { products: applied.products, report: { ...applied.report, name: sheet.name, fetchedAt: sheet.fetchedAt } };
}
