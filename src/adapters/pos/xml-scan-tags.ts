import { AMP, APOSTROPHE, CR, EQUALS, forbiddenAt, GT, isXmlSpace, LF, LT, QUOTE, SLASH } from './xml-byte-text.js';
import { closesWith, nameCharactersEnd, nameEnd, nameEntry } from './xml-scan-names.js';
import { CONTENT, EPILOG, fail, INCOMPLETE, newline, PROLOG, type ScanState } from './xml-scan-state.js';
import { reference } from './xml-scan-text.js';

/** Open and close tags for the byte scanner (decision 0021), checked as saxes checks them. */

/** An open tag at `at` (its `<`): the index after its `>`, or `INCOMPLETE`. */
export function openTag(state: ScanState, at: number, end: number): number {
  const stop = nameEnd(state, at + 1, end, 'disallowed character in tag name');
  if (stop === INCOMPLETE || stop >= end) return INCOMPLETE;
  const entry = nameEntry(state, at + 1, stop, 'disallowed character in tag name');
  if (state.phase === EPILOG) fail(state, 'documents may contain only one root', stop);
  state.forbiddenCount = 0;
  const after = attributes(state, stop, end);
  if (after === INCOMPLETE) return INCOMPLETE;
  if (state.phase === PROLOG) {
    state.phase = CONTENT;
    state.sawRoot = true;
  }
  const { events, forbiddenCodes } = state;
  for (let index = 0; index < state.forbiddenCount; index += 1) events.forbidden(forbiddenCodes[index] as number);
  state.forbiddenSinceEvent = false;
  events.openTag(entry.name, entry.localUpper);
  if (state.buf[after - 2] === SLASH) closeElement(state);
  else state.stack.push(entry);
  return after;
}

/**
 * The attributes after a tag's name, up to and with its `>` (or `/>`): checked, never kept (the price list
 * reads no attribute). Forbidden characters in values go to `forbiddenCodes`, given once the tag is complete.
 */
function attributes(state: ScanState, from: number, end: number): number {
  const { buf, seenAttributes } = state;
  let at = from;
  if (seenAttributes.size !== 0) seenAttributes.clear();
  // As saxes, a duplicate is named once the tag is complete, at its `>`.
  let duplicate: string | undefined;
  for (;;) {
    const spaceStart = at;
    at = skipSpaces(state, at, end);
    if (at >= end) return INCOMPLETE;
    const byte = buf[at];
    if (byte === GT || byte === SLASH) return tagEnd(state, at, end, duplicate);
    if (at === spaceStart) {
      fail(state, from === at ? 'disallowed character in tag name' : 'no whitespace between attributes', at);
    }
    const stop = nameEnd(state, at, end, 'disallowed character in attribute name');
    if (stop === INCOMPLETE) return INCOMPLETE;
    const { name } = nameEntry(state, at, stop, 'disallowed character in attribute name');
    at = attributeValue(state, stop, end);
    if (at === INCOMPLETE) return INCOMPLETE;
    if (seenAttributes.has(name)) duplicate ??= name;
    else seenAttributes.add(name);
  }
}

function skipSpaces(state: ScanState, from: number, end: number): number {
  const { buf } = state;
  let at = from;
  while (at < end && isXmlSpace(buf[at])) {
    if (buf[at] === LF || buf[at] === CR) newline(state, at);
    at += 1;
  }
  return at;
}

/** `>` or `/>` at `at`: the index after it. */
function tagEnd(state: ScanState, at: number, end: number, duplicate: string | undefined): number {
  const { buf } = state;
  let close = at;
  if (buf[at] === SLASH) {
    if (at + 1 >= end) return INCOMPLETE;
    if (buf[at + 1] !== GT) fail(state, 'forward-slash in opening tag not followed by >', at + 1);
    close = at + 1;
  }
  if (duplicate !== undefined) fail(state, `duplicate attribute: ${duplicate}`, close);
  return close + 1;
}

/** `S? = S? "value"` after an attribute's name: the index after the closing quote. */
function attributeValue(state: ScanState, from: number, end: number): number {
  const { buf } = state;
  let at = skipSpaces(state, from, end);
  if (at >= end) return INCOMPLETE;
  // As saxes: right after the name, a character other than `=`, `>` or a space is one the name cannot hold.
  if (buf[at] !== EQUALS) {
    fail(state, at === from && buf[at] !== GT ? 'disallowed character in attribute name' : 'attribute without value', at);
  }
  at = skipSpaces(state, at + 1, end);
  if (at >= end) return INCOMPLETE;
  const quote = buf[at];
  if (quote !== QUOTE && quote !== APOSTROPHE) fail(state, 'unquoted attribute value', at);
  const close = buf.indexOf(quote, at + 1);
  if (close < 0 || close >= end) return INCOMPLETE;
  for (let index = at + 1; index < close; index += 1) {
    const byte = buf[index] as number;
    if (byte === LT) fail(state, 'disallowed character', index);
    if (byte === AMP) {
      index = reference(state, index, close).after - 1;
    } else if (byte < 0x20 || byte >= 0x80) {
      if (byte === LF || byte === CR) newline(state, index);
      const code = forbiddenAt(buf, index);
      if (code >= 0) {
        state.forbiddenCodes[state.forbiddenCount] = code;
        state.forbiddenCount += 1;
      }
    }
  }
  return close + 1;
}

function closeElement(state: ScanState): void {
  state.events.closeTag();
  state.forbiddenSinceEvent = false;
  if (state.stack.length === 0) state.phase = EPILOG;
}

/** A close tag at `at` (its `<`): the index after its `>`, or `INCOMPLETE`. */
export function closeTag(state: ScanState, at: number, end: number): number {
  const { buf, stack } = state;
  const top = stack.at(-1);
  if (top !== undefined && closesWith(buf, top.bytes, at + 2, end)) {
    stack.pop();
    closeElement(state);
    return at + 3 + top.bytes.length;
  }
  // As saxes: any name characters, the first one too (a wrong name is then an unexpected close tag).
  const stop = nameCharactersEnd(state, at + 2, end, false);
  const after = skipSpaces(state, stop, end);
  if (after >= end) return INCOMPLETE;
  if (buf[after] !== GT) fail(state, 'disallowed character in closing tag', after);
  if (stop === at + 2) fail(state, 'weird empty close tag', after);
  const open = stack.pop();
  if (open === undefined) {
    fail(state, `unmatched closing tag: ${nameEntry(state, at + 2, stop, 'disallowed character in closing tag').name}`, after);
  }
  const sameBytes = open.bytes.length === stop - at - 2 && open.bytes.compare(buf, at + 2, stop) === 0;
  // Names with invalid UTF-8 are equal when they decode alike (U+FFFD), as saxes compares them.
  if (!sameBytes && nameEntry(state, at + 2, stop, 'disallowed character in closing tag').name !== open.name) {
    fail(state, 'unexpected close tag', after);
  }
  closeElement(state);
  return after + 1;
}
