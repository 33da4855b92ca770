import { hasText } from './apply-text-rule.js';
import type { FeedValue, RenderScope } from './feed-fields.js';
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

interface CompiledCheck {
  readonly name: string;
  readonly anyOf: readonly ((scope: RenderScope) => FeedValue)[];
}

function compileChecks(template: FeedTemplate, key: 'require' | 'recommend', sink: ProblemSink): CompiledCheck[] {
  const environment = { maps: template.maps ?? {}, itemScope: true, offerScope: false };
  return (template[key] ?? []).map((check, index) => {
    const base = joinPath(joinPath(key, index), 'anyOf');
    const anyOf = check.anyOf.flatMap((source, position) => {
      const expression = compileAt(sink, joinPath(base, position), source, environment);
      return expression === undefined ? [] : [expression.evaluate];
    });
    return { name: check.name, anyOf };
  });
}

const NOTHING_MISSING: readonly string[] = [];

/** The names of the checks the item in `scope` fails (no allocation when it passes them all). */
function missingOf(checks: readonly CompiledCheck[], scope: RenderScope): readonly string[] {
  let missing: string[] | undefined;
  for (const check of checks) {
    if (check.anyOf.some((evaluate) => hasText(evaluate(scope)))) continue;
    missing ??= [];
    missing.push(check.name);
  }
  return missing ?? NOTHING_MISSING;
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

  const checks = compileChecks(template, 'require', sink);
  const recommended = compileChecks(template, 'recommend', sink);
  const excludedBy = new Set([template.name, '*']);
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
    // The marketer's `exclude` column (docs/enrichment.md): by design, counted apart from the filter.
    if (item.enrichment?.exclude?.some((name) => excludedBy.has(name)) === true) {
      reporter.excluded++;
      return false;
    }
    if (!accepts(scope)) {
      reporter.filtered++;
      return false;
    }
    if (omits && omitsItem(scope.stock, item)) {
      reporter.outOfStock++;
      return false;
    }
    const failed = failedCheck(scope);
    if (failed === undefined) {
      if (recommended.length > 0) reporter.recommendMissing(item.id, missingOf(recommended, scope));
      return true;
    }
    reporter.warn(item.id, failed, MISSING);
    reporter.dropped++;
    return false;
  };
  return { stockPolicy, accepts, failedCheck, admit };
}
