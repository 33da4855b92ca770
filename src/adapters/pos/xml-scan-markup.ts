import { CR, DASH, decodeBytes, isXmlSpace, LF, normalizeLineEnds } from './xml-byte-text.js';
import { nameEnd } from './xml-scan-names.js';
import {
  CONTENT,
  countLineEnds,
  emitText,
  fail,
  HAND_OVER,
  INCOMPLETE,
  newline,
  PROLOG,
  type ScanState,
} from './xml-scan-state.js';
import { markupText } from './xml-scan-text.js';

/**
 * Comments, CDATA sections, processing instructions and the XML declaration for the byte scanner
 * (decision 0021). Before the root, a DOCTYPE, a processing instruction or an unusual declaration is
 * `HAND_OVER`: saxes reads that document.
 */

/** XML 1.0's declaration in its usual forms (anything else goes to saxes, which names its problem). */
const DECLARATION =
  /^<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(["'])1\.0\1(?:[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(["'])[A-Za-z][A-Za-z0-9._-]*\2)?(?:[ \t\r\n]+standalone[ \t\r\n]*=[ \t\r\n]*(["'])(?:yes|no)\3)?[ \t\r\n]*\?>$/;

/** `<!--`, `<![CDATA[` or `<!DOCTYPE` at `at`. */
export function bang(state: ScanState, at: number, end: number): number {
  const { buf } = state;
  if (at + 4 > end) return INCOMPLETE;
  if (buf[at + 2] === DASH && buf[at + 3] === DASH) {
    const close = buf.indexOf('--', at + 4);
    if (close < 0 || close + 2 >= end) return INCOMPLETE;
    markupText(state, at + 4, close);
    if (buf[close + 2] !== 0x3e) fail(state, 'malformed comment', close + 2);
    return close + 3;
  }
  if (at + 9 > end) return INCOMPLETE;
  const opening = buf.toString('latin1', at, at + 9);
  if (opening === '<![CDATA[') return cdata(state, at, end);
  if (opening !== '<!DOCTYPE') return incorrectSyntax(state, at + 2, end);
  if (state.phase === PROLOG) return HAND_OVER;
  fail(state, 'inappropriately located doctype declaration', at + 8);
}

function cdata(state: ScanState, at: number, end: number): number {
  if (state.phase !== CONTENT) fail(state, 'text data outside of root node', at + 8);
  const close = state.buf.indexOf(']]>', at + 9);
  if (close < 0 || close >= end) return INCOMPLETE;
  const ascii = markupText(state, at + 9, close);
  const wanted = state.events.wantsText();
  emitText(state, wanted, wanted ? normalizeLineEnds(decodeBytes(state.buf, at + 9, close, ascii)) : '');
  return close + 3;
}

/** `<!` and no comment, CDATA or DOCTYPE: saxes names it at the seventh UTF-16 unit after `<!`. */
function incorrectSyntax(state: ScanState, from: number, end: number): number {
  const { buf } = state;
  let count = 0;
  for (let at = from; at < end; at += 1) {
    const byte = buf[at] as number;
    if (byte === LF || byte === CR) newline(state, at);
    if ((byte & 0xc0) === 0x80 || (byte === LF && buf[at - 1] === CR)) continue;
    // saxes counts UTF-16 code units here: a character beyond the BMP is two.
    count += byte >= 0xf0 ? 2 : 1;
    if (count >= 7) fail(state, 'incorrect syntax', at);
  }
  return INCOMPLETE;
}

/** A processing instruction inside the root or after it (before it, saxes takes the document). */
export function instruction(state: ScanState, at: number, end: number): number {
  if (state.phase === PROLOG) return HAND_OVER;
  const { buf } = state;
  const stop = nameEnd(state, at + 2, end, 'disallowed character in processing instruction name');
  if (stop === INCOMPLETE || stop >= end) return INCOMPLETE;
  if (buf.toString('latin1', at + 2, stop).toLowerCase() === 'xml') {
    fail(state, 'an XML declaration must be at the start of the document', stop);
  }
  const close = buf.indexOf('?>', stop);
  if (close < 0 || close >= end) return INCOMPLETE;
  if (close > stop && !isXmlSpace(buf[stop])) fail(state, 'disallowed character in processing instruction name', stop);
  markupText(state, stop, close);
  return close + 2;
}

/** The document's start: a BOM, then the XML declaration (read here when it is the usual one). */
export function documentStart(state: ScanState, end: number, final: boolean): number {
  const { buf } = state;
  if (end < 9 && !final) return INCOMPLETE;
  let at = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  // A BOM is no character of the document: columns count from after it, as saxes (given the text without it) does.
  state.lineStart = state.base + at;
  if (buf.toString('latin1', at, at + 5) === '<?xml' && isXmlSpace(buf[at + 5])) {
    const close = buf.indexOf('?>', at);
    if (close < 0) return final ? HAND_OVER : INCOMPLETE;
    if (!DECLARATION.test(buf.toString('latin1', at, close + 2))) return HAND_OVER;
    countLineEnds(state, at, close);
    at = close + 2;
  }
  return at;
}
