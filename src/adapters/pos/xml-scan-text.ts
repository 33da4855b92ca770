import {
  AMP,
  BRACKET_CLOSE,
  CR,
  decodeBytes,
  forbiddenAt,
  GT,
  isXmlSpace,
  LF,
  NAME_BYTE,
  normalizeLineEnds,
  resolveReference,
  SEMICOLON,
  TEXT_SPECIAL,
} from './xml-byte-text.js';
import { CONTENT, emitText, fail, newline, reportForbidden, type ScanState } from './xml-scan-state.js';

/** Character data and references for the byte scanner (decision 0021). */

/** A reference `&...;` starting at `at` inside `[at, to)`: its text and the index after it. */
export function reference(state: ScanState, at: number, to: number): { text: string; after: number } {
  const { buf } = state;
  const semicolon = buf.indexOf(SEMICOLON, at + 1);
  if (semicolon < 0 || semicolon >= to) {
    // No `;` before the text ends: named at the first character that cannot be in a reference (saxes would
    // read on to the next `;`, across tags, and fail there or at the end: decision 0021).
    let stop = at + 1;
    while (stop < to - 1 && (NAME_BYTE[buf[stop] as number] !== 0 || buf[stop] === 0x23)) stop += 1;
    fail(state, 'disallowed character in entity name', stop);
  }
  let ascii = true;
  for (let index = at + 1; index < semicolon; index += 1) if ((buf[index] as number) >= 0x80) ascii = false;
  const resolved = resolveReference(decodeBytes(buf, at + 1, semicolon, ascii));
  if ('problem' in resolved) fail(state, resolved.problem, semicolon);
  return { text: resolved.text, after: semicolon + 1 };
}

/**
 * Character data `[from, to)` (no `<` in it). Inside the root: checked, and decoded only when the reader
 * wants it; outside: whitespace only.
 */
export function characterData(state: ScanState, from: number, to: number): void {
  // A local copy keeps the bytes in a register through the loops (measured: the hottest loop of the scanner).
  const bytes = state.buf;
  if (state.phase !== CONTENT) {
    for (let at = from; at < to; at += 1) {
      const byte = bytes[at];
      if (byte === LF || byte === CR) newline(state, at);
      else if (!isXmlSpace(byte)) fail(state, 'text data outside of root node', at);
    }
    return;
  }
  let at = from;
  for (; at < to; at += 1) {
    const byte = bytes[at] as number;
    if (TEXT_SPECIAL[byte] !== 0) break;
    if (byte === LF) {
      // No CR before it: a CR is special and ends this loop.
      state.line += 1;
      state.lineStart = state.base + at + 1;
    }
  }
  const wanted = state.events.wantsText();
  if (at === to) emitText(state, wanted, wanted ? decodeBytes(bytes, from, to, true) : '');
  else emitText(state, wanted, specialCharacterData(state, from, at, to, wanted));
}

/** The slow part of `characterData`, from its first special byte at `first`. */
function specialCharacterData(state: ScanState, from: number, first: number, to: number, wanted: boolean): string {
  const bytes = state.buf;
  let text = '';
  let segment = from;
  let ascii = true;
  let at = first;
  while (at < to) {
    const byte = bytes[at] as number;
    if (TEXT_SPECIAL[byte] === 0) {
      if (byte === LF) newline(state, at);
    } else if (byte === AMP) {
      const { text: character, after } = reference(state, at, to);
      if (wanted) text += normalizeLineEnds(decodeBytes(bytes, segment, at, ascii)) + character;
      segment = after;
      ascii = true;
      at = after;
      continue;
    } else if (byte === BRACKET_CLOSE) {
      if (bytes[at + 1] === BRACKET_CLOSE && bytes[at + 2] === GT) {
        fail(state, 'the string "]]>" is disallowed in char data', at + 2);
      }
    } else if (byte === CR) {
      newline(state, at);
    } else if (byte >= 0x80) {
      ascii = false;
      const code = forbiddenAt(bytes, at);
      if (code >= 0) reportForbidden(state, code);
    } else {
      reportForbidden(state, byte);
    }
    at += 1;
  }
  return wanted ? text + normalizeLineEnds(decodeBytes(bytes, segment, to, ascii)) : '';
}

/**
 * Checks `[from, to)` of a comment, CDATA section or processing instruction: line ends and forbidden
 * characters. Whether it is all ASCII.
 */
export function markupText(state: ScanState, from: number, to: number): boolean {
  const bytes = state.buf;
  let ascii = true;
  for (let at = from; at < to; at += 1) {
    const byte = bytes[at] as number;
    if (byte < 0x20) {
      if (byte === LF || byte === CR) newline(state, at);
      else if (byte !== 0x09) reportForbidden(state, byte);
    } else if (byte >= 0x80) {
      ascii = false;
      const code = forbiddenAt(bytes, at);
      if (code >= 0) reportForbidden(state, code);
    }
  }
  return ascii;
}
