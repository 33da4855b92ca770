import { hasText } from './apply-text-rule.js';
import type { RenderScope } from './feed-fields.js';
import type { FeedItem } from './feed-item.js';
import { type FeedReporter, MISSING } from './feed-report.js';
import type { FeedTemplate } from './feed-template-schema.js';
import { itemAvailabilityOf, omitsItem, type StockPolicy } from './stock-policy.js';
import { compileAt, joinPath, type ProblemSink } from './template-problems.js';

/** The item-level rules of a template: its filter (silent), its stock policy and its `require` checks (warned). */
export interface ItemRules {
  /** The feed's stock policy (the renderers put it in every scope). */
  readonly stockPolicy: StockPolicy;
  /** `false` when the template's filter leaves the item in scope out (availability after the stock policy). */
  readonly accepts: (scope: RenderScope) => boolean;
  /** The name of the first `require` check the item fails, or `undefined`. */
  readonly failedCheck: (scope: RenderScope) => string | undefined;
  /**
   * What every renderer does first with an item: puts it in `scope` (no offer yet) and tells whether it
   * is rendered. An item the filter leaves out counts as filtered; one the stock policy leaves out
   * (`outOfStock: omit`) as out of stock; one failing a check is warned about and counts as dropped.
   */
  readonly admit: (item: FeedItem, scope: RenderScope, reporter: FeedReporter) => boolean;
}

export function compileItemRules(template: FeedTemplate, stockPolicy: StockPolicy, sink: ProblemSink): ItemRules {
  const filter = template.filter ?? {};
  const availability = filter.availability;
  const isStockItem = filter.isStockItem;
  // `in_stock` keeps what the feed advertises as available: `limited_availability` is in stock too.
  const accepts =
    availability === undefined && isStockItem === undefined
      ? () => true
      : (scope: RenderScope) => {
          const item = scope.item;
          if (item === undefined) return false;
          if (isStockItem !== undefined && item.isStockItem !== isStockItem) return false;
          if (availability === undefined) return true;
          return (itemAvailabilityOf(scope.stock, item) === 'out_of_stock') === (availability === 'out_of_stock');
        };

  const environment = { maps: template.maps ?? {}, itemScope: true, offerScope: false };
  const checks = (template.require ?? []).map((check, index) => {
    const base = joinPath(joinPath('require', index), 'anyOf');
    const anyOf = check.anyOf.flatMap((source, position) => {
      const expression = compileAt(sink, joinPath(base, position), source, environment);
      return expression === undefined ? [] : [expression.evaluate];
    });
    return { name: check.name, anyOf };
  });
  const failedCheck =
    checks.length === 0
      ? () => undefined
      : (scope: RenderScope) => {
          for (const check of checks) {
            if (!check.anyOf.some((evaluate) => hasText(evaluate(scope)))) return check.name;
          }
          return undefined;
        };
  const omits = stockPolicy.outOfStock === 'omit';
  const admit = (item: FeedItem, scope: RenderScope, reporter: FeedReporter): boolean => {
    scope.item = item;
    scope.offer = undefined;
    if (!accepts(scope)) {
      reporter.filtered++;
      return false;
    }
    if (omits && omitsItem(scope.stock, item)) {
      reporter.outOfStock++;
      return false;
    }
    const failed = failedCheck(scope);
    if (failed === undefined) return true;
    reporter.warn(item.id, failed, MISSING);
    reporter.dropped++;
    return false;
  };
  return { stockPolicy, accepts, failedCheck, admit };
}
