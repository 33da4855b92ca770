import { hasText } from './apply-text-rule.js';
import type { RenderScope } from './feed-fields.js';
import type { FeedItem } from './feed-item.js';
import type { FeedTemplate } from './feed-template-schema.js';
import { compileAt, joinPath, type ProblemSink } from './template-problems.js';

/** The item-level rules of a template: its filter (silent) and its `require` checks (warned). */
export interface ItemRules {
  /** `false` when the template's filter leaves the item out. */
  readonly accepts: (item: FeedItem) => boolean;
  /** The name of the first `require` check the item fails, or `undefined`. */
  readonly failedCheck: (scope: RenderScope) => string | undefined;
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
  return { accepts, failedCheck };
}
