/**
 * A product's console page on a large catalog (docs/console.md#product-detail): how long one lookup holds
 * the event loop (every feed in every view rendered for the one product), and the first lookup of a family
 * (its index built in slices).
 *
 *   npx tsx bench/product-detail.ts [products=100000] [units=5] [lookups=200]
 *
 * Prints one JSON object: the first lookup's wall time and its longest event-loop stall, then per
 * later lookup its wall time (p50, p99, max) and the event-loop delay over all of them (the lookup yields
 * between feeds).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ALL_UNITS, type CatalogSnapshot, type Offer, type Product } from '../src/core/catalog/catalog.js';
import { createFamilyIndexes } from '../src/core/catalog/family-index.js';
import { loadTemplates } from '../src/core/feeds/load-templates.js';
import { createLastStockChanges } from '../src/services/products/last-stock-changes.js';
import { createProductLookup } from '../src/services/products/product-lookup.js';

const PRODUCTS = Number(process.argv[2] ?? 100_000);
const UNITS = Number(process.argv[3] ?? 5);
const LOOKUPS = Number(process.argv[4] ?? 200);
const ROOT = join(import.meta.dirname, '..');

function product(i: number, units: readonly string[]): Product {
  const offers: Offer[] = units.map((unit, u) => {
    const stock = ((i * 7 + u * 3) % 23) - 3;
    return { unit, price: 100 + (i % 900), stock, availability: stock > 0 ? 'in_stock' : 'out_of_stock' };
  });
  const stock = offers.reduce((sum, offer) => sum + Math.max(0, offer.stock ?? 0), 0);
  return {
    id: `a-${100_000 + i}`,
    name: `Káva zrnková ${i} 1 kg`,
    ...(i % 10 === 0 ? {} : { internalIdentifier: `KAV-${i}` }),
    plu: 1000 + i,
    measureUnit: 'piece',
    isStockItem: true,
    offers,
    aggregate: { unit: ALL_UNITS, price: 100 + (i % 900), stock, availability: stock > 0 ? 'in_stock' : 'out_of_stock' },
  };
}

const units = Array.from({ length: UNITS }, (_, u) => `U${u + 1}`);
const snapshot: CatalogSnapshot = {
  version: 'v-bench',
  generatedAt: new Date().toISOString(),
  currency: 'CZK',
  primaryUnit: 'U1',
  units: units.map((code) => ({ code, localId: code, name: `Prodejna ${code}` })),
  products: Array.from({ length: PRODUCTS }, (_, i) => product(i, units)),
};
const templates = loadTemplates(
  readdirSync(join(ROOT, 'templates'))
    .filter((file) => file.endsWith('.json'))
    .map((file) => ({ name: `templates/${file}`, text: readFileSync(join(ROOT, 'templates', file), 'utf8') })),
);
const builtIns = ['products.json', 'products.csv', 'products.xlsx'].map((file) => ({ name: file, title: file, file }));
const feeds = [...builtIns, ...templates].map((feed) => ({
  name: feed.name,
  title: feed.title,
  file: feed.file,
  format: 'xml' as const,
  contentType: '',
  prewarmed: true,
  servesView: (view: string) => ('servesView' in feed ? feed.servesView(view) : true),
}));
const indexes = createFamilyIndexes();
const lookup = createProductLookup({
  current: () => snapshot,
  familyIndex: (s) => indexes.get(s),
  feeds: {
    feeds,
    templates,
    options: {
      currency: 'CZK',
      brand: undefined,
      baseUrl: 'http://localhost:3000',
      links: {
        storeCodes: {},
        productUrl: 'https://shop.example.cz/p/{internalIdentifier}',
        imageUrl: 'https://shop.example.cz/i/{id}.jpg',
      },
    },
  },
  reports: () => ({ catalog: undefined, stock: undefined }),
  lastChanges: createLastStockChanges(),
});

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const firstFrom = performance.now();
const first = await lookup.find('a-100001');
const firstMs = performance.now() - firstFrom;
delay.disable();
if (!first.ok) throw new Error('not found');

const times: number[] = [];
const stalls = monitorEventLoopDelay({ resolution: 1 });
stalls.enable();
for (let i = 0; i < LOOKUPS; i++) {
  const id = `a-${100_000 + Math.floor((i * 7919) % PRODUCTS)}`;
  // Wall time of the whole answer; the lookup yields between feeds, so its stalls are measured apart.
  const from = performance.now();
  const found = await lookup.find(id);
  times.push(performance.now() - from);
  if (!found.ok) throw new Error(`not found: ${id}`);
  // Requests arrive one by one: between two, the loop turns (else the chain of lookups is one stall).
  await new Promise((resolve) => setImmediate(resolve));
}
stalls.disable();
times.sort((a, b) => a - b);
const round = (ms: number) => Math.round(ms * 100) / 100;
console.log(
  JSON.stringify({
    products: PRODUCTS,
    units: UNITS,
    feedVerdictsPerLookup: first.view.feeds.length,
    firstLookupMs: round(firstMs),
    firstLookupMaxStallMs: round(delay.max / 1e6),
    lookupMs: { p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), max: round(times.at(-1) ?? 0) },
    eventLoopDelayDuringLookupsMs: { p99: round(stalls.percentile(99) / 1e6), max: round(stalls.max / 1e6) },
  }),
);
