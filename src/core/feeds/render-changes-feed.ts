import type { FeedContext, FeedItem } from './feed-item.js';
import { createFeedReporter, FEED_CHUNK_SIZE, type FeedChunks } from './feed-report.js';
import { jsonItemText } from './render-json-feed.js';

/** The changes feed's file, and its name in reports. */
export const CHANGES_FEED_FILE = 'changes.json';

/**
 * The changes feed without a cursor (docs/http-interface.md, "The changes feed"): every item of the view
 * as `added`, with `next` the version to ask from. The same text the main thread makes for a cursor's
 * changes, rendered like any feed (in the render thread, into files): at 100,000 products it is ~60 MB.
 *
 * @example collectFeed(renderWholeChangesFeed(context, items, { count: 2 })).body
 */
export function* renderWholeChangesFeed(
  context: Pick<FeedContext, 'version' | 'generatedAt' | 'unit'>,
  items: Iterable<FeedItem>,
  options: { readonly count: number },
): FeedChunks {
  const { count } = options;
  const reporter = createFeedReporter(CHANGES_FEED_FILE);
  let out =
    `{"unit":${JSON.stringify(context.unit)},"since":null,"next":${JSON.stringify(context.version)},` +
    `"generatedAt":${JSON.stringify(context.generatedAt)},"count":${count},"changes":[\n`;
  for (const item of items) {
    out += `${reporter.items === 0 ? '' : ',\n'}{"id":${JSON.stringify(item.id)},"change":"added","item":${jsonItemText(item)}}`;
    reporter.items++;
    if (out.length >= FEED_CHUNK_SIZE) {
      yield out;
      out = '';
    }
  }
  if (reporter.items !== count) {
    throw new RangeError(`renderWholeChangesFeed: count was ${count} but ${reporter.items} items were rendered`);
  }
  reporter.records = reporter.items;
  yield `${out}\n]}\n`;
  return reporter.report();
}
