/**
 * `npx tsx bench/hostile-pos.ts [--articles 500] [--units 2] [--deadline-ms 10000]`: a full sync (and a stock
 * sync) against a POS that misbehaves on one endpoint at a time (the sandbox's `endless`, `trickle`,
 * `hang`, `long-line`, `gzip-bomb` and `entities` faults, in a child process), as the app wires the catalog (worker threads, memory store). For each case:
 * how the sync ended, how long it took, and the peak growth of this process's RSS over its RSS before the
 * run (the worker thread's heap included). Figures in BENCHMARKS.md, "Hostile POS".
 */
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { request } from 'undici';
import { openKeyv } from '../src/adapters/store/create-keyv.js';
import { createKeyvCatalogStore } from '../src/adapters/store/keyv-catalog-store.js';
import {
  type CatalogMeta,
  catalogServiceOptions,
  createCatalogService,
  type SyncReport,
} from '../src/services/catalog/catalog-service.js';
import { createCatalogWorkers } from '../src/workers/create-catalog-workers.js';
import { createTestConfig } from '../test/helpers/test-config.js';
import { startSandboxProcess } from './sandbox-process.js';

const { values } = parseArgs({
  options: {
    articles: { type: 'string', default: '500' },
    units: { type: 'string', default: '2' },
    'deadline-ms': { type: 'string', default: '10000' },
  },
});
const API_KEY = 'bench-key';
const sandbox = await startSandboxProcess({
  articles: Number(values.articles),
  units: Number(values.units),
  apiKey: API_KEY,
});
const config = createTestConfig({
  POS_BASE_URL: sandbox.url,
  POS_API_KEY: API_KEY,
  POS_MAX_RETRIES: '0',
  SYNC_DEADLINE_MS: values['deadline-ms'],
});
const posConfig = { ...config.pos, baseUrl: sandbox.url, apiKey: API_KEY };
const workers = createCatalogWorkers({ pos: posConfig });
const source = { id: 'pos:bench', label: 'bench' };
const { keyv } = openKeyv('memory://');
const service = createCatalogService({
  workers,
  store: createKeyvCatalogStore<CatalogMeta>(keyv, { source }),
  internalStore: createKeyvCatalogStore<{ version: string }>(keyv, { source, prefix: 'internal' }),
  logger: pino({ level: 'silent' }),
  now: () => new Date(),
  options: catalogServiceOptions(config),
});

async function faults(method: 'PUT' | 'DELETE', rule?: object): Promise<void> {
  await fetch(`${sandbox.url}/sandbox/faults`, {
    method,
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    ...(rule === undefined ? {} : { body: JSON.stringify(rule) }),
  });
}

async function measured(run: () => Promise<SyncReport>) {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  const started = performance.now();
  const report = await run();
  clearInterval(sampler);
  return {
    outcome: report.outcome,
    code: report.error?.code,
    phase: report.error?.phase,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    peakGrowthMib: Math.round((Math.max(peak, process.memoryUsage.rss()) - before) / 1024 / 1024),
  };
}

// The sandbox makes its gzip bomb on first use (seconds of CPU): made here, outside any measured sync.
await faults('PUT', { endpoint: 'stock-export-all', mode: 'gzip-bomb' });
await (await request(`${sandbox.url}/warehouse/stock/export/csv`, { headers: { 'x-api-key': API_KEY } })).body.dump();
await faults('DELETE');
const good = await service.syncCatalog();
process.stdout.write(`first sync: ${good.outcome}, ${good.products} products\n`);
const rows: object[] = [];
for (const endpoint of ['unit-list', 'article-list', 'price-list', 'stock-export']) {
  for (const mode of ['endless', 'trickle', 'hang', 'long-line', 'gzip-bomb', 'entities']) {
    await faults('PUT', { endpoint, mode, intervalMs: 200 });
    rows.push({ sync: 'full', endpoint, mode, ...(await measured(() => service.syncCatalog())) });
    await faults('DELETE');
    // Lets the ended worker's memory go before the next case.
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
for (const mode of ['endless', 'trickle']) {
  await faults('PUT', { endpoint: 'stock-export', mode, intervalMs: 200 });
  rows.push({ sync: 'stock', endpoint: 'stock-export', mode, ...(await measured(() => service.syncStock())) });
  await faults('DELETE');
}
const after = await service.syncCatalog();
console.table(rows);
process.stdout.write(
  `after the faults: ${after.outcome}; served ${service.current()?.version === good.version ? 'the same version' : 'another version'}\n`,
);
await workers.close();
await sandbox.stop();
