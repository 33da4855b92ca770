import { checkOf, createExcludeNames, type EnrichmentCheck } from './enrichment-check.js';
import { readEnrichmentSheet } from './enrichment-sheet.js';
import { createEnrichmentTableBuilder, type EnrichmentTable } from './enrichment-table.js';
import type { EnrichmentLimits, EnrichmentSheetHint } from './enrichment-types.js';

/** A sheet read into its table, with what its check found; `table` only when the sheet can be used. */
export interface CompiledEnrichment {
  readonly check: EnrichmentCheck;
  readonly table?: EnrichmentTable;
}

/**
 * Reads a sheet straight into its table (docs/decisions/0011-enrichment-sheet.md#memory): each product row is encoded as it is
 * read, so the rows never all exist as objects at once.
 */
export async function compileEnrichmentSheet(
  bytes: Uint8Array,
  hint: EnrichmentSheetHint,
  limits?: Partial<EnrichmentLimits>,
): Promise<CompiledEnrichment> {
  const builder = createEnrichmentTableBuilder();
  // Group rows' names first, as a sheet read into rows lists them.
  const rowNames = createExcludeNames();
  const read = await readEnrichmentSheet(bytes, hint, limits, {
    add(row) {
      rowNames.add(row.values);
      builder.add(row);
    },
  });
  if (!read.ok) return { check: checkOf(read) };
  const names = createExcludeNames();
  for (const group of read.groups) names.add(group.values);
  for (const name of rowNames.names) names.add({ exclude: [name] });
  const table = builder.finish(read);
  return { check: checkOf(read, { rows: table.rowCount, excludeNames: [...names.names] }), table };
}
