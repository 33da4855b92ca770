import { z } from 'zod';
import { CSV_DELIMITERS } from './csv-dialect.js';
import { StockPolicySchema } from './stock-policy.js';

/**
 * The schema of a feed template file (`templates/*.json`, one feed per file). The envelope and each
 * node are checked with zod; the element tree is walked by the compiler, which checks nodes one by one
 * so that every problem carries its exact JSON path. docs/decisions/0003-feed-templates.md describes the
 * format for template authors.
 *
 * Every object may carry a `$comment` (JSON has no comments; say why a rule is there).
 */

/** URL routes the bridge serves itself; a template's `file` must not take them. */
export const BUILT_IN_FEED_FILES: readonly string[] = ['products.json', 'products.csv', 'products.xlsx', 'changes.json'];

const comment = z.string().optional();

const lengthRules = {
  /** Maximum length in characters (code points). */
  maxLength: z.int().min(1).max(1_000_000).optional(),
  /** `truncate` (default) cuts the text; `drop` treats an over-long value as invalid. */
  overflow: z.enum(['truncate', 'drop']).optional(),
  /** A JavaScript regular expression the (cleaned, truncated) text must match, else it counts as invalid. */
  pattern: z.string().min(1).optional(),
};

const condition = z.union([z.string(), z.array(z.string()).min(1)]);

export const AttributeObjectSchema = z.strictObject({
  $comment: comment,
  value: z.string(),
  /** An empty (or invalid) value leaves the ITEM out of the feed, with a warning. */
  required: z.boolean().optional(),
  ...lengthRules,
});

export const ElementNodeSchema = z.strictObject({
  $comment: comment,
  /** `NAME` or `prefix:NAME`; the prefix must be declared in `namespaces` here or on an ancestor. */
  name: z.string(),
  /** Prefix → namespace URI; the key "" declares the default namespace. */
  namespaces: z.record(z.string(), z.string()).optional(),
  /** Attribute name → value expression (or an object with rules). Empty values are left out. */
  attributes: z.record(z.string(), z.unknown()).optional(),
  /** Text content: a value expression. An element has a value or children, not both. */
  value: z.string().optional(),
  children: z.array(z.unknown()).optional(),
  /** Left out when its value is empty (or, for a container, when all its children were left out). */
  optional: z.boolean().optional(),
  /** An empty (or invalid) value leaves the item out (inside `each`: that unit's record), with a warning. */
  required: z.boolean().optional(),
  /**
   * Repeat the element once per offer (per unit; `offer.*` fields inside) or once per additional image link
   * of the enrichment sheet (`{image}` inside).
   */
  each: z.enum(['offers', 'images']).optional(),
  /** Only rendered when every one of these expressions is non-empty. */
  when: condition.optional(),
  /** Not rendered when any one of these expressions is non-empty. */
  unless: condition.optional(),
  ...lengthRules,
});

export const ItemsNodeSchema = z.strictObject({
  $comment: comment,
  /** The element rendered once per catalog item (exactly one `items` node per document). */
  items: z.unknown(),
});

export const ColumnSchema = z.strictObject({
  $comment: comment,
  header: z.string().min(1),
  value: z.string(),
  /** `text` (default), `code` (kept as text even in Excel), `number` or `money` (two decimals). */
  type: z.enum(['text', 'code', 'number', 'money']).optional(),
  required: z.boolean().optional(),
  ...lengthRules,
});

export const RequireSchema = z.strictObject({
  $comment: comment,
  /** Shown as the warning's attribute, e.g. "brand|gtin". */
  name: z.string().min(1),
  /** The item is left out (with a warning) unless at least one of these expressions is non-empty. */
  anyOf: z.array(z.string()).min(1),
});

export const FeedTemplateSchema = z.strictObject({
  $schema: z.string().optional(),
  $comment: comment,
  description: z.string().optional(),
  /** Stable id of the feed (status page, warnings, metrics). */
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be lower-case letters, digits and dashes (at most 64)'),
  title: z.string().min(1).max(200),
  /** The URL segment: `/feeds/{unit}/{file}`. */
  file: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'must be a plain file name (letters, digits, "." "_" "-"), no slashes'),
  kind: z.enum(['xml', 'csv', 'tsv']),
  contentType: z
    .string()
    .regex(/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(?:;[ -~]*)?$/, 'must be a media type such as "text/csv; charset=utf-8"')
    .optional(),
  /** Which views serve the feed: a single unit, the aggregate `all`, or both (default). */
  views: z.enum(['unit', 'all', 'both']).optional(),
  /** Items outside the filter are left out silently (counted as filtered, not warned about). */
  filter: z
    .strictObject({
      $comment: comment,
      availability: z.enum(['in_stock', 'out_of_stock']).optional(),
      isStockItem: z.boolean().optional(),
    })
    .optional(),
  /** How stock is advertised: a safety buffer, thresholds, and whether sold-out items are listed (stock-policy.ts). */
  stockPolicy: StockPolicySchema.optional(),
  /** Named lookup tables for the `map:NAME` filter. */
  maps: z
    .record(
      z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'map names are letters, digits, "_" and "-"'),
      z.record(z.string(), z.string()),
    )
    .optional(),
  require: z.array(RequireSchema).optional(),
  /**
   * Channel readiness: values the channel recommends (brand, description, category, image). An item without
   * one stays in the feed and is counted in the feed's readiness report, with examples.
   */
  recommend: z.array(RequireSchema).optional(),
  /** xml: the root element of the document. */
  document: z.unknown().optional(),
  /** csv/tsv: one row per offer (per unit) instead of one per item. */
  each: z.literal('offers').optional(),
  /** csv only: `rfc4180` (default) or `excel`. */
  dialect: z.enum(['rfc4180', 'excel']).optional(),
  /** csv with the rfc4180 dialect only: the field delimiter, `,` (default), `;` or `|`. */
  delimiter: z.enum(CSV_DELIMITERS).optional(),
  /** csv/tsv: the columns, in order. */
  columns: z.array(z.unknown()).optional(),
});

export type FeedTemplate = z.infer<typeof FeedTemplateSchema>;
export type ElementNode = z.infer<typeof ElementNodeSchema>;
export type ColumnSpec = z.infer<typeof ColumnSchema>;
export type FeedKind = FeedTemplate['kind'];
export type FeedViews = NonNullable<FeedTemplate['views']>;
