/**
 * Types for the Shoptet REST endpoints the push uses, written from Shoptet's published OpenAPI document
 * (`shoptet/developers`, `openapi/openapi.yaml`, commit 5498de99), each beside the section it comes from
 * (docs/decisions/0013-channel-push.md, "Shoptet REST API"). The fake server's zod schemas
 * (`test/fakes/channels/shoptet-schema.ts`) validate against the same shapes.
 */

/** `components.securitySchemes` (private API access, Premium): header `Shoptet-Private-Api-Token`. */
export const SHOPTET_TOKEN_HEADER = 'Shoptet-Private-API-Token';

/** `components.parameters.DefaultContentType`: `Content-Type` header, required, default `application/json`. */
export const SHOPTET_CONTENT_TYPE = 'application/json';

/** `paths./api/stocks/{stockId}/movements.patch.description`: "max. 300 products/variants" per call. */
export const SHOPTET_MOVEMENTS_MAX_ITEMS = 300;

/** `paths./api/stocks/{stockId}/movements.patch.requestBody…data.items.oneOf[0]` (relative; never sent by the bridge). */
export interface ShoptetAmountChangeItem {
  readonly productCode: string;
  readonly amountChange: number;
}

/** `paths./api/stocks/{stockId}/movements.patch.requestBody…data.items.oneOf[1]`: amount available for ordering. */
export interface ShoptetQuantityItem {
  readonly productCode: string;
  readonly quantity: number;
}

/** `paths./api/stocks/{stockId}/movements.patch.requestBody…data.items.oneOf[2]`: amount physically stored. */
export interface ShoptetRealStockItem {
  readonly productCode: string;
  readonly realStock: number;
}

/** `paths./api/stocks/{stockId}/movements.patch.requestBody.content.application/json.schema` (`required: [data]`). */
export interface ShoptetUpdateQuantityInStockRequest {
  readonly data: readonly (ShoptetAmountChangeItem | ShoptetQuantityItem | ShoptetRealStockItem)[];
}

/** `components.schemas.Errors` items (`required: [errorCode, message, instance]`, `additionalProperties: false`). */
export interface ShoptetError {
  readonly errorCode: string;
  readonly message: string;
  /** For stock movements: the product code the error is about. */
  readonly instance: string;
}

/** `components.schemas.Errors`: an array or `null`. */
export type ShoptetErrors = readonly ShoptetError[] | null;

/** `components.schemas.Metadata` (`required: [requestId]`). */
export interface ShoptetMetadata {
  readonly requestId: string;
}

/**
 * `paths./api/stocks/{stockId}/movements.patch.responses.200` and `.400` (same body; 400 when every item
 * failed). Error codes in the examples: `unknown-product`, `stock-change-not-allowed` (product sets).
 */
export interface ShoptetUpdateQuantityInStockResponse {
  readonly data?: Record<string, unknown> | null;
  readonly errors?: ShoptetErrors;
  readonly metadata?: ShoptetMetadata;
}

/** Error codes the push treats as final (a repeat cannot fix them); others are retried. */
export const SHOPTET_FINAL_ERROR_CODES = ['unknown-product', 'stock-change-not-allowed'] as const;
