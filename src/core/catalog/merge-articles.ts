import { type ArticleDescription, type ArticleDescriptions, packArticleDescriptions } from './article-descriptions.js';
import { ALL_UNITS, type CatalogUnit, type InternalProductData } from './catalog.js';
import type { IssueLog } from './create-issue-log.js';
import type { MergeIssueReason, PurchasePriceColumns } from './merge-types.js';
import { toMoney } from './round-money.js';
import type { SourceArticle, SourceUnit } from './source.js';

/** What the merge keeps of the selected articles, by product position (the ids are in `described`). */
export interface ArticleFacts {
  readonly length: number;
  /** NaN: no usable sales price. */
  readonly salesPrices: Float64Array;
  /** The sales prices that are present but unusable, as reported. */
  readonly invalidSalesPrices: ReadonlyMap<number, string>;
  /** 1 for a stock item, 0 for a service. */
  readonly stockItems: Uint8Array;
  readonly described: ArticleDescriptions;
  /** Purchase prices, in article order, of the articles that have one. */
  readonly internal: PurchasePriceColumns;
}

function purchasePriceColumns(
  articles: readonly SourceArticle[],
  described: Pick<ArticleDescriptions, 'idAt'>,
): PurchasePriceColumns {
  const positions = new Int32Array(articles.length);
  // By index among the articles with purchase prices; NaN: that price is absent.
  const purchasePrices = new Float64Array(articles.length);
  const averagePrices = new Float64Array(articles.length);
  let length = 0;
  for (const [position, article] of articles.entries()) {
    const purchase = internalData(article);
    if (purchase === undefined) continue;
    positions[length] = position;
    purchasePrices[length] = purchase.purchasePrice ?? Number.NaN;
    averagePrices[length] = purchase.avgPurchasePrice ?? Number.NaN;
    length += 1;
  }
  // Only as long as the articles that have purchase prices: the columns live as long as the merge.
  const kept = {
    positions: positions.slice(0, length),
    purchase: purchasePrices.slice(0, length),
    average: averagePrices.slice(0, length),
  };
  return {
    length,
    at(index) {
      if (!Number.isInteger(index) || index < 0 || index >= length) {
        throw new RangeError(`no purchase prices at ${index} of ${length}`);
      }
      const purchasePrice = kept.purchase[index] ?? Number.NaN;
      const avgPurchasePrice = kept.average[index] ?? Number.NaN;
      // The keys in `internalData`'s order.
      return {
        id: described.idAt(kept.positions[index] ?? 0),
        ...(Number.isNaN(purchasePrice) ? {} : { purchasePrice }),
        ...(Number.isNaN(avgPurchasePrice) ? {} : { avgPurchasePrice }),
      };
    },
  };
}

export function articleFacts(articles: readonly SourceArticle[]): ArticleFacts {
  const salesPrices = new Float64Array(articles.length).fill(Number.NaN);
  const invalidSalesPrices = new Map<number, string>();
  const stockItems = new Uint8Array(articles.length);
  for (const [position, article] of articles.entries()) {
    const salesPrice = toMoney(article.salesPrice);
    if (salesPrice !== undefined) salesPrices[position] = salesPrice;
    if (article.salesPrice !== undefined && salesPrice === undefined)
      invalidSalesPrices.set(position, String(article.salesPrice));
    stockItems[position] = article.isStockItem === false ? 0 : 1;
  }
  const described = packArticleDescriptions(articles.length, (position) => describeArticle(articles[position] as SourceArticle));
  const internal = purchasePriceColumns(articles, described);
  return { length: articles.length, salesPrices, invalidSalesPrices, stockItems, described, internal };
}

/** The usable sales price at `position` of `ArticleFacts.salesPrices`. */
export function salesPriceAt(prices: Float64Array, position: number): number | undefined {
  const price = prices[position];
  return price === undefined || Number.isNaN(price) ? undefined : price;
}

/** Units in list order, first of each code kept. */
export function selectUnits(source: readonly SourceUnit[], warnings: string[]): CatalogUnit[] {
  const units: CatalogUnit[] = [];
  const seen = new Set<string>();
  for (const unit of source) {
    const code = unit.code.trim();
    if (code === '') {
      warnings.push(`unit "${unit.localId}" has no code and is ignored`);
      continue;
    }
    if (seen.has(code)) {
      warnings.push(`unit code "${code}" appears twice; the first unit is kept`);
      continue;
    }
    if (code === ALL_UNITS) warnings.push(`unit code "${ALL_UNITS}" clashes with the aggregate view, which takes precedence`);
    seen.add(code);
    units.push({ code, localId: unit.localId, name: unit.name });
  }
  if (units.length === 0) warnings.push('the POS returned no units: products have no offers');
  return units;
}

export function selectPrimaryUnit(units: readonly CatalogUnit[], configured: string | undefined, warnings: string[]): string {
  const first = units[0]?.code ?? '';
  if (configured === undefined || units.some((unit) => unit.code === configured)) return configured ?? first;
  warnings.push(`primary unit "${configured}" does not exist; the aggregate shows the prices of "${first}"`);
  return first;
}

export interface SelectedArticles {
  readonly products: SourceArticle[];
  readonly excluded: SourceArticle[];
  readonly invalid: number;
  readonly duplicates: number;
}

export function selectArticles(source: readonly SourceArticle[], issues: IssueLog<MergeIssueReason>): SelectedArticles {
  const products: SourceArticle[] = [];
  const excluded: SourceArticle[] = [];
  const seen = new Set<string>();
  let invalid = 0;
  let duplicates = 0;
  for (const article of source) {
    if (article.localId.trim() === '') {
      invalid += 1;
      issues.add({ reason: 'invalid-article', source: 'articles', code: article.name, detail: 'empty localId' });
      continue;
    }
    if (seen.has(article.localId)) {
      duplicates += 1;
      issues.add({ reason: 'duplicate-article', source: 'articles', articleId: article.localId, code: article.localId });
      continue;
    }
    seen.add(article.localId);
    if (article.isSalesItem === false) excluded.push(article);
    else products.push(article);
  }
  return { products, excluded, invalid, duplicates };
}

/** The public fields of an article; empty optional strings count as absent. Purchase prices stay out. */
export function describeArticle(article: SourceArticle): ArticleDescription {
  const groupId = present(article.groupId);
  const ean = present(article.ean);
  const internalIdentifier = present(article.internalIdentifier);
  const measureUnit = present(article.measureUnit);
  return {
    id: article.localId,
    name: article.name,
    ...(groupId === undefined ? {} : { groupId }),
    ...(ean === undefined ? {} : { ean }),
    ...(article.plu === undefined || !Number.isFinite(article.plu) ? {} : { plu: article.plu }),
    ...(internalIdentifier === undefined ? {} : { internalIdentifier }),
    ...(measureUnit === undefined ? {} : { measureUnit }),
  };
}

export function present(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

export function internalData(article: SourceArticle): InternalProductData | undefined {
  const purchasePrice = toMoney(article.purchasePrice);
  const avgPurchasePrice = toMoney(article.avgPurchasePrice);
  if (purchasePrice === undefined && avgPurchasePrice === undefined) return undefined;
  return {
    id: article.localId,
    ...(purchasePrice === undefined ? {} : { purchasePrice }),
    ...(avgPurchasePrice === undefined ? {} : { avgPurchasePrice }),
  };
}
