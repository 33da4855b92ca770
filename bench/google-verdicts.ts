/**
 * What reading Google's verdicts back costs the bridge (docs/channel-push.md#googles-verdicts), at
 * `--products` (100,000) with one in five disapproved (two issues each), the rest approved:
 * - per `products.list` page of 1,000 (the partial response the bridge asks for): its size, the JSON parse
 *   and the per-product check (`parseProductsPage`, in slices that yield: wall time), median and max over
 *   the pages, and the event loop's longest delay over the pages after the first two (the JIT's warm-up; the
 *   parse is one stretch, as in the client);
 * - the heap the leader holds for a whole read (verdicts kept as text until published);
 * - grouping them into bucket texts (sliced): its time and the event loop's longest delay meanwhile
 *   (`monitorEventLoopDelay`, after a GC so the read's own garbage is not counted);
 * - a product page's read of one bucket: the JSON parse of a bucket text, median and max.
 *
 *   node --expose-gc --import tsx bench/google-verdicts.ts [--products 100000]
 *
 * Prints JSON. Bar: every step a product page or the event loop sees stays within ~10 ms.
 */
import { monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createVerdictBuckets, createVerdictTally } from '../src/core/push/channel-verdicts.js';
import { GOOGLE_PRODUCTS_PAGE_SIZE, parseProductsPage } from '../src/core/push/google-product-status.js';
import { brokenImageStatus } from '../test/fakes/channels/google-server.js';

const { values } = parseArgs({ options: { products: { type: 'string', default: '100000' } } });
const PRODUCTS = Number(values.products);
const IDENTITY = { contentLanguage: 'cs', feedLabel: 'CZ' };

const DEMOTION = { code: 'missing_gtin', severity: 'DEMOTED', attribute: 'gtin', description: 'Missing GTIN' };

function listed(index: number) {
  const disapproved = index % 5 === 0;
  return {
    name: `accounts/1/products/${index}`,
    offerId: `p${index}`,
    contentLanguage: 'cs',
    feedLabel: 'CZ',
    productStatus: disapproved
      ? { ...brokenImageStatus(), itemLevelIssues: [...(brokenImageStatus().itemLevelIssues ?? []), DEMOTION] }
      : {
          destinationStatuses: [
            { reportingContext: 'SHOPPING_ADS', approvedCountries: ['CZ'] },
            { reportingContext: 'FREE_LISTINGS', approvedCountries: ['CZ'] },
          ],
          lastUpdateDate: '2026-11-29T10:00:00Z',
        },
  };
}

/** The longest GC pause since the last `take()`: tells the collector's pauses from the bridge's own stretches. */
const gcPauses = (() => {
  let longest = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longest = Math.max(longest, entry.duration);
  }).observe({ entryTypes: ['gc'] });
  return {
    take() {
      const value = longest;
      longest = 0;
      return Math.round(value * 100) / 100;
    },
  };
})();

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0;
const round = (ms: number) => Math.round(ms * 100) / 100;

globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const read = createVerdictBuckets();
const tally = createVerdictTally();
const jsonMs: number[] = [];
const checkMs: number[] = [];
// The pages' texts first (the fake's work), so the event loop's delays below are the bridge's alone.
const pageTexts: string[] = [];
for (let start = 0; start < PRODUCTS; start += GOOGLE_PRODUCTS_PAGE_SIZE) {
  const count = Math.min(GOOGLE_PRODUCTS_PAGE_SIZE, PRODUCTS - start);
  pageTexts.push(JSON.stringify({ products: Array.from({ length: count }, (_, k) => listed(start + k)), nextPageToken: 'next' }));
}
const pageBytes = Math.max(...pageTexts.map((text) => Buffer.byteLength(text)));
// The first pages warm the JIT and the schemas up (their maxima are the parse and check maxima above).
const WARM_PAGES = 2;
const pagesDelay = monitorEventLoopDelay({ resolution: 1 });
for (const [index, text] of pageTexts.splice(0).entries()) {
  if (index === WARM_PAGES) pagesDelay.enable();
  let at = performance.now();
  const answer: unknown = JSON.parse(text);
  jsonMs.push(performance.now() - at);
  at = performance.now();
  const page = await parseProductsPage(answer, IDENTITY);
  if (typeof page === 'string') throw new Error(page);
  for (const verdict of page.verdicts) {
    tally.add(verdict);
    read.add(verdict);
  }
  checkMs.push(performance.now() - at);
  // A page's answer takes a network round trip: the event loop turns between pages.
  await new Promise((resolve) => setImmediate(resolve));
}
pagesDelay.disable();
const pagesGcMaxMs = gcPauses.take();
globalThis.gc?.();
const heldMiB = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;

const delay = monitorEventLoopDelay({ resolution: 1 });
gcPauses.take();
delay.enable();
let at = performance.now();
const grouped = await read.group();
const groupMs = performance.now() - at;
delay.disable();
const groupGcMaxMs = gcPauses.take();

const texts = [...grouped.buckets.values()];
const bucketMs = texts.map((text) => {
  at = performance.now();
  JSON.parse(text);
  return performance.now() - at;
});
const summary = tally.summary(new Date().toISOString(), { count: 0 });

console.log(
  JSON.stringify(
    {
      products: PRODUCTS,
      counts: summary.counts,
      page: {
        kiB: Math.round(pageBytes / 1024),
        jsonParseMs: { median: round(median(jsonMs)), max: round(Math.max(...jsonMs)) },
        checkMs: { median: round(median(checkMs)), max: round(Math.max(...checkMs)) },
        eventLoopMaxMs: round(pagesDelay.max / 1e6),
        gcPauseMaxMs: pagesGcMaxMs,
      },
      heldWhileReadingMiB: Math.round(heldMiB * 10) / 10,
      group: {
        buckets: grouped.count,
        totalMs: Math.round(groupMs),
        eventLoopMaxMs: round(delay.max / 1e6),
        gcPauseMaxMs: groupGcMaxMs,
      },
      bucket: {
        kiB: Math.round(texts.reduce((sum, text) => sum + text.length, 0) / texts.length / 1024),
        parseMs: { median: round(median(bucketMs)), max: round(Math.max(...bucketMs)) },
      },
    },
    null,
    2,
  ),
);
