import { localUpperName } from './price-list-elements.js';
import { decodeBytes, isXmlName } from './xml-byte-text.js';

/**
 * Element and attribute names of the byte scanner, interned: a price list repeats a dozen names millions
 * of times, and looking their bytes up here makes no string per tag (measured hot, decision 0021). The
 * same string for the same bytes also lets a close tag be matched to its open tag by identity.
 */
export interface NameTable {
  /**
   * The name in bytes `[from, to)`, or `undefined` when a non-ASCII name is no XML name. `hash`: the bytes'
   * FNV-1a hash as the caller computed it while reading them (`NAME_HASH_*`), or -1.
   */
  intern(bytes: Buffer, from: number, to: number, hash: number): NameEntry | undefined;
}

export interface NameEntry {
  /** The name's bytes, a copy of their own. */
  readonly bytes: Buffer;
  readonly name: string;
  /** The local name (no prefix) upper-cased, as the price list matches names (made once per name). */
  readonly localUpper: string;
}

interface Entry extends NameEntry {
  readonly next: Entry | undefined;
  /** Entries in its slot from this one on. */
  readonly depth: number;
}

export const NAME_HASH_SEED = 0x811c9dc5 | 0;
export const NAME_HASH_PRIME = 0x01000193;

function hashOf(bytes: Buffer, from: number, to: number): number {
  let hash = NAME_HASH_SEED;
  for (let index = from; index < to; index += 1) hash = Math.imul(hash ^ (bytes[index] as number), NAME_HASH_PRIME);
  return hash;
}

const SLOTS = 1024;
/** Bounded, so a hostile document with millions of distinct names cannot grow it. */
const MAX_ENTRIES = 10_000;
/**
 * Names per slot: the hash is not secret, so a hostile document can put its names in one slot; past this many
 * they are decoded each time instead of searched for (linear, not quadratic).
 */
const MAX_CHAIN = 8;

export function createNameTable(): NameTable {
  const slots: (Entry | undefined)[] = new Array(SLOTS).fill(undefined);
  let entries = 0;

  function find(entry: Entry | undefined, bytes: Buffer, from: number, length: number): Entry | undefined {
    for (let candidate = entry; candidate !== undefined; candidate = candidate.next) {
      const known = candidate.bytes;
      if (known.length !== length) continue;
      let index = 0;
      while (index < length && known[index] === bytes[from + index]) index += 1;
      if (index === length) return candidate;
    }
    return undefined;
  }

  return {
    intern(bytes, from, to, knownHash) {
      const hash = knownHash === -1 ? hashOf(bytes, from, to) : knownHash;
      const slot = hash & (SLOTS - 1);
      const known = find(slots[slot], bytes, from, to - from);
      if (known !== undefined) return known;
      let ascii = true;
      for (let index = from; index < to; index += 1) if ((bytes[index] as number) >= 0x80) ascii = false;
      const name = decodeBytes(bytes, from, to, ascii);
      if (!ascii && !isXmlName(name)) return undefined;
      const next = slots[slot];
      const depth = (next?.depth ?? 0) + 1;
      const bytesOfName = Buffer.from(bytes.subarray(from, to));
      const entry: Entry = { bytes: bytesOfName, name, localUpper: localUpperName(name), next, depth };
      if (entries < MAX_ENTRIES && depth <= MAX_CHAIN) {
        slots[slot] = entry;
        entries += 1;
      }
      return entry;
    },
  };
}
