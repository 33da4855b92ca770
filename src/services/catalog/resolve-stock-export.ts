import { type ResolvedStockExport, resolveStockExport } from '../../core/catalog/apply-resolved-stock.js';
import type { DocumentLimits } from '../../core/catalog/document-limits.js';
import type { IdentityIndex } from '../../core/catalog/identity-index.js';
import type { StockColumnOverride } from '../../core/catalog/pos-documents.js';
import type { IdentityKeyChoice } from '../../core/catalog/resolve-identity.js';
import type { SourceUnit } from '../../core/catalog/source.js';
import type { StockExportReport } from './catalog-types.js';
import type { PosSource } from './pos-port.js';
import { parseStockExport } from './unit-documents.js';

/**
 * The heavy half of a stock re-read: fetching one unit's export, parsing it and resolving its rows to
 * product positions of the served catalog's family. Like `read-catalog.ts` it runs in a worker thread or in
 * the calling thread; applying the result stays with the served catalog (`stock-sync.ts`).
 */

/** The products' identity index of one catalog family (`product-identity.ts`), in memory the threads share. */
export interface FamilyIdentity {
  /** Id of the family (the version that started it); positions are valid for every version of it. */
  readonly id: string;
  readonly index: IdentityIndex;
}

/** A unit's export to fetch and resolve (`readStockExport`). */
export interface StockExportReadInput {
  readonly unit: SourceUnit;
  readonly family: FamilyIdentity;
  readonly stockKey: IdentityKeyChoice;
  readonly stockColumns: StockColumnOverride;
  /** The export's size and rows (docs/failure-modes.md). */
  readonly limits: DocumentLimits;
}

export interface StockExportOutput {
  readonly familyId: string;
  readonly report: StockExportReport;
  readonly resolved: ResolvedStockExport;
}

/**
 * Fetches the unit's export and resolves it: in the thread that parses it, so that the export's body (MBs
 * per unit at 100,000 articles) is neither received, concatenated nor copied by the main thread.
 */
export async function readStockExport(
  source: PosSource,
  input: StockExportReadInput,
  signal?: AbortSignal,
): Promise<StockExportOutput> {
  const { unit, family, stockKey, stockColumns, limits } = input;
  const body = await source.pos.fetchStockExport(unit, {
    maxBytes: limits.maxStockExportBytes,
    ...(signal === undefined ? {} : { signal }),
  });
  const { rows, report } = parseStockExport(source.documents, body, stockColumns, limits, unit.code);
  const resolved = resolveStockExport(family.index, unit.code, rows, stockKey);
  return { familyId: family.id, report, resolved };
}
