/**
 * The POS's own records as services read them (docs/pos-interface.md, parts 2 and 6): stock movements,
 * address-book clients, receipts and webhook events. The adapter's zod schemas produce exactly these
 * (`adapters/pos/pos-*-schema.ts` check it with `satisfies`). Optional fields are absent when the POS
 * gave no value; unknown extra fields are kept, hence the index signatures.
 */

/** Optional fields are typed `| undefined` as zod infers them, though the schemas leave them absent. */
interface Loose {
  readonly [key: string]: unknown;
}

/** Amount object: `amount` (without VAT), `VAT`, `amountVAT` (with VAT). */
export interface PosAmount extends Loose {
  readonly amount?: number | undefined;
  readonly VAT?: number | undefined;
  readonly amountVAT?: number | undefined;
}

interface PosIdName extends Loose {
  readonly _id?: string | undefined;
  readonly name?: string | undefined;
}

interface PosMovementArticle extends PosIdName {
  readonly plu?: number | undefined;
  readonly ean?: string | undefined;
  readonly internalIdentifier?: string | undefined;
  readonly measureUnit?: string | undefined;
}

interface PosOperationReceipt extends Loose {
  readonly _id?: string | undefined;
  readonly number?: string | undefined;
  readonly cashier?: PosIdName | undefined;
}

interface PosWarehouseOperation extends Loose {
  readonly _id?: string | undefined;
  readonly number?: string | undefined;
  readonly currency?: string | undefined;
  readonly price?: PosAmount | undefined;
  readonly createdAt?: string | undefined;
  readonly type?: number | undefined;
  readonly receipt?: PosOperationReceipt | undefined;
  readonly supplier?: PosIdName | undefined;
}

/** A stock movement (2.4): matched to articles through its nested identifiers, to a sale through its receipt. */
export interface PosMovement extends Loose {
  readonly _id: string;
  readonly count: number;
  readonly unit?: (PosIdName & { readonly code?: string | undefined }) | undefined;
  readonly article?: PosMovementArticle | undefined;
  readonly warehouseOperation?: PosWarehouseOperation | undefined;
}

export interface PosAddress extends Loose {
  readonly city?: string | undefined;
  readonly street?: string | undefined;
  readonly buildingNumber?: string | undefined;
  readonly ZIP?: string | undefined;
  readonly country?: string | undefined;
}

interface PosCompany extends Loose {
  readonly address?: PosAddress | undefined;
  readonly name?: string | undefined;
  readonly TIN?: string | undefined;
  readonly VATID?: string | undefined;
}

/** The address-book client record (2.5); named "record" to keep it apart from the HTTP client. */
export interface PosClientRecord extends Loose {
  readonly _id?: string | undefined;
  readonly externalId?: string | undefined;
  readonly clientCardIdentifier?: string | undefined;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly address?: PosAddress | undefined;
  readonly company?: PosCompany | undefined;
  readonly clientPoints?: number | undefined;
  readonly dateOfBirth?: string | undefined;
  readonly reverseChargeEU?: boolean | undefined;
  readonly note?: string | undefined;
}

interface LocalIdRef extends Loose {
  readonly localId?: string | undefined;
}

/** A receipt (2.6). */
export interface PosReceipt extends Loose {
  readonly number?: string | undefined;
  readonly total?: PosAmount | undefined;
  readonly localId?: string | undefined;
  readonly tip?: number | undefined;
  readonly note?: string | undefined;
  readonly table?: string | undefined;
  /** ReceiptState; only `open` is documented, so any text is accepted. */
  readonly state?: string | undefined;
  /** PaymentType; only `transfer` is documented, so any text is accepted. */
  readonly paymentType?: string | undefined;
  readonly device?: (LocalIdRef & { readonly uuid?: string | undefined }) | undefined;
  readonly cashier?: LocalIdRef | undefined;
  readonly client?: LocalIdRef | undefined;
}

/** A change of a client's points (2.7). */
export interface PosClientPoints extends Loose {
  readonly received?: number | undefined;
  readonly spent?: number | undefined;
  readonly balance?: number | undefined;
  readonly client?: LocalIdRef | undefined;
  readonly receipt?: (LocalIdRef & { readonly number?: string | undefined }) | undefined;
}

export const POS_SALE_EVENT = 'accounting.receipt.sale';
export const POS_CLIENT_POINTS_EVENT = 'address-book.client.points';

/** The envelope every webhook event shares (part 6). */
export interface PosWebhookEnvelope extends Loose {
  readonly timestamp: string;
  readonly event: string;
  readonly accountId?: string | undefined;
  readonly unitId?: string | undefined;
  readonly data?: unknown;
}

/** `accounting.receipt.sale`; one form carries `unitId` and `accountId`, the other neither. */
export interface PosSaleEvent extends PosWebhookEnvelope {
  readonly event: typeof POS_SALE_EVENT;
  readonly data: PosReceipt;
}

/** `address-book.client.points`. */
export interface PosClientPointsEvent extends PosWebhookEnvelope {
  readonly event: typeof POS_CLIENT_POINTS_EVENT;
  readonly data: PosClientPoints;
}

/**
 * A parsed webhook body. `kind` tells the known kinds apart; an unknown `event` is still a valid body
 * (docs/webhooks.md: answered 200, ignored, counted), so it parses with `kind: 'unknown'`.
 */
export type PosWebhookEvent =
  | ({ readonly kind: 'sale' } & PosSaleEvent)
  | ({ readonly kind: 'client-points' } & PosClientPointsEvent)
  | ({ readonly kind: 'unknown' } & PosWebhookEnvelope);

/** One list item that failed its schema: where it was, which item (when it had an id) and why. */
export interface PosRejectedItem {
  readonly id?: string | undefined;
  /** 0-based position in the whole list (page offset included). */
  readonly index: number;
  readonly issues: readonly string[];
}
