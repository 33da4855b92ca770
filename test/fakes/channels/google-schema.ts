import { z } from 'zod';

/**
 * What the Merchant API v1 accepts for the calls the push makes, from the official client's types
 * (`Schema$ProductInput`, `Schema$ProductAttributes`, `Schema$Price`, `Schema$LocalInventory`,
 * `Schema$LocalInventoryAttributes` of `@googleapis/merchantapi`) and the REST reference, as
 * docs/decisions/0013-channel-push.md reads them. Google's JSON parser refuses unknown names ("Invalid JSON
 * payload received. Unknown name"), so objects are closed; `ProductAttributes` lists only the fields the bridge
 * may send (stricter than Google, so a misspelt field fails a test).
 */

/** `Schema$Price`: `amountMicros` int64 as text, `currencyCode` ISO 4217. */
export const GooglePriceSchema = z.strictObject({
  amountMicros: z.string().regex(/^-?\d+$/),
  currencyCode: z.string().regex(/^[A-Z]{3}$/),
});

/** `ProductAttributes.availability` enum names (proto JSON accepts the names only). */
const Availability = z.enum(['IN_STOCK', 'OUT_OF_STOCK', 'PREORDER', 'LIMITED_AVAILABILITY', 'BACKORDER']);

export const GoogleProductAttributesSchema = z.strictObject({
  title: z.string().min(1).max(150).optional(),
  description: z.string().min(1).max(5000).optional(),
  link: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional(),
  imageLink: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional(),
  availability: Availability.optional(),
  price: GooglePriceSchema.optional(),
  salePrice: GooglePriceSchema.optional(),
  gtins: z.array(z.string().regex(/^\d{8,14}$/)).optional(),
  brand: z.string().min(1).max(70).optional(),
  condition: z.enum(['NEW', 'USED', 'REFURBISHED']).optional(),
});

/** `Schema$ProductInput`: `offerId`, `contentLanguage`, `feedLabel` required (REST reference, ProductInput). */
export const GoogleProductInputSchema = z.strictObject({
  name: z.string().optional(),
  offerId: z.string().min(1).max(50),
  contentLanguage: z.string().regex(/^[a-z]{2}$/),
  feedLabel: z.string().regex(/^[A-Z0-9_-]{1,20}$/),
  productAttributes: GoogleProductAttributesSchema.optional(),
});

/** `?dataSource=accounts/{account}/dataSources/{datasource}`: required on insert, patch and delete. */
export const GoogleDataSourceSchema = z.string().regex(/^accounts\/\d+\/dataSources\/\d+$/);

/** A mask path: a top-level attribute of `productAttributes` (JSON or proto spelling), never deeper. */
const MaskPath = z.string().regex(/^(productAttributes\.[a-zA-Z]+|product_attributes\.[a-z_]+)$/);

function decodeName(name: string): string | undefined {
  const match = /^accounts\/\d+\/productInputs\/([A-Za-z0-9_-]+)$/.exec(name);
  return match?.[1] === undefined ? undefined : Buffer.from(match[1], 'base64url').toString('utf8');
}

/**
 * `productInputs.patch`: the name must decode to `{contentLanguage}~{feedLabel}~{offerId}` of the body, the mask
 * must name top-level attributes only, and the body may carry only masked attributes (absent = delete).
 */
export const GooglePatchRequestSchema = z
  .strictObject({
    name: z.string(),
    updateMask: z.string().transform((mask) => mask.split(',')),
    body: GoogleProductInputSchema,
  })
  .superRefine((request, context) => {
    const body = request.body;
    if (decodeName(request.name) !== `${body.contentLanguage}~${body.feedLabel}~${body.offerId}`) {
      context.addIssue({ code: 'custom', message: 'name does not decode to contentLanguage~feedLabel~offerId', path: ['name'] });
    }
    for (const path of request.updateMask) {
      if (!MaskPath.safeParse(path).success)
        context.addIssue({ code: 'custom', message: `bad mask path ${path}`, path: ['updateMask'] });
    }
    // Both spellings name the same attribute: `product_attributes.sale_price` is `salePrice`.
    const attribute = (path: string) =>
      path.replace(/^(productAttributes|product_attributes)\./, '').replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    const masked = new Set(request.updateMask.map(attribute));
    for (const key of Object.keys(body.productAttributes ?? {})) {
      if (!masked.has(key)) context.addIssue({ code: 'custom', message: `${key} not in the update mask`, path: ['body'] });
    }
  });

/** `productInputs.delete`: the name in the v1 form. */
export const GoogleDeleteRequestSchema = z.strictObject({
  name: z.string().refine((name) => decodeName(name)?.split('~').length === 3, 'name is not contentLanguage~feedLabel~offerId'),
});

/** `Schema$LocalInventoryAttributes`: `quantity` int64 text "greater than or equal to zero". */
export const GoogleLocalInventoryAttributesSchema = z.strictObject({
  price: GooglePriceSchema.optional(),
  salePrice: GooglePriceSchema.optional(),
  availability: z.enum(['IN_STOCK', 'LIMITED_AVAILABILITY', 'ON_DISPLAY_TO_ORDER', 'OUT_OF_STOCK']).optional(),
  quantity: z.string().regex(/^\d+$/).optional(),
});

/** `Schema$LocalInventory`: `storeCode` required (immutable, identifies the entry to replace). */
export const GoogleLocalInventorySchema = z.strictObject({
  name: z.string().optional(),
  storeCode: z.string().min(1),
  localInventoryAttributes: GoogleLocalInventoryAttributesSchema.optional(),
});

/** The body of `renderproductissues` / `renderaccountissues` (`RenderIssuesRequestPayload`). */
export const GoogleRenderIssuesRequestSchema = z.strictObject({
  contentOption: z.enum(['PRE_RENDERED_HTML']).optional(),
  userInputActionOption: z.enum(['REDIRECT_TO_MERCHANT_CENTER', 'BUILT_IN_USER_INPUT_ACTIONS']).optional(),
});

/** `languageCode` of the render calls: an IETF BCP-47 tag. */
export const GoogleLanguageCodeSchema = z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/);
