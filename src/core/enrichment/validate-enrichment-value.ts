import type { ProductEnrichment } from '../catalog/catalog.js';
import { type EnrichmentField, VALUE_COLUMNS, type ValueColumn } from './enrichment-columns.js';
import { quoteValue } from './enrichment-problems.js';

/**
 * One cell's value, checked and normalised by the rule of its column (docs/enrichment.md#columns). A value
 * that breaks its rule is reported and left out, never cut or guessed: a feed then shows the POS value.
 */

export type ValueProblemCode = 'invalid-value' | 'too-long' | 'too-many-images';

export type ReportValueProblem = (code: ValueProblemCode, message: string) => void;

export type MutableEnrichment = { -readonly [K in EnrichmentField]?: ProductEnrichment[K] };

type TextColumn = Exclude<ValueColumn, 'additional_image_link' | 'exclude'>;

type TextKind = 'line' | 'description' | 'category' | 'google-category' | 'heureka-category' | 'channel-category' | 'url';

/** Limits in characters (code points), after normalisation. */
const TEXT_RULES: Readonly<Record<TextColumn, { readonly kind: TextKind; readonly max: number }>> = {
  title: { kind: 'line', max: 150 },
  description: { kind: 'description', max: 5000 },
  brand: { kind: 'line', max: 70 },
  link: { kind: 'url', max: 2000 },
  image_link: { kind: 'url', max: 2000 },
  category: { kind: 'category', max: 750 },
  google_product_category: { kind: 'google-category', max: 750 },
  heureka_category: { kind: 'heureka-category', max: 255 },
  zbozi_category: { kind: 'channel-category', max: 255 },
  custom_label_0: { kind: 'line', max: 100 },
  custom_label_1: { kind: 'line', max: 100 },
  custom_label_2: { kind: 'line', max: 100 },
  custom_label_3: { kind: 'line', max: 100 },
  custom_label_4: { kind: 'line', max: 100 },
};

const MAX_URL_CHARS = 2000;
export const MAX_ADDITIONAL_IMAGES = 10;

// Compiled once: these run on every cell of every row.
const SPACE_OR_CONTROL_RUN = /[\s\p{Cc}]+/gu;
const LINE_BREAK = /\r\n?/g;
const TAB = /\t/g;
const CONTROL_BUT_LINE_FEED = /(?!\n)\p{Cc}/gu;
const PATH_SEPARATOR = /[>|]/;
const DIGITS = /^\d+$/;
// Whitespace and `|` separate links; `,` and `;` only before the next `http(s)://` (CDN URLs hold commas: `w_500,h_500`).
const IMAGE_LINK_SEPARATORS = /[\s|]+|[,;]\s*(?=https?:\/\/)/i;
const HEUREKA_ROOT = /^heureka\.cz$/i;
const FEED_NAME_SEPARATORS = /[\s,;]+/;
const FEED_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const EXCLUDE_ALL = new Set(['yes', 'true', '1', 'x', 'ano', 'y', '*']);
const EXCLUDE_NONE = new Set(['no', 'false', '0', 'ne', 'n']);

/**
 * Sets `target`'s field of `column` from `text` (a trimmed, non-empty cell within the cell limit), or
 * reports why it cannot.
 */
export function readEnrichmentValue(
  target: MutableEnrichment,
  column: ValueColumn,
  text: string,
  report: ReportValueProblem,
): void {
  if (column === 'additional_image_link') {
    const links = readImageLinks(text, report);
    if (links.length > 0) target.additionalImageLinks = links;
    return;
  }
  if (column === 'exclude') {
    const feeds = readExclude(text, report);
    if (feeds !== undefined) target.exclude = feeds;
    return;
  }
  const value = readText(column, text, report);
  if (value !== undefined) target[VALUE_COLUMNS[column]] = value;
}

function readText(column: TextColumn, text: string, report: ReportValueProblem): string | undefined {
  const rule = TEXT_RULES[column];
  const value = normalizeText(rule.kind, text, report);
  if (value === undefined || value === '') return undefined;
  const length = codePointLength(value, rule.max);
  if (length > rule.max) {
    report('too-long', `${column} has ${length} characters, at most ${rule.max}: ${quoteValue(value)}`);
    return undefined;
  }
  return value;
}

function normalizeText(kind: TextKind, text: string, report: ReportValueProblem): string | undefined {
  switch (kind) {
    case 'line':
      return singleLine(text);
    case 'description':
      return text.replace(LINE_BREAK, '\n').replace(TAB, ' ').replace(CONTROL_BUT_LINE_FEED, '').trim();
    case 'category':
      return joinParts(singleLine(text), PATH_SEPARATOR, ' > ');
    case 'google-category': {
      const line = singleLine(text);
      return DIGITS.test(line) ? line : joinParts(line, PATH_SEPARATOR, ' > ');
    }
    case 'heureka-category': {
      // Heureka's CATEGORYTEXT is a path of its own tree, from its root: "Heureka.cz | Jídlo a nápoje | Káva".
      const path = joinParts(singleLine(text), '|', ' | ');
      if (HEUREKA_ROOT.test(path.split(' | ')[0] ?? '')) return path;
      report('invalid-value', `a Heureka category starts with "Heureka.cz | " (its category tree): ${quoteValue(text)}`);
      return undefined;
    }
    case 'channel-category':
      // Zboží paths keep their own `|` separators; `>` may be part of a name.
      return joinParts(singleLine(text), '|', ' | ');
    case 'url': {
      const url = httpUrl(singleLine(text));
      if (url === undefined) report('invalid-value', `not an absolute http(s) URL: ${quoteValue(text)}`);
      return url;
    }
  }
}

/** Whitespace runs (line breaks, tabs, no-break spaces) and control characters become one space. */
function singleLine(text: string): string {
  return text.replace(SPACE_OR_CONTROL_RUN, ' ').trim();
}

function joinParts(text: string, separator: RegExp | string, joiner: string): string {
  const parts: string[] = [];
  for (const part of text.split(separator)) {
    const trimmed = part.trim();
    if (trimmed !== '') parts.push(trimmed);
  }
  return parts.join(joiner);
}

/** The URL in its normalised form (percent-encoded), when it is absolute http(s) with a host. */
function httpUrl(text: string): string | undefined {
  if (text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return undefined;
  return url.href;
}

function readImageLinks(text: string, report: ReportValueProblem): string[] {
  const links: string[] = [];
  let extra = 0;
  for (const part of text.split(IMAGE_LINK_SEPARATORS)) {
    if (part === '') continue;
    const url = httpUrl(part);
    if (url === undefined) {
      report('invalid-value', `not an absolute http(s) URL: ${quoteValue(part)}`);
    } else if (url.length > MAX_URL_CHARS) {
      report('too-long', `a link has ${url.length} characters, at most ${MAX_URL_CHARS}: ${quoteValue(url)}`);
    } else if (links.length < MAX_ADDITIONAL_IMAGES) {
      links.push(url);
    } else {
      extra += 1;
    }
  }
  if (extra > 0) {
    report('too-many-images', `${extra} more image links than the ${MAX_ADDITIONAL_IMAGES} allowed are ignored`);
  }
  return links;
}

/** `['*']` for yes-words, `undefined` for no-words, else the feed names (invalid ones reported). */
function readExclude(text: string, report: ReportValueProblem): readonly string[] | undefined {
  const lower = singleLine(text).toLowerCase();
  if (EXCLUDE_ALL.has(lower)) return ['*'];
  if (EXCLUDE_NONE.has(lower)) return undefined;
  const feeds = new Set<string>();
  for (const name of lower.split(FEED_NAME_SEPARATORS)) {
    if (name === '') continue;
    if (name === '*') return ['*'];
    if (FEED_NAME.test(name)) feeds.add(name);
    else report('invalid-value', `not a feed name (a-z, 0-9 and -, at most 64 characters): ${quoteValue(name)}`);
  }
  return feeds.size === 0 ? undefined : [...feeds];
}

/** Length in code points, counted only when the UTF-16 length could exceed `max`. */
function codePointLength(value: string, max: number): number {
  if (value.length <= max) return value.length;
  let length = 0;
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    // A low surrogate completes the pair its high surrogate already counted.
    if (code < 0xdc00 || code > 0xdfff) length += 1;
  }
  return length;
}
