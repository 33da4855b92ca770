/**
 * End-to-end fetch benchmark of the POS side of a catalog sync (issue 3): the POS client reads a
 * 100,000-article catalog from the sandbox POS over loopback HTTP and the parsers turn it into rows.
 *
 *   npx tsx bench/fetch-catalog.ts [--articles 100000] [--units 1]
 *
 * The sandbox runs in a separate child process (`node --import tsx src/sandbox/main.ts`, port 0, simulated
 * sales off), so this process holds only the client side. Measured here, in order: list units, list all
 * articles (asking 500 per page; the sandbox caps pages at 200), stream + parse the first unit's price-list
 * XML, fetch + parse its csv stock export. Everything read is kept until the end, as a sync keeps it, so
 * the peak RSS (`process.resourceUsage().maxRSS`) is what holding one catalog's sources costs. `ms` is wall
 * time (the sandbox's work included), `cpuMs` the CPU time of this process alone. Prints JSON.
 */

import { performance } from 'node:perf_hooks';
import { createPosClient } from '../src/adapters/pos/pos-client.js';
import { createPriceListParser } from '../src/adapters/pos/price-list-xml.js';
import { parseStockExport } from '../src/adapters/pos/stock-export.js';
import type { PriceListRow } from '../src/core/catalog/source.js';
import { startSandboxProcess } from './sandbox-process.js';

const API_KEY = 'bench-key';
const PAGE_SIZE = 500;

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = Number(process.argv[index + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} needs a positive integer`);
  return value;
}

const ARTICLES = argument('articles', 100_000);
const UNITS = argument('units', 1);

function mb(bytes: number): number {
  return Math.round((bytes / 1_048_576) * 10) / 10;
}

/** Peak RSS of this process so far, in MB (`maxRSS` is in KiB). */
function peakRssMb(): number {
  return Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10;
}

/** Wall time of a part, and the CPU time (user + system) this process spent in it: the client side's own cost. */
async function timed<T>(part: () => Promise<T>): Promise<{ ms: number; cpuMs: number; result: T }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await part();
  const used = process.cpuUsage(cpu);
  return { ms: Math.round(performance.now() - started), cpuMs: Math.round((used.user + used.system) / 1000), result };
}

async function main(): Promise<void> {
  const rssAtStartMb = peakRssMb();
  const sandboxStart = await timed(() => startSandboxProcess({ articles: ARTICLES, units: UNITS, apiKey: API_KEY }));
  const sandbox = sandboxStart.result;
  const { url } = sandbox;
  const client = createPosClient({
    config: {
      baseUrl: url,
      apiKey: API_KEY,
      exportPathPrefix: '',
      unitIdentifier: 'code',
      stockExportType: 'csv',
      pageSize: PAGE_SIZE,
      timeoutMs: 60_000,
      // A benchmark must fail loudly rather than hide a retry in its figures.
      maxRetries: 0,
      concurrency: 4,
      maxPages: 10_000,
    },
  });
  try {
    const started = performance.now();
    const cpu = process.cpuUsage();

    const units = await timed(() => client.listUnits());
    const unit = units.result.items[0];
    if (unit === undefined) throw new Error('the sandbox listed no unit');

    const articles = await timed(() => client.listArticles());
    if (articles.result.items.length !== ARTICLES) {
      throw new Error(`read ${articles.result.items.length} articles, expected ${ARTICLES}`);
    }

    const priceList = await timed(async () => {
      const rows: PriceListRow[] = [];
      const parser = createPriceListParser((row) => rows.push(row));
      const body = await client.fetchPriceListXml(unit);
      let bytes = 0;
      for await (const chunk of body) {
        bytes += chunk.byteLength;
        parser.write(chunk);
      }
      const summary = parser.end();
      return { rows, bytes, skipped: summary.skippedCount };
    });

    const stockFetch = await timed(() => client.fetchStockExport(unit));
    const stockParse = await timed(async () => parseStockExport(stockFetch.result));

    const totalMs = Math.round(performance.now() - started);
    const used = process.cpuUsage(cpu);
    const report = {
      node: process.version,
      articles: ARTICLES,
      units: UNITS,
      sandboxStartMs: sandboxStart.ms,
      listUnits: { ms: units.ms, cpuMs: units.cpuMs, units: units.result.items.length, pages: units.result.pages },
      listArticles: {
        ms: articles.ms,
        cpuMs: articles.cpuMs,
        articles: articles.result.items.length,
        rejected: articles.result.rejected.length,
        pages: articles.result.pages,
        requestedPageSize: PAGE_SIZE,
      },
      priceListXml: {
        ms: priceList.ms,
        cpuMs: priceList.cpuMs,
        mb: mb(priceList.result.bytes),
        rows: priceList.result.rows.length,
        skipped: priceList.result.skipped,
      },
      stockExportCsv: {
        ms: stockFetch.ms + stockParse.ms,
        cpuMs: stockFetch.cpuMs + stockParse.cpuMs,
        fetchMs: stockFetch.ms,
        parseMs: stockParse.ms,
        mb: mb(stockFetch.result.byteLength),
        rows: stockParse.result.rows.length,
        skipped: stockParse.result.summary.skippedCount,
      },
      totalMs,
      totalCpuMs: Math.round((used.user + used.system) / 1000),
      rssAtStartMb,
      peakRssMb: peakRssMb(),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await client.close();
    await sandbox.stop();
  }
}

await main();
