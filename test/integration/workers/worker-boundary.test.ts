import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPosClient, type PosClientConfig } from '../../../src/adapters/pos/pos-client.js';
import { posDocumentReaders } from '../../../src/adapters/pos/pos-document-readers.js';
import { openKeyv } from '../../../src/adapters/store/create-keyv.js';
import { createKeyvCatalogStore } from '../../../src/adapters/store/keyv-catalog-store.js';
import { loadConfiguredTemplates } from '../../../src/app/feed-parts.js';
import { ALL_UNITS, type CatalogSnapshot } from '../../../src/core/catalog/catalog.js';
import { chunkText, type ItemChunk } from '../../../src/core/catalog/catalog-chunks.js';
import type { DocumentThreadsSetting } from '../../../src/core/catalog/document-threads.js';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import {
  type CatalogMeta,
  type CatalogService,
  catalogServiceOptions,
  createCatalogService,
} from '../../../src/services/catalog/catalog-service.js';
import { type CatalogWorkers, createInThreadCatalogWorkers } from '../../../src/services/catalog/catalog-workers.js';
import type { ReadCatalogInput, ReadCatalogOutput } from '../../../src/services/catalog/read-catalog.js';
import { createFeedBuilder, type FeedRequest } from '../../../src/services/feeds/feed-builder.js';
import { createInThreadFeedRenderer, type RenderedBody } from '../../../src/services/feeds/feed-renderer.js';
import { createCatalogWorkers } from '../../../src/workers/create-catalog-workers.js';
import { createWorkerFeedRenderer } from '../../../src/workers/create-feed-renderer.js';
import { createTestConfig } from '../../helpers/test-config.js';
import { API_KEY, sendJson, startTestSandbox } from '../sandbox/sandbox-test-kit.js';

const FAULTY_CATALOG_WORKER = new URL('../../fixtures/workers/faulty-catalog-worker.ts', import.meta.url);
const FAULTY_RENDER_WORKER = new URL('../../fixtures/workers/faulty-render-worker.ts', import.meta.url);

const dir = mkdtempSync(join(tmpdir(), 'worker-boundary-'));
let sandbox: RunningSandbox;
let posConfig: PosClientConfig;
const logger = pino({ level: 'silent' });
const open: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox({ units: 2, articles: 250 });
  const config = createTestConfig({ POS_BASE_URL: sandbox.url, POS_API_KEY: API_KEY });
  posConfig = { ...config.pos, baseUrl: sandbox.url, apiKey: API_KEY };
});
afterEach(async () => {
  await sendJson(`${sandbox.url}/sandbox/faults`, 'DELETE');
  delete process.env['FAULTY_WORKER'];
  delete process.env['FAULTY_WORKER_MARKER'];
  for (const resource of open.splice(0)) await resource.close();
});
afterAll(async () => {
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
});

function options() {
  return catalogServiceOptions(createTestConfig({ POS_BASE_URL: sandbox.url, POS_API_KEY: API_KEY }));
}

function pooled(entry?: URL): CatalogWorkers {
  const workers = createCatalogWorkers({ pos: posConfig, ...(entry === undefined ? {} : { entry }) });
  open.push(workers);
  return workers;
}

function inThread(): CatalogWorkers {
  const pos = createPosClient({ config: posConfig });
  open.push(pos);
  return createInThreadCatalogWorkers({ pos, documents: posDocumentReaders });
}

const SOURCE = { id: 'pos:test', label: 'the test POS' };

function createService(workers: CatalogWorkers, documentThreads: DocumentThreadsSetting = 1): CatalogService {
  const { keyv } = openKeyv('memory://');
  return createCatalogService({
    workers,
    store: createKeyvCatalogStore<CatalogMeta>(keyv, { source: SOURCE }),
    internalStore: createKeyvCatalogStore<{ version: string }>(keyv, { source: SOURCE, prefix: 'internal' }),
    logger,
    now: () => new Date(),
    // With two threads, one document at a time: every document is then the second thread's to read.
    options: { ...options(), documentThreads, ...(documentThreads === 2 ? { concurrency: 1 } : {}) },
  });
}

/** A worker that fails its first full-sync task (`throw` or `exit`), then behaves. */
function failingOnce(fault: 'throw' | 'exit'): CatalogWorkers {
  process.env['FAULTY_WORKER'] = fault;
  process.env['FAULTY_WORKER_MARKER'] = join(dir, `marker-${fault}-${Math.random()}`);
  return pooled(FAULTY_CATALOG_WORKER);
}

/** The chunks' JSON texts (their bytes are deflated). */
function textOf(chunks: readonly ItemChunk[]): string {
  return chunks.map((chunk) => chunkText(chunk)).join('');
}

function readInput(documentThreads: DocumentThreadsSetting = 1): ReadCatalogInput {
  const { maxShrink: _guard, ...rest } = options();
  return {
    version: 'v-20261122T100000000Z-00000000',
    startedAt: '2026-11-22T10:00:00.000Z',
    options: { ...rest, documentThreads },
  };
}

function ok(output: ReadCatalogOutput): Extract<ReadCatalogOutput, { ok: true }> {
  if (!output.ok) throw new Error(`read failed: ${output.error.message}`);
  return output;
}

describe('workers/ the worker-thread boundary', () => {
  it.each([1, 2] as const)(
    'reads, merges and serializes the sandbox catalog byte for byte as the calling thread does (%i document threads)',
    async (threads) => {
      const input = readInput(threads);

      const inWorker = ok(await pooled().readCatalog(input, () => {}));
      const here = ok(await inThread().readCatalog(input, () => {}));

      expect(inWorker.productCount).toBeGreaterThan(200);
      expect(inWorker.fingerprint).toBe(here.fingerprint);
      expect(textOf(inWorker.products) === textOf(here.products)).toBe(true);
      expect(textOf(inWorker.internal) === textOf(here.internal)).toBe(true);
      expect(inWorker.identity).toEqual(here.identity);
      expect(inWorker.identity.tables.localId.slots.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(inWorker.snapshot).toEqual(here.snapshot);
      expect(inWorker.sources).toEqual(here.sources);
      expect(inWorker.merge).toEqual(here.merge);
      // The products cross as shared memory, not as copies.
      expect(inWorker.products[0]?.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    },
  );

  it("posts the POS client's debug lines to the calling thread only when its log shows them", async () => {
    const debugLines = async (workers: CatalogWorkers): Promise<string[]> => {
      open.push(workers);
      const lines: string[] = [];
      const output = await workers.readCatalog(readInput(1), (event) => {
        if (event.type === 'log' && event.level === 'debug') lines.push(event.message);
      });
      ok(output);
      return lines;
    };
    expect(await debugLines(createCatalogWorkers({ pos: posConfig, debugLogs: true }))).toContain('POS page read');
    expect(await debugLines(createCatalogWorkers({ pos: posConfig }))).toEqual([]);
  });

  it('reads a small catalog again and again in the thread that stays, and after an aborted or a failed read', async () => {
    const workers = pooled();
    const small = { ...readInput(1), expectedArticles: 500 };
    const first = ok(await workers.readCatalog(small, () => {}));
    // Nothing of the first read is left in the thread for the second.
    expect(ok(await workers.readCatalog(small, () => {})).fingerprint).toBe(first.fingerprint);

    const controller = new AbortController();
    const aborted = workers.readCatalog(small, () => {}, controller.signal);
    controller.abort(new Error('stopped by the test'));
    await expect(aborted).rejects.toThrow('stopped by the test');
    expect(ok(await workers.readCatalog(small, () => {})).fingerprint).toBe(first.fingerprint);

    await sendJson(`${sandbox.url}/sandbox/faults`, 'PUT', [{ endpoint: 'price-list', mode: 'malformed' }]);
    expect(await workers.readCatalog(small, () => {})).toMatchObject({ ok: false, error: { code: 'PRICE_LIST_INVALID' } });
    await sendJson(`${sandbox.url}/sandbox/faults`, 'DELETE');
    // The failed read's thread went (its pool with it): a new one reads the next.
    expect(ok(await workers.readCatalog(small, () => {})).fingerprint).toBe(first.fingerprint);
  });

  // Renders every feed twice (worker and calling thread): CPU-bound, past 30 s on 2 cores shared with other work.
  it('renders every feed byte for byte as the calling thread does', { timeout: 120_000 }, async () => {
    const service = createService(pooled());
    await service.syncCatalog();
    const snapshot = service.current() as CatalogSnapshot;
    // Stock settings too: the worker compiles the templates with them, so its feeds must keep the same pieces back.
    const stockConfig = createTestConfig({
      UNIT_STOCK_BUFFER: '*=1',
      FEED_STOCK_POLICY: 'meta:buffer=1;heureka:outOfStock=list',
    });
    const { compiled, files, stock } = await loadConfiguredTemplates(stockConfig);
    expect(stock.unitBuffers).toEqual({ '*': 1 });
    const feedOptions = {
      currency: 'CZK',
      brand: 'Značka',
      baseUrl: 'https://bridge.example',
      links: { storeCodes: {}, productUrl: 'https://shop.example/p/{id}', imageUrl: 'https://shop.example/i/{id}.png' },
    };
    const here = createInThreadFeedRenderer(createFeedBuilder(compiled, feedOptions));
    const inWorker = createWorkerFeedRenderer({
      templates: files,
      stock,
      options: feedOptions,
      chunksOf: (s) => service.chunksOf(s),
      fallback: here,
      outputDir: join(dir, 'feed-files'),
      // One chunk parsed at a time: every feed of the pass reads chunks other feeds evicted.
      windowChunks: 1,
    });
    open.push(inWorker);
    const views = [ALL_UNITS, ...snapshot.units.map((unit) => unit.code)];
    const feedFiles = ['products.json', 'products.csv', 'products.xlsx', ...compiled.map((template) => template.file)];
    const requests: FeedRequest[] = [];
    for (const view of views) {
      for (const file of feedFiles) {
        const template = compiled.find((candidate) => candidate.file === file);
        if (template !== undefined && !template.servesView(view)) continue;
        requests.push({ file, view, variant: {} });
      }
    }
    requests.push({ file: 'products.csv', view: ALL_UNITS, variant: { csvProfile: 'excel' } });

    const [fromWorker, fromHere] = await Promise.all([inWorker.render(snapshot, requests), here.render(snapshot, requests)]);

    expect(fromWorker).toHaveLength(requests.length);
    for (const [index, body] of fromWorker.entries()) {
      const expected = fromHere[index] as RenderedBody;
      const file = requests[index]?.file;
      const what = `${file} ${requests[index]?.view}`;
      expect(body.identityLength, what).toBe(expected.identityLength);
      // The worker writes files (the main thread never holds a body); the calling thread keeps them in memory.
      const files = body.files;
      if (files === undefined) throw new Error(`${what}: no files`);
      const identity = readFileSync(files.identity.path);
      expect(identity.length, what).toBe(files.identity.length);
      expect(identity.equals(expected.identity ?? Buffer.alloc(0)), what).toBe(true);
      if (file === 'products.xlsx') {
        // A zip already: kept as it is, never compressed again.
        expect(identity.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
        expect([files.gzip, files.br]).toEqual([undefined, undefined]);
      } else {
        expect(gunzipSync(readFileSync(files.gzip?.path ?? '')).equals(identity), what).toBe(true);
        expect(brotliDecompressSync(readFileSync(files.br?.path ?? '')).equals(identity), what).toBe(true);
      }
      expect(body.report).toEqual(expected.report);
    }
  });

  it.each(['throw', 'exit'] as const)(
    'fails a full sync cleanly when the worker %ss, keeps the last good version, and recovers',
    async (fault) => {
      // The service's workers: healthy for the first sync, then a pool whose first task fails.
      let current = pooled();
      const service = createService({
        readCatalog: (input, onEvent) => current.readCatalog(input, onEvent),
        readStockExport: (input, onEvent) => current.readStockExport(input, onEvent),
        fingerprint: (header, chunks) => current.fingerprint(header, chunks),
        checkEnrichment: (sheet) => current.checkEnrichment(sheet),
        close: async () => {},
      });
      const first = await service.syncCatalog();
      const served = service.current()?.version;
      current = failingOnce(fault);

      const failed = await service.syncCatalog();
      const again = await service.syncCatalog();

      expect(first.outcome).toBe('published');
      expect(failed).toMatchObject({ outcome: 'failed', version: served, error: { code: 'WORKER_FAILED' } });
      expect(failed.error?.message).toContain('readCatalog');
      expect(again.outcome).toBe('unchanged');
      expect(service.current()?.version).toBe(served);
    },
  );

  it.each([1, 2] as const)(
    'fails a full sync on a malformed price list parsed in the worker, naming the problem (%i document threads)',
    async (threads) => {
      const service = createService(pooled(), threads);
      const good = await service.syncCatalog();
      await sendJson(`${sandbox.url}/sandbox/faults`, 'PUT', [{ endpoint: 'price-list', mode: 'malformed' }]);

      const run = await service.syncCatalog();

      expect(run).toMatchObject({ outcome: 'failed', version: good.version, error: { code: 'PRICE_LIST_INVALID' } });
      expect(service.current()?.version).toBe(good.version);
    },
  );

  it('fails a render cleanly when the render worker exits, and renders again with a new thread', async () => {
    const service = createService(pooled());
    await service.syncCatalog();
    const snapshot = service.current() as CatalogSnapshot;
    const { compiled, files, stock } = await loadConfiguredTemplates(createTestConfig({}));
    const feedOptions = { currency: 'CZK', brand: undefined, baseUrl: '', links: { storeCodes: {} } };
    process.env['FAULTY_WORKER'] = 'exit';
    process.env['FAULTY_WORKER_MARKER'] = join(dir, `marker-render-${Math.random()}`);
    const renderer = createWorkerFeedRenderer({
      templates: files,
      stock,
      options: feedOptions,
      chunksOf: (s) => service.chunksOf(s),
      fallback: createInThreadFeedRenderer(createFeedBuilder(compiled, feedOptions)),
      outputDir: join(dir, 'faulty-feed-files'),
      entry: FAULTY_RENDER_WORKER,
    });
    open.push(renderer);
    const request: FeedRequest = { file: 'products.csv', view: ALL_UNITS, variant: {} };

    await expect(renderer.render(snapshot, [request])).rejects.toMatchObject({ code: 'WORKER_FAILED' });
    const [body] = await renderer.render(snapshot, [request]);

    expect(readFileSync(body?.files?.identity.path ?? '', 'utf8')).toContain(snapshot.products[0]?.id ?? 'none');
  });

  it('waits for a full sync in flight when closed, and takes no work after', async () => {
    const workers = createCatalogWorkers({ pos: posConfig });
    await sendJson(`${sandbox.url}/sandbox/faults`, 'PUT', [{ endpoint: 'price-list', mode: 'latency', latencyMs: 300 }]);
    let readingPriceLists!: () => void;
    const busy = new Promise<void>((resolve) => {
      readingPriceLists = resolve;
    });

    const reading = workers.readCatalog(readInput(), (event) => {
      if (event.type === 'phase' && event.phase === 'stock') readingPriceLists();
    });
    await busy;
    await workers.close();

    // Closed while the worker was busy: the task ran to its end, its result intact.
    expect(ok(await reading).productCount).toBeGreaterThan(200);
    await expect(workers.readCatalog(readInput(), () => {})).rejects.toThrow();
  });
});
