import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot } from '../../../../src/core/catalog/catalog.js';
import type { CatalogChange, CatalogListener } from '../../../../src/services/catalog/served-catalog.js';
import { type PrewarmTiming, startFeedPrewarm } from '../../../../src/services/feeds/feed-prewarm.js';
import type { PolledFeed, PrewarmScope } from '../../../../src/services/feeds/feed-service.js';

function snapshot(version: string): CatalogSnapshot {
  return { version, generatedAt: '2026-11-29T10:00:00.000Z', currency: 'CZK', primaryUnit: 'U1', units: [], products: [] };
}

/** A served catalog the test changes, and feeds that record each pass's version and scope. */
function harness(options: { polled?: PolledFeed[]; timing?: Partial<PrewarmTiming>; failing?: boolean } = {}) {
  let current: CatalogSnapshot | undefined;
  const listeners: CatalogListener[] = [];
  const passes: string[] = [];
  let failing = options.failing ?? false;
  const prewarm = startFeedPrewarm({
    catalog: {
      current: () => current,
      onChange: (listener) => listeners.push(listener),
    },
    feeds: {
      recordChange() {},
      async prewarm(target, _isCurrent, _polled, scope?: PrewarmScope) {
        passes.push(`${target.version} ${scope ?? 'all'}`);
        if (failing) throw new Error('ENOSPC');
      },
    },
    onError() {},
    polled: () => options.polled ?? [],
    timing: { delayMs: 0, maxWaitMs: 0, ...options.timing },
  });
  return {
    passes,
    set failing(value: boolean) {
      failing = value;
    },
    /** Serves `next`: made from the served version by stock changes alone when `stockOnly`. */
    async serve(version: string, stockOnly: boolean) {
      const base = current;
      const next = snapshot(version);
      current = next;
      const change: CatalogChange | undefined = stockOnly && base !== undefined ? { base, positions: [0] } : undefined;
      for (const listener of listeners) listener(next, change);
      await prewarm.idle();
    },
    prewarm,
  };
}

const polled = [{ file: 'google.xml', view: 'all' }];

describe('services/feeds/feed-prewarm', () => {
  it('renders every feed after a new catalog, and only the polled ones after stock changes', async () => {
    const feeds = harness({ polled });

    await feeds.serve('v1', false);
    await feeds.serve('v2', true);
    await feeds.serve('v3', true);
    await feeds.serve('v4', false);
    await feeds.serve('v5', true);
    feeds.prewarm.stop();

    expect(feeds.passes).toEqual(['v1 all', 'v2 polled', 'v3 polled', 'v4 all', 'v5 polled']);
  });

  it('renders nothing after stock changes when no feed is polled', async () => {
    const feeds = harness();

    await feeds.serve('v1', false);
    await feeds.serve('v2', true);
    feeds.prewarm.stop();

    expect(feeds.passes).toEqual(['v1 all']);
  });

  it('renders every feed again once the last such pass is older than fullEveryMs, stock changes or not', async () => {
    const feeds = harness({ polled, timing: { fullEveryMs: 0 } });

    await feeds.serve('v1', false);
    await feeds.serve('v2', true);
    feeds.prewarm.stop();

    expect(feeds.passes).toEqual(['v1 all', 'v2 all']);
  });

  it('renders every feed again after a pass of every feed failed', async () => {
    const feeds = harness({ polled, failing: true });

    await feeds.serve('v1', false);
    feeds.failing = false;
    await feeds.serve('v2', true);
    await feeds.serve('v3', true);
    feeds.prewarm.stop();

    expect(feeds.passes).toEqual(['v1 all', 'v2 all', 'v3 polled']);
  });
});
