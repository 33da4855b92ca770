import { encodeUrl } from './encode-url.js';
import type { FeedValue } from './feed-fields.js';
import { formatMoney, formatPlainNumber } from './format-number.js';
import { normalizeGtin } from './normalize-gtin.js';
import { truncateText } from './truncate-text.js';

export type FilterFunction = (value: FeedValue) => FeedValue;

/** What a filter may see at compile time: the template's maps. */
export interface FilterEnvironment {
  readonly maps: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export interface FilterSpec {
  readonly argument: 'none' | 'required';
  /** Returns the filter, or a problem message about its argument. */
  readonly create: (argument: string, environment: FilterEnvironment) => FilterFunction | string;
  readonly description: string;
}

function isEmpty(value: FeedValue): value is undefined | '' {
  return value === undefined || value === '';
}

/** Numbers stay numbers; text counts as a number only when it is plainly one (`12`, `-3.5`). */
export function toNumber(value: FeedValue): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (value === undefined || !/^\s*-?\d+(?:\.\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
}

/** Text of a value: numbers in plain decimal notation, nothing as ''. */
export function toText(value: FeedValue): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return formatPlainNumber(value) ?? '';
}

function text(transform: (input: string) => FeedValue): FilterFunction {
  return (value) => (isEmpty(value) ? undefined : transform(toText(value)));
}

function money(separator: string): FilterFunction {
  return (value) => {
    const number = toNumber(value);
    return number === undefined ? undefined : formatMoney(number, separator);
  };
}

const ISO_DATE = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/;

/**
 * A URL handle: lower-case ASCII letters and digits, words joined by one `-`. Accents are taken off
 * (`Káva zrnková` → `kava-zrnkova`), every other run of characters becomes one `-`, none at either end.
 * This is how e-shops derive a product's handle from its name (Shopify's `handleize`).
 */
export function slugify(input: string): string {
  return input
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * The filters of template expressions (`{price|money}`). All are total: bad input gives an empty
 * value, never an exception, so one odd POS value cannot break a render.
 */
export const FEED_FILTERS: Readonly<Record<string, FilterSpec>> = {
  money: { argument: 'none', create: () => money('.'), description: 'two decimals, dot: 129.00' },
  moneyComma: { argument: 'none', create: () => money(','), description: 'two decimals, comma: 129,00' },
  number: {
    argument: 'none',
    create: () => (value) => toNumber(value),
    description: 'the value as a number (plain notation), empty when not numeric',
  },
  int: {
    argument: 'none',
    create: () => (value) => {
      const number = toNumber(value);
      return number === undefined ? undefined : Math.trunc(number) || 0;
    },
    description: 'whole number, truncated toward zero',
  },
  truncate: {
    argument: 'required',
    create: (argument) => {
      if (!/^[1-9]\d{0,6}$/.test(argument)) return `truncate needs a positive whole number of characters, got "${argument}"`;
      const max = Number(argument);
      return text((input) => truncateText(input, max));
    },
    description: 'at most N characters (code points)',
  },
  lower: { argument: 'none', create: () => text((input) => input.toLowerCase()), description: 'lower case' },
  upper: { argument: 'none', create: () => text((input) => input.toUpperCase()), description: 'upper case' },
  trim: { argument: 'none', create: () => text((input) => input.trim()), description: 'without surrounding whitespace' },
  date: {
    argument: 'none',
    create: () => text((input) => ISO_DATE.exec(input)?.[1]),
    description: 'the YYYY-MM-DD part of an ISO date or date-time, else empty',
  },
  map: {
    argument: 'required',
    create: (argument, environment) => {
      const table = environment.maps[argument];
      if (table === undefined) {
        const known = Object.keys(environment.maps);
        return `map "${argument}" is not defined in "maps" (defined: ${known.length === 0 ? 'none' : known.join(', ')})`;
      }
      const lookup = new Map(Object.entries(table));
      return text((input) => lookup.get(input));
    },
    description: 'looks the value up in a map of the template; empty when not found',
  },
  default: {
    argument: 'required',
    create: (argument) => (value) => (isEmpty(value) ? argument : value),
    description: 'this text when the value is empty',
  },
  gtin: {
    argument: 'none',
    create: () => text((input) => normalizeGtin(input)),
    description: 'a valid GTIN-8/12/13/14 (check digit, no restricted-circulation numbers), else empty',
  },
  url: {
    argument: 'none',
    create: () => text((input) => encodeUrl(input)),
    description: 'absolute http(s) URL, percent-encoded to ASCII (RFC 3986), else empty',
  },
  stripHtml: {
    argument: 'none',
    create: () =>
      text((input) =>
        input
          .replace(/<[^>]*>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim(),
      ),
    description: 'without HTML tags, whitespace collapsed (entities are left as text)',
  },
  slug: {
    argument: 'none',
    create: () => text((input) => slugify(input) || undefined),
    description: 'a URL handle: lower-case ASCII words joined by "-" (kava-zrnkova-1-kg)',
  },
};
