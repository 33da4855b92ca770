import type { Availability } from '../../core/catalog/catalog.js';
import type { SearchMatch } from '../../core/catalog/product-search.js';

// The product search's query and answer (`GET /api/products`, `GET /products`): shared by its routes and its page.

/** Limits of the query parameters (docs/http-interface.md#product-search). */
export const SEARCH_LIMITS = { maxQueryLength: 100, maxLimit: 100, apiLimit: 20, pageLimit: 50 } as const;

/** One product found: its codes, how it was found, and the chosen unit's price and stock. Never purchase prices. */
export interface ProductSearchItem {
  readonly id: string;
  readonly name: string;
  readonly ean?: string;
  readonly plu?: number;
  readonly internalIdentifier?: string;
  readonly matchedBy: SearchMatch;
  readonly price?: number;
  readonly salePrice?: number;
  readonly stock?: number;
  readonly availability: Availability;
  /** The product's own API resource. */
  readonly url: string;
}

/** The body of `GET /api/products?q=…`. */
export interface ProductSearchAnswer {
  readonly query: string;
  readonly unit: string;
  readonly version: string;
  /** Items returned (at most `limit`). */
  readonly count: number;
  /** Every product found; with `complete` false, those found before the search's time budget ran out. */
  readonly total: number;
  /** False when the name search stopped at its time budget (docs/security.md): `total` is then a lower bound. */
  readonly complete: boolean;
  readonly items: readonly ProductSearchItem[];
}

export type SearchParam = 'q' | 'limit' | 'unit';
/** What is wrong with a query parameter; the page words each kind in its reader's language. */
export type SearchProblemKind = 'missing' | 'repeated' | 'empty' | 'too-long' | 'bad-limit' | 'bad-unit' | 'unknown-unit';

export interface SearchQueryProblem {
  readonly param: SearchParam;
  readonly kind: SearchProblemKind;
  /** For the API's error answer: names the parameter. */
  readonly message: string;
}
