/**
 * Sandbox throughput over loopback: reads every page of a 100,000-article catalog (asking 500 per
 * page, which the sandbox caps at 200), then one unit's price-list XML and one stock export, then every
 * unit's price list and `csv` stock export (the documents of one full sync) with the CPU this process took
 * for them (the sandbox's; the client here only counts bytes). Last, in-process, one unit's price list
 * encoded to UTF-8 as the sandbox sends it (each row's text written into ~64 KiB buffers) against its rows
 * joined into ~64 KiB strings and each string encoded (what it sent before, 2026-11-30), best of three.
 * Prints wall time per part and peak RSS as JSON.
 *
 *   npx tsx bench/sandbox-paging.ts [articles] [units]
 */
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { CHUNK_BYTES, encodedChunks } from '../src/sandbox/encoded-chunks.js';
import { priceListTexts } from '../src/sandbox/render-price-list.js';
import { createSandboxState } from '../src/sandbox/sandbox-state.js';
import { startSandbox } from '../src/sandbox/start-sandbox.js';

const ARTICLES = Number(process.argv[2] ?? 100_000);
const UNITS = Number(process.argv[3] ?? 5);
const API_KEY = 'bench-key';
const REQUESTED_PAGE_SIZE = 500;

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 25);
sampler.unref();

async function timed<T>(part: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await part();
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  return { ms: Math.round(performance.now() - started), result };
}

async function main(): Promise<void> {
  const start = await timed(() =>
    // As the standalone sandbox runs (`main.ts`): keeping the articles it made.
    startSandbox({ units: UNITS, articles: ARTICLES, seed: 42, salesPerMinute: 0, apiKey: API_KEY, keepArticles: true }),
  );
  const sandbox = start.result;
  const dispatcher = new Agent({ connections: 4 });
  try {
    const paging = await timed(async () => {
      let skip = 0;
      let pages = 0;
      let largestPage = 0;
      for (let guard = 0; guard < 1_000_000; guard++) {
        const response = await request(`${sandbox.url}/ext/assortment/article/list`, {
          method: 'POST',
          dispatcher,
          headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
          body: JSON.stringify({ limit: REQUESTED_PAGE_SIZE, skip, options: { priceOutput: 'with_vat' } }),
        });
        const body = (await response.body.json()) as { data: { items: unknown[] } };
        const received = body.data.items.length;
        if (received === 0) break;
        pages += 1;
        largestPage = Math.max(largestPage, received);
        skip += received;
      }
      return { pages, articles: skip, largestPage };
    });
    if (paging.result.articles !== ARTICLES) throw new Error(`read ${paging.result.articles} articles, expected ${ARTICLES}`);

    async function download(path: string): Promise<number> {
      const response = await request(`${sandbox.url}${path}`, { dispatcher, headers: { 'x-api-key': API_KEY } });
      let bytes = 0;
      for await (const chunk of response.body) bytes += (chunk as Buffer).length;
      if (response.statusCode !== 200) throw new Error(`${path} answered ${response.statusCode}`);
      return bytes;
    }
    const priceList = await timed(() => download('/unit/U1/price-list/export/eshop-update'));
    const stockExport = await timed(() => download('/warehouse/stock/export/csv/U2'));
    const cpuBefore = process.cpuUsage();
    const documents = await timed(async () => {
      let bytes = 0;
      for (let unit = 1; unit <= UNITS; unit += 1) {
        bytes += await download(`/unit/U${unit}/price-list/export/eshop-update`);
        bytes += await download(`/warehouse/stock/export/csv/U${unit}`);
      }
      return bytes;
    });
    const documentsCpu = process.cpuUsage(cpuBefore);

    process.stdout.write(
      `${JSON.stringify(
        {
          node: process.version,
          articles: ARTICLES,
          units: UNITS,
          startMs: start.ms,
          articlePaging: { ms: paging.ms, ...paging.result, requestedPageSize: REQUESTED_PAGE_SIZE },
          priceListXml: { ms: priceList.ms, bytes: priceList.result },
          stockExportCsv: { ms: stockExport.ms, bytes: stockExport.result },
          everyUnitsDocuments: {
            ms: documents.ms,
            cpuMs: Math.round((documentsCpu.user + documentsCpu.system) / 1000),
            bytes: documents.result,
          },
          priceListEncoding: compareEncodings(),
          peakRssMb: Math.round(peakRss / 1_048_576),
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await dispatcher.close();
    await sandbox.stop();
  }
}

/** One unit's price list made and encoded both ways (ms, best of three), and whether the bytes agree. */
function compareEncodings(): { perRowMs: number; joinedStringsMs: number; sameBytes: boolean } {
  const state = createSandboxState({ units: 1, articles: ARTICLES, seed: 42, keepArticles: true });
  const [unit] = state.catalog.units;
  if (unit === undefined) throw new Error('no unit');
  const perRow = () => [...encodedChunks(priceListTexts(state, unit))];
  const joinedStrings = () => {
    const chunks: Buffer[] = [];
    let text = '';
    for (const row of priceListTexts(state, unit)) {
      text += row;
      if (text.length >= CHUNK_BYTES) {
        chunks.push(Buffer.from(text, 'utf8'));
        text = '';
      }
    }
    chunks.push(Buffer.from(text, 'utf8'));
    return chunks;
  };
  const best = (make: () => Buffer[]): { ms: number; bytes: Buffer } => {
    let ms = Number.POSITIVE_INFINITY;
    let bytes = Buffer.alloc(0);
    for (let run = 0; run < 3; run += 1) {
      const started = performance.now();
      const chunks = make();
      ms = Math.min(ms, performance.now() - started);
      bytes = Buffer.concat(chunks);
    }
    return { ms: Math.round(ms), bytes };
  };
  // Made once before timing: the sandbox keeps the articles it made.
  perRow();
  const a = best(perRow);
  const b = best(joinedStrings);
  return { perRowMs: a.ms, joinedStringsMs: b.ms, sameBytes: a.bytes.equals(b.bytes) };
}

await main();
