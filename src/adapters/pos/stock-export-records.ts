import type { StockDelimiter } from '../../core/catalog/pos-documents.js';

/** The stock export's text split into records (RFC 4180 style, leniently), one at a time, without copying the text. */

/**
 * A flat copy of a string. Field values are slices of the whole decoded export, and V8 keeps a sliced
 * string's parent alive: without copies, the rows of each unit would pin their export text (a measured
 * 233 MiB retained for 500k rows). Strings under 13 characters are already copies. Lossless.
 */
export function detach(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, 'utf16le').toString('utf16le');
}

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;

export interface TextRecord {
  readonly fields: string[];
  /** 1-based line the record starts on. */
  readonly line: number;
  /** Where the next record starts, to resume reading after this one. */
  readonly next: { readonly offset: number; readonly line: number };
}

/**
 * Thrown by `readRecords` when a piece of the text that is not its end (`final: false`) ran out before the
 * records asked for were read: the caller reads them again with more text.
 */
export const NEEDS_MORE_TEXT: unique symbol = Symbol('the stock export needs more text');

/** A record that runs past the end of a piece of text that is not the document's end. */
const INCOMPLETE: unique symbol = Symbol('incomplete record');

/**
 * Splits delimited text into records, RFC 4180 style, one record at a time (no copy of the text).
 * Lenient where RFC 4180 is strict: characters after a closing quote are kept, and a quote that is
 * never closed is treated as a literal character, so one stray `"` cannot swallow the rest of the export.
 *
 * `final: false` reads a piece of the document that ends at a line break with more text after it
 * (`stock-export-text.ts`): a record that runs past its end (a quoted field not closed in the piece) is not
 * read; `next()` returns `undefined` and `resume()` says where it starts, to read it again with more text.
 * The records are the same as those of the whole text read at once.
 */
export function createRecordReader(text: string, delimiter: StockDelimiter, start: number, startLine: number, final = true) {
  const delimiterCode = delimiter.charCodeAt(0);
  const length = text.length;
  let position = start;
  let line = startLine;

  function isBoundary(code: number): boolean {
    return code === delimiterCode || code === LF || code === CR;
  }

  function read(quotes: boolean): { fields: string[]; end: number; breaks: number } | typeof INCOMPLETE | undefined {
    const fields: string[] = [];
    let i = position;
    let breaks = 0;
    for (;;) {
      let quoteAt = i;
      if (quotes) {
        // Tolerate spaces before an opening quote (`a; "b"`), a common hand-edited form.
        while (quoteAt < length && text.charCodeAt(quoteAt) === SPACE && delimiterCode !== SPACE) quoteAt += 1;
      }
      if (quotes && text.charCodeAt(quoteAt) === QUOTE) {
        let value = '';
        let j = quoteAt + 1;
        let segment = j;
        for (;;) {
          // Unterminated: the caller re-reads without quotes, unless more text may close it.
          if (j >= length) return final ? undefined : INCOMPLETE;
          const code = text.charCodeAt(j);
          if (code === QUOTE) {
            if (text.charCodeAt(j + 1) === QUOTE) {
              value += text.slice(segment, j + 1);
              j += 2;
              segment = j;
              continue;
            }
            value += text.slice(segment, j);
            j += 1;
            break;
          }
          if (code === LF || (code === CR && text.charCodeAt(j + 1) !== LF)) breaks += 1;
          j += 1;
        }
        let k = j;
        while (k < length && !isBoundary(text.charCodeAt(k))) k += 1;
        fields.push(value + text.slice(j, k));
        i = k;
      } else {
        let k = i;
        while (k < length && !isBoundary(text.charCodeAt(k))) k += 1;
        fields.push(text.slice(i, k));
        i = k;
      }
      // A piece ends at a line break: a record that reaches its end without one may go on after it.
      if (i >= length) return final ? { fields, end: length, breaks } : INCOMPLETE;
      const code = text.charCodeAt(i);
      if (code === delimiterCode) {
        i += 1;
        continue;
      }
      i += code === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      return { fields, end: i, breaks: breaks + 1 };
    }
  }

  return {
    /** The next record, or `undefined` at the end of the text. */
    next(): TextRecord | undefined {
      if (position >= length) return undefined;
      const result = read(true) ?? read(false);
      // `read(false)` always ends at a line break or the end of the text, so it never returns undefined.
      if (result === undefined || result === INCOMPLETE) return undefined;
      const recordLine = line;
      position = result.end;
      line += result.breaks;
      return { fields: result.fields, line: recordLine, next: { offset: position, line } };
    },
    /** Where the next record starts (the end of the text, or a record the piece did not hold whole). */
    resume(): { readonly offset: number; readonly line: number } {
      return { offset: position, line };
    },
  };
}

export function isBlank(fields: readonly string[]): boolean {
  for (const field of fields) if (field.trim() !== '') return false;
  return true;
}

/**
 * Reads up to `count` non-blank records; from a piece of the text that is not its end (`final: false`), throws
 * `NEEDS_MORE_TEXT` when the piece ends first.
 */
export function readRecords(
  text: string,
  delimiter: StockDelimiter,
  start: number,
  startLine: number,
  count: number,
  final = true,
): TextRecord[] {
  const reader = createRecordReader(text, delimiter, start, startLine, final);
  const records: TextRecord[] = [];
  while (records.length < count) {
    const record = reader.next();
    if (record === undefined) {
      if (!final) throw NEEDS_MORE_TEXT;
      break;
    }
    if (!isBlank(record.fields)) records.push(record);
  }
  return records;
}
