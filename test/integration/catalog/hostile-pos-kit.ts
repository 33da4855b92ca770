import { request } from 'undici';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import type { CatalogService, SyncReport } from '../../../src/services/catalog/catalog-service.js';
import { createTestConfig } from '../../helpers/test-config.js';
import { API_KEY, sendJson, startTestSandbox } from '../sandbox/sandbox-test-kit.js';
import { createWorkerCatalog, switchedDeadline } from './worker-catalog-kit.js';

/**
 * The kit of the hostile-POS tests (split over two files, the lists and the documents, so they run side by
 * side). Every POS read is bounded (docs/failure-modes.md). The sandbox plays a hostile POS on one endpoint
 * at a time: a valid-looking body that never ends, as fast as it is read (`endless`), or the real answer a
 * byte every 200 ms (`trickle`), 50 MB on one line (`long-line`), a gzip bomb it never asked for
 * (`gzip-bomb`), nested XML entities (`entities`). Each full sync ends, by the catalog's own limits or by its
 * deadline, with the code and phase that say why; the last good catalog stays served; the process's memory
 * grows by a bounded amount; and the next sync, with the POS behaving again, publishes. Real worker threads,
 * real HTTP.
 */

// The trickles, which never end, meet this deadline. The other hostile bodies and every healthy sync run under
// a long one: what they check is a size or parse limit, which a busy machine must not turn into a deadline.
// Long enough that the phases before the trickling document end within it on a loaded CI machine (at 3 s a
// stock-export trickle once ended in 'units', the POS's unit list being slow beside the whole suite).
const TRICKLE_DEADLINE_MS = 6_000;
const deadline = switchedDeadline(TRICKLE_DEADLINE_MS);
/** Growth of the process's RSS while one hostile sync runs (the worker thread's heap included). */
export const MEMORY_BOUND_MB = 160;

export interface HostilePos {
  readonly sandbox: RunningSandbox;
  readonly service: CatalogService;
  /** The good sync's report, whose version must stay served. */
  readonly good: SyncReport;
}

/** Filled by `useHostilePos`'s `beforeAll`. */
export const hostile = {} as HostilePos;
const open: { close(): Promise<void> }[] = [];

/** The hooks of a hostile-POS file: the sandbox, the catalog service on worker threads and its good sync. */
export function useHostilePos(): void {
  beforeAll(async () => {
    const sandbox = await startTestSandbox({ units: 2, articles: 300 });
    const config = createTestConfig({ POS_BASE_URL: sandbox.url, POS_API_KEY: API_KEY, POS_MAX_RETRIES: '0' });
    const service = createWorkerCatalog(config, { deadlineMs: deadline.deadlineMs, open });
    const good = await service.syncCatalog();
    expect(good.outcome).toBe('published');
    Object.assign(hostile, { sandbox, service, good });
    // The sandbox makes its gzip bomb once, on first use (a few seconds): not inside a sync's deadline.
    await sendJson(`${sandbox.url}/sandbox/faults`, 'PUT', { endpoint: 'stock-export-all', mode: 'gzip-bomb' });
    const warm = await request(`${sandbox.url}/warehouse/stock/export/csv`, { headers: { 'x-api-key': API_KEY } });
    await warm.body.dump();
    await sendJson(`${sandbox.url}/sandbox/faults`, 'DELETE');
  }, 60_000); // the good sync (in fresh worker threads) and the bomb's making: seconds each on a busy machine
  afterEach(async () => {
    deadline.hostile(false);
    await sendJson(`${hostile.sandbox.url}/sandbox/faults`, 'DELETE');
  });
  afterAll(async () => {
    for (const resource of open.splice(0)) await resource.close();
    await hostile.sandbox?.stop();
  });
}

/** Runs `sync` while sampling the process's RSS; returns its report and the peak growth in MiB. */
export async function measured<T>(sync: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  try {
    const result = await sync();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, growthMb: (peak - before) / 1024 / 1024 };
  } finally {
    clearInterval(sampler);
  }
}

export interface HostileCase {
  readonly endpoint: string;
  readonly mode: 'endless' | 'trickle' | 'long-line' | 'gzip-bomb' | 'entities';
  readonly code: string;
  readonly phase?: string;
}

export const CASES: readonly HostileCase[] = [
  { endpoint: 'unit-list', mode: 'endless', code: 'POS_RESPONSE_INVALID' },
  { endpoint: 'unit-list', mode: 'trickle', code: 'SYNC_DEADLINE', phase: 'units' },
  { endpoint: 'article-list', mode: 'endless', code: 'POS_RESPONSE_INVALID' },
  { endpoint: 'article-list', mode: 'trickle', code: 'SYNC_DEADLINE', phase: 'articles' },
  { endpoint: 'price-list', mode: 'endless', code: 'POS_RESPONSE_TOO_LARGE' },
  { endpoint: 'price-list', mode: 'trickle', code: 'SYNC_DEADLINE', phase: 'sources' },
  { endpoint: 'stock-export', mode: 'endless', code: 'POS_RESPONSE_TOO_LARGE' },
  { endpoint: 'stock-export', mode: 'trickle', code: 'SYNC_DEADLINE', phase: 'sources' },
  { endpoint: 'article-list', mode: 'long-line', code: 'POS_RESPONSE_INVALID' },
  { endpoint: 'article-list', mode: 'gzip-bomb', code: 'POS_RESPONSE_INVALID' },
  { endpoint: 'price-list', mode: 'long-line', code: 'POS_RESPONSE_TOO_LARGE' },
  { endpoint: 'price-list', mode: 'gzip-bomb', code: 'PRICE_LIST_INVALID' },
  { endpoint: 'price-list', mode: 'entities', code: 'PRICE_LIST_INVALID' },
  { endpoint: 'stock-export', mode: 'long-line', code: 'POS_RESPONSE_TOO_LARGE' },
  { endpoint: 'stock-export', mode: 'gzip-bomb', code: 'STOCK_EXPORT_INVALID' },
];

/** One hostile case: the sync under the fault ends with its code (and phase), the catalog kept, memory bounded. */
export async function runHostileCase({ endpoint, mode, code, phase }: HostileCase): Promise<void> {
  const rule = { endpoint, mode, ...(mode === 'trickle' ? { intervalMs: 200 } : {}) };
  expect((await sendJson(`${hostile.sandbox.url}/sandbox/faults`, 'PUT', rule)).status).toBeLessThan(300);

  deadline.hostile(code === 'SYNC_DEADLINE');
  const { result: report, growthMb } = await measured(() => hostile.service.syncCatalog());
  deadline.hostile(false);

  expect(report.outcome).toBe('failed');
  expect(report.error?.code, report.error?.message).toBe(code);
  if (phase !== undefined) expect(report.error?.phase).toBe(phase);
  expect(hostile.service.current()?.version).toBe(hostile.good.version);
  expect(growthMb).toBeLessThan(MEMORY_BOUND_MB);

  await sendJson(`${hostile.sandbox.url}/sandbox/faults`, 'DELETE');
  expect((await hostile.service.syncCatalog()).outcome).toBe('unchanged');
}
