import { afterEach, describe, expect, it } from 'vitest';
import { applyStock } from '../../../../src/core/catalog/apply-stock.js';
import type { CatalogSnapshot, Product } from '../../../../src/core/catalog/catalog.js';
import { decodeChunk, serializeItems } from '../../../../src/core/catalog/catalog-chunks.js';
import { createCatalogVersion } from '../../../../src/core/catalog/catalog-version.js';
import type { AppendResult, ChangeJournal, JournalEntry } from '../../../../src/services/catalog/change-journal.js';
import { materializeChunks } from '../../../../src/services/catalog/materialize-version.js';
import { createReplication, type Replication } from '../../../../src/services/catalog/replication.js';
import { createServedCatalog, type ServedCatalog } from '../../../../src/services/catalog/served-catalog.js';
import { productIdentityIndex } from '../../../helpers/product-identity-index.js';
import { article, NOW, stockedSnapshot, stockRow } from '../../core/catalog/catalog-fixtures.js';

/**
 * The group's replication (docs/scale-out.md) over an in-memory change stream with Redis's semantics: every
 * instance serves the same versions (same ids) from its own base, a change made on an old base is refused
 * (compare-and-set), and an instance that cannot place an entry loads the stored version.
 */

const logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

function createMemoryJournal(): ChangeJournal & { readonly entries: JournalEntry[] } {
  const entries: JournalEntry[] = [];
  let head: string | undefined;
  let sequence = 0;
  const nextId = () => `1-${++sequence}`;
  const seq = (id: string) => Number(id.split('-')[1]);
  return {
    entries,
    async appendStock(change): Promise<AppendResult> {
      if (head !== undefined && head !== change.base) return { ok: false, head };
      head = change.version;
      const id = nextId();
      entries.push({ id, kind: 'stock', ...change });
      return { ok: true, id };
    },
    async read(after, blockMs) {
      const found = entries.filter((entry) => seq(entry.id) > seq(after));
      if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, Math.min(blockMs, 5)));
      return found;
    },
    head: async () => head,
    lastId: async () => entries.at(-1)?.id ?? '0-0',
    countAfter: async (after, max) => Math.min(max, entries.filter((entry) => seq(entry.id) > seq(after)).length),
    close: async () => undefined,
  };
}

function snapshot(): CatalogSnapshot {
  const stock = new Map([
    ['U1', [stockRow({ code: 'a-1' }, 5), stockRow({ code: 'a-2' }, 3)]],
    ['U2', [stockRow({ code: 'a-1' }, 4)]],
  ]);
  return stockedSnapshot([article('a-1'), article('a-2')], stock);
}

interface Instance {
  readonly served: ServedCatalog;
  readonly replication: Replication;
  loads: number;
}

const running: Replication[] = [];
afterEach(async () => {
  for (const replication of running.splice(0)) await replication.stop();
});

/** An instance serving its own copy of `base` (as loaded from the store: equal, not the same objects). */
function instance(journal: ChangeJournal, base: CatalogSnapshot, stored?: () => CatalogSnapshot): Instance {
  const served = createServedCatalog(logger);
  const serveCopy = (copy: CatalogSnapshot) =>
    served.serve(copy, {
      family: { id: copy.version, index: productIdentityIndex(copy.products) },
      chunks: [],
      fingerprint: undefined,
    });
  serveCopy(structuredClone(base));
  const self: Instance = {
    served,
    loads: 0,
    replication: createReplication({
      journal,
      source: 'pos-1',
      served,
      load: async () => {
        self.loads += 1;
        const copy = structuredClone((stored ?? (() => base))());
        serveCopy(copy);
        return copy;
      },
      storedVersion: async () => (stored ?? (() => base))().version,
      onStockChanged: () => undefined,
      logger,
      blockMs: 5,
    }),
  };
  running.push(self.replication);
  return self;
}

/** A sale of `count` of a-1 in U1, made on what `at` serves and published through its replication. */
async function sell(at: Instance, count: number, when: Date): Promise<boolean> {
  const base = at.served.latest();
  if (base === undefined) throw new Error('nothing served');
  const version = createCatalogVersion(when, base.snapshot.version);
  const applied = applyStock(
    base.snapshot,
    [{ unitCode: 'U1', articleId: 'a-1', delta: -count }],
    { version, unknownStockAvailability: 'out_of_stock' },
    when,
  );
  return at.replication.publishDerived(base, applied.snapshot, applied.changedPositions, ['U1']);
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(done()).toBe(true);
}

const stockOf = (at: Instance) =>
  at.served
    .current()
    ?.products.find((product) => product.id === 'a-1')
    ?.offers.find((offer) => offer.unit === 'U1')?.stock;

/** An instance serving `base` as a full sync publishes it: from its chunks, the sheet's values kept off its products. */
async function enrichedInstance(journal: ChangeJournal, base: CatalogSnapshot): Promise<Instance> {
  const served = createServedCatalog(logger);
  const chunks = serializeItems(base.products);
  const { products, enrichment } = await materializeChunks(chunks);
  const family = { id: base.version, index: productIdentityIndex(products) };
  served.serve({ ...base, products }, { family, chunks, fingerprint: undefined, enrichment });
  const replication = createReplication({
    journal,
    source: 'pos-1',
    served,
    load: async () => {
      throw new Error('not expected to load');
    },
    storedVersion: async () => base.version,
    onStockChanged: () => undefined,
    logger,
    blockMs: 5,
  });
  running.push(replication);
  return { served, replication, loads: 0 };
}

describe('services/replication', () => {
  it('sends a changed product whole, sheet values included, and each instance keeps them off its products', async () => {
    const journal = createMemoryJournal();
    const plain = snapshot();
    const values = { title: 'Čokoláda z listu', brand: 'Orion' };
    const base = { ...plain, products: plain.products.map((p) => (p.id === 'a-1' ? { ...p, enrichment: values } : p)) };
    const [a, b] = [await enrichedInstance(journal, base), await enrichedInstance(journal, base)];
    b.replication.start();

    expect(await sell(a, 1, new Date('2026-11-22T10:01:00Z'))).toBe(true);
    await until(() => b.served.current()?.version === a.served.current()?.version);

    const entry = journal.entries[0];
    const sent = JSON.parse(entry?.kind === 'stock' ? entry.body : '{}') as { products: Product[] };
    expect(sent.products.map((product) => [product.id, product.enrichment])).toEqual([['a-1', values]]);
    for (const each of [a, b]) {
      const latest = each.served.latest();
      if (latest === undefined) throw new Error('nothing served');
      expect(latest.snapshot.products.find((product) => product.id === 'a-1')?.enrichment).toBeUndefined();
      const reserialized = (await each.served.chunksOf(latest)).flatMap((chunk) => decodeChunk<Product>(chunk));
      expect(reserialized.find((product) => product.id === 'a-1')).toMatchObject({ enrichment: values });
      expect(stockOf(each)).toBe(4);
    }
  });

  it('serves every change on every instance as the same version, made from each one’s own copy', async () => {
    const journal = createMemoryJournal();
    const base = snapshot();
    const [a, b, c] = [instance(journal, base), instance(journal, base), instance(journal, base)];
    for (const each of [a, b, c]) each.replication.start();

    expect(await sell(a, 1, new Date('2026-11-22T10:01:00Z'))).toBe(true);
    expect(await sell(a, 2, new Date('2026-11-22T10:02:00Z'))).toBe(true);
    await until(
      () =>
        b.served.current()?.version === a.served.current()?.version &&
        c.served.current()?.version === a.served.current()?.version,
    );
    expect([stockOf(a), stockOf(b), stockOf(c)]).toEqual([2, 2, 2]);
    expect(b.served.current()).toEqual(a.served.current());
    // No instance loaded the catalog for it.
    expect([a.loads, b.loads, c.loads]).toEqual([0, 0, 0]);
  });

  it('refuses a change made on a version another instance’s change replaced; made again, it counts both', async () => {
    const journal = createMemoryJournal();
    const base = snapshot();
    const [a, b] = [instance(journal, base), instance(journal, base)];
    a.replication.start();
    b.replication.start();
    const staleBase = b.served.latest();
    expect(await sell(a, 1, new Date('2026-11-22T10:01:00Z'))).toBe(true);
    // `b` made its change from v-1 too; it lost.
    if (staleBase === undefined) throw new Error('nothing served');
    const version = createCatalogVersion(new Date('2026-11-22T10:01:01Z'), staleBase.snapshot.version);
    const stale = applyStock(
      staleBase.snapshot,
      [{ unitCode: 'U1', articleId: 'a-1', delta: -2 }],
      { version, unknownStockAvailability: 'out_of_stock' },
      NOW,
    );
    expect(await b.replication.publishDerived(staleBase, stale.snapshot, stale.changedPositions, ['U1'])).toBe(false);
    await b.replication.waitPast(staleBase, 1_000);
    expect(await sell(b, 2, new Date('2026-11-22T10:01:02Z'))).toBe(true);
    await until(() => a.served.current()?.version === b.served.current()?.version);
    expect([stockOf(a), stockOf(b)]).toEqual([2, 2]);
    expect(journal.entries).toHaveLength(2);
  });

  it('loads the stored version when it cannot place a change, and catches up with a group it lags', async () => {
    const journal = createMemoryJournal();
    const base = snapshot();
    const a = instance(journal, base);
    a.replication.start();
    expect(await sell(a, 1, new Date('2026-11-22T10:01:00Z'))).toBe(true);
    const stored = a.served.current() as CatalogSnapshot;

    // Another instance holding an older, different version (it missed a family) sees a change it cannot place.
    const other = { ...base, version: 'v-0' };
    const late = instance(journal, other, () => stored);
    late.replication.start();
    expect(await sell(a, 1, new Date('2026-11-22T10:02:00Z'))).toBe(true);
    await until(() => late.served.current()?.version === a.served.current()?.version);
    expect(late.loads).toBeGreaterThan(0);
    expect(stockOf(late)).toBe(3);

    // Not following at all (its reads fail): the fallback loads the stored version once it is the group's.
    const stuck = instance(journal, other, () => a.served.current() as CatalogSnapshot);
    expect(await stuck.replication.catchUp()).toBe(true);
    expect(stuck.served.current()?.version).toBe(a.served.current()?.version);
    expect(await stuck.replication.catchUp()).toBe(false);
  });
});
