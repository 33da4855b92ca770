import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import { type FeedRequest, feedKey } from './feed-builder.js';
import type { FeedRenderer, RenderedBody } from './feed-renderer.js';

/** A finished render: the body, its version and how long the render took. */
export interface ScheduledRender {
  readonly snapshot: CatalogSnapshot;
  readonly body: RenderedBody;
  readonly renderMs: number;
}

export interface RenderScheduler {
  /**
   * The feed of `request` rendered at `snapshot`'s version, or at a newer one requested meanwhile:
   * requests for one key are coalesced onto the newest version asked for, and the requests of one
   * version that arrive together share one render call (one pass over the catalog in the worker).
   */
  request(snapshot: CatalogSnapshot, request: FeedRequest): Promise<ScheduledRender>;
  /** Settles when nothing is queued or rendering. */
  idle(): Promise<void>;
}

interface Waiting {
  snapshot: CatalogSnapshot;
  readonly request: FeedRequest;
  readonly waiters: { resolve(render: ScheduledRender): void; reject(error: unknown): void }[];
}

/** Feeds outside the pre-render passes one render call takes at most: a stranger may ask for any number. */
export const MAX_OTHER_FEEDS_PER_CALL = 4;

/**
 * One render call at a time: a render of a 100,000-product catalog holds a window of parsed chunks and a
 * compressor's state (~190 MiB with its thread, bench/render-pass.ts), so two at once would double that for
 * no gain on two cores. While one runs, requests gather; the next call takes every waiting key of the
 * newest version asked for. The feeds `preferred` names (those of the pre-render passes, which channels
 * poll) go first: other feeds (a unit's feed anyone may ask for) wait until none of those waits, and go at
 * most `MAX_OTHER_FEEDS_PER_CALL` to a call.
 */
export function createRenderScheduler(
  renderer: FeedRenderer,
  isNewer: (a: string, b: string) => boolean,
  preferred: (key: string) => boolean = () => true,
): RenderScheduler {
  const waiting = new Map<string, Waiting>();
  let running: Promise<void> | undefined;
  /** Calls in a row that took preferred feeds while others waited. */
  let othersPassed = 0;

  function request(snapshot: CatalogSnapshot, feed: FeedRequest): Promise<ScheduledRender> {
    const key = feedKey(feed);
    return new Promise((resolve, reject) => {
      const entry = waiting.get(key);
      if (entry === undefined) waiting.set(key, { snapshot, request: feed, waiters: [{ resolve, reject }] });
      else {
        // The newest version asked for serves every waiter of the key.
        if (isNewer(snapshot.version, entry.snapshot.version)) entry.snapshot = snapshot;
        entry.waiters.push({ resolve, reject });
      }
      running ??= drain().finally(() => {
        running = undefined;
      });
    });
  }

  /** The waiting entries of the newest version asked for, preferred ones first, taken out of the queue. */
  function nextBatch(): Waiting[] {
    const all = [...waiting.entries()];
    const first = all.filter(([key]) => preferred(key));
    // Not for ever: other feeds passed over twice (sales keep the pre-renders coming) go next.
    const takeFirst = first.length > 0 && (first.length === all.length || othersPassed < 2);
    othersPassed = takeFirst && first.length < all.length ? othersPassed + 1 : 0;
    const candidates = takeFirst ? first : all.filter(([key]) => !preferred(key));
    let newest: CatalogSnapshot | undefined;
    for (const [, entry] of candidates) {
      if (newest === undefined || isNewer(entry.snapshot.version, newest.version)) newest = entry.snapshot;
    }
    let batch = candidates.filter(([, entry]) => entry.snapshot === newest);
    if (!takeFirst) batch = batch.slice(0, MAX_OTHER_FEEDS_PER_CALL);
    for (const [key] of batch) waiting.delete(key);
    return batch.map(([, entry]) => entry);
  }

  async function drain(): Promise<void> {
    // Requests made in the same turn (a poller's burst, a prewarm) share the call.
    await new Promise((resolve) => setImmediate(resolve));
    while (waiting.size > 0) {
      const batch = nextBatch();
      const snapshot = batch[0]?.snapshot;
      if (snapshot === undefined) continue;
      const started = performance.now();
      try {
        const bodies = await renderer.render(
          snapshot,
          batch.map((entry) => entry.request),
        );
        const renderMs = performance.now() - started;
        for (const [index, entry] of batch.entries()) {
          const body = bodies[index];
          for (const waiter of entry.waiters) {
            if (body === undefined) waiter.reject(new Error('the renderer returned fewer feeds than asked'));
            else waiter.resolve({ snapshot, body, renderMs });
          }
        }
      } catch (error) {
        for (const entry of batch) for (const waiter of entry.waiters) waiter.reject(error);
      }
    }
  }

  return {
    request,
    async idle() {
      while (running !== undefined) await running;
    },
  };
}
