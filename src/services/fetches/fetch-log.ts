import { withTimeout } from '../../core/async/deadline.js';
import { CONSUMERS, type Consumer, consumerOf } from '../../core/fetches/classify-consumer.js';
import type { FetchLogStore } from '../../core/fetches/fetch-log-store.js';
import {
  addToSummary,
  type FetchEncoding,
  type FetchEntry,
  type FetchSummary,
  MAX_USER_AGENT,
  mergeSummaries,
  summaryKey,
  usualIntervalSeconds,
} from '../../core/fetches/fetch-summary.js';
import { type FetchWarning, feedPath, neverFetchedNotes, staleFetchWarnings } from '../../core/fetches/fetch-warnings.js';
import { createRing, type Ring } from '../../core/fetches/ring.js';

/** How long a page waits for the other instances' fetches in a stalled Redis before showing its own. */
const SHARED_READ_DEADLINE_MS = 1_000;

/** A finished feed response, as the feed routes report it. */
export interface RecordedFetch {
  readonly feed: string;
  readonly view: string;
  readonly userAgent: string | undefined;
  readonly status: number;
  readonly encoding: FetchEncoding;
  readonly bytes: number;
}

export interface FetchQuery {
  readonly feed?: string | undefined;
  readonly view?: string | undefined;
  readonly consumer?: Consumer | undefined;
  readonly limit: number;
}

/** A summary as the API and the page show it. */
export interface FetchSummaryView {
  readonly feed: string;
  readonly view: string;
  readonly url: string;
  readonly consumer: Consumer;
  readonly lastAt: string;
  readonly lastStatus: number;
  readonly lastEncoding: FetchEncoding;
  readonly lastBytes: number;
  readonly count: number;
  readonly usualIntervalSeconds?: number;
  readonly stale?: boolean;
}

/**
 * Who fetches which feed (docs/console.md#who-fetches-the-feeds). `record` is on the feed routes' hot path:
 * it classifies the agent (remembered per agent) and keeps the entry in memory; batches reach the store
 * every `flushMs` and on `close`. Summaries and warnings are answered from memory (on Redis, as of the last
 * flush, which also takes the other instances' summaries).
 */
export interface FetchLog {
  record(fetch: RecordedFetch): void;
  /** Reads the stored log and starts flushing; fetches recorded before are kept. Rejects if the store does not answer (then the next flush reads it). */
  start(): Promise<void>;
  flush(): Promise<void>;
  /** Stops the timer and stores what is left. */
  close(): Promise<void>;
  summaries(now?: Date): FetchSummaryView[];
  /** Newest first; on Redis, every instance's. */
  recent(query: FetchQuery): Promise<FetchEntry[]>;
  /** Channels that fetched a feed regularly and are now more than twice their usual interval late. */
  staleFetchers(now?: Date): FetchWarning[];
  /** Channel feeds (of the `all` view) their channel has not fetched since the log began: notes. */
  neverFetched(): FetchWarning[];
  /** When the log began. */
  since(): Date;
}

export interface FetchLogDeps {
  readonly store: FetchLogStore;
  /** `FETCH_LOG_SIZE`: entries kept. */
  readonly size: number;
  readonly now?: () => Date;
  readonly flushMs?: number;
  /** The configured channel feeds' files, for `neverFetched`. */
  readonly channelFeeds: () => readonly string[];
  readonly onError?: (error: unknown) => void;
}

const DEFAULT_FLUSH_MS = 5_000;

export function createFetchLog(deps: FetchLogDeps): FetchLog {
  const { store, size } = deps;
  const now = deps.now ?? (() => new Date());
  let ring: Ring<FetchEntry> = createRing(size);
  let pending: FetchEntry[] = [];
  let inFlight: readonly FetchEntry[] = [];
  let summaries = new Map<string, FetchSummary>();
  /** What this instance recorded since its last stored batch, summarized (kept whole even when `pending` overflows). */
  let delta = new Map<string, FetchSummary>();
  let since = now();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  let loaded = false;

  function apply(target: Map<string, FetchSummary>, entry: FetchEntry): void {
    const key = summaryKey(entry);
    target.set(key, addToSummary(target.get(key), entry));
  }

  /** Stored summaries with what this instance recorded since (not stored yet) on top. */
  function rebuild(stored: readonly FetchSummary[]): void {
    summaries = mergeInto(new Map(stored.map((summary) => [summaryKey(summary), summary])), delta);
  }

  /** The stored log under what was recorded meanwhile; nothing is written before it is read (its chunks would be overwritten). */
  async function load(): Promise<void> {
    const stored = await store.load();
    since = new Date(stored.since);
    const next = createRing<FetchEntry>(size);
    for (let i = stored.entries.length - 1; i >= 0; i--) next.push(stored.entries[i] as FetchEntry);
    for (const entry of pending) next.push(entry);
    ring = next;
    rebuild(stored.summaries);
    loaded = true;
  }

  async function flushOnce(): Promise<void> {
    if (!loaded) {
      try {
        await load();
      } catch (error) {
        deps.onError?.(error);
        return;
      }
    }
    if (pending.length === 0 && !store.shared) return;
    const batch = pending;
    const batchDelta = delta;
    pending = [];
    delta = new Map();
    inFlight = batch;
    try {
      rebuild(await store.append(batch, [...batchDelta.values()]));
    } catch (error) {
      // Tried again with the next flush; the oldest entries go first if the store stays away.
      pending = [...batch, ...pending].slice(-size);
      delta = mergeInto(batchDelta, delta);
      deps.onError?.(error);
    } finally {
      inFlight = [];
    }
  }

  const log: FetchLog = {
    record(fetch) {
      const userAgent = fetch.userAgent ?? '';
      const entry: FetchEntry = {
        at: now().getTime(),
        feed: fetch.feed,
        view: fetch.view,
        consumer: consumerOf(fetch.userAgent),
        userAgent: userAgent.length > MAX_USER_AGENT ? userAgent.slice(0, MAX_USER_AGENT) : userAgent,
        status: fetch.status,
        encoding: fetch.encoding,
        bytes: fetch.bytes,
      };
      ring.push(entry);
      pending.push(entry);
      // Beyond the log's size the oldest waiting entries would be dropped at the store anyway; cut in one go.
      if (pending.length >= 2 * size) pending = pending.slice(-size);
      apply(summaries, entry);
      apply(delta, entry);
    },
    async start() {
      try {
        if (!loaded) await load();
      } finally {
        // A store away at start is read by the next flush that finds it.
        timer ??= setInterval(() => void log.flush(), deps.flushMs ?? DEFAULT_FLUSH_MS).unref();
      }
    },
    flush() {
      // One after another: each batch is the entries recorded since the previous one.
      flushing = flushing.then(flushOnce, flushOnce);
      return flushing;
    },
    async close() {
      clearInterval(timer);
      timer = undefined;
      await log.flush();
      await store.close();
    },
    summaries(at = now()) {
      const stale = new Set(staleFetchWarnings(summaries.values(), at).map((warning) => summaryKey(warning)));
      return (
        [...summaries.values()]
          // Per feed and view, the channels first, in the order of CONSUMERS.
          .sort(
            (a, b) =>
              a.feed.localeCompare(b.feed) ||
              a.view.localeCompare(b.view) ||
              CONSUMERS.indexOf(a.consumer) - CONSUMERS.indexOf(b.consumer),
          )
          .map((summary) => viewOf(summary, stale.has(summaryKey(summary))))
      );
    },
    async recent(query) {
      const local = [...pending].reverse().concat([...inFlight].reverse());
      // Other instances' entries, when the shared store answers in time; this instance's own ones regardless.
      const shared = store.shared
        ? await withTimeout(store.recent(size), SHARED_READ_DEADLINE_MS, 'reading the shared fetch log').catch(() => [])
        : undefined;
      const entries = shared === undefined ? ring.newest() : local.concat(shared);
      const matching: FetchEntry[] = [];
      for (const entry of entries) {
        if (matching.length >= query.limit) break;
        if (query.feed !== undefined && entry.feed !== query.feed) continue;
        if (query.view !== undefined && entry.view !== query.view) continue;
        if (query.consumer !== undefined && entry.consumer !== query.consumer) continue;
        matching.push(entry);
      }
      return matching;
    },
    staleFetchers: (at = now()) => staleFetchWarnings(summaries.values(), at),
    neverFetched: () => neverFetchedNotes(deps.channelFeeds(), summaries.values(), since),
    since: () => since,
  };
  return log;
}

/** `extra` merged into `target` (changed in place and answered). */
function mergeInto(target: Map<string, FetchSummary>, extra: ReadonlyMap<string, FetchSummary>): Map<string, FetchSummary> {
  for (const [key, summary] of extra) {
    const known = target.get(key);
    target.set(key, known === undefined ? summary : mergeSummaries(known, summary));
  }
  return target;
}

function viewOf(summary: FetchSummary, stale: boolean): FetchSummaryView {
  const usual = usualIntervalSeconds(summary);
  return {
    feed: summary.feed,
    view: summary.view,
    url: feedPath(summary.feed, summary.view),
    consumer: summary.consumer,
    lastAt: new Date(summary.lastAt).toISOString(),
    lastStatus: summary.lastStatus,
    lastEncoding: summary.lastEncoding,
    lastBytes: summary.lastBytes,
    count: summary.count,
    ...(usual === undefined ? {} : { usualIntervalSeconds: Math.round(usual) }),
    ...(usual === undefined ? {} : { stale }),
  };
}
