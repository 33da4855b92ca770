import { Keyv } from 'keyv';
import { describe, expect, it } from 'vitest';
import { openKeyv } from '../../../src/adapters/store/create-keyv.js';
import { type CatalogStore, createKeyvCatalogStore } from '../../../src/adapters/store/keyv-catalog-store.js';
import { storeBackends } from '../../helpers/store-backends.js';

interface Item {
  readonly id: string;
  readonly version: string;
}

const backends = storeBackends('catalog-store');
const newSqliteUrl = backends.find(([name]) => name === 'sqlite')?.[1] ?? (() => 'memory://');

function itemsOf(version: string, count: number): Item[] {
  return Array.from({ length: count }, (_, i) => ({ id: `a-${i}`, version }));
}

const at = new Date('2026-11-22T10:00:00Z');

describe.each(backends)('catalog store contract (%s)', (_name, newUrl) => {
  function open(url = newUrl(), chunkSize = 3): { store: CatalogStore<{ label: string }, Item>; keyv: Keyv; url: string } {
    const { keyv } = openKeyv(url);
    return { store: createKeyvCatalogStore(keyv, { chunkSize, keepVersions: 2 }), keyv, url };
  }

  it('is empty before the first publish', async () => {
    const { store } = open();

    expect(await store.currentVersion()).toBeUndefined();
    expect(await store.loadCurrent()).toBeUndefined();
  });

  it('reads back a published version in order, across chunks', async () => {
    const { store } = open();
    const items = itemsOf('v1', 10);

    await store.publish({ version: 'v1', meta: { label: 'first' }, items }, at);

    expect(await store.currentVersion()).toBe('v1');
    expect(await store.loadCurrent()).toEqual({ version: 'v1', meta: { label: 'first' }, items });
  });

  it('publishes an empty item list as a real version', async () => {
    const { store } = open();

    await store.publish({ version: 'v0', meta: { label: 'empty' }, items: [] }, at);

    expect(await store.loadCurrent()).toEqual({ version: 'v0', meta: { label: 'empty' }, items: [] });
  });

  it('prunes versions beyond the ones it keeps', async () => {
    const { store, keyv } = open();

    for (const version of ['v1', 'v2', 'v3'])
      await store.publish({ version, meta: { label: version }, items: itemsOf(version, 4) }, at);

    expect((await store.loadCurrent())?.version).toBe('v3');
    expect(await keyv.get('catalog:v:v1:meta')).toBeUndefined();
    expect(await keyv.get('catalog:v:v1:chunk:0')).toBeUndefined();
    expect(await keyv.get('catalog:v:v2:meta')).toEqual({ label: 'v2' });
  });

  it('never lets a reader see a mix of two versions', async () => {
    const { store } = open(undefined, 2);
    await store.publish({ version: 'v1', meta: { label: 'v1' }, items: itemsOf('v1', 40) }, at);

    const publishing = store.publish({ version: 'v2', meta: { label: 'v2' }, items: itemsOf('v2', 40) }, at);
    const reads = Array.from({ length: 20 }, () => store.loadCurrent());
    const seen = await Promise.all([...reads, publishing.then(() => store.loadCurrent())]);

    for (const catalog of seen) {
      if (catalog === undefined) continue;
      expect(new Set(catalog.items.map((item) => item.version))).toEqual(new Set([catalog.version]));
      expect(catalog.meta.label).toBe(catalog.version);
    }
    expect(seen.at(-1)?.version).toBe('v2');
  });

  it('keeps the last reports per job, newest first', async () => {
    const { store } = open();

    for (let i = 1; i <= 12; i++) await store.saveReport('sync-catalog', { run: i });

    const reports = await store.recentReports('sync-catalog');
    expect(reports).toHaveLength(10);
    expect(reports[0]).toEqual({ run: 12 });
    expect(await store.recentReports('sync-stock')).toEqual([]);
  });
});

describe('catalog store on SQLite across a restart', () => {
  it('serves the last version from a new store instance on the same file', async () => {
    const url = newSqliteUrl();
    const first = createKeyvCatalogStore<{ label: string }, Item>(openKeyv(url).keyv, { chunkSize: 5 });
    await first.publish({ version: 'v7', meta: { label: 'before restart' }, items: itemsOf('v7', 12) }, at);
    await first.close();

    const second = createKeyvCatalogStore<{ label: string }, Item>(openKeyv(url).keyv, { chunkSize: 5 });

    expect(await second.loadCurrent()).toEqual({ version: 'v7', meta: { label: 'before restart' }, items: itemsOf('v7', 12) });
    await second.close();
  });
});

describe('catalog store on a failing backend', () => {
  it('raises the failure instead of reading as an empty catalog', async () => {
    const failing = new Map<string, unknown>();
    failing.get = () => {
      throw new Error('disk I/O error');
    };
    const store = createKeyvCatalogStore(new Keyv({ store: failing, throwOnErrors: true }));

    await expect(store.loadCurrent()).rejects.toThrow('disk I/O error');
    await expect(store.currentVersion()).rejects.toThrow('disk I/O error');
  });

  it('raises when a chunk of the current version is missing', async () => {
    const { keyv } = openKeyv('memory://');
    const store = createKeyvCatalogStore<{ label: string }, Item>(keyv, { chunkSize: 2 });
    await store.publish({ version: 'v1', meta: { label: 'v1' }, items: itemsOf('v1', 6) }, at);

    await keyv.delete('catalog:v:v1:chunk:1');

    await expect(store.loadCurrent()).rejects.toThrow('chunk 1 of version v1 is missing');
  });

  it('raises when a chunk of the current version is not JSON', async () => {
    const { keyv } = openKeyv('memory://');
    const store = createKeyvCatalogStore<{ label: string }, Item>(keyv, { chunkSize: 2 });
    await store.publish({ version: 'v1', meta: { label: 'v1' }, items: itemsOf('v1', 6) }, at);

    await keyv.set('catalog:v:v1:chunk:2', '[{"id":');

    await expect(store.loadCurrent()).rejects.toThrow('chunk 2 of version v1 is missing or unreadable');
  });
});

describe('catalog store format', () => {
  it('stores each chunk as the JSON text of its items', async () => {
    const { keyv } = openKeyv('memory://');
    const store = createKeyvCatalogStore<{ label: string }, Item>(keyv, { chunkSize: 2 });
    await store.publish({ version: 'v1', meta: { label: 'v1' }, items: itemsOf('v1', 3) }, at);

    expect(await keyv.get('catalog:v:v1:chunk:1')).toBe('[{"id":"a-2","version":"v1"}]');
  });

  it('sizes chunks to about chunkChars from the items seen, and reads the version back whole', async () => {
    const { keyv } = openKeyv('memory://');
    const store = createKeyvCatalogStore<{ label: string }, Item>(keyv, { chunkSize: 100, chunkChars: 90 });
    const items = itemsOf('v1', 70);
    await store.publish({ version: 'v1', meta: { label: 'v1' }, items }, at);

    // Each item is 27 characters of JSON (28 with its comma): 64 in the first chunk, then 3 per chunk.
    expect(await keyv.get('catalog:v:v1:chunk:0')).toBe(JSON.stringify(items.slice(0, 64)));
    expect(await keyv.get('catalog:v:v1:chunk:1')).toBe(JSON.stringify(items.slice(64, 67)));
    expect(await keyv.get('catalog:v:v1:chunk:2')).toBe(JSON.stringify(items.slice(67)));
    expect(await keyv.get('catalog:v:v1:chunk:3')).toBeUndefined();
    expect((await store.loadCurrent())?.items).toEqual(items);
  });

  it('still reads chunks stored as arrays (versions written before chunks were JSON text)', async () => {
    const { keyv } = openKeyv('memory://');
    const store = createKeyvCatalogStore<{ label: string }, Item>(keyv, { chunkSize: 2 });
    await store.publish({ version: 'v1', meta: { label: 'v1' }, items: itemsOf('v1', 3) }, at);

    await keyv.set('catalog:v:v1:chunk:0', itemsOf('v1', 2));
    await keyv.set('catalog:v:v1:chunk:1', [{ id: ':a-2', version: 'v1' }]);

    expect((await store.loadCurrent())?.items).toEqual([...itemsOf('v1', 2), { id: ':a-2', version: 'v1' }]);
  });
});
