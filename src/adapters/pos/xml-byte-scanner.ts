import { AMP, BANG, LT, QUESTION, SEMICOLON, SLASH } from './xml-byte-text.js';
import { bang, documentStart, instruction } from './xml-scan-markup.js';
import { nameEnd } from './xml-scan-names.js';
import {
  advanceBase,
  CONTENT,
  countLineEnds,
  createScanState,
  fail,
  HAND_OVER,
  INCOMPLETE,
  type ScanState,
  type XmlByteEvents,
} from './xml-scan-state.js';
import { closeTag, openTag } from './xml-scan-tags.js';
import { characterData } from './xml-scan-text.js';

export type { XmlByteEvents } from './xml-scan-state.js';

/**
 * A well-formedness-checking XML scanner over UTF-8 bytes, for the price list's hot path
 * (docs/decisions/0021-price-list-byte-scanner.md). It decodes only the texts its reader asks for and the
 * names of elements (interned), so a 360 MB document is read without turning it into a string first.
 * What it does not handle (a DOCTYPE, a processing instruction or an unusual XML declaration before the
 * root) it hands over to saxes, which the prolog's bytes are kept for. Problems are reported in saxes'
 * words with line and column, as the saxes-based parser reports them.
 *
 * Its parts: `xml-scan-state.ts` (state, positions, errors), `xml-scan-text.ts` (character data, references),
 * `xml-scan-names.ts`, `xml-scan-tags.ts`, `xml-scan-markup.ts` (comments, CDATA, instructions, declaration).
 */
export interface XmlByteScanner {
  /**
   * Scans a chunk. `false`: the document needs the general parser, given `prologBytes()` (nothing was emitted).
   * The chunk is held as it is, not copied, until scanned: its buffer must not be reused after.
   */
  write(bytes: Uint8Array): boolean;
  /** The end of the document: the final checks (`false`: hand over, as for `write`). Throws `PriceListParseError`. */
  end(): boolean;
  prologBytes(): readonly Uint8Array[];
}

/** A prolog longer than this is not kept for a hand-over to saxes (a real one is a few hundred bytes). */
const MAX_PROLOG_BYTES = 1 << 20;

export function createXmlByteScanner(events: XmlByteEvents): XmlByteScanner {
  const state = createScanState(events);
  let atStart = true;
  /** Bytes not scanned yet, from the start of an incomplete token; joined only when scanned again. */
  let waiting: Buffer[] = [];
  let waitingLength = 0;
  /** An incomplete token is scanned again only once this many bytes wait, so a huge one costs linear time. */
  let rescanAt = 0;
  /** Every chunk since the document's start, while its prolog lasts: what a hand-over gives saxes. */
  let prolog: Uint8Array[] | undefined = [];

  /** Scans `state.buf` as far as complete tokens go: the index scanned to, or `HAND_OVER`. */
  function scan(final: boolean): number {
    let at = 0;
    if (atStart) {
      at = documentStart(state, state.buf.length, final);
      if (at < 0) return at === INCOMPLETE ? 0 : HAND_OVER;
      atStart = false;
    }
    const { buf } = state;
    const end = buf.length;
    while (at < end) {
      if (buf[at] !== LT) {
        const lt = buf.indexOf(LT, at);
        if (lt < 0 && !final) return at;
        if (lt < 0 && state.phase === CONTENT) endInText(at, end);
        characterData(state, at, lt < 0 ? end : lt);
        at = lt < 0 ? end : lt;
        continue;
      }
      const { line, lineStart } = state;
      const after = at + 1 < end ? markup(state, at, end) : INCOMPLETE;
      if (after === HAND_OVER) return HAND_OVER;
      if (after === INCOMPLETE) {
        // Scanned again whole once more bytes came: the line ends it counted so far are counted then.
        state.line = line;
        state.lineStart = lineStart;
        return final ? endWithin(at, end) : at;
      }
      at = after;
    }
    return at;
  }

  /** The document ended in text inside the root: saxes reads the text's complete references, then names the open element. */
  function endInText(at: number, end: number): never {
    const { buf } = state;
    const amp = buf.lastIndexOf(AMP, end - 1);
    const cut = amp >= at && buf.indexOf(SEMICOLON, amp) < 0 ? amp : end;
    characterData(state, at, cut);
    return endWithin(cut, end);
  }

  /** The document ended inside the token at `at`: what saxes would say first. */
  function endWithin(at: number, end: number): never {
    countLineEnds(state, at, end);
    // saxes counts the root as seen once its open tag's name is read, `>` or not.
    if (!state.sawRoot && rootNameRead(at, end)) fail(state, 'unexpected end', end - 1);
    finalChecks(end - 1);
    return fail(state, 'unexpected end', end - 1);
  }

  function rootNameRead(at: number, end: number): boolean {
    const { buf } = state;
    const next = buf[at + 1];
    if (buf[at] !== LT || next === undefined || next === SLASH || next === BANG || next === QUESTION) return false;
    const stop = nameEnd(state, at + 1, end, 'disallowed character in tag name');
    return stop !== INCOMPLETE && stop < end;
  }

  function finalChecks(at: number): void {
    if (!state.sawRoot) fail(state, 'document must contain a root element', at);
    const open = state.stack.at(-1);
    if (open !== undefined) fail(state, `unclosed tag: ${open.name}`, at);
  }

  /** Drops the bytes up to `scanned`, keeps the rest for the next chunk. */
  function keep(scanned: number): void {
    advanceBase(state, scanned);
    const { buf } = state;
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

  function handOver(): false {
    if (prolog === undefined) {
      // Only a prolog of over 1 MiB gets here: its start is gone, so saxes cannot be given the document.
      fail(state, 'a DOCTYPE or processing instruction after more than 1 MiB of prolog is not supported', 0);
    }
    return false;
  }

  return {
    write(bytes) {
      const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      prolog?.push(chunk);
      waiting.push(chunk);
      waitingLength += chunk.length;
      if (waitingLength < rescanAt) return true;
      state.buf = joinWaiting();
      const scanned = scan(false);
      if (scanned === HAND_OVER) return handOver();
      keep(scanned);
      // Once the root is open nothing is handed over: the prolog's bytes are not needed. Nor are they kept
      // past 1 MiB of prolog scanned (a chunk of any size holding the root is kept whole until scanned).
      if (state.sawRoot || state.base > MAX_PROLOG_BYTES) prolog = undefined;
      return true;
    },
    end() {
      state.buf = joinWaiting();
      if (scan(true) === HAND_OVER) return handOver();
      finalChecks(state.buf.length - 1);
      return true;
    },
    prologBytes: () => prolog ?? [],
  };
}

function markup(state: ScanState, at: number, end: number): number {
  const next = state.buf[at + 1];
  if (next === SLASH) return closeTag(state, at, end);
  if (next === BANG) return bang(state, at, end);
  if (next === QUESTION) return instruction(state, at, end);
  return openTag(state, at, end);
}
