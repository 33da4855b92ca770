/**
 * Render benchmark of the feed renderers (issue 5; docs/quality-bars.md "rendering google.xml for 100,000 items:
 * ≤ 1.5× a minimal hand-written string renderer of the same document in the same run").
 *
 *   npx tsx bench/render-feeds.ts [items=100000] [runs=7]
 *
 * Prints one JSON object. Compared in the same process, alternating order, median of `runs` after a
 * warm-up: the compiled google.xml template vs a hand-written renderer producing the SAME bytes
 * (checked) vs fast-xml-parser's XMLBuilder (same values, its own layout); products.csv vs a
 * hand-written CSV writer (same bytes, checked). Both hand-written renderers use the same text
 * primitives (cleanText, escaping, truncation, URL and GTIN rules), so the ratio measures what the
 * template machinery costs. Sizes: identity, gzip level 6, brotli quality 5 (what the feed cache stores).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { XMLBuilder } from 'fast-xml-parser';
import { cleanText } from '../src/core/feeds/clean-text.js';
import { collectFeed } from '../src/core/feeds/collect-feed.js';
import { encodeUrl } from '../src/core/feeds/encode-url.js';
import { escapeXmlText } from '../src/core/feeds/escape-xml.js';
import type { FeedContext, FeedItem } from '../src/core/feeds/feed-item.js';
import { formatMoney, formatPlainNumber } from '../src/core/feeds/format-number.js';
import { loadTemplates } from '../src/core/feeds/load-templates.js';
import { normalizeGtin } from '../src/core/feeds/normalize-gtin.js';
import { renderCsvFeed } from '../src/core/feeds/render-csv-feed.js';
import { renderJsonFeed } from '../src/core/feeds/render-json-feed.js';
import { countCodePoints, truncateText } from '../src/core/feeds/truncate-text.js';

const ITEMS = Number(process.argv[2] ?? 100_000);
const RUNS = Number(process.argv[3] ?? 7);
const ROOT = join(import.meta.dirname, '..');

const WORDS = 'káva zrnková čaj hořká čokoláda & sušenky <bio> "prémiové" mléko šťáva 1 kg 0,5 l dárkové balení'.split(' ');

/** Deterministic pseudo-random numbers (mulberry32), so every run renders the same catalog. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function ean13(base: number): string {
  const digits = `859${String(base).padStart(9, '0')}`;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (digits.charCodeAt(i) - 48) * (i % 2 === 0 ? 1 : 3);
  return `${digits}${(10 - (sum % 10)) % 10}`;
}

function makeCatalog(count: number): FeedItem[] {
  const next = random(42);
  const items: FeedItem[] = [];
  for (let i = 0; i < count; i++) {
    let name = `Produkt ${i}`;
    while (name.length < 500) name += ` ${WORDS[Math.floor(next() * WORDS.length)]}`;
    name = name.slice(0, 500);
    const price = Math.round(next() * 200_000) / 100;
    const onSale = next() < 0.2;
    const stockA = Math.floor(next() * 20) - 2;
    const stockB = Math.floor(next() * 20) - 2;
    const availability = (stock: number) => (stock > 0 ? ('in_stock' as const) : ('out_of_stock' as const));
    items.push({
      id: `a-${100_000 + i}`,
      name,
      groupId: `g-${i % 40}`,
      ...(i % 3 === 0 ? {} : { ean: ean13(i) }),
      plu: 1000 + i,
      internalIdentifier: `KOD-${i}`,
      measureUnit: 'piece',
      price,
      ...(onSale ? { salePrice: Math.round(price * 80) / 100 } : {}),
      stock: stockA + stockB,
      availability: availability(stockA + stockB),
      isStockItem: true,
      link: `https://shop.example.cz/produkty/${i}/káva-zrnková`,
      imageLink: `https://shop.example.cz/obrázky/${i}.jpg`,
      offers: [
        { unit: 'PRG', storeCode: 'PRG-1', unitName: 'Praha', price, stock: stockA, availability: availability(stockA) },
        { unit: 'BRN', storeCode: 'BRNO-2', unitName: 'Brno', price, stock: stockB, availability: availability(stockB) },
      ],
    });
  }
  return items;
}

const CONTEXT: FeedContext = {
  version: 'v-bench',
  generatedAt: '2026-11-22T10:00:00Z',
  unit: 'all',
  unitName: 'Všechny prodejny',
  currency: 'CZK',
  baseUrl: 'https://feeds.example.cz/',
};

/** Escaped text after the documented pipeline: clean, truncate, escape. */
function text(value: string, max: number): string {
  return escapeXmlText(truncateText(cleanText(value), max));
}

/** A URL after the `url` filter and a `drop` length rule. */
function link(value: string | undefined, max: number): string {
  const encoded = value === undefined ? undefined : encodeUrl(value);
  return encoded === undefined || countCodePoints(encoded) > max ? '' : encoded;
}

/**
 * The same document as templates/google.json, written by hand. `chunked` flushes every 64 KB into a
 * Buffer like the renderers do (the fair baseline); otherwise it builds one string (the naive way,
 * which pays for flattening a huge rope at the end).
 */
function handWrittenGoogle(context: FeedContext, items: readonly FeedItem[], chunked = true): Buffer {
  const parts: Buffer[] = [];
  const unitName = escapeXmlText(cleanText(context.unitName));
  const currency = escapeXmlText(cleanText(context.currency));
  const brand = context.brand === undefined ? '' : text(context.brand, 70);
  let out =
    '<?xml version="1.0" encoding="UTF-8"?>\n<rss xmlns:g="http://base.google.com/ns/1.0" version="2.0">\n  <channel>\n' +
    `    <title>${unitName}</title>\n    <link>${escapeXmlText(cleanText(context.baseUrl))}</link>\n` +
    `    <description>Products of ${unitName} (${currency})</description>\n`;
  for (const item of items) {
    const id = cleanText(item.id);
    const name = cleanText(item.name);
    const url = link(item.link, 2000);
    const image = link(item.imageLink, 2000);
    if (id === '' || countCodePoints(id) > 50 || name === '' || url === '' || image === '' || item.price === undefined) continue;
    const gtin = item.ean === undefined ? undefined : normalizeGtin(item.ean);
    const sale = item.salePrice !== undefined && item.salePrice < item.price ? item.salePrice : undefined;
    const group = item.groupId === undefined ? '' : text(item.groupId, 750);
    out +=
      `    <item>\n      <g:id>${escapeXmlText(id)}</g:id>\n      <title>${text(name, 150)}</title>\n` +
      `      <description>${text(name, 5000)}</description>\n      <link>${escapeXmlText(url)}</link>\n` +
      `      <g:image_link>${escapeXmlText(image)}</g:image_link>\n      <g:availability>${item.availability}</g:availability>\n` +
      `      <g:price>${formatMoney(item.price)} ${currency}</g:price>\n` +
      (sale === undefined ? '' : `      <g:sale_price>${formatMoney(sale)} ${currency}</g:sale_price>\n`) +
      (gtin === undefined ? '' : `      <g:gtin>${gtin}</g:gtin>\n`) +
      (brand === '' ? '' : `      <g:brand>${brand}</g:brand>\n`) +
      (item.ean === undefined && brand === '' ? '      <g:identifier_exists>no</g:identifier_exists>\n' : '') +
      '      <g:condition>new</g:condition>\n' +
      (group === '' ? '' : `      <g:product_type>${group}</g:product_type>\n`) +
      '    </item>\n';
    if (chunked && out.length >= 65_536) {
      parts.push(Buffer.from(out, 'utf8'));
      out = '';
    }
  }
  parts.push(Buffer.from(`${out}  </channel>\n</rss>\n`, 'utf8'));
  return Buffer.concat(parts);
}

/** The same values through fast-xml-parser's XMLBuilder (an object tree, then its serialiser). */
function builderGoogle(context: FeedContext, items: readonly FeedItem[]): Buffer {
  const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', format: true, indentBy: '  ' });
  const entries: Record<string, string>[] = [];
  for (const item of items) {
    const url = link(item.link, 2000);
    const image = link(item.imageLink, 2000);
    const name = cleanText(item.name);
    if (item.price === undefined || url === '' || image === '' || name === '') continue;
    const gtin = item.ean === undefined ? undefined : normalizeGtin(item.ean);
    const sale = item.salePrice !== undefined && item.salePrice < item.price ? item.salePrice : undefined;
    const entry: Record<string, string> = {
      'g:id': cleanText(item.id),
      title: truncateText(name, 150),
      description: truncateText(name, 5000),
      link: url,
      'g:image_link': image,
      'g:availability': item.availability,
      'g:price': `${formatMoney(item.price)} ${context.currency}`,
    };
    if (sale !== undefined) entry['g:sale_price'] = `${formatMoney(sale)} ${context.currency}`;
    if (gtin !== undefined) entry['g:gtin'] = gtin;
    if (item.ean === undefined) entry['g:identifier_exists'] = 'no';
    entry['g:condition'] = 'new';
    if (item.groupId !== undefined) entry['g:product_type'] = cleanText(item.groupId);
    entries.push(entry);
  }
  const xml = builder.build({
    rss: {
      '@xmlns:g': 'http://base.google.com/ns/1.0',
      '@version': '2.0',
      channel: {
        title: cleanText(context.unitName),
        link: context.baseUrl,
        description: `Products of ${cleanText(context.unitName)} (${context.currency})`,
        item: entries,
      },
    },
  });
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n${xml}`, 'utf8');
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** products.csv (rfc4180) written by hand, flushed every 64 KB like the renderers. */
function handWrittenCsv(context: FeedContext, items: readonly FeedItem[]): Buffer {
  const parts: Buffer[] = [];
  const t = (value: string | undefined) => (value === undefined ? '' : csvField(cleanText(value)));
  const n = (value: number | undefined) => (value === undefined ? '' : (formatPlainNumber(value) ?? ''));
  const m = (value: number | undefined) => (value === undefined ? '' : (formatMoney(value) ?? ''));
  let out =
    'id,name,ean,plu,internalIdentifier,groupId,measureUnit,price,salePrice,standardPrice,currency,stock,availability,link,imageLink\r\n';
  const currency = t(context.currency);
  for (const item of items) {
    out += `${t(item.id)},${t(item.name)},${t(item.ean)},${n(item.plu)},${t(item.internalIdentifier)},${t(item.groupId)},${t(item.measureUnit)},${m(item.price)},${m(item.salePrice)},${m(item.standardPrice)},${currency},${n(item.stock)},${item.availability},${t(item.link)},${t(item.imageLink)}\r\n`;
    if (out.length >= 65_536) {
      parts.push(Buffer.from(out, 'utf8'));
      out = '';
    }
  }
  parts.push(Buffer.from(out, 'utf8'));
  return Buffer.concat(parts);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function round(value: number, digits = 1): number {
  return Number(value.toFixed(digits));
}

/** Runs every contender `RUNS` times in rotating order after one warm-up each; returns ms timings. */
function race(contenders: Record<string, () => Buffer>): Record<string, { medianMs: number; minMs: number; bytes: number }> {
  const names = Object.keys(contenders);
  const timings: Record<string, number[]> = {};
  const bytes: Record<string, number> = {};
  for (const name of names) {
    bytes[name] = (contenders[name] as () => Buffer)().length;
    timings[name] = [];
  }
  for (let run = 0; run < RUNS; run++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(run + k) % names.length] as string;
      const start = process.hrtime.bigint();
      (contenders[name] as () => Buffer)();
      (timings[name] as number[]).push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  return Object.fromEntries(
    names.map((name) => [
      name,
      {
        medianMs: round(median(timings[name] as number[])),
        minMs: round(Math.min(...(timings[name] as number[]))),
        bytes: bytes[name] as number,
      },
    ]),
  );
}

function sizes(body: Buffer): { identity: number; gzip6: number; brotli5: number } {
  return {
    identity: body.length,
    gzip6: gzipSync(body, { level: 6 }).length,
    brotli5: brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 5,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    }).length,
  };
}

const templateFiles = readdirSync(join(ROOT, 'templates'))
  .filter((file) => file.endsWith('.json'))
  .map((file) => ({ name: `templates/${file}`, text: readFileSync(join(ROOT, 'templates', file), 'utf8') }));
const feeds = loadTemplates(templateFiles);
const google = feeds.find((feed) => feed.name === 'google');
if (google === undefined) throw new Error('templates/google.json is missing');

const items = makeCatalog(ITEMS);

const templateGoogle = () => collectFeed(google.render(CONTEXT, items)).body;
const same = templateGoogle().equals(handWrittenGoogle(CONTEXT, items));
if (!same) throw new Error('the hand-written google.xml differs from the template output: the comparison would be unfair');
const builderSame = templateGoogle().equals(builderGoogle(CONTEXT, items));
const csvSame = collectFeed(renderCsvFeed(CONTEXT, items)).body.equals(handWrittenCsv(CONTEXT, items));
if (!csvSame) throw new Error('the hand-written products.csv differs from renderCsvFeed');

const xml = race({
  template: templateGoogle,
  handWritten: () => handWrittenGoogle(CONTEXT, items),
  handWrittenOneString: () => handWrittenGoogle(CONTEXT, items, false),
  xmlBuilder: () => builderGoogle(CONTEXT, items),
});
const csv = race({
  renderCsvFeed: () => collectFeed(renderCsvFeed(CONTEXT, items)).body,
  renderCsvFeedExcel: () => collectFeed(renderCsvFeed(CONTEXT, items, { profile: 'excel' })).body,
  handWritten: () => handWrittenCsv(CONTEXT, items),
});
const others = race({
  json: () => collectFeed(renderJsonFeed(CONTEXT, items)).body,
  ...Object.fromEntries(
    feeds.filter((feed) => feed !== google).map((feed) => [feed.file, () => collectFeed(feed.render(CONTEXT, items)).body]),
  ),
});

const bodies: Record<string, Buffer> = {
  'google.xml': templateGoogle(),
  'google.xml (XMLBuilder)': builderGoogle(CONTEXT, items),
  'products.json': collectFeed(renderJsonFeed(CONTEXT, items)).body,
  'products.csv': collectFeed(renderCsvFeed(CONTEXT, items)).body,
  'products.csv?profile=excel': collectFeed(renderCsvFeed(CONTEXT, items, { profile: 'excel' })).body,
};
for (const feed of feeds) if (feed !== google) bodies[feed.file] = collectFeed(feed.render(CONTEXT, items)).body;

const result = {
  node: process.version,
  items: ITEMS,
  runs: RUNS,
  nameLength: 500,
  googleXml: {
    ...xml,
    sameBytesAsHandWritten: same,
    xmlBuilderSameBytes: builderSame,
    ratioTemplateToHandWritten: round((xml['template']?.medianMs ?? 0) / (xml['handWritten']?.medianMs ?? 1), 2),
    ratioHandWrittenOneStringToHandWritten: round(
      (xml['handWrittenOneString']?.medianMs ?? 0) / (xml['handWritten']?.medianMs ?? 1),
      2,
    ),
    ratioXmlBuilderToHandWritten: round((xml['xmlBuilder']?.medianMs ?? 0) / (xml['handWritten']?.medianMs ?? 1), 2),
    bar: 1.5,
  },
  productsCsv: {
    ...csv,
    sameBytesAsHandWritten: csvSame,
    ratioRendererToHandWritten: round((csv['renderCsvFeed']?.medianMs ?? 0) / (csv['handWritten']?.medianMs ?? 1), 2),
  },
  otherFeeds: others,
  sizes: Object.fromEntries(Object.entries(bodies).map(([name, body]) => [name, sizes(body)])),
  peakRssMb: round(process.resourceUsage().maxRSS / 1024),
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
