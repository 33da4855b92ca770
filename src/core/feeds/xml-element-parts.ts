import { hasText } from './apply-text-rule.js';
import { cleanText } from './clean-text.js';
import type { CompiledExpression, ExpressionEnvironment } from './compile-expression.js';
import { escapeXmlAttribute } from './escape-xml.js';
import type { RenderScope } from './feed-fields.js';
import type { FeedRejection, FeedReporter } from './feed-report.js';
import type { ElementNode } from './feed-template-schema.js';
import { omitsOffer } from './stock-policy.js';
import { joinPath, type ProblemSink } from './template-problems.js';

/**
 * The parts of an XML template's elements that are not about their text: names and namespaces checked at
 * compile time, and the wrappers a rendered element may get (conditions, repetition per offer or per
 * additional image). `compile-xml-template.ts` puts them together.
 */

// XML 1.0 (5th edition) NameStartChar / NameChar without ":" (Namespaces in XML: NCName), BMP only.
const NAME_START =
  'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD';
export const NCNAME = new RegExp(`^[${NAME_START}][${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F\\u2040]*$`);

/** The mutable state of one render: the scope plus why the last `required` rule failed. */
export interface XmlState extends RenderScope {
  failedAttribute: string;
  failed: FeedRejection;
  reporter: FeedReporter | undefined;
  records: number;
}

/** Renders one node; `null` means a `required` rule failed (reason in the state). */
export type NodeRenderer = (state: XmlState) => string | null;

export interface CompileContext {
  readonly sink: ProblemSink;
  readonly maps: ExpressionEnvironment['maps'];
  /** Prefix → namespace URI in scope ("" = default namespace). */
  readonly namespaces: ReadonlyMap<string, string>;
  readonly depth: number;
  readonly itemScope: boolean;
  readonly offerScope: boolean;
  readonly imageScope: boolean;
  /** Whether this element is the one rendered per item (its repetitions are the feed's records). */
  readonly isItemsElement: boolean;
}

export function checkName(
  sink: ProblemSink,
  path: string,
  name: string,
  namespaces: ReadonlyMap<string, string>,
  kind: 'element' | 'attribute',
): void {
  const colon = name.indexOf(':');
  if (colon < 0) {
    if (!NCNAME.test(name)) sink.add(path, `"${name}" is not a valid XML ${kind} name`);
    else if (kind === 'attribute' && name === 'xmlns') sink.add(path, 'declare namespaces with "namespaces", not as attributes');
    return;
  }
  const prefix = name.slice(0, colon);
  const local = name.slice(colon + 1);
  if (!NCNAME.test(prefix) || !NCNAME.test(local)) {
    sink.add(path, `"${name}" is not a valid XML ${kind} name (prefix:local)`);
  } else if (prefix === 'xmlns') {
    sink.add(path, 'declare namespaces with "namespaces", not as attributes');
  } else if (prefix === 'xml' && kind === 'attribute') {
    // The xml prefix is bound by definition (xml:lang, xml:space).
  } else if (!namespaces.has(prefix) || prefix === 'xml') {
    sink.add(path, `namespace prefix "${prefix}" is not declared (add it to "namespaces" on this element or an ancestor)`);
  }
}

/** Rendered only when every `when` has text and no `unless` has. */
export function renderWhen(
  render: NodeRenderer,
  when: readonly CompiledExpression[],
  unless: readonly CompiledExpression[],
): NodeRenderer {
  return (state) => {
    for (const condition of when) if (!hasText(condition.evaluate(state))) return '';
    for (const condition of unless) if (hasText(condition.evaluate(state))) return '';
    return render(state);
  };
}

/**
 * The element once per offer (unit) the stock policy lists; a unit's record a rule rejects is left out
 * with a warning naming the unit, not the item. On the items element, each repetition is a record.
 */
export function repeatPerOffer(once: NodeRenderer, isItemsElement: boolean): NodeRenderer {
  return (state) => {
    const item = state.item;
    if (item === undefined) return '';
    const saved = state.offer;
    let out = '';
    for (const offer of item.offers) {
      if (omitsOffer(state.stock, offer, item.isStockItem)) continue;
      state.offer = offer;
      const rendered = once(state);
      if (rendered === null) {
        state.reporter?.warn(item.id, state.failedAttribute, state.failed, offer.unit);
        continue;
      }
      if (isItemsElement && rendered !== '') state.records++;
      out += rendered;
    }
    state.offer = saved;
    return out;
  };
}

/** The element's own `namespaces`, checked, added to those in scope; and their declarations as attribute text. */
export function declareNamespaces(
  node: ElementNode,
  path: string,
  context: CompileContext,
): { namespaces: Map<string, string>; declarations: string } {
  const { sink } = context;
  const namespaces = new Map(context.namespaces);
  let declarations = '';
  for (const [prefix, uri] of Object.entries(node.namespaces ?? {})) {
    const nsPath = joinPath(joinPath(path, 'namespaces'), prefix);
    if (prefix !== '' && !NCNAME.test(prefix)) sink.add(nsPath, `"${prefix}" is not a valid namespace prefix`);
    else if (prefix === 'xml' || prefix === 'xmlns') sink.add(nsPath, `the prefix "${prefix}" is reserved`);
    else if (uri === '' || cleanText(uri) !== uri)
      sink.add(nsPath, 'a namespace URI must be non-empty text without control characters');
    else {
      namespaces.set(prefix, uri);
      declarations += ` ${prefix === '' ? 'xmlns' : `xmlns:${prefix}`}="${escapeXmlAttribute(uri)}"`;
    }
  }
  return { namespaces, declarations };
}

/** Rules an element's keys must keep with each other and with where the element is. */
export function checkElementRules(node: ElementNode, path: string, context: CompileContext): void {
  const { sink } = context;
  const required = node.required === true;
  const optional = node.optional === true;
  if (required && !context.itemScope) sink.add(joinPath(path, 'required'), '"required" only applies inside "items"');
  if (required && optional) sink.add(path, 'an element cannot be both "required" and "optional"');
  if (node.each !== undefined && !context.itemScope) sink.add(joinPath(path, 'each'), '"each" only applies inside "items"');
  if (node.each !== undefined && (context.offerScope || context.imageScope)) {
    sink.add(joinPath(path, 'each'), '"each" cannot be nested');
  }
  if (node.each === 'images' && context.isItemsElement) {
    sink.add(joinPath(path, 'each'), '"each": "images" repeats an element inside an item, not the item itself');
  }
  if (node.value !== undefined && node.children !== undefined) {
    sink.add(path, 'an element has a "value" or "children", not both (mixed content is not supported)');
  }
  if (node.value === undefined && (node.maxLength !== undefined || node.overflow !== undefined || node.pattern !== undefined)) {
    sink.add(path, '"maxLength", "overflow" and "pattern" apply to an element\'s "value"');
  }
}

/** The element once per additional image link; a link the element's rules reject is left out, not the item. */
export function repeatPerImage(once: NodeRenderer): NodeRenderer {
  return (state) => {
    const links = state.item?.enrichment?.additionalImageLinks;
    if (links === undefined) return '';
    let out = '';
    for (const link of links) {
      state.image = link;
      out += once(state) ?? '';
    }
    state.image = undefined;
    return out;
  };
}
