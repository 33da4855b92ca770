import { PriceListParseError } from './parse-errors.js';
import { CR, LF, utf8Length } from './xml-byte-text.js';
import { createNameTable, type NameEntry, type NameTable } from './xml-names.js';

/**
 * The byte scanner's state (`xml-byte-scanner.ts`; decision 0021), shared by its parts: the bytes at hand,
 * where they are in the document (for errors), the open elements, and the few per-tag scratch lists.
 */

export interface XmlByteEvents {
  /** `localUpper`: the local name upper-cased (the scanner keeps it per name). */
  openTag(name: string, localUpper: string): void;
  closeTag(): void;
  /** Whether the text of the element now open is read: other text is checked, never decoded. */
  wantsText(): boolean;
  text(text: string): void;
  /** A character XML forbids, read tolerantly; given before the event of the text or tag it is in. */
  forbidden(codePoint: number): void;
}

export const PROLOG = 0;
export const CONTENT = 1;
export const EPILOG = 2;
/** A token that does not end in the bytes at hand: scanned again when more have come. */
export const INCOMPLETE = -1;
/** The prolog needs saxes (a DOCTYPE, a processing instruction, an unusual declaration). */
export const HAND_OVER = -2;

export interface ScanState {
  readonly events: XmlByteEvents;
  /** The bytes being scanned: what was left of the last chunk, and the new one. */
  buf: Buffer;
  /** The document offset of `buf[0]`. */
  base: number;
  line: number;
  /** The document offset the current line starts at. */
  lineStart: number;
  /** Code points of the current line before `base`, when the line started in bytes already dropped. */
  columnBase: number;
  phase: number;
  sawRoot: boolean;
  /** Forbidden characters were reported since the last event (see `emitText`). */
  forbiddenSinceEvent: boolean;
  readonly stack: NameEntry[];
  readonly names: NameTable;
  /** The hash of the last name `nameCharactersEnd` read, for the name table (-1: not hashed). */
  nameHash: number;
  // Per tag, reused (no allocation per element): forbidden characters of its attribute values, and their names.
  readonly forbiddenCodes: number[];
  forbiddenCount: number;
  /** The names of the tag's attributes so far (a set: a hostile tag may have thousands). */
  readonly seenAttributes: Set<string>;
}

export function createScanState(events: XmlByteEvents): ScanState {
  return {
    events,
    buf: Buffer.alloc(0),
    base: 0,
    line: 1,
    lineStart: 0,
    columnBase: 0,
    phase: PROLOG,
    sawRoot: false,
    forbiddenSinceEvent: false,
    stack: [],
    names: createNameTable(),
    nameHash: -1,
    forbiddenCodes: [],
    forbiddenCount: 0,
    seenAttributes: new Set(),
  };
}

/** Characters in `[from, to)` as the decoder reads them (an invalid sequence is one U+FFFD), as saxes counts columns. */
export function codePoints(bytes: Buffer, from: number, to: number): number {
  let count = 0;
  for (let at = from; at < to; at += (bytes[at] ?? 0) < 0x80 ? 1 : utf8Length(bytes, at, to)) count += 1;
  return count;
}

/** Throws the problem at the byte `at` of `buf`, with its line and column (code points, as saxes counts them). */
export function fail(state: ScanState, problem: string, at: number): never {
  const { buf, base } = state;
  // A line end that is the problem counts as read, as in saxes (the position is then the next line's start).
  const byte = buf[at];
  if ((byte === LF || byte === CR) && state.lineStart !== base + at + 1) newline(state, at);
  const upTo = Math.min(at + 1, buf.length);
  const { lineStart } = state;
  const column = lineStart < base ? state.columnBase + codePoints(buf, 0, upTo) : codePoints(buf, lineStart - base, upTo);
  throw new PriceListParseError(`price-list XML is not well-formed: ${problem}`, {
    line: state.line,
    column: Math.max(1, column),
  });
}

/** Counts a line end at `at` (LF, CR, or the LF of CR LF). */
export function newline(state: ScanState, at: number): void {
  const { buf } = state;
  if (buf[at] !== LF || at === 0 || buf[at - 1] !== CR) state.line += 1;
  state.lineStart = state.base + at + 1;
}

/** Counts the line ends in `[from, to)`: for bytes checked apart from their line ends (a declaration, a tail). */
export function countLineEnds(state: ScanState, from: number, to: number): void {
  const { buf } = state;
  for (let at = from; at < to; at += 1) if (buf[at] === LF || buf[at] === CR) newline(state, at);
}

export function reportForbidden(state: ScanState, code: number): void {
  state.forbiddenSinceEvent = true;
  state.events.forbidden(code);
}

/**
 * A text event: when the reader wants the text, or (with '') when forbidden characters were read since the
 * last event, so that they go to the scope saxes' text event would have given them to.
 */
export function emitText(state: ScanState, wanted: boolean, text: string): void {
  if (!wanted && !state.forbiddenSinceEvent) return;
  state.forbiddenSinceEvent = false;
  state.events.text(text);
}

/** Drops the bytes before `scanned` from the position's reckoning (carrying the column of a line that goes on). */
export function advanceBase(state: ScanState, scanned: number): void {
  const { base, lineStart } = state;
  if (lineStart < base + scanned) {
    state.columnBase = (lineStart < base ? state.columnBase : 0) + codePoints(state.buf, Math.max(0, lineStart - base), scanned);
  }
  state.base = base + scanned;
}
