import type { FeedContext, FeedItem } from './feed-item.js';
import type { FeedChunks } from './feed-report.js';
import type { FeedKind, FeedViews } from './feed-template-schema.js';

/** What a feed body holds around its items: the body is `head`, each item's text in turn, then `tail`. */
export interface FeedFrame {
  readonly head: string;
  readonly tail: string;
}

/** A template compiled once at start-up into a streaming renderer. */
export interface CompiledFeed {
  readonly name: string;
  readonly title: string;
  /** URL segment: `/feeds/{unit}/{file}`. */
  readonly file: string;
  readonly kind: FeedKind;
  readonly contentType: string;
  readonly views: FeedViews;
  /** The template file it came from (for messages). */
  readonly source: string;
  /**
   * Whether the feed's stock policy changes any stock or availability (a buffer, a threshold): then a stock
   * change alone may change an item's availability in this feed (the channel push listens for it).
   */
  readonly stockAdjusts?: boolean;
  /** Whether the view `unit` (a unit code or `all`) serves this feed. */
  servesView(unit: string): boolean;
  /** Streams the feed of `items` in the view of `context`; the generator's return value is the report. */
  render(context: FeedContext, items: Iterable<FeedItem>): FeedChunks;
  /** The body's text around the items in the view of `context` (so one item's exact text can be cut out of a render). */
  frame(context: FeedContext): FeedFrame;
}

export const DEFAULT_CONTENT_TYPES: Readonly<Record<FeedKind, string>> = {
  xml: 'application/xml; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
  tsv: 'text/tab-separated-values; charset=utf-8',
};

export function servesView(views: FeedViews, unit: string): boolean {
  if (views === 'both') return true;
  return views === 'all' ? unit === 'all' : unit !== 'all';
}
