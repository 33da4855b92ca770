import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { CatalogService } from '../catalog/catalog-service.js';
import { type FeedService, FULL_PREWARM_EVERY_MS, type PolledFeed, type PrewarmScope } from './feed-service.js';

/** When pre-renders run (defaults below; tests set their own). */
export interface PrewarmTiming {
  /** How long a version must stay served before its feeds are pre-rendered. */
  readonly delayMs: number;
  /** Longest time feeds go without pre-rendering while versions keep changing. */
  readonly maxWaitMs: number;
  /** Longest time the `all` feeds nobody polls go without a render while only stock changes. */
  readonly fullEveryMs: number;
}

/** Under steady changes a pass starts at most every this many times the last one's duration. */
const PASS_SPACING = 4;

const DEFAULT_TIMING: PrewarmTiming = { delayMs: 500, maxWaitMs: 10_000, fullEveryMs: FULL_PREWARM_EVERY_MS };

export interface FeedPrewarm {
  /** Settles when no pre-render is pending or running (tests, benchmarks). */
  idle(): Promise<void>;
  stop(): void;
}

/**
 * Keeps the feed service in step with the served catalog: records every change (changes feed, version
 * order) and pre-renders feeds once a version has been served for a moment. During a burst of sales a
 * version lives for milliseconds; rendering each one would spend the renderer on versions nobody fetches
 * (bench/webhook-latency.ts). Under steady changes it still runs every 10 s, or every four times its own
 * duration when that is longer: pre-renders take at most about a quarter of the time (a pass that takes
 * longer on a busy machine comes less often).
 *
 * What a pass renders (docs/decisions/0019-prewarm-scope.md): every `all` feed and the polled ones after a
 * version that is more than stock changes (a full sync, the enrichment sheet), and at least every 30
 * minutes; after stock changes alone (sales, stock syncs), the feeds pollers ask for alone. Rendering every
 * `all` feed of 100,000 products × 5 units takes ~1 minute of CPU: per sale it kept a core busy all day
 * for feeds nobody fetched. A feed left behind is rendered when asked (its last file served meanwhile).
 */
export function startFeedPrewarm(deps: {
  readonly catalog: Pick<CatalogService, 'current' | 'onChange'>;
  readonly feeds: Pick<FeedService, 'recordChange' | 'prewarm'>;
  readonly onError: (error: unknown, version: string) => void;
  /** The feeds pollers ask for (the fetch log), most asked first: rendered with every version too. */
  readonly polled?: () => readonly PolledFeed[];
  /** After a version's feeds were pre-rendered (their reports are then known). */
  readonly onPrewarmed?: (snapshot: CatalogSnapshot) => void;
  readonly timing?: Partial<PrewarmTiming>;
}): FeedPrewarm {
  const { catalog, feeds } = deps;
  const timing: PrewarmTiming = { ...DEFAULT_TIMING, ...deps.timing };
  let previous: CatalogSnapshot | undefined;
  let timer: NodeJS.Timeout | undefined;
  let waitingSince: number | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  /** How long the last pre-render took: under steady changes they run at most every four times that. */
  let lastDurationMs = 0;
  /** A version more than stock changes was served since the last pass of every feed began. */
  let allDue = true;
  let lastAllAt = Number.NEGATIVE_INFINITY;

  function run(): void {
    timer = undefined;
    waitingSince = undefined;
    const current = catalog.current();
    if (current === undefined || stopped) return;
    const began = performance.now();
    const scope: PrewarmScope = allDue || began - lastAllAt >= timing.fullEveryMs ? 'all' : 'polled';
    const polled = deps.polled?.() ?? [];
    if (scope === 'polled' && polled.length === 0) return;
    if (scope === 'all') {
      allDue = false;
      lastAllAt = began;
    }
    const render = feeds
      .prewarm(current, () => catalog.current() === current, polled, scope)
      .then(() => deps.onPrewarmed?.(current))
      .catch((error: unknown) => {
        if (scope === 'all') allDue = true;
        deps.onError(error, current.version);
      })
      .finally(() => {
        lastDurationMs = performance.now() - began;
      });
    running = (running ?? Promise.resolve()).then(() => render);
  }

  catalog.onChange((snapshot, change) => {
    const stockOnly = change !== undefined && change.base === previous;
    feeds.recordChange(previous, snapshot, stockOnly ? change.positions : undefined);
    previous = snapshot;
    if (!stockOnly) allDue = true;
    if (stopped) return;
    const now = performance.now();
    waitingSince ??= now;
    if (now - waitingSince < Math.max(timing.maxWaitMs, PASS_SPACING * lastDurationMs)) clearTimeout(timer);
    else if (timer !== undefined) return;
    timer = setTimeout(run, timing.delayMs);
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
