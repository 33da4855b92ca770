/**
 * The products of a merge (`merge-catalog.ts`), made from the article fields and the units' offer columns:
 * their issues replayed in product order for the report, and each product made when asked.
 */
import { aggregateOffer } from './aggregate-offer.js';
import type { Availability, Offer } from './catalog.js';
import type { IssueLog } from './create-issue-log.js';
import type { ArticleFacts } from './merge-articles.js';
import type {
  MergedCatalog,
  MergedProducts,
  MergeIssue,
  MergeIssueReason,
  MergeResult,
  PositionedIssues,
} from './merge-types.js';
import { hasPrice, type OfferColumns, offerAt } from './offer-columns.js';

/** One unit's offers and the issues found while building them, in unit order. */
export interface UnitOffers {
  readonly code: string;
  readonly offers: OfferColumns;
  readonly issues: PositionedIssues | undefined;
}

/** A merged catalog with every product made: the `MergeResult` of `mergeCatalog`. */
export function withProductList(merged: MergedCatalog): MergeResult {
  const { products, snapshot, internal, report, sourceRows } = merged;
  const list = Array.from({ length: products.length }, (_, position) => products.at(position));
  const prices = Array.from({ length: internal.products.length }, (_, index) => internal.products.at(index));
  return { snapshot: { ...snapshot, products: list }, internal: { ...internal, products: prices }, report, sourceRows };
}

export interface ReplayInput {
  readonly articles: ArticleFacts;
  readonly units: readonly UnitOffers[];
  readonly issues: IssueLog<MergeIssueReason>;
  readonly maxExamples: number;
}

/**
 * Every product's issues, replayed in the order `mergeCatalog` always found them (product by product: an
 * invalid sales price, each unit's offer issues, no price at all); returns how many products have no price.
 */
export function replayProductIssues(input: ReplayInput): number {
  const { articles, units, issues, maxExamples } = input;
  const cursors = units.map(() => 0);
  let withoutPrice = 0;
  for (let position = 0; position < articles.length; position += 1) {
    const articleId = articles.described.idAt(position);
    const invalidSalesPrice = articles.invalidSalesPrices.get(position);
    if (invalidSalesPrice !== undefined) {
      issues.add({ reason: 'invalid-sales-price', source: 'articles', articleId, detail: invalidSalesPrice });
    }
    let priced = false;
    for (const [unitIndex, unit] of units.entries()) {
      const examples = unit.issues?.examples ?? [];
      let cursor = cursors[unitIndex] ?? 0;
      for (; cursor < examples.length && examples[cursor]?.position === position; cursor += 1) {
        issues.add((examples[cursor] as { issue: MergeIssue }).issue);
      }
      cursors[unitIndex] = cursor;
      if (!priced && hasPrice(unit.offers, position)) priced = true;
    }
    if (!priced) {
      withoutPrice += 1;
      issues.add({ reason: 'no-price', source: 'articles', articleId, code: articleId });
    }
  }
  // What the units' offer logs only counted came after every kept example.
  for (const unit of units) {
    if (unit.issues === undefined) continue;
    for (const [reason, count] of unit.issues.counts) issues.addCount(reason, count - Math.min(count, maxExamples));
  }
  return withoutPrice;
}

/** The products in article order, each made when asked from its article fields and the units' offer columns. */
export function productsOf(
  articles: Pick<ArticleFacts, 'length' | 'described' | 'stockItems'>,
  units: readonly UnitOffers[],
  primaryUnit: string,
  unknownStockAvailability: Availability,
): MergedProducts {
  // Only what making a product needs: not the purchase prices or sales prices of `ArticleFacts`.
  const { length, described, stockItems } = articles;
  return {
    length,
    described,
    at(position) {
      if (!Number.isInteger(position) || position < 0 || position >= length) {
        throw new RangeError(`no product at position ${position} of ${length}`);
      }
      const article = described.at(position);
      const isStockItem = stockItems[position] === 1;
      const offers: Offer[] = units.map((unit) => offerAt(unit.offers, unit.code, position));
      return {
        ...article,
        isStockItem,
        offers,
        aggregate: aggregateOffer(offers, primaryUnit, isStockItem, unknownStockAvailability),
      };
    },
  };
}
