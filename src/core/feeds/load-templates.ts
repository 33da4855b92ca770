import { compileDelimitedTemplate } from './compile-delimited-template.js';
import { compileItemRules } from './compile-item-rules.js';
import { compileXmlTemplate } from './compile-xml-template.js';
import { type CompiledFeed, DEFAULT_CONTENT_TYPES, servesView } from './compiled-feed.js';
import { BUILT_IN_FEED_FILES, FeedTemplateSchema } from './feed-template-schema.js';
import { createProblemSink, parseAt, type TemplateProblem } from './template-problems.js';

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
 * routes (products.json, products.csv, changes.json).
 *
 * @example loadTemplates([{ name: 'templates/heureka.json', text }])[0].file // 'heureka.xml'
 */
export function loadTemplates(files: readonly TemplateFile[]): CompiledFeed[] {
  const problems: TemplateProblem[] = [];
  const feeds: CompiledFeed[] = [];
  const byFile = new Map<string, string>();
  const byName = new Map<string, string>();
  for (const file of files) {
    const sink = createProblemSink(file.name);
    const feed = compileFile(file, sink);
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
  if (problems.length > 0) throw new TemplateLoadError(problems);
  return feeds;
}

function compileFile(file: TemplateFile, sink: ReturnType<typeof createProblemSink>): CompiledFeed | undefined {
  let json: unknown;
  try {
    json = JSON.parse(file.text.startsWith('\uFEFF') ? file.text.slice(1) : file.text);
  } catch (error) {
    sink.add('$', `invalid JSON: ${describeJsonError(error, file.text)}`);
    return undefined;
  }
  const template = parseAt(sink, '', FeedTemplateSchema, json);
  if (template === undefined) return undefined;
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
  const rules = compileItemRules(template, sink);
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
    servesView: (unit) => servesView(views, unit),
    render: (context, items) => renderer.render(context, items),
  };
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
