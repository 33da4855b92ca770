import type { z } from 'zod';
import type { SourceArticle, SourcePriceList, SourceUnit } from '../../core/catalog/source.js';
import {
  arrayOrSingle,
  looseObject,
  OptionalBoolean,
  OptionalId,
  OptionalNumber,
  OptionalText,
  PosId,
  RequiredText,
} from './pos-schema-primitives.js';

/** Articles and units (docs/pos-interface.md, 2.2 and 2.3), and their turning into domain objects. */

// ---------------------------------------------------------------------------------------------------
// 2.2 Article

export const PosArticleSchema = looseObject({
  localId: PosId,
  name: RequiredText,
  localGroupId: OptionalId,
  ean: OptionalText,
  plu: OptionalNumber,
  internalIdentifier: OptionalId,
  measureUnit: OptionalText,
  isSalesItem: OptionalBoolean,
  isStockItem: OptionalBoolean,
  isQuick: OptionalBoolean,
  salesPrice: OptionalNumber,
  purchasePrice: OptionalNumber,
  avgPurchasePrice: OptionalNumber,
});
export type PosArticle = z.output<typeof PosArticleSchema>;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** POS article → domain article: `localGroupId` becomes `groupId`, absent fields stay absent, extras dropped. */
export function toSourceArticle(article: PosArticle): SourceArticle {
  const out: Mutable<SourceArticle> = { localId: article.localId, name: article.name };
  if (article.localGroupId !== undefined) out.groupId = article.localGroupId;
  if (article.ean !== undefined) out.ean = article.ean;
  if (article.plu !== undefined) out.plu = article.plu;
  if (article.internalIdentifier !== undefined) out.internalIdentifier = article.internalIdentifier;
  if (article.measureUnit !== undefined) out.measureUnit = article.measureUnit;
  if (article.isSalesItem !== undefined) out.isSalesItem = article.isSalesItem;
  if (article.isStockItem !== undefined) out.isStockItem = article.isStockItem;
  if (article.isQuick !== undefined) out.isQuick = article.isQuick;
  if (article.salesPrice !== undefined) out.salesPrice = article.salesPrice;
  if (article.purchasePrice !== undefined) out.purchasePrice = article.purchasePrice;
  if (article.avgPurchasePrice !== undefined) out.avgPurchasePrice = article.avgPurchasePrice;
  return out;
}

/** Validates one article item and returns the domain article. */
export const SourceArticleSchema = PosArticleSchema.transform(toSourceArticle);

// ---------------------------------------------------------------------------------------------------
// 2.3 Unit

export const PosPriceListRefSchema = looseObject({
  localId: PosId,
  externalId: OptionalId,
  name: OptionalText,
});

export const PosUnitSchema = looseObject({
  localId: PosId,
  code: PosId,
  // The name is display text only; a unit without one still has prices and stock worth syncing.
  name: OptionalText,
  priceLists: arrayOrSingle(PosPriceListRefSchema)
    .nullish()
    .transform((value) => value ?? []),
});
export type PosUnit = z.output<typeof PosUnitSchema>;

/** POS unit → domain unit. A unit without a name is named by its code (it needs some display name). */
export function toSourceUnit(unit: PosUnit): SourceUnit {
  const priceLists = unit.priceLists.map((priceList): SourcePriceList => {
    const out: Mutable<SourcePriceList> = { localId: priceList.localId };
    if (priceList.externalId !== undefined) out.externalId = priceList.externalId;
    if (priceList.name !== undefined) out.name = priceList.name;
    return out;
  });
  return { localId: unit.localId, code: unit.code, name: unit.name ?? unit.code, priceLists };
}

/** Validates one unit item and returns the domain unit. */
export const SourceUnitSchema = PosUnitSchema.transform(toSourceUnit);
