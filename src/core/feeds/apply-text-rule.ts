import { cleanText } from './clean-text.js';
import type { FeedValue } from './feed-fields.js';
import { toText } from './feed-filters.js';
import type { FeedRejection } from './feed-report.js';
import { countCodePoints, truncateAtWord } from './truncate-text.js';

/** Length and shape rules of one element, attribute or column, compiled once per template. */
export interface TextRule {
  /** In code points. */
  readonly maxLength?: number;
  /** `truncate` cuts text (names, descriptions); `drop` treats over-long values as invalid (ids, URLs). */
  readonly overflow: 'truncate' | 'drop';
  readonly pattern?: RegExp;
  /** Preallocated rejections, so that a rejected value costs no allocation. */
  readonly tooLong: TextRejection;
  readonly mismatch: TextRejection;
}

export type TextRejection = FeedRejection;

export function createTextRule(options: { maxLength?: number; overflow?: 'truncate' | 'drop'; pattern?: RegExp }): TextRule {
  return {
    ...(options.maxLength === undefined ? {} : { maxLength: options.maxLength }),
    overflow: options.overflow ?? 'truncate',
    ...(options.pattern === undefined ? {} : { pattern: options.pattern }),
    tooLong: { code: 'too-long', reason: `longer than ${options.maxLength ?? 0} characters` },
    mismatch: { code: 'no-match', reason: `does not match ${options.pattern?.source ?? ''}` },
  };
}

/** Whitespace a single-line value must not carry: line breaks, tabs, runs, or at either end. */
const LOOSE_WHITESPACE = /[^\S ]|\s\s|^\s|\s$/;

/**
 * A channel's value on one line: line breaks, tabs and runs of whitespace become one space, and the ends
 * are trimmed (a title with a CR/LF from the POS breaks a TSV row and reads badly everywhere else).
 *
 * @example singleLine(' Káva\r\n zrnková\t1 kg ') // 'Káva zrnková 1 kg'
 */
export function singleLine(text: string): string {
  return LOOSE_WHITESPACE.test(text) ? text.replace(/\s+/g, ' ').trim() : text;
}

/** Counts the values cut to their channel's length (the feed report's `truncated`). */
export interface TruncationCounter {
  truncated: number;
}

/**
 * The documented text pipeline of every XML, CSV and TSV value: `cleanText` (forbidden characters
 * removed), `singleLine`, then the length rule (cut at a word boundary and counted, or rejected), then the
 * pattern (rejected when it does not match). Empty text is returned as '' and left to the caller
 * (optional/required).
 */
export function applyTextRule(text: string, rule: TextRule, counter?: TruncationCounter): string | TextRejection {
  const clean = singleLine(cleanText(text));
  if (clean === '') return clean;
  let result = clean;
  const max = rule.maxLength;
  if (max !== undefined && clean.length > max) {
    if (rule.overflow === 'truncate') {
      result = truncateAtWord(clean, max);
      if (counter !== undefined && result !== clean) counter.truncated += 1;
    } else if (countCodePoints(clean) > max) return rule.tooLong;
  }
  if (rule.pattern !== undefined && !rule.pattern.test(result)) return rule.mismatch;
  return result;
}

/** Whether a value has any text left after cleaning: the test of `when`, `unless` and `require`. */
export function hasText(value: FeedValue): boolean {
  return value !== undefined && value !== '' && cleanText(toText(value)) !== '';
}
