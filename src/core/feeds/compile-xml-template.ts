import { applyTextRule, createTextRule } from './apply-text-rule.js';
import type { CompiledExpression, ExpressionEnvironment } from './compile-expression.js';
import type { ItemRules } from './compile-item-rules.js';
import type { FeedFrame } from './compiled-feed.js';
import { escapeXmlAttribute, escapeXmlText } from './escape-xml.js';
import { toText } from './feed-filters.js';
import type { FeedContext, FeedItem } from './feed-item.js';
import {
  createFeedReporter,
  createPartPacer,
  type FeedChunks,
  type FeedRejection,
  type FeedReporter,
  MISSING,
} from './feed-report.js';
import { AttributeObjectSchema, ElementNodeSchema, type FeedTemplate, ItemsNodeSchema } from './feed-template-schema.js';
import { createStockState } from './stock-policy.js';
import { compileAt, compilePattern, joinPath, type ProblemSink, parseAt } from './template-problems.js';
import {
  type CompileContext,
  checkElementRules,
  checkName,
  declareNamespaces,
  type NodeRenderer,
  renderWhen,
  repeatPerImage,
  repeatPerOffer,
  type XmlState,
} from './xml-element-parts.js';

/**
 * Compiles an `xml` template into a streaming renderer. The template is an element TREE, not text:
 * the renderer writes every tag itself and every value goes through `cleanText` and XML escaping, so no
 * template and no POS value can produce a malformed document (docs/decisions/0003-feed-templates.md).
 */

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
/** Stands for the items while the document frame is rendered; NUL cannot survive `cleanText`. */
const ITEMS_MARKER = '\u0000items\u0000';
const INDENT = '  ';

interface ItemsSlot {
  renderer: NodeRenderer | undefined;
  /** Whether the items element repeats per offer (then records are counted per repetition). */
  repeats: boolean;
  count: number;
}

export interface XmlRenderer {
  render(context: FeedContext, items: Iterable<FeedItem>): FeedChunks;
  /** The document around the items: a body is `head`, the items' texts, `tail` (a product's page shows one item's). */
  frame(context: FeedContext): FeedFrame;
}

function fail(state: XmlState, attribute: string, rejection: FeedRejection): null {
  state.failedAttribute = attribute;
  state.failed = rejection;
  return null;
}

export function compileXmlTemplate(template: FeedTemplate, rules: ItemRules, sink: ProblemSink): XmlRenderer | undefined {
  const slot: ItemsSlot = { renderer: undefined, repeats: false, count: 0 };
  const context: CompileContext = {
    sink,
    maps: template.maps ?? {},
    namespaces: new Map(),
    depth: 0,
    itemScope: false,
    offerScope: false,
    imageScope: false,
    isItemsElement: false,
  };
  if (template.document === undefined) {
    sink.add('document', 'an xml template needs a "document" (the root element)');
    return undefined;
  }
  if (isItemsNode(template.document)) {
    sink.add('document', 'the root must be an element; put {"items": …} among its children');
    return undefined;
  }
  const documentRenderer = compileElement(template.document, 'document', context, slot);
  if (slot.count === 0) sink.add('document', 'the document needs one {"items": {…}} node: the element rendered per item');
  const itemRenderer = slot.renderer;
  if (documentRenderer === undefined || itemRenderer === undefined || sink.problems.length > 0) return undefined;
  const repeats = slot.repeats;

  const newState = (feedContext: FeedContext, reporter: FeedReporter): XmlState => ({
    context: feedContext,
    item: undefined,
    offer: undefined,
    stock: createStockState(rules.stockPolicy, feedContext.unit),
    failedAttribute: '',
    failed: MISSING,
    reporter,
    records: 0,
  });
  /** The document rendered around a marker that stands for the items, split there. */
  const frameOf = (state: XmlState): FeedFrame => {
    const frame = documentRenderer(state) ?? '';
    const split = frame.indexOf(ITEMS_MARKER);
    return { head: XML_DECLARATION + frame.slice(0, split), tail: frame.slice(split + ITEMS_MARKER.length) };
  };

  return {
    frame: (feedContext) => frameOf(newState(feedContext, createFeedReporter(template.name))),
    *render(feedContext, items) {
      const reporter = createFeedReporter(template.name);
      const state = newState(feedContext, reporter);
      const { head, tail } = frameOf(state);
      let out = head;
      const parts = createPartPacer();
      for (const item of items) {
        if (parts.due(out.length)) {
          yield out;
          out = '';
        }
        if (!rules.admit(item, state, reporter)) continue;
        const warningsBefore = reporter.warningCount;
        const omittedBefore = state.stock.omittedOffers;
        const rendered = itemRenderer(state);
        if (rendered === null) {
          reporter.warn(item.id, state.failedAttribute, state.failed);
          reporter.dropped++;
          continue;
        }
        if (rendered === '') {
          // Nothing to show (a condition, or every unit's record was left out by a rule or the stock policy).
          if (reporter.warningCount > warningsBefore) reporter.dropped++;
          else if (repeats && state.stock.omittedOffers > omittedBefore) reporter.outOfStock++;
          else reporter.filtered++;
          continue;
        }
        reporter.countItem();
        if (!repeats) state.records++;
        out += rendered;
      }
      reporter.records = state.records;
      yield out + tail;
      return reporter.report();
    },
  };
}

function isItemsNode(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'items' in raw;
}

function compileNode(raw: unknown, path: string, context: CompileContext, slot: ItemsSlot): NodeRenderer | undefined {
  if (!isItemsNode(raw)) return compileElement(raw, path, context, slot);
  const node = parseAt(context.sink, path, ItemsNodeSchema, raw);
  if (node === undefined) return undefined;
  if (context.itemScope) {
    context.sink.add(path, '"items" cannot be nested inside "items"');
    return undefined;
  }
  slot.count++;
  if (slot.count > 1) {
    context.sink.add(path, 'a document has exactly one "items" node');
    return undefined;
  }
  slot.repeats = isObjectWith(node.items, 'each');
  slot.renderer = compileElement(
    node.items,
    joinPath(path, 'items'),
    { ...context, itemScope: true, isItemsElement: true },
    slot,
  );
  return () => ITEMS_MARKER;
}

function isObjectWith(raw: unknown, key: string): boolean {
  return typeof raw === 'object' && raw !== null && key in raw;
}

function compileConditions(
  sink: ProblemSink,
  path: string,
  raw: string | readonly string[] | undefined,
  environment: ExpressionEnvironment,
): CompiledExpression[] {
  if (raw === undefined) return [];
  const sources = typeof raw === 'string' ? [raw] : raw;
  return sources.flatMap((source, index) => {
    const expression = compileAt(sink, typeof raw === 'string' ? path : joinPath(path, index), source, environment);
    return expression === undefined ? [] : [expression];
  });
}

type AttributeRenderer = (state: XmlState) => string | null;

function compileAttributes(
  node: { readonly name: string; readonly attributes?: Readonly<Record<string, unknown>> | undefined },
  path: string,
  context: CompileContext,
  namespaces: ReadonlyMap<string, string>,
  environment: ExpressionEnvironment,
): AttributeRenderer | undefined {
  const renderers: AttributeRenderer[] = [];
  const expandedNames = new Set<string>();
  for (const [name, rawSpec] of Object.entries(node.attributes ?? {})) {
    const attributePath = joinPath(joinPath(path, 'attributes'), name);
    checkName(context.sink, attributePath, name, namespaces, 'attribute');
    const colon = name.indexOf(':');
    const expanded =
      colon < 0 ? name : `{${namespaces.get(name.slice(0, colon)) ?? name.slice(0, colon)}}${name.slice(colon + 1)}`;
    if (expandedNames.has(expanded))
      context.sink.add(attributePath, `attribute "${name}" duplicates another attribute's namespace and name`);
    expandedNames.add(expanded);
    const spec =
      typeof rawSpec === 'string' ? { value: rawSpec } : parseAt(context.sink, attributePath, AttributeObjectSchema, rawSpec);
    if (spec === undefined) continue;
    const required = 'required' in spec && spec.required === true;
    if (required && !context.itemScope)
      context.sink.add(joinPath(attributePath, 'required'), '"required" only applies inside "items"');
    const valuePath = typeof rawSpec === 'string' ? attributePath : joinPath(attributePath, 'value');
    const value = compileAt(context.sink, valuePath, spec.value, environment);
    const pattern =
      'pattern' in spec ? compilePattern(context.sink, joinPath(attributePath, 'pattern'), spec.pattern) : undefined;
    if (value === undefined) continue;
    const rule = createTextRule({
      ...('maxLength' in spec && spec.maxLength !== undefined ? { maxLength: spec.maxLength } : {}),
      ...('overflow' in spec && spec.overflow !== undefined ? { overflow: spec.overflow } : {}),
      ...(pattern === undefined ? {} : { pattern }),
    });
    const evaluate = value.evaluate;
    const prefix = ` ${name}="`;
    const label = `${node.name}@${name}`;
    renderers.push((state) => {
      const checked = applyTextRule(toText(evaluate(state)), rule, state.reporter);
      if (typeof checked !== 'string' || checked === '') {
        return required ? fail(state, label, typeof checked === 'string' ? MISSING : checked) : '';
      }
      return `${prefix}${escapeXmlAttribute(checked)}"`;
    });
  }
  const [only] = renderers;
  if (only === undefined) return undefined;
  if (renderers.length === 1) return only;
  return (state) => {
    let out = '';
    for (const renderer of renderers) {
      const rendered = renderer(state);
      if (rendered === null) return null;
      out += rendered;
    }
    return out;
  };
}

function compileElement(raw: unknown, path: string, context: CompileContext, slot: ItemsSlot): NodeRenderer | undefined {
  const { sink } = context;
  const node = parseAt(sink, path, ElementNodeSchema, raw);
  if (node === undefined) return undefined;

  const { namespaces, declarations } = declareNamespaces(node, path, context);
  checkName(sink, joinPath(path, 'name'), node.name, namespaces, 'element');

  const required = node.required === true;
  const optional = node.optional === true;
  checkElementRules(node, path, context);

  const offerScope = context.offerScope || node.each === 'offers';
  const imageScope = context.imageScope || node.each === 'images';
  const environment: ExpressionEnvironment = { maps: context.maps, itemScope: context.itemScope, offerScope, imageScope };
  const when = compileConditions(sink, joinPath(path, 'when'), node.when, environment);
  const unless = compileConditions(sink, joinPath(path, 'unless'), node.unless, environment);
  const attributes = compileAttributes(node, path, context, namespaces, environment);

  const indent = INDENT.repeat(context.depth);
  const open = `${indent}<${node.name}${declarations}`;
  const close = `</${node.name}>\n`;
  const label = node.name;

  let render: NodeRenderer | undefined;
  if (node.value !== undefined) {
    const value = compileAt(sink, joinPath(path, 'value'), node.value, environment);
    const pattern = compilePattern(sink, joinPath(path, 'pattern'), node.pattern);
    if (value !== undefined) {
      const evaluate = value.evaluate;
      const rule = createTextRule({
        ...(node.maxLength === undefined ? {} : { maxLength: node.maxLength }),
        ...(node.overflow === undefined ? {} : { overflow: node.overflow }),
        ...(pattern === undefined ? {} : { pattern }),
      });
      const openClosed = `${open}>`;
      render = (state) => {
        const checked = applyTextRule(toText(evaluate(state)), rule, state.reporter);
        if (typeof checked !== 'string' || checked === '') {
          if (required) return fail(state, label, typeof checked === 'string' ? MISSING : checked);
          if (optional) return '';
          const attributeText = attributes === undefined ? '' : attributes(state);
          return attributeText === null ? null : `${open}${attributeText}/>\n`;
        }
        if (attributes === undefined) return openClosed + escapeXmlText(checked) + close;
        const attributeText = attributes(state);
        return attributeText === null ? null : `${open}${attributeText}>${escapeXmlText(checked)}${close}`;
      };
    }
  } else {
    const children: NodeRenderer[] = [];
    const itemsBefore = slot.count;
    (node.children ?? []).forEach((child, index) => {
      const compiled = compileNode(
        child,
        joinPath(joinPath(path, 'children'), index),
        { ...context, namespaces, depth: context.depth + 1, offerScope, imageScope, isItemsElement: false },
        slot,
      );
      if (compiled !== undefined) children.push(compiled);
    });
    // The items must always be written: a condition on an ancestor could silently empty the feed.
    if (slot.count > itemsBefore && (node.when !== undefined || node.unless !== undefined || optional)) {
      sink.add(path, '"when", "unless" and "optional" cannot be used on an element that contains "items"');
    }
    const closing = `${indent}${close}`;
    render = (state) => {
      let inner = '';
      for (const child of children) {
        const rendered = child(state);
        if (rendered === null) return null;
        inner += rendered;
      }
      if (inner === '' && optional) return '';
      const attributeText = attributes === undefined ? '' : attributes(state);
      if (attributeText === null) return null;
      return inner === '' ? `${open}${attributeText}/>\n` : `${open}${attributeText}>\n${inner}${closing}`;
    };
  }
  if (render === undefined) return undefined;

  if (when.length > 0 || unless.length > 0) render = renderWhen(render, when, unless);
  if (node.each === 'offers') render = repeatPerOffer(render, context.isItemsElement);
  if (node.each === 'images') render = repeatPerImage(render);
  return render;
}
