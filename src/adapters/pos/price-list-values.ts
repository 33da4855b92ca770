import { parseDecimal } from './parse-number.js';
import { forbiddenCharacterProblem } from './xml-forbidden-characters.js';

/**
 * One SHOPITEM's or VARIANT's values as the price-list parser collected them (`price-list-xml.ts`), and
 * their reading into numbers and labels: tolerant, each problem reported in words, never thrown.
 */

export type FieldPath =
  | 'CODE'
  | 'EAN'
  | 'PLU'
  | 'PRICE_VAT'
  | 'PRICE'
  | 'ACTION_PRICE'
  | 'STANDARD_PRICE'
  | 'CURRENCY'
  | 'AVAILABILITY_IN_STOCK'
  | 'AVAILABILITY_OUT_OF_STOCK'
  | 'STOCK'
  | 'STOCK/AMOUNT';

export const WAREHOUSE_VALUE = 'STOCK/WAREHOUSES/WAREHOUSE/VALUE';

/** Raw texts collected for one SHOPITEM or one VARIANT (trimmed, non-empty). */
export interface Scope {
  readonly values: Map<FieldPath, string>;
  readonly warehouseValues: string[];
  readonly problems: string[];
  /** Characters XML forbids read inside this item or variant (its own children, not its variants'). */
  forbiddenCharacters: number;
  /** The first of them, for the report. */
  firstForbidden: number;
}

/** Fields of a row other than identity and position, after number parsing. */
export interface Values {
  priceVat?: number;
  priceNet?: number;
  actionPrice?: number;
  standardPrice?: number;
  currency?: string;
  stock?: number;
  availabilityInStock?: string;
  availabilityOutOfStock?: string;
}

export interface Resolved {
  readonly code?: string;
  readonly ean?: string;
  readonly plu?: string;
  readonly values: Values;
  readonly problems: readonly string[];
}

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function readPrice(scope: Scope, path: FieldPath, problems: string[]): number | undefined {
  const raw = scope.values.get(path);
  if (raw === undefined) return undefined;
  const value = parseDecimal(raw);
  if (value === undefined) {
    problems.push(`${path} "${raw}" is not a number, ignored`);
    return undefined;
  }
  if (value < 0) {
    problems.push(`${path} "${raw}" is negative, ignored`);
    return undefined;
  }
  return value;
}

export function resolve(scope: Scope): Resolved {
  const problems =
    scope.forbiddenCharacters === 0
      ? [...scope.problems]
      : [forbiddenCharacterProblem(scope.forbiddenCharacters, scope.firstForbidden), ...scope.problems];
  const values: Values = {};
  const priceVat = readPrice(scope, 'PRICE_VAT', problems);
  if (priceVat !== undefined) values.priceVat = priceVat;
  const priceNet = readPrice(scope, 'PRICE', problems);
  if (priceNet !== undefined) values.priceNet = priceNet;
  const actionPrice = readPrice(scope, 'ACTION_PRICE', problems);
  if (actionPrice !== undefined) values.actionPrice = actionPrice;
  const standardPrice = readPrice(scope, 'STANDARD_PRICE', problems);
  if (standardPrice !== undefined) values.standardPrice = standardPrice;
  const currency = scope.values.get('CURRENCY');
  if (currency !== undefined) values.currency = currency;
  const inStock = scope.values.get('AVAILABILITY_IN_STOCK');
  if (inStock !== undefined) values.availabilityInStock = inStock;
  const outOfStock = scope.values.get('AVAILABILITY_OUT_OF_STOCK');
  if (outOfStock !== undefined) values.availabilityOutOfStock = outOfStock;
  const stock = resolveStock(scope, problems);
  if (stock !== undefined) values.stock = stock;

  const resolved: Mutable<Resolved> = { values, problems };
  const code = scope.values.get('CODE');
  if (code !== undefined) resolved.code = code;
  const ean = scope.values.get('EAN');
  if (ean !== undefined) resolved.ean = ean;
  const plu = scope.values.get('PLU');
  if (plu !== undefined) resolved.plu = plu;
  return resolved;
}

/**
 * `STOCK/AMOUNT`, else the sum of `STOCK/WAREHOUSES/WAREHOUSE/VALUE`, else a bare numeric `STOCK`
 * (docs/pos-interface.md, the price-list XML).
 */
function resolveStock(scope: Scope, problems: string[]): number | undefined {
  // Stock may be negative (newer RNG allows it; the POS can sell below zero).
  const amount = scope.values.get('STOCK/AMOUNT');
  if (amount !== undefined) {
    const value = parseDecimal(amount);
    if (value === undefined) problems.push(`STOCK/AMOUNT "${amount}" is not a number, ignored`);
    return value;
  }
  if (scope.warehouseValues.length > 0) {
    let sum = 0;
    for (const raw of scope.warehouseValues) {
      const value = parseDecimal(raw);
      if (value === undefined) {
        // A partial sum would understate stock; better no stock figure than a wrong one.
        problems.push(`STOCK/WAREHOUSES/WAREHOUSE/VALUE "${raw}" is not a number, stock ignored`);
        return undefined;
      }
      sum += value;
    }
    // Summing decimals (0.1 + 0.2) must not leave binary noise in a quantity written with 3 decimals.
    return Math.round(sum * 1e6) / 1e6;
  }
  const bare = scope.values.get('STOCK');
  if (bare === undefined) return undefined;
  const value = parseDecimal(bare);
  if (value === undefined) problems.push(`STOCK "${bare}" is not a number, ignored`);
  return value;
}
