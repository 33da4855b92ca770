import { PriceListParseError } from './parse-errors.js';
import {
  AMP,
  APOSTROPHE,
  BANG,
  BRACKET_CLOSE,
  CR,
  DASH,
  decodeBytes,
  EQUALS,
  forbiddenAt,
  GT,
  isXmlName,
  isXmlSpace,
  LF,
  LT,
  NAME_BYTE,
  NAME_START_BYTE,
  normalizeLineEnds,
  QUESTION,
  QUOTE,
  resolveReference,
  SEMICOLON,
  SLASH,
  TEXT_SPECIAL,
} from './xml-byte-text.js';
import { createNameTable, NAME_HASH_PRIME, NAME_HASH_SEED, type NameEntry } from './xml-names.js';

/**
 * A well-formedness-checking XML scanner over UTF-8 bytes, for the price list's hot path
 * (docs/decisions/0021-price-list-byte-scanner.md). It decodes only the texts its reader asks for and the
 * names of elements (interned), so a 360 MB document is read without turning it into a string first.
 * What it does not handle (a DOCTYPE, a processing instruction or an unusual XML declaration before the
 * root) it hands over to saxes, which the prolog's bytes are kept for. Problems are reported in saxes'
 * words with line and column, as the saxes-based parser reports them.
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

export interface XmlByteScanner {
  /** Scans a chunk. `false`: the document needs the general parser, given `prologBytes()` (nothing was emitted). */
  write(bytes: Uint8Array): boolean;
  /** The end of the document: the final checks (`false`: hand over, as for `write`). Throws `PriceListParseError`. */
  end(): boolean;
  prologBytes(): readonly Uint8Array[];
}

const PROLOG = 0;
const CONTENT = 1;
const EPILOG = 2;
/** A token that does not end in the bytes at hand: scanned again when more have come. */
const INCOMPLETE = -1;
const HAND_OVER = -2;
/** A prolog longer than this is not kept for a hand-over to saxes (a real one is a few hundred bytes). */
const MAX_PROLOG_BYTES = 1 << 20;

const DECLARATION =
  /^<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(["'])1\.0\1(?:[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(["'])[A-Za-z][A-Za-z0-9._-]*\2)?(?:[ \t\r\n]+standalone[ \t\r\n]*=[ \t\r\n]*(["'])(?:yes|no)\3)?[ \t\r\n]*\?>$/;

export function createXmlByteScanner(events: XmlByteEvents): XmlByteScanner {
  let phase = PROLOG;
  let atStart = true;
  const stack: NameEntry[] = [];
  let sawRoot = false;
  /** Bytes not scanned yet, from the start of an incomplete token; joined only when scanned again. */
  let waiting: Buffer[] = [];
  let waitingLength = 0;
  /** An incomplete token is scanned again only once this many bytes wait, so a huge one costs linear time. */
  let rescanAt = 0;
  let prolog: Uint8Array[] | undefined = [];
  let prologLength = 0;
  const names = createNameTable();
  // Position, for errors: absolute offset of `buf[0]`, line and the offset its line starts at.
  let base = 0;
  let line = 1;
  let lineStart = 0;
  /** Code points of the current line before `base`, when the line started in bytes already dropped. */
  let columnBase = 0;
  let forbiddenSinceEvent = false;
  let buf: Buffer = Buffer.alloc(0);
  // Per tag, reused (no allocation per element): forbidden characters of its attribute values, and their names.
  const forbiddenCodes: number[] = [];
  let forbiddenCount = 0;
  const seenAttributes: string[] = [];
  let attributeCount = 0;
  /** The hash of the last name `nameCharactersEnd` read, for the name table (-1: not hashed). */
  let nameHash = -1;

  function codePoints(from: number, to: number): number {
    let count = 0;
    for (let at = from; at < to; at += 1) if (((buf[at] ?? 0) & 0xc0) !== 0x80) count += 1;
    return count;
  }

  function fail(problem: string, at: number): never {
    // A line end that is the problem counts as read, as in saxes (the position is then the next line's start).
    const byte = buf[at];
    if ((byte === LF || byte === CR) && lineStart !== base + at + 1) newline(at);
    const upTo = Math.min(at + 1, buf.length);
    const column = lineStart < base ? columnBase + codePoints(0, upTo) : codePoints(lineStart - base, upTo);
    throw new PriceListParseError(`price-list XML is not well-formed: ${problem}`, { line, column: Math.max(1, column) });
  }

  /** Counts a line end at `at` (LF, CR, or the LF of CR LF). */
  function newline(at: number): void {
    if (buf[at] === LF && at > 0 && buf[at - 1] === CR) {
      lineStart = base + at + 1;
      return;
    }
    line += 1;
    lineStart = base + at + 1;
  }

  function reportForbidden(code: number): void {
    forbiddenSinceEvent = true;
    events.forbidden(code);
  }

  /** A reference `&...;` starting at `at` inside `[at, to)`: its text and the index after it. */
  function reference(at: number, to: number): { text: string; after: number } {
    const semicolon = buf.indexOf(SEMICOLON, at + 1);
    if (semicolon < 0 || semicolon >= to) {
      // No `;` before the text ends: named at the first character that cannot be in a reference (saxes would
      // read on to the next `;`, across tags, and fail there or at the end: decision 0021).
      let stop = at + 1;
      while (stop < to - 1 && (NAME_BYTE[buf[stop] as number] !== 0 || buf[stop] === 0x23)) stop += 1;
      fail('disallowed character in entity name', stop);
    }
    let ascii = true;
    for (let index = at + 1; index < semicolon; index += 1) if ((buf[index] as number) >= 0x80) ascii = false;
    const resolved = resolveReference(decodeBytes(buf, at + 1, semicolon, ascii));
    if ('problem' in resolved) fail(resolved.problem, semicolon);
    return { text: resolved.text, after: semicolon + 1 };
  }

  /**
   * Character data `[from, to)` (no `<` in it). Inside the root: checked, and decoded only when the reader
   * wants it; outside: whitespace only.
   */
  function characterData(from: number, to: number): void {
    if (phase !== CONTENT) {
      for (let at = from; at < to; at += 1) {
        const byte = buf[at];
        if (byte === LF || byte === CR) newline(at);
        else if (!isXmlSpace(byte)) fail('text data outside of root node', at);
      }
      return;
    }
    // A local copy keeps the bytes in a register through the loop (measured: the hottest loop of the scanner).
    const bytes = buf;
    let at = from;
    for (; at < to; at += 1) {
      const byte = bytes[at] as number;
      if (TEXT_SPECIAL[byte] !== 0) break;
      if (byte === LF) {
        // No CR before it: a CR is special and ends this loop.
        line += 1;
        lineStart = base + at + 1;
      }
    }
    const wanted = events.wantsText();
    if (at === to) emitText(wanted, wanted ? decodeBytes(buf, from, to, true) : '');
    else emitText(wanted, specialCharacterData(from, at, to, wanted));
  }

  /**
   * A text event: when the reader wants the text, or (with '') when forbidden characters were read since the
   * last event, so that they go to the scope saxes' text event would have given them to.
   */
  function emitText(wanted: boolean, text: string): void {
    if (!wanted && !forbiddenSinceEvent) return;
    forbiddenSinceEvent = false;
    events.text(text);
  }

  /** The slow part of `characterData`, from its first special byte at `at`. */
  function specialCharacterData(from: number, first: number, to: number, wanted: boolean): string {
    let text = '';
    let segment = from;
    let ascii = true;
    let at = first;
    while (at < to) {
      const byte = buf[at] as number;
      if (TEXT_SPECIAL[byte] === 0) {
        if (byte === LF) newline(at);
      } else if (byte === AMP) {
        const { text: character, after } = reference(at, to);
        if (wanted) text += normalizeLineEnds(decodeBytes(buf, segment, at, ascii)) + character;
        segment = after;
        ascii = true;
        at = after;
        continue;
      } else if (byte === BRACKET_CLOSE) {
        if (buf[at + 1] === BRACKET_CLOSE && buf[at + 2] === GT) fail('the string "]]>" is disallowed in char data', at + 2);
      } else if (byte === CR) {
        newline(at);
      } else if (byte >= 0x80) {
        ascii = false;
        const code = forbiddenAt(buf, at);
        if (code >= 0) reportForbidden(code);
      } else {
        reportForbidden(byte);
      }
      at += 1;
    }
    return wanted ? text + normalizeLineEnds(decodeBytes(buf, segment, to, ascii)) : '';
  }

  /** Checks `[from, to)` of a comment, CDATA section or processing instruction: line ends and forbidden characters. */
  function markupText(from: number, to: number): boolean {
    let ascii = true;
    for (let at = from; at < to; at += 1) {
      const byte = buf[at] as number;
      if (byte < 0x20) {
        if (byte === LF || byte === CR) newline(at);
        else if (byte !== 0x09) reportForbidden(byte);
      } else if (byte >= 0x80) {
        ascii = false;
        const code = forbiddenAt(buf, at);
        if (code >= 0) reportForbidden(code);
      }
    }
    return ascii;
  }

  /** A name starting at `at`; its end index, or fails with `problem` at the first byte that cannot be in it. */
  function nameEnd(at: number, end: number, problem: string): number {
    if (at >= end) return INCOMPLETE;
    if (NAME_START_BYTE[buf[at] as number] === 0) fail(problem, at);
    const stop = nameCharactersEnd(at, end, true);
    if (stop === at) fail(problem, at);
    return stop;
  }

  /**
   * Where the name characters from `at` end (`end` at most; `startsName`: the first must start a name), as
   * saxes reads them: the first character that is none ends the name, and what follows decides the problem.
   */
  function nameCharactersEnd(at: number, end: number, startsName: boolean): number {
    const bytes = buf;
    let stop = at;
    let hash = NAME_HASH_SEED;
    while (stop < end) {
      const byte = bytes[stop] as number;
      if (NAME_BYTE[byte] === 0) break;
      if (byte < 0x80) {
        hash = Math.imul(hash ^ byte, NAME_HASH_PRIME);
        stop += 1;
      } else {
        // Non-ASCII names are rare: hashed by the name table itself.
        hash = -1;
        const length = nonAsciiNameCharacter(stop, end, startsName && stop === at);
        if (length === 0) break;
        stop += length;
      }
    }
    nameHash = hash;
    return Math.min(stop, end);
  }

  /**
   * The length of the non-ASCII name character at `at`, 0 when it is none (a character cut by the chunk's end
   * counts as one: it is read again whole once more bytes came).
   */
  function nonAsciiNameCharacter(at: number, end: number, first: boolean): number {
    const lead = buf[at] as number;
    const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (at + length > end) return length;
    const character = decodeBytes(buf, at, at + length, false);
    return isXmlName(first ? character : `a${character}`) ? length : 0;
  }

  /** The entry of the name just scanned by `nameCharactersEnd` (its hash is `nameHash`). */
  function nameEntry(from: number, to: number, problem: string): NameEntry {
    const entry = names.intern(buf, from, to, nameHash);
    if (entry === undefined) fail(problem, to - 1);
    return entry;
  }

  /** Whether the bytes from `from` are `known`'s, and a `>` follows them: a close tag's usual form. */
  function closesWith(known: Buffer, from: number, end: number): boolean {
    const bytes = buf;
    const length = known.length;
    if (from + length >= end || bytes[from + length] !== GT) return false;
    for (let index = 0; index < length; index += 1) if (known[index] !== bytes[from + index]) return false;
    return true;
  }

  function openTag(at: number, end: number): number {
    const stop = nameEnd(at + 1, end, 'disallowed character in tag name');
    if (stop === INCOMPLETE || stop >= end) return INCOMPLETE;
    const entry = nameEntry(at + 1, stop, 'disallowed character in tag name');
    if (phase === EPILOG) fail('documents may contain only one root', stop);
    forbiddenCount = 0;
    const after = attributes(stop, end);
    if (after === INCOMPLETE) return INCOMPLETE;
    const empty = buf[after - 2] === SLASH;
    if (phase === PROLOG) {
      phase = CONTENT;
      sawRoot = true;
      prolog = undefined;
    }
    for (let index = 0; index < forbiddenCount; index += 1) events.forbidden(forbiddenCodes[index] as number);
    forbiddenSinceEvent = false;
    events.openTag(entry.name, entry.localUpper);
    if (empty) closeElement();
    else stack.push(entry);
    return after;
  }

  /**
   * The attributes after a tag's name, up to and with its `>` (or `/>`): checked, never kept (the price list
   * reads no attribute). Forbidden characters in values go to `forbiddenCodes`, given once the tag is complete.
   */
  function attributes(from: number, end: number): number {
    let at = from;
    attributeCount = 0;
    // As saxes, a duplicate is named once the tag is complete, at its `>`.
    let duplicate: string | undefined;
    for (;;) {
      const spaceStart = at;
      while (at < end && isXmlSpace(buf[at])) {
        if (buf[at] === LF || buf[at] === CR) newline(at);
        at += 1;
      }
      if (at >= end) return INCOMPLETE;
      const byte = buf[at];
      if (byte === GT || byte === SLASH) return tagEnd(at, end, duplicate);
      if (at === spaceStart) fail(from === at ? 'disallowed character in tag name' : 'no whitespace between attributes', at);
      const stop = nameEnd(at, end, 'disallowed character in attribute name');
      if (stop === INCOMPLETE) return INCOMPLETE;
      const { name } = nameEntry(at, stop, 'disallowed character in attribute name');
      at = attributeValue(stop, end);
      if (at === INCOMPLETE) return INCOMPLETE;
      const earlier = seenAttributes.indexOf(name);
      if (earlier >= 0 && earlier < attributeCount) duplicate ??= name;
      seenAttributes[attributeCount] = name;
      attributeCount += 1;
    }
  }

  /** `>` or `/>` at `at`: the index after it. */
  function tagEnd(at: number, end: number, duplicate: string | undefined): number {
    let close = at;
    if (buf[at] === SLASH) {
      if (at + 1 >= end) return INCOMPLETE;
      if (buf[at + 1] !== GT) fail('forward-slash in opening tag not followed by >', at + 1);
      close = at + 1;
    }
    if (duplicate !== undefined) fail(`duplicate attribute: ${duplicate}`, close);
    return close + 1;
  }

  /** `S? = S? "value"` after an attribute's name; the index after the closing quote. */
  function attributeValue(from: number, end: number): number {
    let at = from;
    while (at < end && isXmlSpace(buf[at])) at += 1;
    if (at >= end) return INCOMPLETE;
    if (buf[at] !== EQUALS) fail('attribute without value', at);
    at += 1;
    while (at < end && isXmlSpace(buf[at])) at += 1;
    if (at >= end) return INCOMPLETE;
    const quote = buf[at];
    if (quote !== QUOTE && quote !== APOSTROPHE) fail('unquoted attribute value', at);
    const close = buf.indexOf(quote, at + 1);
    if (close < 0 || close >= end) return INCOMPLETE;
    for (let index = at + 1; index < close; index += 1) {
      const byte = buf[index] as number;
      if (byte === LT) fail('disallowed character', index);
      if (byte === AMP) {
        index = reference(index, close).after - 1;
      } else if (byte < 0x20 || byte >= 0x80) {
        if (byte === LF || byte === CR) newline(index);
        const code = forbiddenAt(buf, index);
        if (code >= 0) {
          forbiddenCodes[forbiddenCount] = code;
          forbiddenCount += 1;
        }
      }
    }
    return close + 1;
  }

  function closeElement(): void {
    events.closeTag();
    forbiddenSinceEvent = false;
    if (stack.length === 0) phase = EPILOG;
  }

  function closeTag(at: number, end: number): number {
    const top = stack.at(-1);
    if (top !== undefined && closesWith(top.bytes, at + 2, end)) {
      stack.pop();
      closeElement();
      return at + 3 + top.bytes.length;
    }
    // As saxes: any name characters, the first one too (a wrong name is then an unexpected close tag).
    const stop = nameCharactersEnd(at + 2, end, false);
    let after = stop;
    while (after < end && isXmlSpace(buf[after])) {
      if (buf[after] === LF || buf[after] === CR) newline(after);
      after += 1;
    }
    if (after >= end) return INCOMPLETE;
    if (buf[after] !== GT) fail('disallowed character in closing tag', after);
    if (stop === at + 2) fail('weird empty close tag', after);
    const open = stack.pop();
    if (open === undefined)
      fail(`unmatched closing tag: ${nameEntry(at + 2, stop, 'disallowed character in closing tag').name}`, after);
    if (open.bytes.length !== stop - at - 2 || open.bytes.compare(buf, at + 2, stop) !== 0) fail('unexpected close tag', after);
    closeElement();
    return after + 1;
  }

  /** `<!--`, `<![CDATA[` or `<!DOCTYPE` at `at`. */
  function bang(at: number, end: number): number {
    if (at + 4 > end) return INCOMPLETE;
    if (buf[at + 2] === DASH && buf[at + 3] === DASH) {
      const close = buf.indexOf('--', at + 4);
      if (close < 0 || close + 2 >= end) return INCOMPLETE;
      markupText(at + 4, close);
      if (buf[close + 2] !== GT) fail('malformed comment', close + 2);
      return close + 3;
    }
    if (at + 9 > end) return INCOMPLETE;
    if (buf.toString('latin1', at, at + 9) === '<![CDATA[') {
      if (phase !== CONTENT) fail('text data outside of root node', at + 8);
      const close = buf.indexOf(']]>', at + 9);
      if (close < 0) return INCOMPLETE;
      const ascii = markupText(at + 9, close);
      const wanted = events.wantsText();
      emitText(wanted, wanted ? normalizeLineEnds(decodeBytes(buf, at + 9, close, ascii)) : '');
      return close + 3;
    }
    if (buf.toString('latin1', at, at + 9) !== '<!DOCTYPE') return incorrectSyntax(at + 2, end);
    if (phase === PROLOG) return HAND_OVER;
    fail('inappropriately located doctype declaration', at + 8);
  }

  /** `<!` and no comment, CDATA or DOCTYPE: saxes names it at the seventh UTF-16 unit after `<!`. */
  function incorrectSyntax(from: number, end: number): number {
    let count = 0;
    for (let at = from; at < end; at += 1) {
      const byte = buf[at] as number;
      if (byte === LF || byte === CR) newline(at);
      if ((byte & 0xc0) === 0x80 || (byte === LF && buf[at - 1] === CR)) continue;
      // saxes counts UTF-16 code units here: a character beyond the BMP is two.
      count += byte >= 0xf0 ? 2 : 1;
      if (count >= 7) fail('incorrect syntax', at);
    }
    return INCOMPLETE;
  }

  /** A processing instruction inside the root or after it (before it, saxes takes the document). */
  function instruction(at: number, end: number): number {
    if (phase === PROLOG) return HAND_OVER;
    const stop = nameEnd(at + 2, end, 'disallowed character in processing instruction name');
    if (stop === INCOMPLETE || stop >= end) return INCOMPLETE;
    if (buf.toString('latin1', at + 2, stop).toLowerCase() === 'xml') {
      fail('an XML declaration must be at the start of the document', stop);
    }
    const close = buf.indexOf('?>', stop);
    if (close < 0) return INCOMPLETE;
    if (close > stop && !isXmlSpace(buf[stop])) fail('disallowed character in processing instruction name', stop);
    markupText(stop, close);
    return close + 2;
  }

  /** The document's start: a BOM, then the XML declaration (read here when it is the usual one). */
  function documentStart(end: number, final: boolean): number {
    if (end < 9 && !final) return INCOMPLETE;
    let at = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
    // A BOM is no character of the document: columns count from after it, as saxes (given the text without it) does.
    lineStart = base + at;
    if (buf.toString('latin1', at, at + 5) === '<?xml' && isXmlSpace(buf[at + 5])) {
      const close = buf.indexOf('?>', at);
      if (close < 0) return final ? HAND_OVER : INCOMPLETE;
      if (!DECLARATION.test(buf.toString('latin1', at, close + 2))) return HAND_OVER;
      for (let index = at; index < close; index += 1) if (buf[index] === LF || buf[index] === CR) newline(index);
      at = close + 2;
    }
    return at;
  }

  function markup(at: number, end: number): number {
    const next = buf[at + 1];
    if (next === SLASH) return closeTag(at, end);
    if (next === BANG) return bang(at, end);
    if (next === QUESTION) return instruction(at, end);
    return openTag(at, end);
  }

  /** Scans `buf` as far as complete tokens go; the index scanned to, or `HAND_OVER`. */
  function scan(final: boolean): number {
    const end = buf.length;
    let at = 0;
    if (atStart) {
      at = documentStart(end, final);
      if (at < 0) return at === INCOMPLETE ? 0 : HAND_OVER;
      atStart = false;
    }
    while (at < end) {
      if (buf[at] !== LT) {
        let lt = buf.indexOf(LT, at);
        if (lt < 0) {
          if (!final) return at;
          // Inside the root an element is still open: saxes reads the text's complete references, then names that.
          if (phase === CONTENT) {
            const amp = buf.lastIndexOf(AMP, end - 1);
            const cut = amp >= at && buf.indexOf(SEMICOLON, amp) < 0 ? amp : end;
            characterData(at, cut);
            endWithin(cut, end);
          }
          lt = end;
        }
        characterData(at, lt);
        at = lt;
        continue;
      }
      const savedLine = line;
      const savedLineStart = lineStart;
      const after = at + 1 < end ? markup(at, end) : INCOMPLETE;
      if (after === HAND_OVER) return HAND_OVER;
      if (after === INCOMPLETE) {
        line = savedLine;
        lineStart = savedLineStart;
        return final ? endWithin(at, end) : at;
      }
      at = after;
    }
    return at;
  }

  /** The document ended inside the token at `at`: what saxes would say first. */
  function endWithin(at: number, end: number): never {
    for (let index = at; index < end; index += 1) if (buf[index] === LF || buf[index] === CR) newline(index);
    // saxes counts the root as seen once its open tag's name is read, `>` or not.
    if (!sawRoot && rootNameRead(at, end)) fail('unexpected end', end - 1);
    finalChecks(end - 1);
    fail('unexpected end', end - 1);
  }

  function rootNameRead(at: number, end: number): boolean {
    const next = buf[at + 1];
    if (buf[at] !== LT || next === undefined || next === SLASH || next === BANG || next === QUESTION) return false;
    const stop = nameEnd(at + 1, end, 'disallowed character in tag name');
    return stop !== INCOMPLETE && stop < end;
  }

  function finalChecks(at: number): void {
    if (!sawRoot) fail('document must contain a root element', at);
    const open = stack.at(-1);
    if (open !== undefined) fail(`unclosed tag: ${open.name}`, at);
  }

  /** Drops the bytes up to `scanned` (carrying the column of a line that goes on), keeps the rest. */
  function keep(scanned: number): void {
    if (lineStart < base + scanned) {
      columnBase = (lineStart < base ? columnBase : 0) + codePoints(Math.max(0, lineStart - base), scanned);
    }
    base += scanned;
    waiting = scanned < buf.length ? [buf.subarray(scanned)] : [];
    waitingLength = buf.length - scanned;
    rescanAt = waitingLength * 2;
  }

  function joinWaiting(): Buffer {
    const joined = waiting.length === 1 ? (waiting[0] as Buffer) : Buffer.concat(waiting, waitingLength);
    waiting = [];
    waitingLength = 0;
    return joined;
  }

  return {
    write(bytes) {
      const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (prolog !== undefined) {
        prologLength += chunk.length;
        if (prologLength <= MAX_PROLOG_BYTES) prolog.push(chunk);
        else prolog = undefined;
      }
      waiting.push(chunk);
      waitingLength += chunk.length;
      if (waitingLength < rescanAt) return true;
      buf = joinWaiting();
      const scanned = scan(false);
      if (scanned === HAND_OVER) return handOver();
      keep(scanned);
      return true;
    },
    end() {
      buf = joinWaiting();
      if (scan(true) === HAND_OVER) return handOver();
      finalChecks(buf.length - 1);
      return true;
    },
    prologBytes: () => prolog ?? [],
  };

  function handOver(): false {
    if (prolog === undefined) {
      // Only a prolog of over 1 MiB gets here: its start is gone, so saxes cannot be given the document.
      fail('a DOCTYPE or processing instruction after more than 1 MiB of prolog is not supported', 0);
    }
    return false;
  }
}
