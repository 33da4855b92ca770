import { cleanText } from './clean-text.js';
import type { FeedValue } from './feed-fields.js';
import { toText } from './feed-filters.js';
import type { FeedRejection } from './feed-report.js';
import { countCodePoints, truncateText } from './truncate-text.js';

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

/**
 * The documented text pipeline of every XML, CSV and TSV value: `cleanText` (forbidden characters
 * removed), then the length rule (truncated by code points, or rejected), then the pattern (rejected
 * when it does not match). Empty text is returned as '' and left to the caller (optional/required).
 */
export function applyTextRule(text: string, rule: TextRule): string | TextRejection {
  const clean = cleanText(text);
  if (clean === '') return clean;
  let result = clean;
  const max = rule.maxLength;
  if (max !== undefined && clean.length > max) {
    if (rule.overflow === 'truncate') result = truncateText(clean, max);
    else if (countCodePoints(clean) > max) return rule.tooLong;
  }
  if (rule.pattern !== undefined && !rule.pattern.test(result)) return rule.mismatch;
  return result;
}

/** Whether a value has any text left after cleaning: the test of `when`, `unless` and `require`. */
export function hasText(value: FeedValue): boolean {
  return value !== undefined && value !== '' && cleanText(toText(value)) !== '';
}
