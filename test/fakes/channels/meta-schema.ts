import { z } from 'zod';

/**
 * What Meta accepts at `POST /{catalog_id}/items_batch` (reference "Product Catalog Items Batch",
 * developers.facebook.com/documentation/ads-commerce/marketing-api/reference/product-catalog/items_batch, and the
 * catalog's supported fields), as docs/decisions/0013-channel-push.md reads them: `item_type` and `requests`
 * required, `requests` ≤ 5000, the call ≤ 28 MB, `method` one of CREATE/UPDATE/DELETE, `data.id` required.
 * `data` is closed over the fields the bridge may send (stricter than Meta, so a misspelt field fails a test).
 */

export const META_MAX_REQUESTS = 5000;
export const META_MAX_PAYLOAD_BYTES = 28 * 1024 * 1024;

/** Supported-fields page: price text is "amount, space, ISO 4217 currency", e.g. `9.99 USD`. */
const Price = z.string().regex(/^\d+(\.\d{2})? [A-Z]{3}$/);
/** Supported-fields page: availability values. */
export const MetaAvailabilitySchema = z.enum([
  'in stock',
  'out of stock',
  'preorder',
  'available for order',
  'discontinued',
  'pending',
  'mark_as_sold',
]);

const ItemFields = {
  id: z.string().min(1).max(100),
  title: z.string().min(1).max(200),
  description: z.string().min(1).max(9999),
  availability: MetaAvailabilitySchema,
  condition: z.enum(['new', 'refurbished', 'used']),
  price: Price,
  /** `""` clears a sale (unconfirmed in Meta's reference; the decision marks it). */
  sale_price: z.union([Price, z.literal('')]),
  link: z.url({ protocol: /^https?$/ }),
  image_link: z.url({ protocol: /^https?$/ }),
  brand: z.string().min(1).max(100),
  gtin: z.string().regex(/^\d{8,14}$/),
};

/** CREATE needs the item's required fields and a brand or a GTIN (the catalog's identifier rule). */
export const MetaCreateDataSchema = z
  .strictObject({
    ...ItemFields,
    brand: ItemFields.brand.optional(),
    gtin: ItemFields.gtin.optional(),
    sale_price: Price.optional(),
  })
  .refine((data) => data.brand !== undefined || data.gtin !== undefined, { message: 'brand or gtin required' });

const UpdateData = z
  .strictObject({
    id: ItemFields.id,
    title: ItemFields.title.optional(),
    description: ItemFields.description.optional(),
    availability: ItemFields.availability.optional(),
    condition: ItemFields.condition.optional(),
    price: ItemFields.price.optional(),
    sale_price: ItemFields.sale_price.optional(),
    link: ItemFields.link.optional(),
    image_link: ItemFields.image_link.optional(),
    brand: ItemFields.brand.optional(),
    gtin: ItemFields.gtin.optional(),
  })
  .refine((data) => Object.keys(data).length > 1, { message: 'UPDATE changes no field' });

export const MetaBatchRequestSchema = z.discriminatedUnion('method', [
  z.strictObject({ method: z.literal('CREATE'), data: MetaCreateDataSchema }),
  z.strictObject({ method: z.literal('UPDATE'), data: UpdateData }),
  z.strictObject({ method: z.literal('DELETE'), data: z.strictObject({ id: ItemFields.id }) }),
]);

/** The call's parameters once decoded (`allow_upsert` defaults to true at Meta). */
export const MetaBatchBodySchema = z.strictObject({
  item_type: z.literal('PRODUCT_ITEM'),
  allow_upsert: z.boolean().optional(),
  requests: z.array(MetaBatchRequestSchema).min(1).max(META_MAX_REQUESTS),
});

/**
 * Decodes the form body Meta's examples send (`requests` as JSON text) and validates it, refusing a body over
 * 28 MB before parsing, as Meta does.
 */
export function parseMetaBatchForm(raw: string): ReturnType<typeof MetaBatchBodySchema.safeParse> {
  if (Buffer.byteLength(raw) > META_MAX_PAYLOAD_BYTES) {
    return MetaBatchBodySchema.safeParse({ tooLarge: true });
  }
  const form = new URLSearchParams(raw);
  let requests: unknown;
  try {
    requests = JSON.parse(form.get('requests') ?? 'null');
  } catch {
    requests = null;
  }
  const upsert = form.get('allow_upsert');
  return MetaBatchBodySchema.safeParse({
    ...(form.has('item_type') ? { item_type: form.get('item_type') } : {}),
    ...(upsert === null ? {} : { allow_upsert: upsert === 'true' ? true : upsert === 'false' ? false : upsert }),
    requests,
  });
}
