/**
 * Product search (docs/console.md#finding-a-product) at scale: the index of a 100,000-product catalog and
 * the latency of searches in it.
 *
 *   npx tsx bench/product-search.ts [--products 100000] [--units 5] [--builds 3] [--queries 4000]
 *
 * The catalog is the sandbox's (Czech names with diacritics, EANs, PLUs, codes), built straight from its
 * generator (`sandbox-snapshot.ts`). Then:
 * - **build**: `buildProductSearchIndex` `--builds` times on the main thread, as the app builds it on the
 *   first search of a catalog family: wall and CPU time, and how long the event loop waited at worst
 *   (a `setImmediate` chain runs beside the build: the longest gap between two of its turns is the longest
 *   stretch nothing else could run). V8's garbage-collection pauses in the build (`PerformanceObserver`,
 *   `gc`) are reported apart, and so is the longest gap less the collections inside it: the build's own
 *   longest slice. The first build runs on a cold JIT.
 * - **memory**: what the index keeps alive, with forced full collections (`gc` exposed at run time, as
 *   `src/workers/collect-garbage.ts` does) before the first build and after it: the change of V8's used
 *   heap plus array buffers (the offsets are an `Int32Array`), and of RSS (coarser: pages the heap keeps).
 *   The names string and the offsets are counted exactly. Codes are looked up in the family index
 *   (`family-index.ts`), which the bridge builds for every served family anyway (before the search index:
 *   it is not counted in the search's); its cost is measured the same way, for comparison.
 * - **search**: `--queries` queries as people type them, drawn with a fixed seed from the catalog: whole
 *   names without diacritics, name prefixes, a word from inside a name, two words, EANs (also without
 *   their leading zeros), PLUs, internal identifiers in lower case, ids, misses, and one-letter queries
 *   (the worst case: almost every product matches). Each query once with `limit` 20 (the API's default)
 *   after an unmeasured warm-up pass; latency p50/p99/max per kind and over all, and products found.
 * Prints one JSON object.
 */
import os from 'node:os';
import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { CatalogSnapshot } from '../src/core/catalog/catalog.js';
import { buildFamilyIndex, type FamilyIndex } from '../src/core/catalog/family-index.js';
import { buildProductSearchIndex, type ProductSearchIndex, searchProducts } from '../src/core/catalog/product-search.js';
import { createRandom, type Random } from '../src/sandbox/prng.js';
import { createGarbageCollector } from '../src/workers/collect-garbage.js';
import { sandboxSnapshot } from './sandbox-snapshot.js';

const { values: flags } = parseArgs({
  options: {
    products: { type: 'string', default: '100000' },
    units: { type: 'string', default: '5' },
    builds: { type: 'string', default: '3' },
    queries: { type: 'string', default: '4000' },
  },
  strict: true,
});
const PRODUCTS = Number(flags.products);
const UNITS = Number(flags.units);
const BUILDS = Number(flags.builds);
const QUERIES = Number(flags.queries);
const LIMIT = 20;

const mib = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;
const round = (ms: number, digits = 2): number => Math.round(ms * 10 ** digits) / 10 ** digits;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const collect = createGarbageCollector();
function settledMemory() {
  collect();
  collect();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed + usage.arrayBuffers, rss: usage.rss };
}

interface BuildRun {
  readonly wallMs: number;
  readonly cpuMs: number;
  /** Longest wait of the event loop during the build (two turns of a `setImmediate` chain). */
  readonly longestGapMs: number;
  /** The same less the GC pauses inside that gap: the build's own longest synchronous slice. */
  readonly longestSliceWithoutGcMs: number;
  readonly gcPauses: number;
  readonly longestGcPauseMs: number;
  readonly gcTotalMs: number;
  readonly turns: number;
}

async function measureBuild(
  snapshot: CatalogSnapshot,
  codes: FamilyIndex,
): Promise<{ index: ProductSearchIndex; run: BuildRun }> {
  const pauses: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => pauses.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  const gaps: { start: number; end: number }[] = [];
  let running = true;
  const ticker = (async () => {
    let last = performance.now();
    while (running) {
      await yieldToEventLoop();
      const now = performance.now();
      gaps.push({ start: last, end: now });
      last = now;
    }
  })();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const index = await buildProductSearchIndex(snapshot, codes);
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  running = false;
  await ticker;
  // Entries are delivered after the event loop turns.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  const inBuild = pauses.filter((pause) => pause.startTime >= started && pause.startTime <= started + wallMs);
  const gcWithin = (gap: { start: number; end: number }) =>
    inBuild
      .filter((pause) => pause.startTime >= gap.start && pause.startTime < gap.end)
      .reduce((sum, pause) => sum + pause.duration, 0);
  const lengths = gaps.map((gap) => ({ gap: gap.end - gap.start, own: gap.end - gap.start - gcWithin(gap) }));
  return {
    index,
    run: {
      wallMs: round(wallMs, 1),
      cpuMs: Math.round((used.user + used.system) / 1000),
      longestGapMs: round(Math.max(...lengths.map((entry) => entry.gap)), 1),
      longestSliceWithoutGcMs: round(Math.max(...lengths.map((entry) => entry.own)), 1),
      gcPauses: inBuild.length,
      longestGcPauseMs: round(Math.max(0, ...inBuild.map((pause) => pause.duration)), 1),
      gcTotalMs: round(
        inBuild.reduce((sum, pause) => sum + pause.duration, 0),
        1,
      ),
      turns: gaps.length,
    },
  };
}

type QueryKind =
  | 'name'
  | 'name-prefix'
  | 'word-inside'
  | 'two-words'
  | 'ean'
  | 'ean-no-zeros'
  | 'plu'
  | 'code'
  | 'id'
  | 'miss'
  | 'one-letter';

const withoutDiacritics = (text: string): string => text.normalize('NFD').replace(/\p{M}/gu, '');

/** A query of `kind` as a person would type it, for a product drawn from the catalog. */
function queryOf(kind: QueryKind, snapshot: CatalogSnapshot, random: Random): string {
  const product = random.pick(snapshot.products);
  const plainName = withoutDiacritics(product.name).toLowerCase();
  const words = plainName.split(' ').filter((word) => word.length > 2);
  switch (kind) {
    case 'name':
      return plainName;
    case 'name-prefix':
      return plainName.slice(0, random.int(3, 8)).trim();
    case 'word-inside': {
      const word = random.pick(words.length > 0 ? words : [plainName]);
      return word.slice(random.int(0, Math.max(0, word.length - 3)));
    }
    case 'two-words':
      return words.length < 2 ? plainName : `${words[0]} ${words[words.length - 1]}`;
    case 'ean':
      return product.ean ?? plainName;
    case 'ean-no-zeros':
      return product.ean?.replace(/^0+/, '') ?? plainName;
    case 'plu':
      return String(product.plu ?? product.id);
    case 'code':
      return (product.internalIdentifier ?? product.id).toLowerCase();
    case 'id':
      return product.id;
    case 'miss':
      return random.chance(0.5) ? `xq${random.int(100, 999)}z` : `85${random.int(10_000_000, 99_999_999)}999`;
    case 'one-letter':
      return random.pick(['a', 'e', 'k', 's']);
  }
}

/** Kinds in the mix, with their weights: mostly names and their parts, codes as scanners give them. */
const MIX: readonly (readonly [QueryKind, number])[] = [
  ['name', 10],
  ['name-prefix', 20],
  ['word-inside', 15],
  ['two-words', 15],
  ['ean', 10],
  ['ean-no-zeros', 3],
  ['plu', 7],
  ['code', 7],
  ['id', 5],
  ['miss', 6],
  ['one-letter', 2],
];

function drawQueries(snapshot: CatalogSnapshot, count: number): { kind: QueryKind; q: string }[] {
  const random = createRandom(7);
  const weights = MIX.reduce((sum, [, weight]) => sum + weight, 0);
  const queries: { kind: QueryKind; q: string }[] = [];
  for (let i = 0; i < count; i++) {
    let roll = random.next() * weights;
    let kind: QueryKind = 'name';
    for (const [candidate, weight] of MIX) {
      roll -= weight;
      if (roll < 0) {
        kind = candidate;
        break;
      }
    }
    queries.push({ kind, q: queryOf(kind, snapshot, random) });
  }
  return queries;
}

function hasWideChar(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return true;
  return false;
}

function summarize(samples: readonly { ms: number; cpuMs: number; total: number }[]) {
  const sorted = samples.map((sample) => sample.ms).sort((a, b) => a - b);
  const cpu = samples.map((sample) => sample.cpuMs).sort((a, b) => a - b);
  return {
    queries: samples.length,
    p50Ms: round(percentile(sorted, 50), 3),
    p99Ms: round(percentile(sorted, 99), 3),
    maxMs: round(sorted[sorted.length - 1] ?? 0, 3),
    // CPU time of the process per query: what a busy machine's scheduling does not stretch.
    cpuP99Ms: round(percentile(cpu, 99), 3),
    cpuMaxMs: round(cpu[cpu.length - 1] ?? 0, 3),
    medianFound: [...samples.map((sample) => sample.total)].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? 0,
  };
}

const snapshot = sandboxSnapshot({ products: PRODUCTS, units: UNITS });
const loadAtStart = os.loadavg();

// The family index first: the bridge has it for every served family before anyone searches.
const beforeFamily = settledMemory();
const codes = await buildFamilyIndex(snapshot);
const afterFamily = settledMemory();

const before = settledMemory();
const first = await measureBuild(snapshot, codes);
const after = settledMemory();
const { index } = first;
// One byte per character unless a name keeps a character above U+00FF after folding.
const bytesPerChar = hasWideChar(index.names) ? 2 : 1;
const namesBytes = index.names.length * bytesPerChar;
const retainedBytes = after.heap - before.heap;

const builds: BuildRun[] = [first.run];
for (let build = 1; build < BUILDS; build++) builds.push((await measureBuild(snapshot, codes)).run);

const queries = drawQueries(snapshot, QUERIES);
for (const { q } of queries.slice(0, 200)) await searchProducts(index, q, LIMIT);
const samples: { kind: QueryKind; ms: number; cpuMs: number; total: number }[] = [];
for (const { kind, q } of queries) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  // Unsliced (one stretch, as before the search yielded): the query's own time, not the event loop's.
  const { total } = await searchProducts(index, q, LIMIT, {
    sliceMs: Number.POSITIVE_INFINITY,
    budgetMs: Number.POSITIVE_INFINITY,
  });
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  samples.push({ kind, ms, cpuMs: (used.user + used.system) / 1000, total });
}

process.stdout.write(
  `${JSON.stringify(
    {
      node: process.version,
      products: PRODUCTS,
      units: UNITS,
      loadAverage: {
        start: loadAtStart.map((load) => Math.round(load * 10) / 10),
        end: os.loadavg().map((load) => Math.round(load * 10) / 10),
      },
      builds,
      memory: {
        how: 'forced full GCs before and after the first build; V8 used heap + array buffers, and RSS',
        retainedMib: mib(retainedBytes),
        rssMib: mib(after.rss - before.rss),
        namesMib: mib(namesBytes),
        namesBytesPerChar: bytesPerChar,
        offsetsMib: mib(index.starts.byteLength),
        sharedCodes: index.shared.ean.size + index.shared.plu.size + index.shared.internalIdentifier.size,
        familyIndexForComparisonMib: mib(afterFamily.heap - beforeFamily.heap),
      },
      search: {
        limit: LIMIT,
        all: summarize(samples),
        byKind: Object.fromEntries(MIX.map(([kind]) => [kind, summarize(samples.filter((sample) => sample.kind === kind))])),
      },
    },
    null,
    2,
  )}\n`,
);
