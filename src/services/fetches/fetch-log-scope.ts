import { ALL_UNITS, type CatalogSnapshot } from '../../core/catalog/catalog.js';

/** The changes feed is served beside the feed descriptors (`FeedService.changes`), not as one of them. */
const CHANGES_FEED = 'changes.json';

/**
 * Whether a feed request names a feed the bridge serves, in a view it has: only those are logged. A
 * scanner's made-up URLs (`/feeds/x1/junk1.xml`, …) would otherwise fill the log's bounded summaries and
 * crowd out the channels it exists for (docs/console.md#who-fetches-the-feeds).
 */
export function isLoggedFeed(
  fetch: { readonly feed: string; readonly view: string },
  known: { readonly isFeed: (file: string) => boolean; readonly current: () => CatalogSnapshot | undefined },
): boolean {
  if (fetch.feed !== CHANGES_FEED && !known.isFeed(fetch.feed)) return false;
  if (fetch.view === ALL_UNITS) return true;
  const snapshot = known.current();
  // Before the first catalog no unit is known yet: a channel's early polls (answered 503) still count.
  return snapshot === undefined || snapshot.units.some((unit) => unit.code === fetch.view);
}
