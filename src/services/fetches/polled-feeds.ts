import type { FetchLog } from './fetch-log.js';

/** A feed and view pollers ask for. */
export interface PolledFeed {
  readonly file: string;
  readonly view: string;
}

/** How recent a poll must be for its feed to be rendered with every version. */
const POLLED_WITHIN_MS = 7 * 24 * 3_600_000;

/**
 * The feeds pollers ask for, from the fetch log: answered (200, 304) more than once in the last week, most
 * asked first. The pre-rendering renders them first after the first sync and with every version after.
 */
export function polledFeeds(fetches: Pick<FetchLog, 'summaries'>, now: Date): PolledFeed[] {
  const counts = new Map<string, { readonly feed: PolledFeed; count: number }>();
  for (const summary of fetches.summaries(now)) {
    if (summary.count < 2 || (summary.lastStatus !== 200 && summary.lastStatus !== 304)) continue;
    if (now.getTime() - Date.parse(summary.lastAt) > POLLED_WITHIN_MS) continue;
    const key = `${summary.feed}|${summary.view}`;
    const entry = counts.get(key) ?? { feed: { file: summary.feed, view: summary.view }, count: 0 };
    entry.count += summary.count;
    counts.set(key, entry);
  }
  return [...counts.values()].sort((a, b) => b.count - a.count).map((entry) => entry.feed);
}
