/**
 * Source-agnostic input of the catalog merge: what the POS adapter yields once payloads passed their
 * schemas. Optional fields are absent when the POS gave no value (interface 2.2), never `undefined`.
 */

export interface SourceArticle {
  readonly localId: string;
  readonly name: string;
  readonly groupId?: string;
  readonly ean?: string;
  readonly plu?: number;
  readonly internalIdentifier?: string;
  readonly measureUnit?: string;
  readonly isSalesItem?: boolean;
  readonly isStockItem?: boolean;
  readonly isQuick?: boolean;
  /** Gross price (the article list is read with `priceOutput: with_vat`). */
  readonly salesPrice?: number;
  readonly purchasePrice?: number;
  readonly avgPurchasePrice?: number;
}

export interface SourcePriceList {
  readonly localId: string;
  readonly externalId?: string;
  readonly name?: string;
}

export interface SourceUnit {
  readonly localId: string;
  readonly code: string;
  readonly name: string;
  readonly priceLists: readonly SourcePriceList[];
}

/** The keys by which a price-list or stock row may name an article (docs/catalog-rules.md rule 5). */
export type IdentityKey = 'localId' | 'internalIdentifier' | 'plu' | 'ean';

/** One SHOPITEM (or VARIANT) of a unit's e-shop price-list XML. Prices as written, never recomputed. */
export interface PriceListRow {
  /** `CODE`, or `EAN` when the item has no CODE. */
  readonly code: string;
  readonly ean?: string;
  readonly plu?: string;
  /** `PRICE_VAT`: the gross price. */
  readonly priceVat?: number;
  /** `PRICE`: a net price; never used as a gross price. */
  readonly priceNet?: number;
  readonly actionPrice?: number;
  readonly standardPrice?: number;
  readonly currency?: string;
  /** `STOCK/AMOUNT`, else the sum of `STOCK/WAREHOUSES/WAREHOUSE/VALUE`, else a bare numeric `STOCK`. */
  readonly stock?: number;
  readonly availabilityInStock?: string;
  readonly availabilityOutOfStock?: string;
  /** 1-based position of the item in the document, for reports. */
  readonly position: number;
}

/** One data row of a unit's stock export. Every identifying column found is kept; identity picks one. */
export interface StockRow {
  readonly codes: Readonly<Partial<Record<'code' | 'plu' | 'ean', string>>>;
  readonly name?: string;
  readonly quantity: number;
  readonly measureUnit?: string;
  /** Unit column, present only in the all-units export. */
  readonly unit?: string;
  /** 1-based line number in the text, for reports. */
  readonly line: number;
}
