import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { CatalogService } from '../catalog/catalog-service.js';
import type { FeedService, PolledFeed } from './feed-service.js';

/** How long a version must stay served before its feeds are pre-rendered. */
const PREWARM_DELAY_MS = 500;
/** Longest time feeds go without pre-rendering while versions keep changing. */
const PREWARM_MAX_WAIT_MS = 10_000;

export interface FeedPrewarm {
  /** Settles when no pre-render is pending or running (tests, benchmarks). */
  idle(): Promise<void>;
  stop(): void;
}

/**
 * Keeps the feed service in step with the served catalog: records every change (changes feed, version
 * order) and pre-renders the `all` feeds once a version has been served for a moment. During a burst of
 * sales a version lives for milliseconds; rendering each one would spend the renderer on versions nobody
 * fetches (bench/webhook-latency.ts). Under steady changes it still runs every 10 s, or every twice its
 * own duration when that is longer (rendering every `all` feed of 100,000 products × 5 units takes ~1 minute of CPU).
 */
export function startFeedPrewarm(deps: {
  readonly catalog: Pick<CatalogService, 'current' | 'onChange'>;
  readonly feeds: Pick<FeedService, 'recordChange' | 'prewarm'>;
  readonly onError: (error: unknown, version: string) => void;
  /** The feeds pollers ask for (the fetch log), most asked first: rendered with every version too. */
  readonly polled?: () => readonly PolledFeed[];
  /** After a version's feeds were pre-rendered (their reports are then known). */
  readonly onPrewarmed?: (snapshot: CatalogSnapshot) => void;
}): FeedPrewarm {
  const { catalog, feeds } = deps;
  let previous: CatalogSnapshot | undefined;
  let timer: NodeJS.Timeout | undefined;
  let waitingSince: number | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  /** How long the last pre-render took: under steady changes they run at most every twice that. */
  let lastDurationMs = 0;

  function run(): void {
    timer = undefined;
    waitingSince = undefined;
    const current = catalog.current();
    if (current === undefined || stopped) return;
    const began = performance.now();
    const render = feeds
      .prewarm(current, () => catalog.current() === current, deps.polled?.() ?? [])
      .then(() => deps.onPrewarmed?.(current))
      .catch((error: unknown) => deps.onError(error, current.version))
      .finally(() => {
        lastDurationMs = performance.now() - began;
      });
    running = (running ?? Promise.resolve()).then(() => render);
  }

  catalog.onChange((snapshot, change) => {
    feeds.recordChange(previous, snapshot, change !== undefined && change.base === previous ? change.positions : undefined);
    previous = snapshot;
    if (stopped) return;
    const now = performance.now();
    waitingSince ??= now;
    if (now - waitingSince < Math.max(PREWARM_MAX_WAIT_MS, 2 * lastDurationMs)) clearTimeout(timer);
    else if (timer !== undefined) return;
    timer = setTimeout(run, PREWARM_DELAY_MS);
    timer.unref();
  });

  return {
    async idle() {
      while (timer !== undefined || running !== undefined) {
        if (timer !== undefined) await new Promise((resolve) => setTimeout(resolve, 50));
        const current = running;
        await current;
        if (running === current) running = undefined;
      }
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
