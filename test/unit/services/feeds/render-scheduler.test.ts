import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot } from '../../../../src/core/catalog/catalog.js';
import { type FeedRequest, feedKey } from '../../../../src/services/feeds/feed-builder.js';
import type { FeedRenderer, RenderedBody } from '../../../../src/services/feeds/feed-renderer.js';
import { createRenderScheduler, MAX_OTHER_FEEDS_PER_CALL } from '../../../../src/services/feeds/render-scheduler.js';

const SNAPSHOT = { version: 'v-1', products: [] } as unknown as CatalogSnapshot;

/** A renderer that records each call's feeds and holds the first call until released. */
function heldRenderer() {
  const calls: string[][] = [];
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const renderer: FeedRenderer = {
    async render(_snapshot, requests) {
      calls.push(requests.map((request) => `${request.file}|${request.view}`));
      if (calls.length === 1) await held;
      return requests.map(() => ({ identity: Buffer.from('x'), identityLength: 1 }) as unknown as RenderedBody);
    },
    async close() {},
  };
  return { renderer, calls, release: () => release() };
}

const feed = (file: string, view: string): FeedRequest => ({ file, view, variant: {} });

describe('services/feeds/render-scheduler', () => {
  it('renders the pre-rendered feeds first, and others at most four to a call, whoever asked first', async () => {
    const { renderer, calls, release } = heldRenderer();
    const pinned = new Set([feedKey(feed('google.xml', 'all')), feedKey(feed('heureka.xml', 'all'))]);
    const scheduler = createRenderScheduler(
      renderer,
      (a, b) => a > b,
      (key) => pinned.has(key),
    );

    const answers = [scheduler.request(SNAPSHOT, feed('products.json', 'all'))];
    await new Promise((resolve) => setTimeout(resolve, 5));
    // While the first call renders: a stranger's six unit feeds, then the channels' two.
    for (const unit of ['U1', 'U2', 'U3', 'U4', 'U5', 'U6']) answers.push(scheduler.request(SNAPSHOT, feed('google.xml', unit)));
    answers.push(scheduler.request(SNAPSHOT, feed('google.xml', 'all')), scheduler.request(SNAPSHOT, feed('heureka.xml', 'all')));
    release();
    await Promise.all(answers);

    expect(MAX_OTHER_FEEDS_PER_CALL).toBe(4);
    expect(calls).toEqual([
      ['products.json|all'],
      ['google.xml|all', 'heureka.xml|all'],
      ['google.xml|U1', 'google.xml|U2', 'google.xml|U3', 'google.xml|U4'],
      ['google.xml|U5', 'google.xml|U6'],
    ]);
  });

  it('does not pass over other feeds for ever: after two calls of pre-rendered feeds, theirs', async () => {
    const calls: string[][] = [];
    const pinned = (key: string) => key.endsWith('|all|');
    let scheduler: ReturnType<typeof createRenderScheduler>;
    let version = 0;
    const pending: Promise<unknown>[] = [];
    // Every call brings a new version whose pre-rendered feed is asked for at once (sales, all day).
    const renderer: FeedRenderer = {
      async render(_snapshot, requests) {
        calls.push(requests.map((request) => `${request.file}|${request.view}`));
        if (calls.length < 6) {
          version += 1;
          pending.push(scheduler.request({ ...SNAPSHOT, version: `v-${version + 1}` }, feed('google.xml', 'all')));
        }
        await new Promise((resolve) => setTimeout(resolve, 1));
        return requests.map(() => ({ identity: Buffer.from('x'), identityLength: 1 }) as unknown as RenderedBody);
      },
      async close() {},
    };
    scheduler = createRenderScheduler(renderer, (a, b) => a > b, pinned);

    pending.push(scheduler.request(SNAPSHOT, feed('google.xml', 'all')), scheduler.request(SNAPSHOT, feed('google.xml', 'U1')));
    await scheduler.idle();
    await Promise.all(pending);

    expect(calls.findIndex((call) => call.includes('google.xml|U1'))).toBeLessThanOrEqual(3);
  });
});
