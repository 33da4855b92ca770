/**
 * Benchmark of the price-list XML parse (docs/decisions/0002-price-list-xml-streaming.md and
 * 0021-price-list-byte-scanner.md).
 *
 *   npx tsx bench/parse-price-list.ts [--items 100000] [--runs 3]
 *   npx tsx bench/parse-price-list.ts --generate FILE [--items 100000]   (only write the document)
 *
 * Generates a synthetic Shoptet update-import document (SHOP/SHOPITEM, every 10th item a variant product,
 * every 7th with STOCK/WAREHOUSES) into a temp file, then parses it with each strategy in a fresh child
 * process, so each peak RSS (`process.resourceUsage().maxRSS`) starts from the same empty heap. `baseline`
 * only loads the modules: subtract it to see what a strategy itself costs.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import { SaxesParser } from 'saxes';
import { createPriceListParser, createSaxesPriceListParser, parsePriceListXml } from '../src/adapters/pos/price-list-xml.js';
import type { PriceListRow } from '../src/core/catalog/source.js';
import { numberArgument } from './bench-args.js';

const STRATEGIES = {
  baseline: 'modules loaded, nothing parsed',
  'fxp-whole': 'fast-xml-parser XMLParser (default options) on the whole document string, then walk the tree',
  'saxes-raw': 'saxes on 64 KiB file chunks, no-op handlers (lower bound of streaming)',
  'saxes-count': 'createSaxesPriceListParser (saxes over the decoded text) on 64 KiB byte chunks, rows counted',
  'saxes-retain': 'createSaxesPriceListParser on 64 KiB byte chunks, rows kept in an array',
  'stream-count': 'createPriceListParser (the byte scanner) on 64 KiB byte chunks, rows counted and dropped',
  'stream-retain': 'createPriceListParser (the byte scanner) on 64 KiB byte chunks, rows kept (what a sync does)',
  'whole-string': 'parsePriceListXml on the whole document string, rows kept',
} as const;
type Strategy = keyof typeof STRATEGIES;

interface ChildResult {
  readonly strategy: Strategy;
  readonly rows: number;
  readonly parseMs: number;
  /** User + system CPU time of the parse: steadier than wall time on a shared machine. */
  readonly cpuMs: number;
  readonly maxRssMb: number;
}

function isStrategy(value: string): value is Strategy {
  return Object.hasOwn(STRATEGIES, value);
}

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * One detail group, as KASAmax might emit it (docs/pos-interface.md, the price-list XML), padded with
 * product-level fields of a full feed.
 */
function detail(code: string, i: number): string {
  const price = (49 + (i % 500) + 0.9).toFixed(2);
  const action = i % 4 === 0 ? `<ACTION_PRICE>${(Number(price) * 0.8).toFixed(2)}</ACTION_PRICE>` : '<ACTION_PRICE/>';
  const stock =
    i % 7 === 0
      ? `<STOCK><WAREHOUSES><WAREHOUSE><NAME>Praha</NAME><VALUE>${i % 5}.000</VALUE></WAREHOUSE><WAREHOUSE><NAME>Brno</NAME><VALUE>${i % 3}.000</VALUE></WAREHOUSE></WAREHOUSES></STOCK>`
      : `<STOCK><AMOUNT>${(i % 40) - 3}.000</AMOUNT><MINIMAL_AMOUNT/></STOCK>`;
  return (
    `<CODE>${code}</CODE><EAN>859${String(i).padStart(10, '0')}</EAN><PRICE_VAT>${price}</PRICE_VAT>` +
    `<STANDARD_PRICE>${(Number(price) + 20).toFixed(2)}</STANDARD_PRICE>${action}<CURRENCY>CZK</CURRENCY><VAT>21</VAT>${stock}` +
    '<AVAILABILITY_IN_STOCK>Skladem</AVAILABILITY_IN_STOCK><AVAILABILITY_OUT_OF_STOCK>Na dotaz</AVAILABILITY_OUT_OF_STOCK>'
  );
}

function item(i: number): string {
  const name = `<NAME>${escapeXml(`Zboží č. ${i} – káva & čaj`)}</NAME>`;
  const description = `<SHORT_DESCRIPTION><![CDATA[<p>Popis položky ${i}: pražená zrnková káva, 100% arabika.</p>]]></SHORT_DESCRIPTION>`;
  if (i % 10 === 0) {
    const variants = ['S', 'M', 'L']
      .map(
        (size, v) =>
          `<VARIANT>${detail(`${i}-${size}`, i + v)}<PARAMETERS><PARAMETER><NAME>Velikost</NAME><VALUE>${size}</VALUE></PARAMETER></PARAMETERS></VARIANT>`,
      )
      .join('\n      ');
    return `  <SHOPITEM id="${i}">\n    ${name}${description}\n    <VARIANTS>\n      ${variants}\n    </VARIANTS>\n  </SHOPITEM>\n`;
  }
  return `  <SHOPITEM id="${i}">\n    ${name}${description}\n    ${detail(String(i), i)}\n  </SHOPITEM>\n`;
}

function generate(file: string, items: number): void {
  const parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<SHOP>\n'];
  for (let i = 1; i <= items; i += 1) parts.push(item(i));
  parts.push('</SHOP>\n');
  writeFileSync(file, parts.join(''));
}

/** Counts rows in fast-xml-parser's tree the way an adapter would have to (SHOPITEM / VARIANTS.VARIANT). */
function countFxpRows(tree: unknown): number {
  const shop = (tree as { SHOP?: { SHOPITEM?: unknown } }).SHOP;
  const items = shop?.SHOPITEM;
  const list = Array.isArray(items) ? items : items === undefined ? [] : [items];
  let rows = 0;
  for (const entry of list as { VARIANTS?: { VARIANT?: unknown } }[]) {
    const variants = entry.VARIANTS?.VARIANT;
    rows += Array.isArray(variants) ? variants.length : 1;
  }
  return rows;
}

async function streamFile(file: string, write: (chunk: Uint8Array) => void): Promise<void> {
  for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 })) write(chunk as Uint8Array);
}

async function runChild(strategy: Strategy, file: string): Promise<ChildResult> {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let rows = 0;
  switch (strategy) {
    case 'baseline':
      break;
    case 'fxp-whole': {
      const tree: unknown = new XMLParser().parse(readFileSync(file, 'utf8'));
      rows = countFxpRows(tree);
      break;
    }
    case 'saxes-raw': {
      const sax = new SaxesParser();
      const decoder = new TextDecoder();
      // Counts SHOPITEMs, not rows: there is no row logic here.
      sax.on('opentag', (tag) => {
        if (tag.name === 'SHOPITEM') rows += 1;
      });
      sax.on('text', () => {});
      await streamFile(file, (chunk) => sax.write(decoder.decode(chunk, { stream: true })));
      sax.close();
      break;
    }
    case 'saxes-count':
    case 'stream-count': {
      const parser = (strategy === 'saxes-count' ? createSaxesPriceListParser : createPriceListParser)(() => {
        rows += 1;
      });
      await streamFile(file, (chunk) => parser.write(chunk));
      parser.end();
      break;
    }
    case 'saxes-retain':
    case 'stream-retain': {
      const kept: PriceListRow[] = [];
      const parser = (strategy === 'saxes-retain' ? createSaxesPriceListParser : createPriceListParser)((row) => {
        kept.push(row);
      });
      await streamFile(file, (chunk) => parser.write(chunk));
      parser.end();
      rows = kept.length;
      break;
    }
    case 'whole-string': {
      rows = parsePriceListXml(readFileSync(file, 'utf8')).rows.length;
      break;
    }
  }
  const parseMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStarted);
  return { strategy, rows, parseMs, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024 };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function main(): void {
  const items = numberArgument('items', 100_000);
  const runs = numberArgument('runs', 3);
  const dir = mkdtempSync(join(tmpdir(), 'price-list-bench-'));
  const file = join(dir, 'price-list.xml');
  try {
    generate(file, items);
    const sizeMb = statSync(file).size / 1024 / 1024;
    console.log(
      `node ${process.version}, ${items} SHOPITEMs, ${sizeMb.toFixed(1)} MiB, median of ${runs} runs per strategy (peak RSS: the highest)\n`,
    );
    console.log('| strategy | rows | wall time (ms) | CPU time (ms) | peak RSS (MiB) | what |');
    console.log('|---|---:|---:|---:|---:|---|');
    const script = fileURLToPath(import.meta.url);
    for (const strategy of Object.keys(STRATEGIES).filter(isStrategy)) {
      const results: ChildResult[] = [];
      for (let run = 0; run < runs; run += 1) {
        const child = spawnSync(process.execPath, [...process.execArgv, script, '--child', strategy, file], { encoding: 'utf8' });
        if (child.status !== 0) throw new Error(`child ${strategy} failed: ${child.stderr}`);
        results.push(JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}') as ChildResult);
      }
      const time = median(results.map((result) => result.parseMs));
      const cpu = median(results.map((result) => result.cpuMs));
      const rss = Math.max(...results.map((result) => result.maxRssMb));
      const rows = results[0]?.rows ?? 0;
      console.log(
        `| ${strategy} | ${rows} | ${time.toFixed(0)} | ${cpu.toFixed(0)} | ${rss.toFixed(0)} | ${STRATEGIES[strategy]} |`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const childIndex = process.argv.indexOf('--child');
const generateIndex = process.argv.indexOf('--generate');
if (generateIndex >= 0) {
  // Only write the document, e.g. to profile a parser on it.
  generate(process.argv[generateIndex + 1] ?? 'price-list.xml', numberArgument('items', 100_000));
} else if (childIndex >= 0) {
  const strategy = process.argv[childIndex + 1] ?? '';
  const file = process.argv[childIndex + 2] ?? '';
  if (!isStrategy(strategy)) throw new Error(`unknown strategy ${strategy}`);
  console.log(JSON.stringify(await runChild(strategy, file)));
} else {
  main();
}
