import type { ProductEnrichment } from '../catalog/catalog.js';
import type { EnrichmentKeyColumn } from './enrichment-types.js';

/**
 * The columns of an enrichment sheet (docs/enrichment.md#columns): which headers name the key and which
 * name a value, and which values a group row may set.
 */

export type EnrichmentField = keyof ProductEnrichment;

/** Header as compared: trimmed, lower case, runs of spaces, `-` and `_` as one `_`. */
export function normalizeHeader(header: string): string {
  return header.trim().toLowerCase().replace(HEADER_SEPARATORS, '_');
}

const HEADER_SEPARATORS = /[\s_-]+/g;

const KEY_HEADERS: ReadonlyMap<string, EnrichmentKeyColumn> = new Map<string, EnrichmentKeyColumn>([
  ['id', 'id'],
  ['ean', 'ean'],
  ['plu', 'plu'],
  ['internalidentifier', 'internalIdentifier'],
  ['internal_identifier', 'internalIdentifier'],
  ['code', 'code'],
]);

/** Canonical column name (as docs/enrichment.md lists it) → the field of `ProductEnrichment` it fills. */
export const VALUE_COLUMNS = {
  title: 'title',
  description: 'description',
  brand: 'brand',
  link: 'link',
  image_link: 'imageLink',
  additional_image_link: 'additionalImageLinks',
  category: 'category',
  google_product_category: 'googleProductCategory',
  heureka_category: 'heurekaCategory',
  zbozi_category: 'zboziCategory',
  custom_label_0: 'customLabel0',
  custom_label_1: 'customLabel1',
  custom_label_2: 'customLabel2',
  custom_label_3: 'customLabel3',
  custom_label_4: 'customLabel4',
  exclude: 'exclude',
} as const satisfies Readonly<Record<string, EnrichmentField>>;

export type ValueColumn = keyof typeof VALUE_COLUMNS;

const VALUE_HEADERS: ReadonlyMap<string, ValueColumn> = new Map(
  Object.keys(VALUE_COLUMNS).map((column) => [column, column as ValueColumn]),
);

/** What belongs to one product, not to a whole group: a group row leaves these cells unread. */
export const PRODUCT_ONLY_COLUMNS: ReadonlySet<ValueColumn> = new Set<ValueColumn>([
  'title',
  'link',
  'image_link',
  'additional_image_link',
]);

export type HeaderMeaning =
  | { readonly kind: 'key'; readonly key: EnrichmentKeyColumn }
  | { readonly kind: 'value'; readonly column: ValueColumn }
  | { readonly kind: 'blank' }
  | { readonly kind: 'unknown' };

/** What a header cell names. */
export function headerMeaning(header: string): HeaderMeaning {
  const normalized = normalizeHeader(header);
  if (normalized === '') return { kind: 'blank' };
  const key = KEY_HEADERS.get(normalized);
  if (key !== undefined) return { kind: 'key', key };
  const column = VALUE_HEADERS.get(normalized);
  return column === undefined ? { kind: 'unknown' } : { kind: 'value', column };
}
