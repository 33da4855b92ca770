import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

/**
 * The name half of product search (`product-search.ts`): every word of a folded query in a product's
 * folded name, found by a leapfrog join over all names in one string, ranked, in slices, within a budget.
 */

/** What the name search reads of a search index: every name folded, each followed by `\n`, and where each starts. */
export interface NameIndex {
  readonly products: number;
  readonly names: string;
  readonly starts: Int32Array;
}

/**
 * What a stranger's query may cost (docs/security.md): the name search joins at most `maxWords` of its
 * words across all names (the longest: they narrow it most) and checks the rest only in the names those
 * found (`searchWords`), works in slices of `sliceMs` between which the event loop serves others, and
 * stops after `budgetMs` of its own work, saying so (`complete: false`).
 */
export const SEARCH_BOUNDS = { maxWords: 8, sliceMs: 4, budgetMs: 250 } as const;

/** The product whose name holds `offset` of `names`: the last one starting at or before it. */
function productAt(starts: Int32Array, products: number, offset: number): number {
  let low = 0;
  let high = products - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if ((starts[middle] as number) <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

function isWordChar(code: number): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90);
  return WORD_CHAR.test(String.fromCharCode(code));
}

/** Name ranks, best first: the name starts with the query; every query word starts a word; other. */
export const NAME_RANKS = 3;

/** The words of a query as the name search uses them (`searchWords`). */
export interface SearchWords {
  /** Looked for across all names, each occurrence read about once (the join): at most `maxWords`. */
  readonly joined: readonly string[];
  /** The rest of a longer query, checked in each name the joined words found. */
  readonly checked: readonly string[];
}

/**
 * The distinct words of a folded query, the longest `SEARCH_BOUNDS.maxWords` joined (they narrow the
 * search most), the rest (one-letter words first) only checked in the names those found: a query of 50
 * words costs the join of 8 plus a check per name found, and still needs every word in the name.
 *
 * @example searchWords('a b c d e f g h i kava') // { joined: ['kava', 'a', 'b', 'c', 'd', 'e', 'f', 'g'], checked: ['h', 'i'] }
 */
export function searchWords(phrase: string): SearchWords {
  const distinct = [...new Set(phrase.split(' ').filter((word) => word !== ''))];
  if (distinct.length <= SEARCH_BOUNDS.maxWords) return { joined: distinct, checked: [] };
  const byLength = distinct
    .map((word, order) => ({ word, order }))
    .sort((a, b) => b.word.length - a.word.length || a.order - b.order)
    .map(({ word }) => word);
  return { joined: byLength.slice(0, SEARCH_BOUNDS.maxWords), checked: byLength.slice(SEARCH_BOUNDS.maxWords) };
}

/** Whether `word` starts a word somewhere in `name`. */
function startsAWord(name: string, word: string): boolean {
  for (let at = name.indexOf(word); at !== -1; at = name.indexOf(word, at + 1)) {
    if (at === 0 || !isWordChar(name.charCodeAt(at - 1))) return true;
  }
  return false;
}

/** Checks of the clock in the name search: one per this many products looked at. */
const CLOCK_STRIDE = 64;

/**
 * The name search's own work: `tick()` yields to the event loop once the slice is spent, and answers
 * false once the whole budget is (the time between slices, others' work, is not counted).
 */
function createWorkClock(bounds: { readonly sliceMs: number; readonly budgetMs: number }) {
  let spentMs = 0;
  let sliceStart = performance.now();
  return {
    restart() {
      sliceStart = performance.now();
    },
    async tick(): Promise<boolean> {
      const sliceMs = performance.now() - sliceStart;
      if (spentMs + sliceMs >= bounds.budgetMs) return false;
      if (sliceMs < bounds.sliceMs) return true;
      spentMs += sliceMs;
      await yieldToEventLoop();
      sliceStart = performance.now();
      return true;
    },
  };
}

/**
 * Calls `visit` for every product whose name holds every word, in catalog order, with its rank. Each word
 * keeps the offset of its next occurrence; the product of the furthest one is the first that can hold
 * them all (a leapfrog join), so every word's occurrences are read about once, whatever its frequency.
 * Yields to the event loop every `sliceMs` of work; returns false when it stopped at `budgetMs`.
 */
export async function matchNames(
  index: NameIndex,
  { joined: words, checked }: SearchWords,
  phrase: string,
  visit: (position: number, rank: number) => void,
  bounds: { readonly sliceMs: number; readonly budgetMs: number },
): Promise<boolean> {
  const { names, starts, products } = index;
  if (products === 0 || words.length === 0) return true;
  const clock = createWorkClock(bounds);
  // On a turn of its own: searches queued one after another would otherwise run back to back.
  await yieldToEventLoop();
  clock.restart();
  // A word no name holds costs a scan of every name (~0.6 ms at 100,000 products): one per word, sliced.
  const next: number[] = [];
  for (const word of words) {
    const at = names.indexOf(word);
    if (at === -1) return true;
    next.push(at);
    if (!(await clock.tick())) return false;
  }
  const seek = (word: number, from: number): boolean => {
    if ((next[word] as number) >= from) return true;
    next[word] = names.indexOf(words[word] as string, from);
    return next[word] !== -1;
  };
  let cursor = 0;
  let steps = 0;
  while (cursor < names.length) {
    steps += 1;
    if (steps % CLOCK_STRIDE === 0 && !(await clock.tick())) return false;
    let furthest = 0;
    for (let word = 0; word < words.length; word += 1) {
      if (!seek(word, cursor)) return true;
      furthest = Math.max(furthest, next[word] as number);
    }
    const position = productAt(starts, products, furthest);
    const start = starts[position] as number;
    const end = (starts[position + 1] as number) - 1;
    let inName = true;
    for (let word = 0; word < words.length; word += 1) {
      if (!seek(word, start)) return true;
      if ((next[word] as number) >= end) inName = false;
    }
    // Each word's `next` is its first occurrence from this name's start on: one past its end is not in it.
    if (inName && (checked.length === 0 || holdsChecked(start, end))) visit(position, rankOf(start, end));
    cursor = end + 1;
  }
  return true;

  function holdsChecked(start: number, end: number): boolean {
    const name = names.slice(start, end);
    return checked.every((word) => name.includes(word));
  }

  function rankOf(start: number, end: number): number {
    if (names.startsWith(phrase, start)) return 0;
    if (checked.length > 0) {
      const name = names.slice(start, end);
      if (!checked.every((word) => startsAWord(name, word))) return 2;
    }
    for (let word = 0; word < words.length; word += 1) {
      let at = next[word] as number;
      while (at !== -1 && at < end && at !== start && isWordChar(names.charCodeAt(at - 1))) {
        at = names.indexOf(words[word] as string, at + 1);
      }
      // What the loop passed over holds no word start; an occurrence past this name is the word's next.
      next[word] = at;
      if (at === -1 || at >= end) return 2;
    }
    return 1;
  }
}
