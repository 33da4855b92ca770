/**
 * Sandbox throughput over loopback: reads every page of a 100,000-article catalog (asking 500 per
 * page, which the sandbox caps at 200), then one unit's price-list XML and one stock export.
 * Prints wall time per part and peak RSS as JSON.
 *
 *   npx tsx bench/sandbox-paging.ts [articles] [units]
 */
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
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
    startSandbox({ units: UNITS, articles: ARTICLES, seed: 42, salesPerMinute: 0, apiKey: API_KEY }),
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

await main();
