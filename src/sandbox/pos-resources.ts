/**
 * The resources of the POS interface (docs/pos-interface.md, part 2) as the sandbox serves them.
 * Optional properties are left out of the JSON when the simulated POS has no value, never sent as
 * `null` or `""`, because that is how the interface describes them ("absent from some items").
 */

/** 2.2 */
export interface PosArticle {
  readonly localId: string;
  readonly name: string;
  readonly localGroupId?: string;
  readonly ean?: string;
  readonly plu?: number;
  readonly internalIdentifier?: string;
  readonly measureUnit: string;
  readonly isSalesItem?: boolean;
  readonly isStockItem?: boolean;
  readonly isQuick: boolean;
  readonly salesPrice: number;
  readonly purchasePrice: number;
  readonly avgPurchasePrice: number;
}

export interface PosPriceListRef {
  readonly localId: string;
  readonly externalId: string;
  readonly name: string;
}

/** 2.3 */
export interface PosUnit {
  readonly code: string;
  readonly name: string;
  readonly localId: string;
  readonly priceLists: readonly PosPriceListRef[];
}

/** Amount object: `amount` without VAT, `VAT` the tax itself, `amountVAT` including VAT. */
export interface Amount {
  readonly amount: number;
  readonly VAT: number;
  readonly amountVAT: number;
}

/** 2.4 */
export interface PosMovement {
  readonly _id: string;
  readonly count: number;
  readonly unit: { readonly _id: string; readonly code: string; readonly name: string };
  readonly article: {
    readonly _id: string;
    readonly name: string;
    readonly plu?: number;
    readonly ean?: string;
    readonly internalIdentifier?: string;
    readonly measureUnit: string;
  };
  readonly warehouseOperation: {
    readonly _id: string;
    readonly number: string;
    readonly currency: string;
    readonly price: Amount;
    readonly createdAt: string;
    /** 1 = stock receipt (příjem), 2 = sale issue (výdej); the interface does not define the codes. */
    readonly type: number;
    readonly receipt?: {
      readonly _id: string;
      readonly number: string;
      readonly cashier: { readonly _id: string; readonly name: string };
    };
    readonly supplier?: { readonly _id: string; readonly name: string };
  };
}

export interface PosAddress {
  readonly city?: string;
  readonly street?: string;
  readonly buildingNumber?: string;
  readonly ZIP?: string;
  readonly country?: string;
}

/** 2.5 */
export interface PosClient {
  readonly _id: string;
  readonly externalId?: string;
  readonly clientCardIdentifier?: string;
  readonly email?: string;
  readonly phone?: string;
  readonly address?: PosAddress;
  readonly company?: {
    readonly address?: PosAddress;
    readonly name?: string;
    readonly TIN?: string;
    readonly VATID?: string;
  };
  readonly clientPoints?: number;
  readonly dateOfBirth?: string;
  readonly reverseChargeEU?: boolean;
  readonly note?: string;
}

/** 2.6 */
export interface PosReceipt {
  readonly number: string;
  readonly total: Amount;
  readonly localId: string;
  readonly tip: number;
  readonly note: string;
  readonly table: string;
  readonly state: 'open';
  readonly paymentType: 'transfer';
  readonly device: { readonly localId: string; readonly uuid: string };
  readonly cashier: { readonly localId: string };
  readonly client?: { readonly localId: string };
}

/** 2.7 */
export interface PosClientPoints {
  readonly received: number;
  readonly spent: number;
  readonly balance: number;
  readonly client: { readonly localId: string };
  readonly receipt: { readonly localId: string; readonly number: string };
}

/** Part 6: one webhook call body. The sale event comes in two forms: with unitId + accountId, and without both. */
export type PosEvent =
  | {
      readonly timestamp: string;
      readonly event: 'accounting.receipt.sale';
      readonly accountId?: string;
      readonly unitId?: string;
      readonly data: PosReceipt;
    }
  | {
      readonly timestamp: string;
      readonly event: 'address-book.client.points';
      readonly accountId: string;
      readonly data: PosClientPoints;
    };
