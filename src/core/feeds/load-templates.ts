import { compileDelimitedTemplate } from './compile-delimited-template.js';
import { compileItemRules } from './compile-item-rules.js';
import { compileXmlTemplate } from './compile-xml-template.js';
import { type CompiledFeed, DEFAULT_CONTENT_TYPES, servesView } from './compiled-feed.js';
import { BUILT_IN_FEED_FILES, type FeedTemplate, FeedTemplateSchema } from './feed-template-schema.js';
import {
  DEFAULT_STOCK_POLICY,
  NO_STOCK_SETTINGS,
  resolveStockPolicy,
  type StockPolicy,
  type StockSettings,
} from './stock-policy.js';
import { createProblemSink, joinPath, type ProblemSink, parseAt, type TemplateProblem } from './template-problems.js';

/** A template file as the caller read it (the loader itself does no I/O). */
export interface TemplateFile {
  /** Shown in messages, e.g. `templates/heureka.json`. */
  readonly name: string;
  readonly text: string;
}

/** Every problem of every template file, so that one start-up shows them all. */
export class TemplateLoadError extends Error {
  override readonly name = 'TemplateLoadError';
  readonly problems: readonly TemplateProblem[];

  constructor(problems: readonly TemplateProblem[]) {
    const lines = problems.map((problem) => `  ${problem.file} at ${problem.path}: ${problem.message}`);
    super(`Invalid feed templates (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${lines.join('\n')}`);
    this.problems = problems;
  }
}

/**
 * Validates and compiles the feed templates, once at start-up. Throws `TemplateLoadError` listing every
 * problem (file, JSON path, message): invalid JSON, schema violations, unknown fields or filters, bad
 * XML names, undeclared prefixes, duplicate `name`s or `file`s, and `file`s that clash with built-in
 * routes (products.json, products.csv, changes.json). `stock` is the configuration's part of every feed's
 * stock policy (`UNIT_STOCK_BUFFER`, `FEED_STOCK_POLICY`); a `FEED_STOCK_POLICY` naming no template is a
 * problem too (reported under the file name `FEED_STOCK_POLICY`).
 *
 * @example loadTemplates([{ name: 'templates/heureka.json', text }])[0].file // 'heureka.xml'
 */
export function loadTemplates(files: readonly TemplateFile[], stock: StockSettings = NO_STOCK_SETTINGS): CompiledFeed[] {
  const problems: TemplateProblem[] = [];
  const feeds: CompiledFeed[] = [];
  const byFile = new Map<string, string>();
  const byName = new Map<string, string>();
  const names: string[] = [];
  for (const file of files) {
    const sink = createProblemSink(file.name);
    const feed = compileFile(file, sink, stock, names);
    if (feed !== undefined) {
      // URL segments compare case-insensitively: file systems and proxies in front may fold case.
      const fileKey = feed.file.toLowerCase();
      const sameFile = byFile.get(fileKey);
      if (sameFile === undefined) byFile.set(fileKey, file.name);
      else sink.add('file', `"${feed.file}" is already served by ${sameFile}`);
      const sameName = byName.get(feed.name);
      if (sameName === undefined) byName.set(feed.name, file.name);
      else sink.add('name', `the feed name "${feed.name}" is already used by ${sameName}`);
      if (sink.problems.length === 0) feeds.push(feed);
    }
    problems.push(...sink.problems);
  }
  const policySink = createProblemSink('FEED_STOCK_POLICY');
  for (const feed of Object.keys(stock.feedPolicies)) {
    if (!names.includes(feed)) {
      policySink.add(feed, `names no feed template (the feeds: ${names.length === 0 ? 'none' : names.join(', ')})`);
    }
  }
  problems.push(...policySink.problems);
  if (problems.length > 0) throw new TemplateLoadError(problems);
  return feeds;
}

function compileFile(file: TemplateFile, sink: ProblemSink, stock: StockSettings, names: string[]): CompiledFeed | undefined {
  let json: unknown;
  try {
    json = JSON.parse(file.text.startsWith('\uFEFF') ? file.text.slice(1) : file.text);
  } catch (error) {
    sink.add('$', `invalid JSON: ${describeJsonError(error, file.text)}`);
    return undefined;
  }
  const template = parseAt(sink, '', FeedTemplateSchema, json);
  if (template === undefined) return undefined;
  names.push(template.name);
  if (BUILT_IN_FEED_FILES.some((builtIn) => builtIn.toLowerCase() === template.file.toLowerCase())) {
    sink.add('file', `"${template.file}" is a built-in route (${BUILT_IN_FEED_FILES.join(', ')}); choose another file name`);
  }
  if (template.kind === 'xml') {
    if (template.columns !== undefined)
      sink.add('columns', '"columns" are for csv/tsv templates; an xml template has a "document"');
    if (template.dialect !== undefined) sink.add('dialect', '"dialect" applies to csv templates only');
    if (template.delimiter !== undefined) sink.add('delimiter', '"delimiter" applies to csv templates only');
    if (template.each !== undefined) sink.add('each', 'in an xml template, put "each" on the element to repeat');
  }
  // A refused policy is reported; the rest is still compiled (with the default) so that every problem shows at once.
  const rules = compileItemRules(template, compileStockPolicy(template, stock, sink) ?? DEFAULT_STOCK_POLICY, sink);
  const renderer =
    template.kind === 'xml' ? compileXmlTemplate(template, rules, sink) : compileDelimitedTemplate(template, rules, sink);
  if (renderer === undefined || sink.problems.length > 0) return undefined;
  const views = template.views ?? 'both';
  return {
    name: template.name,
    title: template.title,
    file: template.file,
    kind: template.kind,
    contentType: template.contentType ?? DEFAULT_CONTENT_TYPES[template.kind],
    views,
    source: file.name,
    stockAdjusts: rules.stockPolicy.adjusts,
    servesView: (unit) => servesView(views, unit),
    render: (context, items) => renderer.render(context, items),
    frame: (context) => renderer.frame(context),
  };
}

/**
 * The feed's stock policy: the template's `stockPolicy`, each key overridden by `FEED_STOCK_POLICY`, with the
 * units' buffers. With `limitedBelow`, every map the template applies to an availability must translate
 * `limited_availability`, or the channel would get an empty (and, where required, a dropped) value.
 */
function compileStockPolicy(template: FeedTemplate, stock: StockSettings, sink: ProblemSink): StockPolicy | undefined {
  const override = Object.hasOwn(stock.feedPolicies, template.name) ? stock.feedPolicies[template.name] : undefined;
  const origin = override === undefined ? '' : ' (the template with FEED_STOCK_POLICY)';
  const policy = resolveStockPolicy(template.stockPolicy, override, stock.unitBuffers);
  if (typeof policy === 'string') {
    sink.add('stockPolicy', `${policy}${origin}`);
    return undefined;
  }
  if (policy.limitedBelow !== undefined) {
    const maps = template.maps ?? {};
    for (const name of availabilityMaps(template)) {
      const table = Object.hasOwn(maps, name) ? maps[name] : undefined;
      if (table !== undefined && !Object.hasOwn(table, 'limited_availability')) {
        sink.add(
          joinPath(joinPath('maps', name), 'limited_availability'),
          `the stock policy sets limitedBelow${origin}, so the availability map "${name}" must translate "limited_availability" too`,
        );
      }
    }
  }
  return policy;
}

/** Names of the maps a template applies to `availability` or `offer.availability` (`{availability|map:NAME}`). */
function availabilityMaps(template: FeedTemplate): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      for (const match of value.matchAll(/\{\s*(?:offer\.)?availability\s*((?:\|[^|}]*)*)\}/g)) {
        for (const filter of (match[1] ?? '').split('|')) {
          const map = /^\s*map\s*:\s*(.*?)\s*$/.exec(filter)?.[1];
          if (map !== undefined && map !== '') found.add(map);
        }
      }
    } else if (Array.isArray(value)) {
      for (const entry of value) visit(entry);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, entry] of Object.entries(value)) if (key !== '$comment') visit(entry);
    }
  };
  visit(template.document);
  visit(template.columns);
  visit(template.require);
  return found;
}

function describeJsonError(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position === undefined) return message;
  const before = text.slice(0, Number(position));
  const line = before.split('\n').length;
  const column = Number(position) - before.lastIndexOf('\n');
  return `${message} (line ${line}, column ${column})`;
}
