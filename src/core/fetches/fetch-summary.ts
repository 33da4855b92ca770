import type { Consumer } from './classify-consumer.js';

export type FetchEncoding = 'br' | 'gzip' | 'identity';

/** One feed request, as recorded when its response finished (docs/console.md#who-fetches-the-feeds). */
export interface FetchEntry {
  /** Epoch milliseconds. */
  readonly at: number;
  /** The feed file (`google.xml`). */
  readonly feed: string;
  /** The unit view (`all`, `U1`). */
  readonly view: string;
  readonly consumer: Consumer;
  /** Truncated to `MAX_USER_AGENT` characters. */
  readonly userAgent: string;
  readonly status: number;
  readonly encoding: FetchEncoding;
  /** Body bytes sent (0 for a `304` or a `HEAD`). */
  readonly bytes: number;
}

/**
 * Per feed, view and consumer: the last fetch, how many, and the times of the latest ones, so that the
 * usual interval is known even after the log's ring has rolled over (browsers can fill it in an afternoon).
 */
export interface FetchSummary {
  readonly feed: string;
  readonly view: string;
  readonly consumer: Consumer;
  readonly lastAt: number;
  readonly lastStatus: number;
  readonly lastEncoding: FetchEncoding;
  readonly lastBytes: number;
  readonly count: number;
  /** Epoch milliseconds of the latest fetches, oldest first, at most `KEPT_TIMES`. */
  readonly times: readonly number[];
}

export const MAX_USER_AGENT = 200;
/** Enough fetch times for a median that a few retries or a missed poll do not move. */
export const KEPT_TIMES = 16;
/** The usual interval needs this many fetches (two intervals). */
export const MIN_FETCHES_FOR_INTERVAL = 3;

export function summaryKey(entry: { readonly feed: string; readonly view: string; readonly consumer: string }): string {
  return `${entry.feed}|${entry.view}|${entry.consumer}`;
}

/** `entry` added to `summary` (or a new summary); entries may come out of order (several instances). */
export function addToSummary(summary: FetchSummary | undefined, entry: FetchEntry): FetchSummary {
  const latest = {
    lastAt: entry.at,
    lastStatus: entry.status,
    lastEncoding: entry.encoding,
    lastBytes: entry.bytes,
  };
  if (summary === undefined) {
    return { feed: entry.feed, view: entry.view, consumer: entry.consumer, ...latest, count: 1, times: [entry.at] };
  }
  if (entry.at >= summary.lastAt) {
    // The usual case (entries in the order recorded): no sort.
    const times = summary.times.length >= KEPT_TIMES ? summary.times.slice(1 - KEPT_TIMES) : summary.times.slice();
    times.push(entry.at);
    return { ...summary, ...latest, count: summary.count + 1, times };
  }
  return mergeSummaries(summary, addToSummary(undefined, entry));
}

/** Two summaries of the same key as one: counts added, the later last fetch, the latest times of both. */
export function mergeSummaries(a: FetchSummary, b: FetchSummary): FetchSummary {
  const later = b.lastAt >= a.lastAt ? b : a;
  const times = [...a.times, ...b.times].sort((x, y) => x - y).slice(-KEPT_TIMES);
  return { ...later, count: a.count + b.count, times };
}

/** The entries of a batch summarized, by `summaryKey`. */
export function summarize(entries: readonly FetchEntry[]): Map<string, FetchSummary> {
  const summaries = new Map<string, FetchSummary>();
  for (const entry of entries) {
    const key = summaryKey(entry);
    summaries.set(key, addToSummary(summaries.get(key), entry));
  }
  return summaries;
}

/** The median of the intervals between the kept fetch times, in seconds; `undefined` below three fetches. */
export function usualIntervalSeconds(summary: FetchSummary): number | undefined {
  if (summary.count < MIN_FETCHES_FOR_INTERVAL || summary.times.length < MIN_FETCHES_FOR_INTERVAL) return undefined;
  const intervals: number[] = [];
  for (let i = 1; i < summary.times.length; i++) intervals.push(((summary.times[i] ?? 0) - (summary.times[i - 1] ?? 0)) / 1000);
  intervals.sort((x, y) => x - y);
  const middle = Math.floor(intervals.length / 2);
  const median = intervals.length % 2 === 1 ? intervals[middle] : ((intervals[middle - 1] ?? 0) + (intervals[middle] ?? 0)) / 2;
  return median ?? undefined;
}
