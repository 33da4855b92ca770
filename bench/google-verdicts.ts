/**
 * What reading Google's verdicts back costs the bridge (docs/channel-push.md#googles-verdicts), at
 * `--products` (100,000) with one in five disapproved (two issues each), the rest approved:
 * - per `products.list` page of 1,000 (the partial response the bridge asks for): its size, the JSON parse
 *   and the per-product check (`parseProductsPage`), median and max over the pages;
 * - the heap the leader holds for a whole read (verdicts kept as text until published);
 * - grouping them into bucket texts (sliced): its time and the event loop's longest delay meanwhile
 *   (`monitorEventLoopDelay`, after a GC so the read's own garbage is not counted);
 * - a product page's read of one bucket: the JSON parse of a bucket text, median and max.
 *
 *   node --expose-gc --import tsx bench/google-verdicts.ts [--products 100000]
 *
 * Prints JSON. Bar: every step a product page or the event loop sees stays within ~10 ms.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
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

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0;
const round = (ms: number) => Math.round(ms * 100) / 100;

globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const read = createVerdictBuckets();
const tally = createVerdictTally();
const jsonMs: number[] = [];
const checkMs: number[] = [];
let pageBytes = 0;
for (let start = 0; start < PRODUCTS; start += GOOGLE_PRODUCTS_PAGE_SIZE) {
  const count = Math.min(GOOGLE_PRODUCTS_PAGE_SIZE, PRODUCTS - start);
  const text = JSON.stringify({ products: Array.from({ length: count }, (_, k) => listed(start + k)), nextPageToken: 'next' });
  pageBytes = Math.max(pageBytes, Buffer.byteLength(text));
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
}
globalThis.gc?.();
const heldMiB = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
let at = performance.now();
const grouped = await read.group();
const groupMs = performance.now() - at;
delay.disable();

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
      },
      heldWhileReadingMiB: Math.round(heldMiB * 10) / 10,
      group: { buckets: grouped.count, totalMs: Math.round(groupMs), eventLoopMaxMs: round(delay.max / 1e6) },
      bucket: {
        kiB: Math.round(texts.reduce((sum, text) => sum + text.length, 0) / texts.length / 1024),
        parseMs: { median: round(median(bucketMs)), max: round(Math.max(...bucketMs)) },
      },
    },
    null,
    2,
  ),
);
