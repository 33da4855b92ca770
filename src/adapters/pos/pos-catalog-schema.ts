import type { z } from 'zod';
import type { SourceArticle, SourcePriceList, SourceUnit } from '../../core/catalog/source.js';
import {
  arrayOrSingle,
  isBlank,
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

/** How a field of `SourceArticleSchema` is read by `plainSourceArticle`. */
type PlainKind = 'text' | 'number' | 'boolean';

/** The optional fields, in `toSourceArticle`'s order, with their names in the POS's item and in the article. */
const PLAIN_FIELDS: readonly (readonly [from: string, to: keyof SourceArticle, kind: PlainKind])[] = [
  ['localGroupId', 'groupId', 'text'],
  ['ean', 'ean', 'text'],
  ['plu', 'plu', 'number'],
  ['internalIdentifier', 'internalIdentifier', 'text'],
  ['measureUnit', 'measureUnit', 'text'],
  ['isSalesItem', 'isSalesItem', 'boolean'],
  ['isStockItem', 'isStockItem', 'boolean'],
  ['isQuick', 'isQuick', 'boolean'],
  ['salesPrice', 'salesPrice', 'number'],
  ['purchasePrice', 'purchasePrice', 'number'],
  ['avgPurchasePrice', 'avgPurchasePrice', 'number'],
];

/**
 * `SourceArticleSchema`'s result for an item written plainly (every field read is text, a finite number, a
 * boolean, `null` or absent; the ids are text), or `undefined` for any other item, which the schema then
 * validates (ids given as integers, numbers as decimal text, anything it rejects). The schema stays the
 * definition: a property test holds this to it. A million articles took ~5.6 s of the sync's thread through
 * the schema alone (its unions, pipes and three objects per item), ~1 s this way (docs/decisions/0024).
 */
export function plainSourceArticle(raw: unknown): SourceArticle | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const item = raw as Record<string, unknown>;
  const { localId, name } = item;
  if (typeof localId !== 'string' || isBlank(localId) || typeof name !== 'string' || isBlank(name)) return undefined;
  const out: Record<string, unknown> = { localId, name };
  for (const [from, to, kind] of PLAIN_FIELDS) {
    const value = item[from];
    if (value === null || value === undefined) continue;
    if (kind === 'text') {
      if (typeof value !== 'string') return undefined;
      if (!isBlank(value)) out[to] = value;
    } else if (kind === 'number') {
      if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
      out[to] = value;
    } else {
      if (typeof value !== 'boolean') return undefined;
      out[to] = value;
    }
  }
  return out as unknown as SourceArticle;
}

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
