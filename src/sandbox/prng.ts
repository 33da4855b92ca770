/**
 * Small deterministic number generators. The sandbox derives every piece of demo data from a hash of
 * (seed, salt, index) so article i can be produced on demand without generating articles 0..i-1 first:
 * that keeps the start instant even with a million articles.
 */

function rotl32(value: number, bits: number): number {
  return (value << bits) | (value >>> (32 - bits));
}

function fmix32(input: number): number {
  let h = input;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** MurmurHash3-style mix of 32-bit integers into one unsigned 32-bit value. */
export function hash32(...parts: readonly number[]): number {
  let h = 0x9747b28c ^ parts.length;
  for (const part of parts) {
    let k = Math.imul(part | 0, 0xcc9e2d51);
    k = rotl32(k, 15);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = rotl32(h, 13);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  return fmix32(h);
}

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/**
 * mulberry32: tiny, fast and good enough for demo data and fault rates. A class, because one is created
 * per generated article and prototype methods cost nothing per instance (closures would).
 */
class Mulberry32 implements Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick() from an empty list');
    return item;
  }
}

export function createRandom(seed: number): Random {
  return new Mulberry32(seed);
}

/** A MongoDB-ObjectId-like id (24 lowercase hex digits), deterministic in its inputs. */
export function hex24(...parts: readonly number[]): string {
  let out = '';
  for (let word = 0; word < 3; word++)
    out += hash32(...parts, word)
      .toString(16)
      .padStart(8, '0');
  return out;
}

/** An RFC 4122 version-4-shaped UUID, deterministic in its inputs. */
export function uuidFrom(...parts: readonly number[]): string {
  const hex =
    hex24(...parts) +
    hash32(...parts, 99)
      .toString(16)
      .padStart(8, '0');
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Rounds to two decimals (money), avoiding 1.005-style binary surprises as far as doubles allow. */
export function round2(value: number): number {
  return Math.round((value + Number.EPSILON) * 100) / 100;
}
