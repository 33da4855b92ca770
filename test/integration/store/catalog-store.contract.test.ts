import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { Keyv } from 'keyv';
import { beforeEach, describe, expect, it } from 'vitest';
import { openKeyv } from '../../../src/adapters/store/create-keyv.js';
import { createKeyvCatalogStore, loadItems, publishItems } from '../../../src/adapters/store/keyv-catalog-store.js';
import { DEFLATED_CHUNK_PREFIX } from '../../../src/adapters/store/stored-chunk-value.js';
import type { CatalogStore } from '../../../src/services/catalog/catalog-store.js';
import { skipWithoutBackend, storeBackends } from '../../helpers/store-backends.js';

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

/** A chunk text deflated as the catalog keeps its chunks (`ItemChunk.bytes`), in a view of a larger shared buffer. */
function deflatedText(text: string): Uint8Array {
  const deflated = deflateRawSync(Buffer.from(text, 'utf8'), { level: 1 });
  const shared = new Uint8Array(new SharedArrayBuffer(deflated.length + 16));
  shared.set(deflated, 8);
  return shared.subarray(8, 8 + deflated.length);
}
const SOURCE = { id: 'pos:test', label: 'the test POS' };
const OTHER = { id: 'sandbox:test', label: 'the test sandbox' };

describe.each(backends)('catalog store contract (%s)', (name, newUrl) => {
  beforeEach((context) => skipWithoutBackend(context, name));
  function open(url = newUrl()): { store: CatalogStore<{ label: string }>; keyv: Keyv; url: string } {
    const { keyv } = openKeyv(url);
    return { store: createKeyvCatalogStore(keyv, { source: SOURCE, keepVersions: 2 }), keyv, url };
  }

  it('is empty before the first publish', async () => {
    const { store } = open();

    expect(await store.currentVersion()).toBeUndefined();
    expect(await loadItems(store)).toBeUndefined();
  });

  it('reads back a published version in order, across chunks', async () => {
    const { store } = open();
    const items = itemsOf('v1', 10);

    await publishItems(store, { version: 'v1', meta: { label: 'first' }, items }, at, 3);

    expect(await store.currentVersion()).toBe('v1');
    expect(await loadItems(store)).toEqual({ version: 'v1', meta: { label: 'first' }, items });
  });

  it('publishes an empty item list as a real version', async () => {
    const { store } = open();

    await publishItems(store, { version: 'v0', meta: { label: 'empty' }, items: [] }, at);

    expect(await loadItems(store)).toEqual({ version: 'v0', meta: { label: 'empty' }, items: [] });
  });

  it('prunes versions beyond the ones it keeps', async () => {
    const { store, keyv } = open();

    for (const version of ['v1', 'v2', 'v3'])
      await publishItems(store, { version, meta: { label: version }, items: itemsOf(version, 4) }, at, 3);

    expect((await loadItems(store))?.version).toBe('v3');
    expect(await keyv.get('catalog:v:v1:meta')).toBeUndefined();
    expect(await keyv.get('catalog:c:v1:0')).toBeUndefined();
    expect(await keyv.get('catalog:v:v2:meta')).toEqual({ label: 'v2' });
  });

  it('writes only the new chunks of a version that reuses stored ones, and keeps shared chunks while used', async () => {
    const { store, keyv } = open();
    const keys = await publishItems(store, { version: 'v1', meta: { label: 'v1' }, items: itemsOf('v1', 6) }, at, 2);

    // v2 and v3 change only the last chunk; v1 is pruned by v3 but its first two chunks stay in use.
    for (const version of ['v2', 'v3']) {
      const changed = JSON.stringify(itemsOf(version, 6).slice(4));
      await store.publish(
        {
          version,
          meta: { label: version },
          chunks: [
            { count: 2, key: keys[0] as string },
            { count: 2, key: keys[1] as string },
            { count: 2, text: () => changed },
          ],
        },
        at,
      );
    }

    const loaded = await loadItems<{ label: string }, Item>(store);
    expect(loaded?.version).toBe('v3');
    expect(loaded?.items).toEqual([...itemsOf('v1', 4), ...itemsOf('v3', 6).slice(4)]);
    expect(await keyv.get('catalog:v:v1:meta')).toBeUndefined();
    expect(await keyv.get('catalog:c:v1:2')).toBeUndefined();
    expect(await keyv.get(keys[0] as string)).toBe(JSON.stringify(itemsOf('v1', 2)));
    expect(await keyv.get('catalog:c:v2:2')).toBe(JSON.stringify(itemsOf('v2', 6).slice(4)));
  });

  it('never lets a reader see a mix of two versions', async () => {
    const { store } = open();
    await publishItems(store, { version: 'v1', meta: { label: 'v1' }, items: itemsOf('v1', 40) }, at, 2);

    const publishing = publishItems(store, { version: 'v2', meta: { label: 'v2' }, items: itemsOf('v2', 40) }, at, 2);
    const reads = Array.from({ length: 20 }, () => loadItems<{ label: string }, Item>(store));
    const seen = await Promise.all([...reads, publishing.then(() => loadItems<{ label: string }, Item>(store))]);

    for (const catalog of seen) {
      if (catalog === undefined) continue;
      expect(new Set(catalog.items.map((item) => item.version))).toEqual(new Set([catalog.version]));
      expect(catalog.meta.label).toBe(catalog.version);
    }
    expect(seen.at(-1)?.version).toBe('v2');
  });

  it('keeps the last 50 runs per job, newest first, each report under a key of its own', async () => {
    const { store, keyv } = open();

    for (let i = 1; i <= 52; i++) {
      await store.saveReport('sync-catalog', { run: i, examples: ['…'] }, { id: `r${i}`, summary: { run: i } });
    }

    const runs = await store.listRuns('sync-catalog');
    expect(runs).toHaveLength(50);
    expect(runs[0]).toEqual({ id: 'r52', summary: { run: 52 } });
    expect(runs.at(-1)?.id).toBe('r3');
    expect(await store.readRun('sync-catalog', 'r52')).toEqual({ run: 52, examples: ['…'] });
    expect(await store.readRun('sync-catalog', 'r3')).toEqual({ run: 3, examples: ['…'] });
    // Past the bound, a run's report is deleted, not only unlisted.
    expect(await store.readRun('sync-catalog', 'r2')).toBeUndefined();
    expect(await keyv.get('catalog:run:sync-catalog:r2')).toBeUndefined();
    expect(await store.readRun('sync-stock', 'r52')).toBeUndefined();
    expect((await store.recentReports('sync-catalog', 2)).map((report) => (report as { run: number }).run)).toEqual([52, 51]);
    expect(await store.recentReports('sync-stock')).toEqual([]);
  });

  it("turns the previous release's report list into runs at the first save", async () => {
    const { store, keyv } = open();
    await keyv.set('catalog:reports:sync-catalog', { source: SOURCE.id, reports: [{ run: 'b' }, { run: 'a' }] });

    expect(await store.listRuns('sync-catalog')).toEqual([
      { id: 'legacy-1', summary: { run: 'b' } },
      { id: 'legacy-2', summary: { run: 'a' } },
    ]);
    await store.saveReport(
      'sync-catalog',
      { run: 'c' },
      { id: 'c', summary: 'c', summarize: (old) => `old ${JSON.stringify(old)}` },
    );

    expect(await store.listRuns('sync-catalog')).toEqual([
      { id: 'c', summary: 'c' },
      { id: 'legacy-1', summary: 'old {"run":"b"}' },
      { id: 'legacy-2', summary: 'old {"run":"a"}' },
    ]);
    expect(await store.readRun('sync-catalog', 'legacy-2')).toEqual({ run: 'a' });
    expect(await keyv.get('catalog:reports:sync-catalog')).toBeUndefined();
  });

  it('reads only its own source: another source’s version is described, never loaded, and kept until it publishes', async () => {
    const { keyv } = open();
    const sandbox = createKeyvCatalogStore<{ label: string }>(keyv, { source: OTHER, keepVersions: 2 });
    await publishItems(sandbox, { version: 's1', meta: { label: 'sandbox' }, items: itemsOf('s1', 5) }, at, 2);
    await sandbox.saveReport('sync-catalog', { run: 'sandbox' });

    const pos = createKeyvCatalogStore<{ label: string }>(keyv, { source: SOURCE, keepVersions: 2 });
    expect(await pos.currentVersion()).toBeUndefined();
    expect(await loadItems(pos)).toBeUndefined();
    expect(await pos.describeCurrent()).toEqual({
      version: 's1',
      meta: { label: 'sandbox' },
      items: 5,
      publishedAt: at.toISOString(),
      source: OTHER,
      own: false,
    });
    expect(await pos.recentReports('sync-catalog')).toEqual([]);
    // Adopted only from the source recorded there (which the caller must have found to be this one).
    expect(await pos.adoptCurrent(undefined, 's1')).toBe(false);
    expect(await pos.adoptCurrent(SOURCE, 's1')).toBe(false);
    // Switching back before the new source stored anything loses nothing.
    expect((await loadItems(sandbox))?.version).toBe('s1');

    await pos.saveReport('sync-catalog', { run: 'pos' });
    await publishItems(pos, { version: 'p1', meta: { label: 'pos' }, items: itemsOf('p1', 3) }, at, 2);

    expect((await loadItems(pos))?.version).toBe('p1');
    expect(await pos.recentReports('sync-catalog')).toEqual([{ run: 'pos' }]);
    expect(await keyv.get('catalog:v:s1:meta')).toBeUndefined();
    expect(await keyv.get('catalog:c:s1:0')).toBeUndefined();
    expect(await sandbox.currentVersion()).toBeUndefined();
    expect(await loadItems(sandbox)).toBeUndefined();
    expect(await sandbox.recentReports('sync-catalog')).toEqual([]);
  });

  it('adopts a version stored before sources were recorded only when asked, and only that version', async () => {
    const { store, keyv } = open();
    await publishItems(store, { version: 'v1', meta: { label: 'v1' }, items: itemsOf('v1', 4) }, at, 2);
    // As the previous release stored it: the same pointer without a source, and a bare report list.
    const { source: _recorded, ...pointer } = (await keyv.get('catalog:current')) as Record<string, unknown>;
    await keyv.set('catalog:current', pointer);
    await keyv.set('catalog:reports:sync-catalog', [{ run: 'before' }]);

    expect(await store.currentVersion()).toBeUndefined();
    expect(await loadItems(store)).toBeUndefined();
    expect((await store.describeCurrent())?.source).toBeUndefined();
    expect(await store.recentReports('sync-catalog')).toEqual([]);
    expect(await store.adoptCurrent(undefined, 'v0')).toBe(false);
    expect(await store.adoptCurrent(OTHER, 'v1')).toBe(false);

    expect(await store.adoptCurrent(undefined, 'v1')).toBe(true);

    expect(await store.describeCurrent()).toMatchObject({ version: 'v1', source: SOURCE, own: true });
    expect((await loadItems(store))?.items).toEqual(itemsOf('v1', 4));
    expect(await store.adoptCurrent(undefined, 'v1')).toBe(false);
  });

  it('adopts a version of a recorded source when asked to (a new key of the same account), versions list included', async () => {
    const { keyv } = open();
    const before = createKeyvCatalogStore<{ label: string }>(keyv, { source: OTHER, keepVersions: 2 });
    await publishItems(before, { version: 'k1', meta: { label: 'old key' }, items: itemsOf('k1', 3) }, at, 2);
    const after = createKeyvCatalogStore<{ label: string }>(keyv, { source: SOURCE, keepVersions: 2 });

    expect(await after.adoptCurrent(OTHER, 'k1')).toBe(true);

    expect((await loadItems(after))?.version).toBe('k1');
    // Still listed as a kept version: the next publish keeps its chunks while it is among the kept ones.
    await publishItems(after, { version: 'k2', meta: { label: 'new key' }, items: itemsOf('k2', 3) }, at, 2);
    expect(await keyv.get('catalog:v:k1:meta')).toEqual({ label: 'old key' });
  });

  it('reads deflated chunks back as their texts, beside text chunks and chunks kept from an earlier version', async () => {
    const { store } = open();
    const first = itemsOf('v1', 4);
    await publishItems(store, { version: 'v1', meta: { label: 'v1' }, items: first }, at, 2);
    const kept = await store.publish(
      {
        version: 'v2',
        meta: { label: 'v2' },
        chunks: [
          {
            count: 2,
            deflated: () =>
              deflatedText(
                JSON.stringify([
                  { id: 'é-1', version: 'v2' },
                  { id: '💡', version: 'v2' },
                ]),
              ),
          },
          { count: 1, text: () => JSON.stringify([{ id: 'a-3', version: 'v2' }]) },
        ],
      },
      at,
    );
    await store.publish(
      {
        version: 'v3',
        meta: { label: 'v3' },
        chunks: [
          { count: 2, key: kept[0] as string },
          { count: 1, key: kept[1] as string },
        ],
      },
      at,
    );

    expect(await loadItems(store)).toEqual({
      version: 'v3',
      meta: { label: 'v3' },
      items: [
        { id: 'é-1', version: 'v2' },
        { id: '💡', version: 'v2' },
        { id: 'a-3', version: 'v2' },
      ],
    });
  });
});

describe('catalog store on SQLite across a restart', () => {
  it('serves the last version from a new store instance on the same file', async () => {
    const url = newSqliteUrl();
    const first = createKeyvCatalogStore<{ label: string }>(openKeyv(url).keyv, { source: SOURCE });
    await publishItems(first, { version: 'v7', meta: { label: 'before restart' }, items: itemsOf('v7', 12) }, at, 5);
    await first.close();

    const second = createKeyvCatalogStore<{ label: string }>(openKeyv(url).keyv, { source: SOURCE });

    expect(await loadItems(second)).toEqual({ version: 'v7', meta: { label: 'before restart' }, items: itemsOf('v7', 12) });
    await second.close();
  });
});

describe('catalog store on a failing backend', () => {
  it('raises the failure instead of reading as an empty catalog', async () => {
    const failing = new Map<string, unknown>();
    failing.get = () => {
      throw new Error('disk I/O error');
    };
    const store = createKeyvCatalogStore(new Keyv({ store: failing, throwOnErrors: true }), { source: SOURCE });

    await expect(loadItems(store)).rejects.toThrow('disk I/O error');
    await expect(store.currentVersion()).rejects.toThrow('disk I/O error');
  });

  it('raises when a chunk of the current version is missing', async () => {
    const { keyv } = openKeyv('memory://');
    const store = createKeyvCatalogStore<{ label: string }>(keyv, { source: SOURCE });
    await publishItems(store, { version: 'v1', meta: { label: 'v1' }, items: itemsOf('v1', 6) }, at, 2);

    await keyv.delete('catalog:c:v1:1');

    await expect(loadItems(store)).rejects.toThrow('chunk 1 of version v1 is missing');
  });

  it('raises when a chunk of the current version is not JSON', async () => {
    const { keyv } = openKeyv('memory://');
    const store = createKeyvCatalogStore<{ label: string }>(keyv, { source: SOURCE });
    await publishItems(store, { version: 'v1', meta: { label: 'v1' }, items: itemsOf('v1', 6) }, at, 2);

    await keyv.set('catalog:c:v1:2', '[{"id":');

    await expect(loadItems(store)).rejects.toThrow('chunk 2 of version v1 is not a JSON list');
  });
});

describe('catalog store format', () => {
  it('stores each chunk as the JSON text of its items', async () => {
    const { keyv } = openKeyv('memory://');
    const store = createKeyvCatalogStore<{ label: string }>(keyv, { source: SOURCE });
    await publishItems(store, { version: 'v1', meta: { label: 'v1' }, items: itemsOf('v1', 3) }, at, 2);

    expect(await keyv.get('catalog:c:v1:1')).toBe('[{"id":"a-2","version":"v1"}]');
    expect(await keyv.get('catalog:v:v1:chunks')).toEqual([
      { key: 'catalog:c:v1:0', count: 2 },
      { key: 'catalog:c:v1:1', count: 1 },
    ]);
  });

  it('stores a deflated chunk as its raw deflate in base64, after a prefix no JSON text starts with', async () => {
    const { keyv } = openKeyv('memory://');
    const store = createKeyvCatalogStore<{ label: string }>(keyv, { source: SOURCE });
    const text = JSON.stringify(itemsOf('v1', 3));
    await store.publish({ version: 'v1', meta: { label: 'v1' }, chunks: [{ count: 3, deflated: () => deflatedText(text) }] }, at);

    const stored = await keyv.get('catalog:c:v1:0');
    expect(typeof stored).toBe('string');
    expect((stored as string).startsWith(DEFLATED_CHUNK_PREFIX)).toBe(true);
    const bytes = Buffer.from((stored as string).slice(DEFLATED_CHUNK_PREFIX.length), 'base64');
    expect(inflateRawSync(bytes).toString('utf8')).toBe(text);
  });

  it('refuses a deflated chunk that does not inflate, naming it', async () => {
    const { keyv } = openKeyv('memory://');
    const store = createKeyvCatalogStore<{ label: string }>(keyv, { source: SOURCE });
    await store.publish(
      {
        version: 'v1',
        meta: { label: 'v1' },
        chunks: [{ count: 3, deflated: () => deflatedText(JSON.stringify(itemsOf('v1', 3))) }],
      },
      at,
    );

    await keyv.set('catalog:c:v1:0', `${DEFLATED_CHUNK_PREFIX}bm90IGRlZmxhdGVk`);

    await expect(loadItems(store)).rejects.toThrow(/chunk 0 of version v1 is damaged \(catalog:c:v1:0\)/);
  });

  it('still reads a version stored in the first layout (numbered chunks, some as arrays), once adopted', async () => {
    const { keyv } = openKeyv('memory://');
    await keyv.set('catalog:v:v1:meta', { label: 'v1' });
    await keyv.set('catalog:v:v1:chunk:0', itemsOf('v1', 2));
    await keyv.set('catalog:v:v1:chunk:1', JSON.stringify([{ id: ':a-2', version: 'v1' }]));
    await keyv.set('catalog:current', { version: 'v1', publishedAt: at.toISOString(), chunks: 2, items: 3 });
    const store = createKeyvCatalogStore<{ label: string }>(keyv, { source: SOURCE });
    // Stored before sources were recorded: not read until it is known to be this source's.
    expect(await loadItems(store)).toBeUndefined();
    expect(await store.adoptCurrent(undefined, 'v1')).toBe(true);

    expect((await loadItems<{ label: string }, Item>(store))?.items).toEqual([
      ...itemsOf('v1', 2),
      { id: ':a-2', version: 'v1' },
    ]);
  });
});
