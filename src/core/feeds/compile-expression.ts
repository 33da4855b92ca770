import { FEED_FIELDS, type FeedValue, type FieldScope, type FieldSpec, type RenderScope } from './feed-fields.js';
import { FEED_FILTERS, type FilterEnvironment, toText } from './feed-filters.js';

/**
 * Value expressions of templates: literal text with `{field|filter|filter:argument}` placeholders;
 * `{{` and `}}` stand for literal braces.
 *
 * A placeholder alone keeps its type (a number stays a number, so CSV number columns can format it). A
 * mix of text and placeholders is text, and it is EMPTY as soon as one placeholder is empty:
 * `{price|money} {currency}` must not become " CZK" for an item without a price. Use `|default:…` to
 * make a placeholder optional inside a mix.
 */
export interface CompiledExpression {
  readonly evaluate: (scope: RenderScope) => FeedValue;
  /** The most specific scope a field of the expression needs. */
  readonly needs: FieldScope;
  readonly source: string;
}

export interface ExpressionEnvironment extends FilterEnvironment {
  /** Whether `offer.*` fields are available (inside `each: offers`). */
  readonly offerScope: boolean;
  /** Whether item fields are available (inside `items`, or a delimited feed's columns). */
  readonly itemScope: boolean;
  /** Whether `image` is available (inside `each: images`). */
  readonly imageScope?: boolean;
}

export type ExpressionResult =
  | { readonly ok: true; readonly expression: CompiledExpression }
  | { readonly ok: false; readonly problems: string[] };

type Part = string | ((scope: RenderScope) => FeedValue);

const SCOPE_RANK: Record<FieldScope, number> = { context: 0, item: 1, offer: 2, image: 2 };

export function compileExpression(source: string, environment: ExpressionEnvironment): ExpressionResult {
  const problems: string[] = [];
  const parts: Part[] = [];
  let needs: FieldScope = 'context';
  let literal = '';
  let i = 0;
  while (i < source.length) {
    const char = source.charAt(i);
    if (char === '{' && source.charAt(i + 1) === '{') {
      literal += '{';
      i += 2;
    } else if (char === '}' && source.charAt(i + 1) === '}') {
      literal += '}';
      i += 2;
    } else if (char === '}') {
      problems.push(`unmatched "}" at character ${i + 1} (write "}}" for a literal brace)`);
      i++;
    } else if (char === '{') {
      const end = source.indexOf('}', i + 1);
      if (end < 0) {
        problems.push(`unclosed "{" at character ${i + 1}`);
        break;
      }
      const placeholder = compilePlaceholder(source.slice(i + 1, end), environment, problems);
      if (placeholder !== undefined) {
        if (literal !== '') parts.push(literal);
        literal = '';
        parts.push(placeholder.evaluate);
        if (SCOPE_RANK[placeholder.needs] > SCOPE_RANK[needs]) needs = placeholder.needs;
      }
      i = end + 1;
    } else {
      literal += char;
      i++;
    }
  }
  if (literal !== '') parts.push(literal);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, expression: { evaluate: join(parts), needs, source } };
}

function join(parts: readonly Part[]): (scope: RenderScope) => FeedValue {
  const [first, second] = parts;
  if (first === undefined) return () => undefined;
  if (parts.length === 1) {
    if (typeof first === 'string') return () => first;
    return first;
  }
  // The two shapes templates use most get their own closures: no loop, no array access per item.
  if (parts.length === 2 && second !== undefined) {
    if (typeof first !== 'string' && typeof second === 'string') {
      return (scope) => {
        const value = first(scope);
        return value === undefined || value === '' ? undefined : toText(value) + second;
      };
    }
  }
  return (scope) => {
    let out = '';
    for (const part of parts) {
      if (typeof part === 'string') {
        out += part;
        continue;
      }
      const value = part(scope);
      if (value === undefined || value === '') return undefined;
      out += toText(value);
    }
    return out;
  };
}

type ScopedFilter = (value: FeedValue, scope: RenderScope) => FeedValue;

/** The field a placeholder or an `or:` filter names, or a problem: unknown, or not available here. */
function fieldAt(path: string, body: string, environment: ExpressionEnvironment, problems: string[]): FieldSpec | undefined {
  const field = Object.hasOwn(FEED_FIELDS, path) ? FEED_FIELDS[path] : undefined;
  if (field === undefined) {
    problems.push(
      path === ''
        ? `empty placeholder "{${body}}"`
        : `unknown field "${path}" in "{${body}}" (known: ${Object.keys(FEED_FIELDS).join(', ')})`,
    );
  } else if (field.scope === 'offer' && !environment.offerScope) {
    problems.push(`field "${path}" is only available inside an element (or feed) with "each": "offers"`);
  } else if (field.scope === 'image' && environment.imageScope !== true) {
    problems.push(`field "${path}" is only available inside an element with "each": "images"`);
  } else if (field.scope === 'item' && !environment.itemScope) {
    problems.push(`item field "${path}" is only available inside "items" (here only feed-wide fields such as currency)`);
  } else return field;
  return undefined;
}

/** `or:FIELD`: the other field's value when this one is empty (`{description|or:title}`). */
function orFilter(
  argument: string | undefined,
  body: string,
  environment: ExpressionEnvironment,
  problems: string[],
): { filter: ScopedFilter; scope: FieldScope } | undefined {
  if (argument === undefined || argument === '') {
    problems.push('filter "or" needs a field name ("or:title")');
    return undefined;
  }
  const other = fieldAt(argument, body, environment, problems);
  if (other === undefined) return undefined;
  const get = other.get;
  return { filter: (value, scope) => (value === undefined || value === '' ? get(scope) : value), scope: other.scope };
}

function compilePlaceholder(
  body: string,
  environment: ExpressionEnvironment,
  problems: string[],
): { evaluate: (scope: RenderScope) => FeedValue; needs: FieldScope } | undefined {
  const [rawPath = '', ...rawFilters] = body.split('|');
  const field = fieldAt(rawPath.trim(), body, environment, problems);
  let ok = field !== undefined;
  let needs: FieldScope = field?.scope ?? 'context';
  const filters: ScopedFilter[] = [];
  for (const rawFilter of rawFilters) {
    const colon = rawFilter.indexOf(':');
    const name = (colon < 0 ? rawFilter : rawFilter.slice(0, colon)).trim();
    const argument = colon < 0 ? undefined : rawFilter.slice(colon + 1).trim();
    if (name === 'or') {
      const or = orFilter(argument, body, environment, problems);
      if (or === undefined) ok = false;
      else {
        filters.push(or.filter);
        if (SCOPE_RANK[or.scope] > SCOPE_RANK[needs]) needs = or.scope;
      }
      continue;
    }
    const spec = Object.hasOwn(FEED_FILTERS, name) ? FEED_FILTERS[name] : undefined;
    if (spec === undefined) {
      problems.push(`unknown filter "${name}" in "{${body}}" (known: ${[...Object.keys(FEED_FILTERS), 'or'].join(', ')})`);
      ok = false;
      continue;
    }
    if (spec.argument === 'none' && argument !== undefined) {
      problems.push(`filter "${name}" takes no argument, got "${argument}"`);
      ok = false;
      continue;
    }
    if (spec.argument === 'required' && (argument === undefined || argument === '')) {
      problems.push(`filter "${name}" needs an argument ("${name}:…")`);
      ok = false;
      continue;
    }
    const created = spec.create(argument ?? '', environment);
    if (typeof created === 'string') {
      problems.push(created);
      ok = false;
      continue;
    }
    filters.push(created);
  }
  if (!ok || field === undefined) return undefined;
  const get = field.get;
  const [only] = filters;
  if (filters.length === 0) return { evaluate: get, needs };
  if (filters.length === 1 && only !== undefined) return { evaluate: (scope) => only(get(scope), scope), needs };
  return {
    evaluate: (scope) => {
      let value = get(scope);
      for (const filter of filters) value = filter(value, scope);
      return value;
    },
    needs,
  };
}
