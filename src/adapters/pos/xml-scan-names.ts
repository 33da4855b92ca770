import { decodeBytes, GT, isXmlName, NAME_BYTE, NAME_START_BYTE, utf8Length } from './xml-byte-text.js';
import { NAME_HASH_PRIME, NAME_HASH_SEED, type NameEntry } from './xml-names.js';
import { fail, INCOMPLETE, type ScanState } from './xml-scan-state.js';

/** Names for the byte scanner (decision 0021): read as saxes reads them, interned, matched on bytes. */

/** A name starting at `at`: its end index, `INCOMPLETE`, or fails with `problem` when none starts there. */
export function nameEnd(state: ScanState, at: number, end: number, problem: string): number {
  if (at >= end) return INCOMPLETE;
  if (NAME_START_BYTE[state.buf[at] as number] === 0) fail(state, problem, at);
  const stop = nameCharactersEnd(state, at, end, true);
  if (stop === at) fail(state, problem, at);
  return stop;
}

/**
 * Where the name characters from `at` end (`end` at most; `startsName`: the first must start a name), as
 * saxes reads them: the first character that is none ends the name, and what follows decides the problem.
 * Hashes the name on the way (`state.nameHash`) for `nameEntry`.
 */
export function nameCharactersEnd(state: ScanState, at: number, end: number, startsName: boolean): number {
  const bytes = state.buf;
  let stop = at;
  let hash = NAME_HASH_SEED;
  let ascii = true;
  while (stop < end) {
    const byte = bytes[stop] as number;
    if (NAME_BYTE[byte] === 0) break;
    if (byte < 0x80) {
      hash = Math.imul(hash ^ byte, NAME_HASH_PRIME);
      stop += 1;
    } else {
      ascii = false;
      const length = nonAsciiNameCharacter(bytes, stop, end, startsName && stop === at);
      if (length === 0) break;
      stop += length;
    }
  }
  // A non-ASCII name (rare) is hashed by the name table itself (-1).
  state.nameHash = ascii ? hash : -1;
  return Math.min(stop, end);
}

/**
 * The length of the non-ASCII name character at `at`, 0 when it is none (a character cut by the chunk's end
 * counts as one: it is read again whole once more bytes came). An invalid sequence is U+FFFD, as the decoder
 * gives saxes, and U+FFFD is a name character.
 */
function nonAsciiNameCharacter(bytes: Buffer, at: number, end: number, first: boolean): number {
  const length = utf8Length(bytes, at, end);
  if (at + length > end) return length;
  const character = decodeBytes(bytes, at, at + length, false);
  return isXmlName(first ? character : `a${character}`) ? length : 0;
}

/** The entry of the name just read by `nameCharactersEnd` (its hash is `state.nameHash`). */
export function nameEntry(state: ScanState, from: number, to: number, problem: string): NameEntry {
  const entry = state.names.intern(state.buf, from, to, state.nameHash);
  if (entry === undefined) fail(state, problem, to - 1);
  return entry;
}

/** Whether the bytes from `from` are `known`'s and a `>` follows them: a close tag's usual form. */
export function closesWith(bytes: Buffer, known: Buffer, from: number, end: number): boolean {
  const length = known.length;
  if (from + length >= end || bytes[from + length] !== GT) return false;
  for (let index = 0; index < length; index += 1) if (known[index] !== bytes[from + index]) return false;
  return true;
}
