import type { ProductEnrichment } from '../catalog/catalog.js';
import type { EnrichmentProblem, EnrichmentProblemCode, EnrichmentRow, EnrichmentSheetResult } from './enrichment-types.js';

/**
 * What reading a sheet found, without its rows: what the status page, `/readyz` and the sync report show,
 * and what is kept beside the last good sheet. `ok: false` is a sheet that cannot be used at all (no key
 * column, unreadable, too large); the last good one then stays in use.
 */
export interface EnrichmentCheck {
  readonly ok: boolean;
  /** Why the sheet cannot be used (only when `ok` is false). */
  readonly error?: string;
  readonly format?: 'csv' | 'xlsx';
  readonly encoding?: string;
  readonly delimiter?: string;
  readonly keyColumn?: string;
  readonly columns?: readonly string[];
  readonly rows?: number;
  readonly groups?: number;
  readonly problemCount?: number;
  readonly problemCounts?: Partial<Record<EnrichmentProblemCode, number>>;
  /** The first problems, each naming its row and column. */
  readonly problems?: readonly EnrichmentProblem[];
  /** The feed names the `exclude` column uses (`*` aside), at most 50: checked against the feeds there are. */
  readonly excludeNames?: readonly string[];
}

/** How many problems a check keeps as examples. */
export const CHECK_PROBLEM_EXAMPLES = 20;

const MAX_EXCLUDE_NAMES = 50;

/** Collects the distinct feed names of `exclude` cells (`*` aside), at most 50, in the order first seen. */
export function createExcludeNames(): { add(values: ProductEnrichment): void; readonly names: ReadonlySet<string> } {
  const names = new Set<string>();
  return {
    names,
    add(values) {
      if (values.exclude === undefined || names.size >= MAX_EXCLUDE_NAMES) return;
      for (const name of values.exclude) {
        if (name !== '*' && names.size < MAX_EXCLUDE_NAMES) names.add(name);
      }
    },
  };
}

/** The distinct feed names of the sheet's `exclude` cells, product and group rows alike. */
function excludeNamesOf(rows: readonly EnrichmentRow[]): string[] {
  const names = createExcludeNames();
  for (const row of rows) names.add(row.values);
  return [...names.names];
}

/**
 * What a read sheet is, for the status page. `counted` gives what a sheet read into a table (whose result has
 * no rows) counted as its rows went by.
 */
export function checkOf(
  result: EnrichmentSheetResult,
  counted?: { readonly rows: number; readonly excludeNames: readonly string[] },
): EnrichmentCheck {
  if (!result.ok) return { ok: false, error: result.error };
  const excludeNames = counted?.excludeNames ?? excludeNamesOf([...result.groups, ...result.rows]);
  return {
    ok: true,
    format: result.format,
    ...(result.encoding === undefined ? {} : { encoding: result.encoding }),
    ...(result.delimiter === undefined ? {} : { delimiter: result.delimiter }),
    keyColumn: result.keyColumn,
    columns: result.columns,
    rows: counted?.rows ?? result.rows.length,
    groups: result.groups.length,
    problemCount: result.problemCount,
    problemCounts: result.problemCounts,
    problems: result.problems.slice(0, CHECK_PROBLEM_EXAMPLES),
    ...(excludeNames.length === 0 ? {} : { excludeNames }),
  };
}
