import { articleCode, IDENTITY_KEYS, type IdentityArticle, type IdentityArticleList } from './identity-codes.js';
import type { IdentityKey } from './source.js';

/**
 * The lookup tables of one article list (identity rule 5): per key, normalized code → article position, in
 * typed arrays rather than `Map`s of strings. At 100,000 articles the four maps, their strings and the ids
 * took ~60 MiB of a thread's heap and ~100 ms to build per thread; these tables take ~12 MB, can live in
 * shared memory (built once per catalog family in the sync's thread, read by every thread), and are plain
 * data that crosses threads without a copy (decision 0012's chunks work the same way).
 *
 * Per key: an open-addressing table (`slots`, a power of two at most half full) of entries; each entry has
 * its code's hash, its UTF-16 code units (`chars` from `starts[e]` to `starts[e + 1]`; one byte each when
 * every code of the table is Latin-1, as codes, EANs and PLUs are: ~37 MB less at 1,000,000 articles) and its
 * value: the article's position, or `-2 - s` for the s-th code several articles share (their positions in
 * `sharedPositions` from `sharedStarts[s]` to `sharedStarts[s + 1]`).
 */

/** Lookup result: no article has the code. */
export const NO_ARTICLE = -1;
/** Lookup result: several articles have the code; it names none of them. */
export const SHARED_CODE = -2;

/** Codes' UTF-16 code units end to end: bytes when every one is under 256. */
export type CodeUnits = Uint8Array | Uint16Array;

export interface IdentityKeyTable {
  readonly entries: number;
  /** The shortest and longest code: a candidate outside them cannot match and is not hashed. */
  readonly minLength: number;
  readonly maxLength: number;
  /** Entry + 1 per slot; 0 is an empty slot. */
  readonly slots: Int32Array;
  readonly hashes: Int32Array;
  readonly starts: Int32Array;
  readonly chars: CodeUnits;
  readonly values: Int32Array;
  readonly sharedStarts: Int32Array;
  readonly sharedPositions: Int32Array;
}

export interface IdentityIndex {
  /** How many articles: positions are `0 .. size - 1`. */
  readonly size: number;
  /** Article ids (`localId`, as given) by position, as UTF-16 code units (bytes when all are Latin-1). */
  readonly idStarts: Int32Array;
  readonly idChars: CodeUnits;
  readonly tables: Readonly<Record<IdentityKey, IdentityKeyTable>>;
}

export interface IdentityIndexOptions {
  /** The keys to index (all by default): rows resolved by one fixed key need no tables of the others. */
  readonly keys?: readonly IdentityKey[];
  /** Typed arrays over `SharedArrayBuffer`s, so that worker threads read the index without a copy. */
  readonly shared?: boolean;
  /** How many articles to expect (the tables grow past it). */
  readonly expected?: number;
}

export interface IdentityIndexBuilder {
  /** Adds the next article: its position is the number of articles added before it. */
  add(article: IdentityArticle): void;
  finish(): IdentityIndex;
}

/** Builds the tables of `articles` at once, O(n); articles keep their position as their index. */
export function createIdentityIndex(
  articles: readonly IdentityArticle[] | IdentityArticleList,
  keys: readonly IdentityKey[] = IDENTITY_KEYS,
  options: Pick<IdentityIndexOptions, 'shared'> = {},
): IdentityIndex {
  const builder = createIdentityIndexBuilder({ ...options, keys, expected: articles.length });
  if ('article' in articles) {
    for (let position = 0; position < articles.length; position += 1) builder.add(articles.article(position));
  } else {
    for (const article of articles) builder.add(article);
  }
  return builder.finish();
}

/** A builder that takes articles one at a time (e.g. a slice of products between two yields). */
export function createIdentityIndexBuilder(options: IdentityIndexOptions = {}): IdentityIndexBuilder {
  const keys = options.keys ?? IDENTITY_KEYS;
  const expected = Math.max(16, options.expected ?? 0);
  const tables = {
    localId: createKeyTableBuilder(keys.includes('localId') ? expected : 0),
    internalIdentifier: createKeyTableBuilder(keys.includes('internalIdentifier') ? expected : 0),
    plu: createKeyTableBuilder(keys.includes('plu') ? expected : 0),
    ean: createKeyTableBuilder(keys.includes('ean') ? expected : 0),
  };
  const ids = createCodeList(expected);
  let size = 0;
  return {
    add(article) {
      const position = size;
      size += 1;
      ids.push(article.localId);
      for (const key of keys) {
        const code = articleCode(key, article);
        if (code !== undefined) tables[key].add(code, position);
      }
    },
    finish() {
      const copy = copier(options.shared === true);
      return {
        size,
        idStarts: copy.int32(ids.starts, size + 1),
        idChars: copy.codeUnits(ids),
        tables: {
          localId: tables.localId.finish(copy),
          internalIdentifier: tables.internalIdentifier.finish(copy),
          plu: tables.plu.finish(copy),
          ean: tables.ean.finish(copy),
        },
      };
    },
  };
}

/** The article id at `position` (`''` outside the index). */
export function identityIdAt(index: IdentityIndex, position: number): string {
  if (position < 0 || position >= index.size) return '';
  return textOf(index.idChars, index.idStarts[position] ?? 0, index.idStarts[position + 1] ?? 0);
}

/** Whether the article id at `position` is `id` (without making the id's string). */
export function isIdentityId(index: IdentityIndex, position: number, id: string): boolean {
  if (position < 0 || position >= index.size) return false;
  return sameCode(index.idChars, index.idStarts[position] ?? 0, index.idStarts[position + 1] ?? 0, id);
}

/** Whether any article has a code under `key`. */
export function hasIdentityKey(index: IdentityIndex, key: IdentityKey): boolean {
  return index.tables[key].entries > 0;
}

/** The article a normalized `code` names under `key`: its position, `NO_ARTICLE` or `SHARED_CODE`. */
export function findIdentityCode(index: IdentityIndex, key: IdentityKey, code: string): number {
  const entry = findEntry(index.tables[key], code);
  if (entry < 0) return NO_ARTICLE;
  const value = index.tables[key].values[entry] ?? NO_ARTICLE;
  return value >= 0 ? value : SHARED_CODE;
}

/** Where a lookup under one key starts looking (`entry`, a guess) and what it found last. */
export interface EntryCursor {
  /** The entry compared first (−1: none); after a lookup that found one, the entry after it. */
  entry: number;
}

/**
 * `findIdentityCode` of the normalized code held in `units[start, end)` (`normalizeCodeUnits`), without
 * making its string. The code is compared first with `cursor.entry`: a document whose rows follow the article
 * list names, row after row, the entries the articles made in that order, so the guess saves the hash and the
 * table's scattered reads (its cache misses, at a million entries). The result is the table's either way.
 */
export function findIdentityUnits(
  index: IdentityIndex,
  key: IdentityKey,
  units: Uint16Array,
  start: number,
  end: number,
  cursor: EntryCursor,
): number {
  const table = index.tables[key];
  const length = end - start;
  if (table.entries === 0 || length < table.minLength || length > table.maxLength) return NO_ARTICLE;
  const guess = cursor.entry;
  let entry = guess >= 0 && guess < table.entries && sameUnits(table, guess, units, start, end) ? guess : -1;
  if (entry < 0) entry = hashedEntry(table, units, start, end);
  if (entry < 0) return NO_ARTICLE;
  cursor.entry = entry + 1;
  const value = table.values[entry] ?? NO_ARTICLE;
  return value >= 0 ? value : SHARED_CODE;
}

function hashedEntry(table: IdentityKeyTable, units: Uint16Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let at = start; at < end; at += 1) hash = Math.imul(hash ^ (units[at] ?? 0), 0x01000193);
  hash = mixed(hash);
  const mask = table.slots.length - 1;
  for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
    const stored = table.slots[slot] ?? 0;
    if (stored === 0) return -1;
    const entry = stored - 1;
    if (table.hashes[entry] === hash && sameUnits(table, entry, units, start, end)) return entry;
  }
}

function sameUnits(table: IdentityKeyTable, entry: number, units: Uint16Array, start: number, end: number): boolean {
  const from = table.starts[entry] ?? 0;
  if ((table.starts[entry + 1] ?? 0) - from !== end - start) return false;
  const chars = table.chars;
  for (let at = start; at < end; at += 1) {
    if (chars[from + at - start] !== units[at]) return false;
  }
  return true;
}

/** Every article a normalized `code` names under `key`, in the order they were added. */
export function identityPositions(index: IdentityIndex, key: IdentityKey, code: string): number[] {
  const table = index.tables[key];
  const entry = findEntry(table, code);
  if (entry < 0) return [];
  const value = table.values[entry] ?? NO_ARTICLE;
  if (value >= 0) return [value];
  const shared = -2 - value;
  return Array.from(table.sharedPositions.subarray(table.sharedStarts[shared] ?? 0, table.sharedStarts[shared + 1] ?? 0));
}

function findEntry(table: IdentityKeyTable, code: string): number {
  if (table.entries === 0 || code.length < table.minLength || code.length > table.maxLength) return -1;
  const hash = hashOf(code);
  const mask = table.slots.length - 1;
  for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
    const stored = table.slots[slot] ?? 0;
    if (stored === 0) return -1;
    const entry = stored - 1;
    if (table.hashes[entry] === hash && sameCode(table.chars, table.starts[entry] ?? 0, table.starts[entry + 1] ?? 0, code)) {
      return entry;
    }
  }
}

/** FNV-1a over the code units, then mixed (murmur3's finalizer) so that the low bits pick slots well. */
function hashOf(code: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < code.length; index += 1) hash = Math.imul(hash ^ code.charCodeAt(index), 0x01000193);
  return mixed(hash);
}

/** The hash's finalizer (`hashOf`, `findIdentityUnits`). */
function mixed(fnv: number): number {
  let hash = fnv;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash | 0;
}

function sameCode(chars: CodeUnits, start: number, end: number, code: string): boolean {
  if (end - start !== code.length) return false;
  for (let index = 0; index < code.length; index += 1) {
    if (chars[start + index] !== code.charCodeAt(index)) return false;
  }
  return true;
}

function textOf(chars: CodeUnits, start: number, end: number): string {
  let text = '';
  // In pieces: `String.fromCharCode` takes its code units as arguments.
  for (let from = start; from < end; from += 4_096) {
    text += String.fromCharCode(...chars.subarray(from, Math.min(end, from + 4_096)));
  }
  return text;
}

/**
 * Growing arrays of codes: their UTF-16 code units end to end, and where each starts; `unitBits` is every
 * unit OR-ed together (under 256: all Latin-1), gathered as they are stored rather than in a pass at the end.
 */
function createCodeList(expected: number) {
  const list = {
    starts: new Int32Array(expected + 1),
    chars: new Uint16Array(expected * 8),
    count: 0,
    unitBits: 0,
    charCount: () => list.starts[list.count] ?? 0,
    push(code: string): void {
      const start = list.charCount();
      if (list.count + 2 > list.starts.length) list.starts = grown(list.starts, list.count + 2);
      if (start + code.length > list.chars.length) list.chars = grown(list.chars, start + code.length);
      for (let index = 0; index < code.length; index += 1) {
        const unit = code.charCodeAt(index);
        list.chars[start + index] = unit;
        list.unitBits |= unit;
      }
      list.count += 1;
      list.starts[list.count] = start + code.length;
    },
  };
  return list;
}

function createKeyTableBuilder(expected: number) {
  const codes = createCodeList(expected);
  let slots = new Int32Array(slotCountFor(expected));
  let hashes = new Int32Array(expected);
  let values = new Int32Array(expected);
  /** Entries several articles share → their positions. */
  const shared = new Map<number, number[]>();
  let minLength = Number.POSITIVE_INFINITY;
  let maxLength = 0;

  function insert(hash: number, entry: number): void {
    const mask = slots.length - 1;
    let slot = hash & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = entry + 1;
  }

  return {
    add(code: string, position: number): void {
      const hash = hashOf(code);
      const mask = slots.length - 1;
      for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
        const stored = slots[slot] ?? 0;
        if (stored === 0) break;
        const entry = stored - 1;
        if (hashes[entry] !== hash || !sameCode(codes.chars, codes.starts[entry] ?? 0, codes.starts[entry + 1] ?? 0, code)) {
          continue;
        }
        const existing = values[entry] ?? NO_ARTICLE;
        if (existing === position) return;
        const positions = shared.get(entry);
        if (positions === undefined) shared.set(entry, [existing, position]);
        else positions.push(position);
        values[entry] = SHARED_CODE;
        return;
      }
      const entry = codes.count;
      codes.push(code);
      if (entry >= hashes.length) {
        hashes = grown(hashes, entry + 1);
        values = grown(values, entry + 1);
      }
      hashes[entry] = hash;
      values[entry] = position;
      if (code.length < minLength) minLength = code.length;
      if (code.length > maxLength) maxLength = code.length;
      if ((entry + 1) * 2 > slots.length) {
        slots = new Int32Array(slots.length * 2);
        for (let each = 0; each <= entry; each += 1) insert(hashes[each] ?? 0, each);
      } else {
        insert(hash, entry);
      }
    },
    finish(copy: Copier): IdentityKeyTable {
      const entries = codes.count;
      const sharedStarts = new Int32Array(shared.size + 1);
      const sharedPositions: number[] = [];
      let next = 0;
      for (const [entry, positions] of shared) {
        values[entry] = -2 - next;
        for (const position of positions) sharedPositions.push(position);
        next += 1;
        sharedStarts[next] = sharedPositions.length;
      }
      return {
        entries,
        minLength: entries === 0 ? 0 : minLength,
        maxLength,
        slots: copy.int32(entries === 0 ? new Int32Array(1) : slots, entries === 0 ? 1 : slots.length),
        hashes: copy.int32(hashes, entries),
        starts: copy.int32(codes.starts, entries + 1),
        chars: copy.codeUnits(codes),
        values: copy.int32(values, entries),
        sharedStarts: copy.int32(sharedStarts, sharedStarts.length),
        sharedPositions: copy.int32(Int32Array.from(sharedPositions), sharedPositions.length),
      };
    },
  };
}

/** A power of two at least twice `entries` (a table at most half full probes ~1.5 slots a miss). */
function slotCountFor(entries: number): number {
  let count = 16;
  while (count < entries * 2) count *= 2;
  return count;
}

function grown<T extends Int32Array | Uint16Array>(array: T, needed: number): T {
  let length = Math.max(16, array.length * 2);
  while (length < needed) length *= 2;
  const larger = (array instanceof Int32Array ? new Int32Array(length) : new Uint16Array(length)) as T;
  larger.set(array);
  return larger;
}

interface Copier {
  int32(source: Int32Array, length: number): Int32Array;
  /** The code list's units: bytes when every one is under 256, else UTF-16 code units. */
  codeUnits(list: { readonly chars: Uint16Array; readonly unitBits: number; charCount(): number }): CodeUnits;
}

/** Exact-length copies of the builder's arrays, in shared memory when asked. */
function copier(shared: boolean): Copier {
  const buffer = (bytes: number) => (shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
  return {
    int32(source, length) {
      const copy = new Int32Array(buffer(length * 4));
      copy.set(source.subarray(0, length));
      return copy;
    },
    codeUnits(list) {
      const length = list.charCount();
      const copy = list.unitBits < 256 ? new Uint8Array(buffer(length)) : new Uint16Array(buffer(length * 2));
      copy.set(list.chars.subarray(0, length));
      return copy;
    },
  };
}
