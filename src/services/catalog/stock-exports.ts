import { createSlicer } from '../../core/async/create-slicer.js';
import { changedStockEntries, type ResolvedStockExport } from '../../core/catalog/apply-resolved-stock.js';
import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import { type DocumentLimits, documentLimits, unknownCatalogLimits } from '../../core/catalog/document-limits.js';
import type { SourceUnit } from '../../core/catalog/source.js';
import { type CatalogLogger, type CatalogServiceOptions, DEFAULT_DOCUMENT_LIMITS } from './catalog-types.js';
import type { CatalogWorkers } from './catalog-workers.js';
import type { ReadCatalogEvent } from './read-catalog.js';
import type { StockExportOutput } from './resolve-stock-export.js';
import type { ServedCatalog, ServedVersion } from './served-catalog.js';
import { logUnitDocumentEvent } from './unit-documents.js';

/** A family resolution that was overtaken by a new family is done again, at most this often. */
export const MAX_RESOLVE_ATTEMPTS = 3;

/** A unit's export as read, and when that read began (`performance.now()`, before it waited for a thread). */
export interface StockExportRead {
  readonly output: StockExportOutput;
  readonly readAt: number;
}

/** Reading the units' stock exports against the served catalog family (in a worker), within their limits. */
export interface StockExportResolver {
  /**
   * The unit's export fetched and resolved against the family served now (fetched again if a full sync
   * changed the family meanwhile), with when the read that made it began (`performance.now()`); `known`, a
   * read already made, is returned as it is when its family is still the served one.
   */
  readForServed(unit: SourceUnit, signal: AbortSignal, known?: StockExportRead): Promise<StockExportRead>;
  /** The article count of the last full sync that read the POS. */
  noteArticleCount(count: number): void;
}

export function createStockExportResolver(deps: {
  readonly served: ServedCatalog;
  readonly workers: CatalogWorkers;
  readonly options: CatalogServiceOptions;
  readonly logger: CatalogLogger;
}): StockExportResolver {
  const { served, workers, options, logger } = deps;
  let lastArticleCount: number | undefined;
  /** The limits of the stock exports: by the article count of the last full sync, when known. */
  function exportLimits(): DocumentLimits {
    const settings = options.documents ?? DEFAULT_DOCUMENT_LIMITS;
    return lastArticleCount === undefined ? unknownCatalogLimits(settings) : documentLimits(lastArticleCount, settings);
  }
  // The POS client's log lines from the thread that reads (a re-read has no phases to report).
  const relay = (event: ReadCatalogEvent): void => logUnitDocumentEvent(logger, event);

  async function readForServed(unit: SourceUnit, signal: AbortSignal, known?: StockExportRead): Promise<StockExportRead> {
    let read = known;
    for (let attempt = 1; attempt <= MAX_RESOLVE_ATTEMPTS; attempt += 1) {
      const family = served.latest()?.family;
      if (family === undefined) throw new Error('no catalog is served');
      if (read?.output.familyId === family.id) return read;
      const input = { unit, family, stockKey: options.stockKey, stockColumns: options.stockColumns, limits: exportLimits() };
      const readAt = performance.now();
      read = { output: await workers.readStockExport(input, relay, signal), readAt };
    }
    if (read === undefined || read.output.familyId !== served.latest()?.family.id) {
      throw new Error('the catalog changed while its stock was read; the next stock sync reads it again');
    }
    return read;
  }

  return {
    readForServed,
    noteArticleCount(count) {
      lastArticleCount = count;
    },
  };
}

/**
 * Per export, the entries that change a stock of `snapshot` (compared in slices), without those of a
 * product changed since the re-read began (`from`, same family: product places are kept and a change
 * replaces the product object): the export may have been read before that sale, and would undo it until
 * the next re-read (the sale's own, which starts after it, applies the POS). Any instance's sale counts,
 * as a group's changes reach every instance's served versions.
 */
export async function changedEntries(
  snapshot: CatalogSnapshot,
  resolved: readonly ResolvedStockExport[],
  from: ServedVersion,
  family: ServedVersion['family'],
): Promise<number[][]> {
  const slicer = createSlicer();
  const changed: number[][] = [];
  const before = from.family === family ? from.snapshot.products : undefined;
  for (const entry of resolved) {
    const indexes: number[] = [];
    for (let start = 0; start < entry.positions.length; start += 2_048) {
      for (const index of changedStockEntries(snapshot, entry, start, start + 2_048)) {
        const position = entry.positions[index] as number;
        if (before !== undefined && before[position] !== snapshot.products[position]) continue;
        indexes.push(index);
      }
      await slicer.next();
    }
    changed.push(indexes);
  }
  return changed;
}
