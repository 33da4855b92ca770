import { z } from 'zod';

/**
 * What Shoptet accepts at `PATCH /api/stocks/{stockId}/movements` (operationId `updateQuantityInStock`), written
 * from `openapi/openapi.yaml` of `shoptet/developers` (commit 5498de99); the section is named beside each
 * schema. Types: `src/adapters/push/shoptet-openapi-types.ts`. Docs: docs/decisions/0013-channel-push.md.
 */

/** `…requestBody…data.items.oneOf[0]`: `required: [productCode, amountChange]`, `additionalProperties: false`. */
const AmountChangeItem = z.strictObject({ productCode: z.string(), amountChange: z.number() });
/** `…data.items.oneOf[1]`: `required: [productCode, quantity]`, `additionalProperties: false`. */
const QuantityItem = z.strictObject({ productCode: z.string(), quantity: z.number() });
/** `…data.items.oneOf[2]`: `required: [productCode, realStock]`, `additionalProperties: false`. */
const RealStockItem = z.strictObject({ productCode: z.string(), realStock: z.number() });

/**
 * `oneOf` of three closed objects: an item carrying two amounts matches none (strict objects refuse the
 * other's key), so a plain union is exactly `oneOf` here.
 */
export const ShoptetStockItemSchema = z.union([AmountChangeItem, QuantityItem, RealStockItem]);

/**
 * `paths./api/stocks/{stockId}/movements.patch.requestBody` (`required: [data]`; the top level is not closed in
 * the document). "max. 300 products/variants" is in the operation's description, enforced here as Shoptet does.
 */
export const ShoptetStockMovementsRequestSchema = z.object({
  data: z.array(ShoptetStockItemSchema).max(300),
});

/** `paths./api/stocks/{stockId}/movements.patch.parameters`: `stockId` is an integer path parameter. */
export const ShoptetStockIdSchema = z.coerce.number().int().positive();

/**
 * Headers: `components.securitySchemes` (token, private API access) and `components.parameters.DefaultContentType`
 * (`Content-Type`, required). Node lower-cases header names, as HTTP treats them case-insensitively.
 */
export const ShoptetRequestHeadersSchema = z.object({
  'shoptet-private-api-token': z.string().min(1),
  'content-type': z.string().regex(/^application\/json(;.*)?$/),
});

/** `components.schemas.Errors` items: closed, all three required. */
export const ShoptetErrorSchema = z.strictObject({ errorCode: z.string(), message: z.string(), instance: z.string() });

/** `…movements.patch.responses.200`/`400`: what the fake server answers, checked so clients parse real shapes. */
export const ShoptetStockMovementsResponseSchema = z.object({
  data: z.record(z.string(), z.unknown()).nullable(),
  errors: z.array(ShoptetErrorSchema).nullable(),
  /** `components.schemas.Metadata`: closed, `requestId` required. */
  metadata: z.strictObject({ requestId: z.string() }),
});
