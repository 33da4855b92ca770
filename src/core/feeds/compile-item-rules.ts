import { hasText } from './apply-text-rule.js';
import type { RenderScope } from './feed-fields.js';
import type { FeedItem } from './feed-item.js';
import { type FeedReporter, MISSING } from './feed-report.js';
import type { FeedTemplate } from './feed-template-schema.js';
import { compileAt, joinPath, type ProblemSink } from './template-problems.js';

/** The item-level rules of a template: its filter (silent) and its `require` checks (warned). */
export interface ItemRules {
  /** `false` when the template's filter leaves the item out. */
  readonly accepts: (item: FeedItem) => boolean;
  /** The name of the first `require` check the item fails, or `undefined`. */
  readonly failedCheck: (scope: RenderScope) => string | undefined;
  /**
   * What every renderer does first with an item: puts it in `scope` (no offer yet) and tells whether it
   * is rendered. An item the filter leaves out counts as filtered; one failing a check is warned about
   * and counts as dropped.
   */
  readonly admit: (item: FeedItem, scope: RenderScope, reporter: FeedReporter) => boolean;
}

export function compileItemRules(template: FeedTemplate, sink: ProblemSink): ItemRules {
  const filter = template.filter ?? {};
  const availability = filter.availability;
  const isStockItem = filter.isStockItem;
  const accepts =
    availability === undefined && isStockItem === undefined
      ? () => true
      : (item: FeedItem) =>
          (availability === undefined || item.availability === availability) &&
          (isStockItem === undefined || item.isStockItem === isStockItem);

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
  const admit = (item: FeedItem, scope: RenderScope, reporter: FeedReporter): boolean => {
    if (!accepts(item)) {
      reporter.filtered++;
      return false;
    }
    scope.item = item;
    scope.offer = undefined;
    const failed = failedCheck(scope);
    if (failed === undefined) return true;
    reporter.warn(item.id, failed, MISSING);
    reporter.dropped++;
    return false;
  };
  return { accepts, failedCheck, admit };
}
