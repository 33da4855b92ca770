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

/**
 * One render call at a time: a render of a 100,000-product catalog holds a window of parsed chunks and a
 * compressor's state (~190 MiB with its thread, bench/render-pass.ts), so two at once would double that for
 * no gain on two cores. While one runs, requests gather; the next call takes every waiting key of the
 * newest version asked for.
 */
export function createRenderScheduler(renderer: FeedRenderer, isNewer: (a: string, b: string) => boolean): RenderScheduler {
  const waiting = new Map<string, Waiting>();
  let running: Promise<void> | undefined;

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

  /** The waiting entries of the newest version asked for, taken out of the queue. */
  function nextBatch(): Waiting[] {
    let newest: CatalogSnapshot | undefined;
    for (const entry of waiting.values()) {
      if (newest === undefined || isNewer(entry.snapshot.version, newest.version)) newest = entry.snapshot;
    }
    const batch = [...waiting.entries()].filter(([, entry]) => entry.snapshot === newest);
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
