import { z } from 'zod';
import { AVAILABILITIES } from '../catalog/catalog.js';

/**
 * The published shape of `products.json` and `changes.json` (docs/http-interface.md): one zod schema per
 * document, from which the JSON Schema served at `/schemas/…` is generated, and against which the tests
 * check the rendered feeds. Objects are strict: a key the renderer adds without a schema change fails the
 * tests. Absent values are omitted, never `null` (except `since` of the changes feed's first page).
 */

const money = z.number().nonnegative().describe('gross amount with VAT, two decimals');

/** One unit's offer of an item. */
export const JsonOfferSchema = z
  .object({
    unit: z.string().describe('POS unit code'),
    price: money.optional(),
    salePrice: money.optional().describe('the sale (action) price when the unit has one'),
    standardPrice: money.optional().describe('the "was" price when the unit has one'),
    stock: z.number().optional().describe('stock as the POS says: may be fractional or negative; absent when unknown'),
    availability: z.enum(AVAILABILITIES),
  })
  .strict();

/** One item of a view. */
export const JsonItemSchema = z
  .object({
    id: z.string().describe('the article localId'),
    name: z.string(),
    groupId: z.string().optional(),
    ean: z.string().optional(),
    plu: z.number().optional(),
    internalIdentifier: z.string().optional(),
    measureUnit: z.string().optional(),
    price: money.optional(),
    salePrice: money.optional(),
    standardPrice: money.optional(),
    stock: z.number().optional(),
    availability: z.enum(AVAILABILITIES),
    link: z.string().optional(),
    imageLink: z.string().optional(),
    title: z.string().optional().describe('enrichment sheet: the title channels show (else the name)'),
    description: z.string().optional().describe('enrichment sheet'),
    brand: z.string().optional().describe('enrichment sheet'),
    category: z.string().optional().describe('enrichment sheet: category path, parts joined by " > "'),
    googleProductCategory: z.string().optional().describe('enrichment sheet: Google category id or path'),
    heurekaCategory: z.string().optional().describe('enrichment sheet: Heureka CATEGORYTEXT'),
    zboziCategory: z.string().optional().describe('enrichment sheet: Zboží.cz CATEGORYTEXT'),
    additionalImageLinks: z.array(z.string()).optional().describe('enrichment sheet: absolute URLs, at most 10'),
    customLabel0: z.string().optional(),
    customLabel1: z.string().optional(),
    customLabel2: z.string().optional(),
    customLabel3: z.string().optional(),
    customLabel4: z.string().optional(),
    exclude: z.array(z.string()).optional().describe('enrichment sheet: feed names the item is left out of, `*` = all'),
    offers: z.array(JsonOfferSchema),
  })
  .strict();

/** `GET /feeds/{unit}/products.json`. */
export const ProductsFeedSchema = z
  .object({
    version: z.string().describe('catalog version id: the ETag and the changes feed cursor follow it'),
    generatedAt: z.string().describe('ISO 8601 time the version was made'),
    unit: z.string().describe('the view: a unit code or `all`'),
    currency: z.string().regex(/^[A-Z]{3}$/),
    count: z.number().int().nonnegative(),
    items: z.array(JsonItemSchema),
  })
  .strict()
  .describe('catalog-bridge products.json');

const ChangedFieldSchema = z.enum(['price', 'salePrice', 'standardPrice', 'stock', 'availability', 'details']);

/** `GET /feeds/{unit}/changes.json?since=CURSOR`. */
export const ChangesFeedSchema = z
  .object({
    unit: z.string(),
    since: z.string().nullable().describe('the cursor asked with; null without one'),
    next: z.string().describe('the cursor of the next call: the served version'),
    generatedAt: z.string(),
    count: z.number().int().nonnegative(),
    changes: z.array(
      z
        .object({
          id: z.string(),
          change: z.enum(['added', 'changed', 'removed']),
          fields: z.array(ChangedFieldSchema).optional(),
          item: JsonItemSchema.optional().describe('the item as products.json has it; absent for `removed`'),
        })
        .strict(),
    ),
  })
  .strict()
  .describe('catalog-bridge changes.json');

/** The JSON Schema documents served at `/schemas/{name}` (generated once). */
export const JSON_FEED_SCHEMAS: Readonly<Record<string, object>> = {
  'products.schema.json': z.toJSONSchema(ProductsFeedSchema),
  'changes.schema.json': z.toJSONSchema(ChangesFeedSchema),
};
