import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { posDocumentReaders } from '../../../src/adapters/pos/pos-document-readers.js';
import { openKeyv } from '../../../src/adapters/store/create-keyv.js';
import { createKeyvCatalogStore, loadItems } from '../../../src/adapters/store/keyv-catalog-store.js';
import type { InternalProductData, Product } from '../../../src/core/catalog/catalog.js';
import { type CatalogMeta, createCatalogService } from '../../../src/services/catalog/catalog-service.js';
import { createInThreadCatalogWorkers } from '../../../src/services/catalog/catalog-workers.js';
import type { ReadCatalogInput } from '../../../src/services/catalog/read-catalog.js';
import { createFakePosClient, demoData, type FakePosData, posDown } from '../../fakes/fake-pos-client.js';

const dir = mkdtempSync(join(tmpdir(), 'catalog-service-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SOURCE = { id: 'pos:test', label: 'the test POS' };

let clock = Date.parse('2026-11-22T10:00:00Z');
function now(): Date {
  clock += 1_000;
  return new Date(clock);
}

function createService(storeFile: string, data: FakePosData, reads: ReadCatalogInput[] = []) {
  const { keyv } = openKeyv(`sqlite://${join(dir, storeFile)}`);
  const store = createKeyvCatalogStore<CatalogMeta>(keyv, { source: SOURCE });
  const internalStore = createKeyvCatalogStore<{ version: string }>(keyv, { source: SOURCE, prefix: 'internal' });
  const pos = createFakePosClient(data);
  const workers = createInThreadCatalogWorkers({ pos, documents: posDocumentReaders });
  const service = createCatalogService({
    workers: {
      ...workers,
      readCatalog: (input, onEvent, signal) => {
        reads.push(input);
        return workers.readCatalog(input, onEvent, signal);
      },
    },
    store,
    internalStore,
    logger: pino({ level: 'silent' }),
    now,
    options: {
      currency: 'CZK',
      primaryUnit: undefined,
      unknownStockAvailability: 'out_of_stock',
      priceListKey: 'auto',
      stockKey: 'auto',
      stockColumns: {},
      maxShrink: 0.5,
      concurrency: 2,
    },
  });
  return { service, store, internalStore, keyv };
}

describe('services/catalog-service with the real SQLite store', () => {
  it('publishes a merged catalog and reads it back after a restart', async () => {
    const first = createService('restart.sqlite', demoData(250));

    const report = await first.service.syncCatalog();

    expect(report.outcome).toBe('published');
    expect(report.products).toBe(250);
    const product = first.service.current()?.products[0];
    expect(product).toMatchObject({ id: 'a-1', name: 'Zboží č. 1 & spol.', plu: 1001 });
    expect(product?.offers[0]).toMatchObject({ unit: 'U1', price: 13, stock: 1.5, availability: 'in_stock' });
    await first.store.close();

    const second = createService('restart.sqlite', demoData(250));
    const loaded = await second.service.loadFromStore();

    expect(loaded?.version).toBe(report.version);
    expect(loaded?.products).toEqual(first.service.current()?.products);
    expect((await loadItems<unknown, InternalProductData>(second.internalStore))?.items[0]).toEqual({
      id: 'a-1',
      purchasePrice: 5,
    });
    expect(await second.service.recentReports('sync-catalog')).toHaveLength(1);
    await second.store.close();
  });

  it('tells each read how many articles to expect: none before anything is served, then the last read, or the stored version', async () => {
    const reads: ReadCatalogInput[] = [];
    const first = createService('expected.sqlite', demoData(120), reads);
    await first.service.syncCatalog();
    await first.service.syncCatalog();
    await first.store.close();
    // The POS now has fewer articles: the stored version says 120, the next read finds 90.
    const second = createService('expected.sqlite', demoData(90), reads);
    await second.service.loadFromStore();
    await second.service.syncCatalog();
    await second.service.syncCatalog();
    await second.store.close();

    expect(reads.map((input) => input.expectedArticles)).toEqual([undefined, 120, 120, 90]);
  });

  it('keeps the old version when a run fails', async () => {
    const data = demoData(50);
    const { service, store } = createService('failed.sqlite', data);
    const good = await service.syncCatalog();

    data.failWith = posDown();
    const failed = await service.syncCatalog();

    expect(failed).toMatchObject({ outcome: 'failed', version: good.version, error: { code: 'POS_UNAVAILABLE' } });
    expect(service.current()?.version).toBe(good.version);
    expect(await store.currentVersion()).toBe(good.version);
    await store.close();
  });

  it.each([
    [1000, 400, 'refused'],
    [1000, 499, 'refused'],
    [1000, 500, 'published'],
    [1000, 600, 'published'],
  ])('shrink guard: %i → %i products is %s', async (before, after, outcome) => {
    const data = demoData(before);
    const { service, store } = createService(`shrink-${before}-${after}.sqlite`, data);
    const good = await service.syncCatalog();

    const smaller = demoData(after);
    data.articles = smaller.articles;
    const run = await service.syncCatalog();

    expect(run.outcome).toBe(outcome);
    if (outcome === 'refused') {
      expect(run.reason).toMatch(/shrink|remove/i);
      expect(service.current()?.version).toBe(good.version);
      expect(await store.currentVersion()).toBe(good.version);
    } else {
      expect(service.current()?.products).toHaveLength(after);
    }
    await store.close();
  });

  it('applies a stock export onto the current version as a new version', async () => {
    const data = demoData(30);
    const { service, store } = createService('stock.sqlite', data);
    const full = await service.syncCatalog();

    data.stock['U1'] = 'PLU;Množství\r\n1001;-2\r\n1002;7\r\n';
    const run = await service.syncStock();

    expect(run.outcome).toBe('published');
    expect(run.version).not.toBe(full.version);
    const [first, second, third] = service.current()?.products ?? [];
    expect(first?.offers[0]).toMatchObject({ stock: -2, availability: 'out_of_stock' });
    expect(second?.offers[0]).toMatchObject({ stock: 7, availability: 'in_stock' });
    // Absent from the new export: keeps its stock.
    expect(third?.offers[0]?.stock).toBe(0.5);
    expect(await store.currentVersion()).toBe(run.version);
    expect((await service.syncStock()).outcome).toBe('unchanged');
    await store.close();
  });

  it('serves stock changes at once and stores them in the background, ending on the served version', async () => {
    const data = demoData(30);
    const { service, store } = createService('deltas.sqlite', data);
    const full = await service.syncCatalog();

    const results = await Promise.all(
      [1, 2, 3].map(() => service.applyStockDeltas([{ unitCode: 'U1', articleId: 'a-1', delta: -0.5 }])),
    );

    // Served at once: 1.5 - 3 × 0.5.
    expect(service.current()?.products[0]?.offers[0]?.stock).toBe(0);
    expect(service.current()?.products[0]?.offers[0]?.availability).toBe('out_of_stock');
    expect(await store.currentVersion()).toBe(full.version);
    await Promise.all(results.map((result) => result?.persisted));
    expect(await store.currentVersion()).toBe(service.current()?.version);
    // A version stored this way loads back whole after a restart.
    const stored = await loadItems<CatalogMeta, Product>(store);
    expect(stored?.items[0]?.offers[0]?.stock).toBe(0);
    await store.close();
  });

  it('settles stores of stock changes while more keep coming (no chasing of newer versions)', async () => {
    const data = demoData(30);
    const { service, store } = createService('steady.sqlite', data);
    await service.syncCatalog();

    const first = await service.applyStockDeltas([{ unitCode: 'U1', articleId: 'a-1', delta: -1 }]);
    let stop = false;
    const more = (async () => {
      while (!stop) {
        void service.applyStockDeltas([{ unitCode: 'U1', articleId: 'a-2', delta: 1 }]);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    await first?.persisted;
    stop = true;
    await more;
    await service.flush();

    expect(await store.currentVersion()).toBe(service.current()?.version);
    await store.close();
  });

  it('re-reads only the given units, and never applies an export read before the one applied', async () => {
    const data = demoData(30);
    data.units.push({ localId: 'u-2', code: 'U2', name: 'Druhá', priceLists: [] });
    data.priceLists['U2'] = data.priceLists['U1'] ?? '';
    data.stock['U2'] = data.stock['U1'] ?? '';
    const { service, store } = createService('units.sqlite', data);
    await service.syncCatalog();

    data.stock['U1'] = 'PLU;Množství\r\n1001;9\r\n';
    data.stock['U2'] = 'PLU;Množství\r\n1001;8\r\n';
    const run = await service.syncStock({ units: ['U2'] });

    expect(run.outcome).toBe('published');
    expect(Object.keys(run.sources?.stock ?? {})).toEqual(['U2']);
    const offers = service.current()?.products[0]?.offers;
    expect(offers?.map((offer) => offer.stock)).toEqual([1.5, 8]);

    // Two re-reads at once: the one that read last wins, although the older answer arrives last.
    data.stock['U1'] = 'PLU;Množství\r\n1001;1\r\n';
    let slow = true;
    data.stockDelay = async () => {
      const wait = slow ? 50 : 0;
      slow = false;
      await new Promise((resolve) => setTimeout(resolve, wait));
    };
    const older = service.syncStock({ units: ['U1'] });
    data.stock['U1'] = 'PLU;Množství\r\n1001;2\r\n';
    const newer = service.syncStock({ units: ['U1'] });
    await Promise.all([older, newer]);
    expect(service.current()?.products[0]?.offers[0]?.stock).toBe(2);
    await store.close();
  });

  it('skips the stock sync before the first catalog', async () => {
    const { service, store } = createService('skip.sqlite', demoData(5));

    expect((await service.syncStock()).outcome).toBe('skipped');
    await store.close();
  });

  it('fails the run on a price list that is not XML, keeping nothing of it', async () => {
    const data = demoData(20);
    const { service, store } = createService('bad-xml.sqlite', data);
    const good = await service.syncCatalog();

    data.priceLists['U1'] = '<SHOP><SHOPITEM><CODE>1001</CODE>';
    const run = await service.syncCatalog();

    expect(run).toMatchObject({ outcome: 'failed', error: { code: 'PRICE_LIST_INVALID' } });
    expect(service.current()?.version).toBe(good.version);
    await store.close();
  });

  it('stores a version made by stock changes by writing only its changed chunks, and loads it back whole', async () => {
    const data = demoData(1_500);
    const { service, store, keyv } = createService('incremental.sqlite', data);
    const full = await service.syncCatalog();
    const fullChunks = (await keyv.get(`catalog:v:${full.version}:chunks`)) as { key: string }[];

    const changed = await service.applyStockDeltas([{ unitCode: 'U1', articleId: 'a-1', delta: -1 }]);
    await service.flush();
    const version = service.current()?.version ?? '';
    const chunks = (await keyv.get(`catalog:v:${version}:chunks`)) as { key: string }[];

    expect(changed?.version).toBe(version);
    expect(fullChunks.length).toBeGreaterThan(3);
    expect(chunks.map((chunk) => chunk.key)).toEqual([
      `catalog:c:${version}:0`,
      ...fullChunks.slice(1).map((chunk) => chunk.key),
    ]);
    const reloaded = createService('incremental.sqlite', data);
    expect(await reloaded.service.loadFromStore()).toEqual(service.current());
    await reloaded.store.close();
    await store.close();
  });

  const LABELS =
    '<AVAILABILITY_IN_STOCK>Skladem</AVAILABILITY_IN_STOCK><AVAILABILITY_OUT_OF_STOCK>Do týdne</AVAILABILITY_OUT_OF_STOCK>';
  // With labels, the sold offer must also serialize as a sync writes it (its fields in one order).
  it.each([
    ['', 'converged.sqlite', undefined],
    [' (an offer with availability labels)', 'converged-labels.sqlite', { inStock: 'Skladem', outOfStock: 'Do týdne' }],
  ])(
    'keeps the version when a full sync finds what stock changes already served (fingerprint of the served chunks)%s',
    async (_case, file, texts) => {
      const data = demoData(40);
      if (texts !== undefined) data.priceLists['U1'] = (data.priceLists['U1'] ?? '').replaceAll('<STOCK>', `${LABELS}<STOCK>`);
      const { service, store } = createService(file, data);
      await service.syncCatalog();
      await service.applyStockDeltas([{ unitCode: 'U1', articleId: 'a-1', delta: -1 }]);
      const served = service.current();

      // The POS now says what the sale made of the stock; nothing else changed.
      data.stock['U1'] = (data.stock['U1'] ?? '').replace(/^1001;1,5/m, '1001;0,5');
      const run = await service.syncCatalog();

      expect(served?.products[0]?.offers[0]?.stock).toBe(0.5);
      expect(served?.products[0]?.offers[0]?.availabilityTexts).toEqual(texts);
      expect(run).toMatchObject({ outcome: 'unchanged', version: served?.version });
      await store.close();
    },
  );

  it('a re-read overtaken by a new catalog reads its export again for that catalog, and applies it', async () => {
    const data = demoData(40);
    const { service, store } = createService('reread-new-family.sqlite', data);
    await service.syncCatalog();
    // The re-read's first fetch answers late; meanwhile a full sync publishes a new catalog (a new price).
    let fetches = 0;
    let release: () => void = () => undefined;
    let reading: () => void = () => undefined;
    const readingExport = new Promise<void>((resolve) => {
      reading = resolve;
    });
    data.stockDelay = () => {
      fetches += 1;
      if (fetches > 1) return Promise.resolve();
      return new Promise<void>((resolve) => {
        release = resolve;
        reading();
      });
    };
    const reread = service.syncStock();
    await readingExport;
    data.priceLists['U1'] = (data.priceLists['U1'] ?? '').replace('<PRICE_VAT>13.00</PRICE_VAT>', '<PRICE_VAT>99.00</PRICE_VAT>');
    data.stock['U1'] = (data.stock['U1'] ?? '').replace(/^1001;1,5/m, '1001;7');
    const full = await service.syncCatalog();
    expect(full.outcome).toBe('published');
    const fetchesBefore = fetches;
    release();
    const report = await reread;

    // Read again for the new catalog (its first read resolved against the old one), not thrown away.
    expect(fetches).toBe(fetchesBefore + 1);
    expect(report.sources?.stock?.['U1']).toBeDefined();
    expect(service.current()?.products[0]?.offers[0]).toMatchObject({ price: 99, stock: 7 });
    await store.close();
  });

  it('a stock export read before a sale does not undo the sale; a re-read after it applies the POS again', async () => {
    const data = demoData(40);
    const { service, store } = createService('reread-race.sqlite', data);
    await service.syncCatalog();
    const before = service.current()?.products[0]?.offers[0]?.stock;
    // The re-read takes its export as the POS has it now (before the sale), and answers late.
    let release: () => void = () => undefined;
    let reading: () => void = () => undefined;
    const readingExport = new Promise<void>((resolve) => {
      reading = resolve;
    });
    data.stockDelay = () =>
      new Promise<void>((resolve) => {
        release = resolve;
        reading();
      });
    const reread = service.syncStock();
    // The sale comes once the re-read is reading its export (a fixed wait could come before, under load).
    await readingExport;
    await service.applyStockDeltas([{ unitCode: 'U1', articleId: 'a-1', delta: -1 }]);
    expect(service.current()?.products[0]?.offers[0]?.stock).toBe((before ?? 0) - 1);
    release();
    await reread;
    // The export predates the sale: its value for a-1 in U1 is not applied over the sale.
    expect(service.current()?.products[0]?.offers[0]?.stock).toBe((before ?? 0) - 1);
    // The POS now knows the sale (and a-1 got one more piece meanwhile): a later re-read applies it.
    delete data.stockDelay;
    data.stock['U1'] = (data.stock['U1'] ?? '').replace(/^1001;1,5/m, '1001;4');
    await service.syncStock();
    expect(service.current()?.products[0]?.offers[0]?.stock).toBe(4);
    await store.close();
  });
});
