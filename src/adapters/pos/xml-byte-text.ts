import { TextDecoder } from 'node:util';
import { isForbiddenCharacter } from './xml-forbidden-characters.js';

/**
 * Byte-level pieces of the price-list scanner (`xml-byte-scanner.ts`): the classes of bytes, names,
 * references and the decoding of the few texts it reads. UTF-8 only: other encodings go to saxes
 * (docs/decisions/0021-price-list-byte-scanner.md).
 */

export const LT = 0x3c;
export const GT = 0x3e;
export const AMP = 0x26;
export const SEMICOLON = 0x3b;
export const SLASH = 0x2f;
export const QUESTION = 0x3f;
export const BANG = 0x21;
export const DASH = 0x2d;
export const BRACKET_CLOSE = 0x5d;
export const EQUALS = 0x3d;
export const QUOTE = 0x22;
export const APOSTROPHE = 0x27;
export const CR = 0x0d;
export const LF = 0x0a;

/** 1 for bytes a text run must look at (`&`, `]`, CR, controls, non-ASCII); 0 for the rest. */
export const TEXT_SPECIAL = new Uint8Array(256);
/** 1 for bytes a name may hold: ASCII name characters and every non-ASCII byte (checked decoded). */
export const NAME_BYTE = new Uint8Array(256);
/** 1 for the bytes that may start a name. */
export const NAME_START_BYTE = new Uint8Array(256);

for (let byte = 0; byte < 256; byte += 1) {
  const isControl = byte < 0x20 && byte !== 0x09 && byte !== LF;
  TEXT_SPECIAL[byte] = isControl || byte === AMP || byte === BRACKET_CLOSE || byte >= 0x80 ? 1 : 0;
  const letter = (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
  NAME_START_BYTE[byte] = letter || byte === 0x5f || byte === 0x3a || byte >= 0x80 ? 1 : 0;
  NAME_BYTE[byte] = NAME_START_BYTE[byte] || (byte >= 0x30 && byte <= 0x39) || byte === DASH || byte === 0x2e ? 1 : 0;
}

export function isXmlSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === LF || byte === 0x09 || byte === CR;
}

/** XML 1.0's `NameStartChar` and the further `NameChar`s, as character-class ranges (U+200C and U+200D are name characters there). */
const NAME_START_CHARACTERS =
  ':A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NAME_CHARACTERS = `${NAME_START_CHARACTERS}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;

/** XML 1.0's `Name`, for names with non-ASCII characters (ASCII ones are checked byte by byte). */
const NAME = new RegExp(`^[${NAME_START_CHARACTERS}][${NAME_CHARACTERS}]*$`, 'u');

export function isXmlName(text: string): boolean {
  return NAME.test(text);
}

/** XML 1.0's `Char`: what a character reference may name (a code point XML does not forbid). */
export function isXmlChar(code: number): boolean {
  return Number.isInteger(code) && code >= 0 && code <= 0x10ffff && !isForbiddenCharacter(code);
}

const utf8 = new TextDecoder('utf-8');

/**
 * Buffer's own latin1 slicer, which `toString('latin1', …)` calls after checking its arguments: called a
 * dozen times per item, the checks cost more than the copy (measured, decision 0021). `toString` where a
 * Node lacks it.
 */
const latin1Slice =
  (Buffer.prototype as unknown as { latin1Slice?: (this: Buffer, from: number, to: number) => string }).latin1Slice ??
  function (this: Buffer, from: number, to: number): string {
    return this.toString('latin1', from, to);
  };

/** The text of bytes `[from, to)`: a flat string, never a slice of the chunk (see `detach`). */
export function decodeBytes(bytes: Buffer, from: number, to: number, ascii: boolean): string {
  return ascii ? latin1Slice.call(bytes, from, to) : utf8.decode(bytes.subarray(from, to));
}

const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * The character a reference's name (between `&` and `;`) stands for, or the problem in saxes' words:
 * its messages are what operators and the tests have known since the first parser.
 */
export function resolveReference(name: string): { readonly text: string } | { readonly problem: string } {
  if (name === '') return { problem: 'empty entity name' };
  if (name.charCodeAt(0) !== 0x23) {
    const text = PREDEFINED[name];
    if (text !== undefined) return { text };
    return { problem: isXmlName(name) ? 'undefined entity' : 'disallowed character in entity name' };
  }
  let code = Number.NaN;
  if (/^#x[0-9a-f]+$/i.test(name) && name.charCodeAt(1) === 0x78) code = Number.parseInt(name.slice(2), 16);
  else if (/^#[0-9]+$/.test(name)) code = Number.parseInt(name.slice(1), 10);
  return isXmlChar(code) ? { text: String.fromCodePoint(code) } : { problem: 'malformed character entity' };
}

/** `\r\n` and a lone `\r` read as `\n`, as XML's end-of-line handling says. */
export function normalizeLineEnds(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/**
 * The bytes the UTF-8 decoder reads as one character at `at`: a valid sequence, or the maximal part of an
 * invalid one that it turns into one U+FFFD (the WHATWG decoder's rule). A sequence cut by `end` counts whole.
 */
export function utf8Length(bytes: Uint8Array, at: number, end: number): number {
  const lead = bytes[at] ?? 0;
  if (lead < 0xc2 || lead > 0xf4) return 1;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  if (at + length > end) return length;
  // The second byte's range is narrower after E0, ED, F0 and F4 (no overlong forms, surrogates, or > U+10FFFF).
  const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
  const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
  const second = bytes[at + 1] ?? 0;
  if (second < low || second > high) return 1;
  for (let index = 2; index < length; index += 1) {
    const next = bytes[at + index] ?? 0;
    if (next < 0x80 || next > 0xbf) return index;
  }
  return length;
}

/**
 * A character XML forbids whose first byte is at `at`, or -1: a C0 control other than TAB, LF, CR, or
 * U+FFFE / U+FFFF (EF BF BE / EF BF BF). Lone surrogates cannot come from UTF-8: the decoder makes U+FFFD.
 */
export function forbiddenAt(bytes: Buffer, at: number): number {
  const byte = bytes[at] ?? 0x20;
  if (byte < 0x20) return byte === 0x09 || byte === LF || byte === CR ? -1 : byte;
  if (byte === 0xef && bytes[at + 1] === 0xbf) {
    const last = bytes[at + 2];
    if (last === 0xbe) return 0xfffe;
    if (last === 0xbf) return 0xffff;
  }
  return -1;
}
