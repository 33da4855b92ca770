import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot, Offer } from '../../../../src/core/catalog/catalog.js';
import { createChangeLog } from '../../../../src/core/catalog/change-log.js';
import type { FeedRequest } from '../../../../src/services/feeds/feed-builder.js';
import { createFeedCache } from '../../../../src/services/feeds/feed-cache.js';
import type { FeedFileStore } from '../../../../src/services/feeds/feed-files.js';
import type { FeedRenderer, RenderedBody } from '../../../../src/services/feeds/feed-renderer.js';
import { createFeedService, type RenderTiming } from '../../../../src/services/feeds/feed-service.js';

const offer = (unit: string): Offer => ({ unit, price: 10, stock: 1, availability: 'in_stock' });

function snapshot(version: string, products = 1): CatalogSnapshot {
  return {
    version,
    generatedAt: '2026-11-22T10:00:00.000Z',
    currency: 'CZK',
    primaryUnit: 'U1',
    units: [{ code: 'U1', localId: 'u1', name: 'One' }],
    products: Array.from({ length: products }, (_, i) => ({
      id: `a-${i}`,
      name: 'Káva',
      isStockItem: true,
      offers: [offer('U1')],
      aggregate: offer('all'),
    })),
  };
}

/** A renderer whose renders finish when the test opens the gate (or at once when it is open). */
function gatedRenderer() {
  const calls: { version: string; requests: readonly FeedRequest[] }[] = [];
  let open = true;
  let release: () => void = () => {};
  let gate = Promise.resolve();
  const renderer: FeedRenderer = {
    async render(target, requests) {
      calls.push({ version: target.version, requests });
      await gate;
      return requests.map((request): RenderedBody => {
        const body = Buffer.from(`${target.version} ${request.file} ${request.view}`);
        // Stand-ins for the compressed forms: the text itself.
        return {
          identity: body,
          identityLength: body.length,
          gzip: body,
          br: body,
          report: { feed: request.file, items: 1, skipped: 0, warnings: { count: 0, byAttribute: {}, examples: [] } } as never,
        };
      });
    },
    async close() {},
  };
  return {
    renderer,
    calls,
    hold() {
      open = false;
      gate = new Promise((resolve) => {
        release = resolve;
      });
    },
    release() {
      if (!open) release();
      open = true;
      gate = Promise.resolve();
    },
  };
}

function service(
  renderer: FeedRenderer,
  timing: Partial<RenderTiming> = {},
  files?: FeedFileStore,
  cache = createFeedCache({ maxBytes: 1_000_000 }),
) {
  return createFeedService({
    templates: [],
    renderer,
    cache,
    ...(files === undefined ? {} : { files }),
    changeLog: createChangeLog({ maxTransitions: 5 }),
    options: { currency: 'CZK', brand: undefined, baseUrl: '', links: { storeCodes: {} } },
    timing,
  });
}

const text = (served: unknown) => (served as { feed: { gzip: Buffer } }).feed.gzip.toString();

describe('services/feeds/feed-service', () => {
  it('renders each feed once per version, and the requests of one moment in one call', async () => {
    const fake = gatedRenderer();
    const feeds = service(fake.renderer);
    const v1 = snapshot('v1');
    feeds.recordChange(undefined, v1);

    const [json, csv] = await Promise.all([feeds.serve(v1, 'products.json', 'all'), feeds.serve(v1, 'products.csv', 'all')]);
    const again = await feeds.serve(v1, 'products.json', 'all');

    expect(text(json)).toBe('v1 products.json all');
    expect(text(csv)).toBe('v1 products.csv all');
    expect(again).toBe(json);
    expect(fake.calls).toEqual([
      {
        version: 'v1',
        requests: [expect.objectContaining({ file: 'products.json' }), expect.objectContaining({ file: 'products.csv' })],
      },
    ]);
  });

  it('reports how many bytes a pre-render pass took against the cache budget', async () => {
    const fake = gatedRenderer();
    const feeds = createFeedService({
      templates: [],
      renderer: fake.renderer,
      cache: createFeedCache({ maxBytes: 10 }),
      cacheBytes: 10,
      changeLog: createChangeLog({ maxTransitions: 5 }),
      options: { currency: 'CZK', brand: undefined, baseUrl: '', links: { storeCodes: {} } },
    });
    const v1 = snapshot('v1');
    feeds.recordChange(undefined, v1);
    expect(feeds.prewarmFit()).toBeUndefined();

    await feeds.prewarm(v1, () => true);

    // Each fake body is held as its text three times (identity, gzip and br): products.json and products.csv.
    const bytes = 3 * ('v1 products.json all'.length + 'v1 products.csv all'.length);
    expect(feeds.prewarmFit()).toEqual({ bytes, budget: 10 });
  });

  it('keeps every feed of a pre-render pass served when together they exceed the budget, other feeds giving way', async () => {
    const fake = gatedRenderer();
    const cache = createFeedCache({ maxBytes: 10 });
    const feeds = createFeedService({
      templates: [],
      renderer: fake.renderer,
      cache,
      cacheBytes: 10,
      changeLog: createChangeLog({ maxTransitions: 5 }),
      options: { currency: 'CZK', brand: undefined, baseUrl: '', links: { storeCodes: {} } },
      // A large catalog: every render counts as long.
      timing: { renderMsPerProduct: 1, waitForRenderMs: -1, minRenderGapMs: 60_000 },
    });
    const [v1, v2] = [snapshot('v1', 2_500), snapshot('v2', 2_500)];
    feeds.recordChange(undefined, v1);
    // A unit's feed, downloaded before the pass.
    await feeds.render(v1, 'products.json', 'U1', {}, { fresh: true });

    await feeds.prewarm(v1, () => true);

    expect((feeds.prewarmFit()?.bytes ?? 0) > 10).toBe(true);
    expect(text(await feeds.serve(v1, 'products.json', 'all'))).toBe('v1 products.json all');
    expect(text(await feeds.serve(v1, 'products.csv', 'all'))).toBe('v1 products.csv all');
    expect(cache.latest('products.json|U1|')).toBeUndefined();
    // The unit's render and the pass: nothing rendered again.
    expect(fake.calls.map((call) => call.requests.length)).toEqual([1, 2]);

    // The next version's pass replaces them, and its feeds stay too.
    feeds.recordChange(v1, v2);
    await feeds.prewarm(v2, () => true);

    expect(text(await feeds.serve(v2, 'products.json', 'all'))).toBe('v2 products.json all');
    expect(text(await feeds.serve(v2, 'products.csv', 'all'))).toBe('v2 products.csv all');
    expect([...cache.entries()].map(([key]) => key).sort()).toEqual(['products.csv|all|', 'products.json|all|']);
    expect(fake.calls).toHaveLength(3);
  });

  it("renders every polled feed of the all view after stock changes, however many units' feeds are polled", async () => {
    const fake = gatedRenderer();
    const feeds = service(fake.renderer);
    const units = Array.from({ length: 10 }, (_, i) => ({ code: `U${i}`, localId: `u${i}`, name: `Unit ${i}` }));
    const v1 = { ...snapshot('v1'), units };
    feeds.recordChange(undefined, v1);
    // Ten units' feeds polled more often than the all view's one.
    const polled = [...units.map((unit) => ({ file: 'products.json', view: unit.code })), { file: 'products.csv', view: 'all' }];

    await feeds.prewarm(v1, () => true, polled, 'polled');

    const rendered = fake.calls.flatMap((call) => call.requests.map((request) => `${request.file}|${request.view}`));
    expect(rendered).toContain('products.csv|all');
    // At most 8 units' feeds (the fetch log can be flooded).
    expect(rendered.filter((key) => key.startsWith('products.json|U'))).toHaveLength(8);
    expect(rendered).not.toContain('products.json|all');
  });

  it('waits for the new version when renders are quick', async () => {
    const fake = gatedRenderer();
    const feeds = service(fake.renderer);
    const [v1, v2] = [snapshot('v1'), snapshot('v2')];
    feeds.recordChange(undefined, v1);
    await feeds.serve(v1, 'products.json', 'all');
    feeds.recordChange(v1, v2);

    expect(text(await feeds.serve(v2, 'products.json', 'all'))).toBe('v2 products.json all');
  });

  it('serves the last complete render while a long render of the new version runs, then the new one', async () => {
    const fake = gatedRenderer();
    // Every render counts as long, and nothing keeps renders apart.
    const feeds = service(fake.renderer, { waitForRenderMs: -1, minRenderGapMs: 0 });
    const [v1, v2] = [snapshot('v1'), snapshot('v2')];
    feeds.recordChange(undefined, v1);
    await feeds.serve(v1, 'products.json', 'all');
    feeds.recordChange(v1, v2);
    fake.hold();

    const stale = await feeds.serve(v2, 'products.json', 'all');
    fake.release();
    expect(text(stale)).toBe('v1 products.json all');
    // The new render may be put off by twice the last one's duration (a busy machine makes that a few ms).
    await expect
      .poll(async () => {
        await feeds.idle();
        return text(await feeds.serve(v2, 'products.json', 'all'));
      })
      .toBe('v2 products.json all');
    expect(fake.calls.map((call) => call.version)).toEqual(['v1', 'v2']);
  });

  it('waits for the first render of a feed however long it is estimated to take: no "try again later" once a catalog exists', async () => {
    const fake = gatedRenderer();
    const feeds = service(fake.renderer, { renderMsPerProduct: 1, waitForRenderMs: -1 });
    const big = snapshot('v1', 2_500);
    feeds.recordChange(undefined, big);
    fake.hold();

    const served = feeds.serve(big, 'products.json', 'all');
    let settled = false;
    void served.then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    fake.release();

    expect(text(await served)).toBe('v1 products.json all');
    expect(fake.calls).toHaveLength(1);
  });

  it('never replaces a newer render with an older one', async () => {
    const fake = gatedRenderer();
    const feeds = service(fake.renderer, { waitForRenderMs: -1, minRenderGapMs: 0 });
    const [v1, v2] = [snapshot('v1'), snapshot('v2')];
    feeds.recordChange(undefined, v1);
    feeds.recordChange(v1, v2);

    await feeds.render(v2, 'products.json', 'all', {}, { fresh: true });
    await feeds.render(v1, 'products.json', 'all', {}, { fresh: true });

    expect(text(await feeds.serve(v2, 'products.json', 'all'))).toBe('v2 products.json all');
    expect(text(await feeds.serve(v1, 'products.json', 'all'))).toBe('v2 products.json all');
  });

  it('names a new render in the files before deleting the one it replaced, and deletes a render no one keeps', async () => {
    const fake = gatedRenderer();
    const files = fakeFileStore();
    const feeds = service(fake.renderer, { waitForRenderMs: -1, minRenderGapMs: 0 }, files);
    const [v1, v2] = [snapshot('v1'), snapshot('v2')];
    feeds.recordChange(undefined, v1);
    feeds.recordChange(v1, v2);

    await feeds.render(v1, 'products.json', 'all', {}, { fresh: true });
    await feeds.render(v2, 'products.json', 'all', {}, { fresh: true });
    // An older version rendered late: never kept, its files deleted.
    await feeds.render(v1, 'products.csv', 'all', {}, { fresh: true });
    await feeds.render(v2, 'products.csv', 'all', {}, { fresh: true });
    await feeds.render(v1, 'products.csv', 'all', {}, { fresh: true });
    await files.settled();

    expect(files.calls.filter((call) => call.startsWith('products.json'))).toEqual([
      'products.json|all| commit v1',
      'products.json|all| commit v2',
      'products.json|all| discard v1',
    ]);
    expect(files.calls.filter((call) => call.startsWith('products.csv'))).toEqual([
      'products.csv|all| commit v1',
      'products.csv|all| commit v2',
      'products.csv|all| discard v1',
    ]);
  });

  it('keeps the previous render served when a render fails (a full disk), and reports the failure to the files', async () => {
    const files = fakeFileStore();
    let failing = false;
    const fake = gatedRenderer();
    const renderer: FeedRenderer = {
      render: (target, requests) =>
        failing ? Promise.reject(new Error('ENOSPC: no space left on device')) : fake.renderer.render(target, requests),
      close: async () => {},
    };
    const failures: string[] = [];
    const feeds = createFeedService({
      templates: [],
      renderer,
      cache: createFeedCache({ maxBytes: 1_000_000 }),
      files,
      changeLog: createChangeLog({ maxTransitions: 5 }),
      options: { currency: 'CZK', brand: undefined, baseUrl: '', links: { storeCodes: {} } },
      onRenderError: (error) => failures.push(String(error)),
      timing: { waitForRenderMs: -1, minRenderGapMs: 0 },
    });
    const [v1, v2] = [snapshot('v1'), snapshot('v2')];
    feeds.recordChange(undefined, v1);
    await feeds.serve(v1, 'products.json', 'all');
    feeds.recordChange(v1, v2);
    failing = true;

    expect(text(await feeds.serve(v2, 'products.json', 'all'))).toBe('v1 products.json all');
    await feeds.idle();
    await expect.poll(() => failures).toEqual(['Error: ENOSPC: no space left on device']);

    expect(text(await feeds.serve(v2, 'products.json', 'all'))).toBe('v1 products.json all');
    expect(files.errors).toEqual(['products.json|all| Error: ENOSPC: no space left on device']);
    expect(feeds.storage()).toMatchObject({ entries: 1, files: { dir: '/feeds', lastError: { feed: 'products.json|all|' } } });
  });

  it("restores a recent older version's file as a stale feed (served, then rendered again), and deletes a newer or an old one", async () => {
    // The files of an earlier process: products.json of v1 (left out of the pre-renders since), products.csv of v3.
    const written = createFeedCache({ maxBytes: 1_000_000 });
    const before = service(gatedRenderer().renderer, {}, undefined, written);
    const at = (version: string, generatedAt: string) => ({ ...snapshot(version), generatedAt });
    await before.render(at('v1', '2026-11-22T09:45:00.000Z'), 'products.json', 'all', {}, { fresh: true });
    await before.render(at('v3', '2026-11-22T10:05:00.000Z'), 'products.csv', 'all', {}, { fresh: true });
    // Made more than 30 minutes before the served catalog: too old to serve.
    await before.render(at('v0', '2026-11-22T09:00:00.000Z'), 'products.xlsx', 'all', {}, { fresh: true });
    const files = { ...fakeFileStore(), restore: async () => [...written.entries()] };
    const fake = gatedRenderer();
    const feeds = service(fake.renderer, { waitForRenderMs: -1, minRenderGapMs: 0 }, files);

    const v2 = at('v2', '2026-11-22T10:00:00.000Z');
    expect(await feeds.restore(v2)).toBe(1);
    await files.settled();
    expect(files.calls.sort()).toEqual(['products.csv|all| forget v3', 'products.xlsx|all| forget v0']);

    feeds.recordChange(undefined, v2);
    expect(text(await feeds.serve(v2, 'products.json', 'all'))).toBe('v1 products.json all');
    await feeds.idle();
    expect(text(await feeds.serve(v2, 'products.json', 'all'))).toBe('v2 products.json all');
  });
});

/** A `FeedFileStore` that records what it is asked to do, in order. */
function fakeFileStore() {
  const calls: string[] = [];
  const errors: string[] = [];
  let lastError: { at: string; feed: string; message: string } | undefined;
  let pending = Promise.resolve();
  const after = (call: string) => {
    pending = pending.then(() => {
      calls.push(call);
    });
    return pending;
  };
  const store: FeedFileStore & { calls: string[]; errors: string[]; settled(): Promise<void> } = {
    dir: '/feeds',
    calls,
    errors,
    settled: () => pending,
    restore: async () => [],
    commit: (key, entry) => after(`${key} commit ${entry.feed.version}`),
    discard: (key, entry, { forget }) => after(`${key} ${forget ? 'forget' : 'discard'} ${entry.feed.version}`),
    noteError(feed, error) {
      errors.push(`${feed} ${String(error)}`);
      lastError = { at: '2026-11-29T10:00:00.000Z', feed, message: String(error) };
    },
    status: () => ({ dir: '/feeds', ...(lastError === undefined ? {} : { lastError }) }),
    close: async () => {},
  };
  return store;
}
