import type { Product, ProductEnrichment } from '../catalog/catalog.js';
import { IDENTITY_KEYS, normalizeCode } from '../catalog/identity-codes.js';
import {
  createIdentityIndex,
  findIdentityCode,
  type IdentityIndex,
  identityIdAt,
  NO_ARTICLE,
  SHARED_CODE,
} from '../catalog/identity-index.js';
import { productIdentity } from '../catalog/product-identity.js';
import {
  type IdentityCandidates,
  type IdentityKeyChoice,
  type IdentityResolution,
  type IdentityRows,
  resolveIdentity,
} from '../catalog/resolve-identity.js';
import { type EnrichmentField, VALUE_COLUMNS } from './enrichment-columns.js';
import { createProblemTally, quoteValue } from './enrichment-problems.js';
import { type EnrichmentTable, tableKeys, tableLine, tableOf, tableValues } from './enrichment-table.js';
import type { EnrichmentKeyColumn, EnrichmentProblemCode, EnrichmentSheet } from './enrichment-types.js';

/**
 * Puts a read enrichment sheet onto the catalog's products (docs/enrichment.md#group-rows):
 * rows are matched by the identity rules of price lists and stock (docs/catalog-rules.md rule 5), never
 * guessed; a product's enrichment is its group row's values overlaid field by field by its own row's.
 * Only `enrichment` changes: names, prices, stock and offers stay as the POS said.
 */

export type EnrichmentMatchProblemCode = 'unmatched' | 'ambiguous' | 'duplicate' | 'group-unmatched';

export type EnrichmentReportProblemCode = EnrichmentProblemCode | EnrichmentMatchProblemCode;

export interface EnrichmentReportProblem {
  readonly code: EnrichmentReportProblemCode;
  readonly line?: number;
  readonly column?: string;
  /** The row's key (a group row's: its group id). */
  readonly key?: string;
  readonly message: string;
}

export interface EnrichmentReport {
  readonly keyColumn: EnrichmentKeyColumn;
  /** Product rows of the sheet (duplicate keys already removed). */
  readonly rows: number;
  /** Group rows of the sheet. */
  readonly groups: number;
  /** Product rows matched to a product. */
  readonly matched: number;
  readonly unmatched: number;
  /** Rows whose key names several products: applied to none. */
  readonly ambiguous: number;
  /** Rows naming a product an earlier row already enriches. */
  readonly duplicates: number;
  /** Group rows naming a group no product is in. */
  readonly groupsUnmatched: number;
  /** Products that carry an enrichment. */
  readonly enrichedProducts: number;
  /** Per field, how many products carry it. */
  readonly fields: Partial<Record<EnrichmentField, number>>;
  /** The sheet's problems and the matching problems. */
  readonly problemCount: number;
  readonly problemCounts: Partial<Record<EnrichmentReportProblemCode, number>>;
  /** The first examples: the sheet's problems, then the matching problems. */
  readonly problems: readonly EnrichmentReportProblem[];
}

export interface ApplyEnrichmentOptions {
  /** Problems kept as examples in the report (default 50). */
  readonly maxExamples?: number;
}

const DEFAULT_MAX_EXAMPLES = 50;

/** Which identity key each key column fixes, and the row field that carries it. */
const MATCHING: Readonly<
  Record<EnrichmentKeyColumn, { readonly choice: IdentityKeyChoice; readonly field: keyof IdentityCandidates }>
> = {
  id: { choice: 'localId', field: 'code' },
  internalIdentifier: { choice: 'internalIdentifier', field: 'code' },
  ean: { choice: 'ean', field: 'ean' },
  plu: { choice: 'plu', field: 'plu' },
  code: { choice: 'auto', field: 'code' },
};

const FIELDS: readonly EnrichmentField[] = Object.values(VALUE_COLUMNS);

/**
 * A sheet's table matched to the catalog's products, ready to put each product's values on it as the
 * product is serialized (docs/decisions/0011-enrichment-sheet.md#memory): the merged products, the table and one product's
 * values are what is held, never a second copy of the catalog with the values on it.
 */
export interface EnrichmentPlan {
  /** The product at `position` with its values (group's overlaid by its row's); the same object if it has none. */
  enrich(product: Product, position: number): Product;
  /** The report, once every product went through `enrich` (its counts of enriched products and fields). */
  report(): EnrichmentReport;
}

/** What matching a sheet reads of a product: its id, codes and group (a merge's article fields suffice). */
export type MatchedProduct = Pick<Product, 'id' | 'groupId' | 'ean' | 'plu' | 'internalIdentifier'>;

/**
 * Matches the table's rows and group rows to `products` (by position) and reports what matched.
 *
 * @example
 * const plan = planEnrichment(snapshot.products, table);
 * const enriched = snapshot.products.map((product, position) => plan.enrich(product, position));
 */
export function planEnrichment(
  products: readonly MatchedProduct[],
  table: EnrichmentTable,
  options: ApplyEnrichmentOptions = {},
): EnrichmentPlan {
  const maxExamples = options.maxExamples ?? DEFAULT_MAX_EXAMPLES;
  const problems = createProblemTally<EnrichmentReportProblem>(maxExamples);
  const rowOf = matchRows(products, table, problems.add);
  const groupValues = matchGroups(products, table, problems.add);
  const fields: Record<string, number> = {};
  let enrichedProducts = 0;
  return {
    enrich(product, position) {
      const row = rowOf.rows[position] ?? -1;
      const own = row >= 0 ? tableValues(table, row) : undefined;
      const group = product.groupId === undefined ? undefined : groupValues.get(product.groupId);
      const enrichment = overlay(group, own);
      if (enrichment === undefined) return product.enrichment === undefined ? product : withoutEnrichment(product);
      enrichedProducts += 1;
      // for-in over the few fields present: probing all 16 by a variable key is a megamorphic load per field.
      for (const field in enrichment) fields[field] = (fields[field] ?? 0) + 1;
      return { ...product, enrichment };
    },
    report() {
      const problemCounts: Partial<Record<EnrichmentReportProblemCode, number>> = { ...table.problemCounts };
      for (const [code, count] of Object.entries(problems.counts) as [EnrichmentMatchProblemCode, number][]) {
        problemCounts[code] = (problemCounts[code] ?? 0) + count;
      }
      return {
        keyColumn: table.keyColumn,
        rows: table.rowCount,
        groups: table.groups.length,
        matched: rowOf.matched,
        unmatched: problems.counts['unmatched'] ?? 0,
        ambiguous: problems.counts['ambiguous'] ?? 0,
        duplicates: problems.counts['duplicate'] ?? 0,
        groupsUnmatched: problems.counts['group-unmatched'] ?? 0,
        enrichedProducts,
        fields: fieldCounts(fields),
        problemCount: table.problemCount + problems.count,
        problemCounts,
        problems: [...table.problems.slice(0, maxExamples), ...problems.examples].slice(0, maxExamples),
      };
    },
  };
}

/**
 * The products with the sheet's values on them, in the same order. Products the sheet does not name are
 * returned as they are (by reference), except that an enrichment they carried from an earlier sheet is removed.
 *
 * @example
 * const { products, report } = applyEnrichment(snapshot.products, sheet);
 */
export function applyEnrichment(
  products: readonly Product[],
  sheet: EnrichmentSheet | EnrichmentTable,
  options: ApplyEnrichmentOptions = {},
): { products: Product[]; report: EnrichmentReport } {
  const plan = planEnrichment(products, 'rows' in sheet ? tableOf(sheet) : sheet, options);
  const enriched = products.map((product, position) => plan.enrich(product, position));
  return { products: enriched, report: plan.report() };
}

type AddProblem = (problem: EnrichmentReportProblem) => void;

/** Per product position, the index of the sheet row that names it (-1: none). */
function matchRows(
  products: readonly MatchedProduct[],
  table: EnrichmentTable,
  add: AddProblem,
): { rows: Int32Array; matched: number } {
  const { choice, field } = MATCHING[table.keyColumn];
  // A fixed key column needs its key's table only (a catalog of 100,000 products: four tables otherwise).
  const index = createIdentityIndex(products.map(productIdentity), choice === 'auto' ? IDENTITY_KEYS : [choice]);
  const keys = tableKeys(table);
  const rowsView: IdentityRows = {
    length: keys.length,
    candidates: (row) => {
      const key = keys[row];
      return key === undefined ? undefined : candidatesOf(field, key);
    },
  };
  const rows = new Int32Array(products.length).fill(-1);
  let matched = 0;
  const resolution = resolveIdentity(index, rowsView, choice, undefined, (row, article) => {
    rows[article] = row;
    matched += 1;
  });
  reportUnresolved(table, keys, resolution, add);
  if (choice === 'auto') matched -= dropCrossKeyClashes(index, table, keys, rows, add);
  return { rows, matched };
}

/**
 * A `code` that names one product by one kind of code and another product by another (the id `12` of one,
 * the PLU `12` of the other) is not applied to either: for the sheet, a wrong product is worse than none.
 * Checked on every matched row (the identity ranking only samples rows). Returns how many were dropped.
 */
function dropCrossKeyClashes(
  index: IdentityIndex,
  table: EnrichmentTable,
  keys: readonly string[],
  rows: Int32Array,
  add: AddProblem,
): number {
  let dropped = 0;
  for (let article = 0; article < rows.length; article += 1) {
    const row = rows[article] ?? -1;
    const key = keys[row];
    if (key === undefined) continue;
    const other = otherProductOf(index, key, article);
    if (other === undefined) continue;
    rows[article] = -1;
    dropped += 1;
    const message = `${quoteValue(key)} names product ${identityIdAt(index, article)} and, as its ${other.key}, product ${other.id}: the row is applied to neither (key the sheet by id, ean or plu)`;
    add({ code: 'ambiguous', line: tableLine(table, row), key, message });
  }
  return dropped;
}

/** Another product that `code` names under some kind of code, if any. */
function otherProductOf(index: IdentityIndex, code: string, article: number): { key: string; id: string } | undefined {
  for (const key of IDENTITY_KEYS) {
    const normalized = normalizeCode(key, code);
    const position = normalized === undefined ? NO_ARTICLE : findIdentityCode(index, key, normalized);
    if (position === NO_ARTICLE || position === article) continue;
    // A shared code names several products under that key.
    return { key, id: position === SHARED_CODE ? 'several' : identityIdAt(index, position) };
  }
  return undefined;
}

/** Unmatched, ambiguous and duplicate rows, reported in sheet order. */
function reportUnresolved(
  table: EnrichmentTable,
  keys: readonly string[],
  resolution: IdentityResolution,
  add: AddProblem,
): void {
  const found: [row: number, problem: EnrichmentReportProblem][] = [];
  const rowAt = (row: number) => ({ line: tableLine(table, row), key: keys[row] ?? '' });
  for (const { row } of resolution.unmatched) {
    const { line, key } = rowAt(row);
    found.push([row, { code: 'unmatched', line, key, message: `no product has the ${table.keyColumn} ${quoteValue(key)}` }]);
  }
  for (const { row, articleIds } of resolution.ambiguous) {
    const { line, key } = rowAt(row);
    const ids = `${articleIds.slice(0, 5).join(', ')}${articleIds.length > 5 ? ', …' : ''}`;
    const message = `${quoteValue(key)} names ${articleIds.length} products (${ids}): the row is applied to none`;
    found.push([row, { code: 'ambiguous', line, key, message }]);
  }
  for (const { row, articleId, firstRow } of resolution.duplicates) {
    const { line, key } = rowAt(row);
    const first = rowAt(firstRow).line;
    const message = `${quoteValue(key)} names product ${articleId}, which the row on line ${first} already enriches: the first row wins`;
    found.push([row, { code: 'duplicate', line, key, message }]);
  }
  found.sort((a, b) => a[0] - b[0]);
  for (const [, problem] of found) add(problem);
}

/** Values of the group rows whose group has products, by group id; the others are reported. */
function matchGroups(
  products: readonly MatchedProduct[],
  table: EnrichmentTable,
  add: AddProblem,
): Map<string, ProductEnrichment> {
  const values = new Map<string, ProductEnrichment>();
  if (table.groups.length === 0) return values;
  const present = new Set<string>();
  for (const product of products) {
    if (product.groupId !== undefined) present.add(product.groupId);
  }
  for (const { line, key, values: groupValues } of table.groups) {
    if (present.has(key)) values.set(key, groupValues);
    else add({ code: 'group-unmatched', line, key, message: `no product is in the group ${quoteValue(key)}` });
  }
  return values;
}

/** The row's values over its group's, field by field; `undefined` when neither has a value. */
function overlay(group: ProductEnrichment | undefined, own: ProductEnrichment | undefined): ProductEnrichment | undefined {
  const merged = group === undefined ? own : own === undefined ? group : { ...group, ...own };
  return merged === undefined || isEmpty(merged) ? undefined : merged;
}

/** The counts in the fixed field order (stable JSON), typed by field. */
function fieldCounts(counts: Readonly<Record<string, number>>): Partial<Record<EnrichmentField, number>> {
  const ordered: Partial<Record<EnrichmentField, number>> = {};
  for (const field of FIELDS) {
    const count = counts[field];
    if (count !== undefined) ordered[field] = count;
  }
  return ordered;
}

function isEmpty(values: ProductEnrichment): boolean {
  for (const _ in values) return false;
  return true;
}

function candidatesOf(field: keyof IdentityCandidates, key: string): IdentityCandidates {
  switch (field) {
    case 'ean':
      return { ean: key };
    case 'plu':
      return { plu: key };
    default:
      return { code: key };
  }
}

function withoutEnrichment(product: Product): Product {
  const { enrichment: _removed, ...rest } = product;
  return rest;
}
