/**
 * What a render tells the status page (docs/http-interface.md, `GET /`): how many items went out, how many the feed's
 * filter or stock policy left out on purpose, and which items a channel rule left out, with counts and first examples.
 */

/**
 * Why a required value was not accepted: a stable code (documented in docs/report-codes.md, linked from
 * the status page) and the reason in words (`longer than 50 characters`).
 */
export type FeedWarningCode = 'missing' | 'too-long' | 'no-match';

export interface FeedRejection {
  readonly code: FeedWarningCode;
  /** `missing`, `longer than N characters` or `does not match <pattern>`. */
  readonly reason: string;
}

/** An empty required value (or a failed `require` check). */
export const MISSING: FeedRejection = { code: 'missing', reason: 'missing' };

/** One item (or one unit's record of it) left out of a feed because a channel rule was not met. */
export interface FeedWarning extends FeedRejection {
  readonly feed: string;
  readonly itemId: string;
  /** The element (`g:price`), attribute (`item@id`), column (`store_code`) or check that failed. */
  readonly attribute: string;
  /** Set when only the record of this unit was left out (`each: offers`). */
  readonly unit?: string;
}

export interface FeedWarnings {
  readonly count: number;
  /** Count per `attribute`, so the status page can say "37 items without g:image_link". */
  readonly byAttribute: Readonly<Record<string, number>>;
  /** Count per code. */
  readonly byCode: Readonly<Partial<Record<FeedWarningCode, number>>>;
  /** The first warnings, in catalog order. */
  readonly examples: readonly FeedWarning[];
}

export interface FeedReport {
  readonly feed: string;
  /** Items with at least one record in the body. */
  readonly items: number;
  /** Records in the body: items, or (item, unit) rows for feeds repeated per offer. */
  readonly records: number;
  /** Items left out by the feed's filter (e.g. sold-out goods on Heureka): by design, not a warning. */
  readonly filtered: number;
  /**
   * Items left out as out of stock by the feed's stock policy (`outOfStock: omit`), including items whose
   * every unit's record was: by design, not a warning.
   */
  readonly outOfStock: number;
  /** Items left out because a required attribute was missing or invalid. */
  readonly dropped: number;
  /** Values cut to a channel's length limit (at a word boundary), e.g. long titles. */
  readonly truncated: number;
  readonly warnings: FeedWarnings;
}

/** The chunks of one rendered feed (UTF-8 text, about 64 KB each); the return value is its report. */
export type FeedChunks = Generator<string, FeedReport, undefined>;

/** Chunk size the renderers aim at: big enough to amortise per-chunk costs, small enough to stream. */
export const FEED_CHUNK_SIZE = 64 * 1024;

/** How many warnings a report keeps as examples. */
export const MAX_WARNING_EXAMPLES = 20;

export interface FeedReporter {
  items: number;
  records: number;
  filtered: number;
  outOfStock: number;
  dropped: number;
  truncated: number;
  /** Warnings so far (lets a renderer tell whether an item's rows were left out by a rule). */
  readonly warningCount: number;
  warn(itemId: string, attribute: string, rejection: FeedRejection, unit?: string): void;
  report(): FeedReport;
}

export function createFeedReporter(feed: string, maxExamples: number = MAX_WARNING_EXAMPLES): FeedReporter {
  const byAttribute: Record<string, number> = {};
  const byCode: Partial<Record<FeedWarningCode, number>> = {};
  const examples: FeedWarning[] = [];
  let count = 0;
  return {
    items: 0,
    records: 0,
    filtered: 0,
    outOfStock: 0,
    dropped: 0,
    truncated: 0,
    get warningCount() {
      return count;
    },
    warn(itemId, attribute, rejection, unit) {
      count++;
      byAttribute[attribute] = (byAttribute[attribute] ?? 0) + 1;
      byCode[rejection.code] = (byCode[rejection.code] ?? 0) + 1;
      if (examples.length < maxExamples) {
        const { code, reason } = rejection;
        examples.push(
          unit === undefined ? { feed, itemId, attribute, code, reason } : { feed, itemId, attribute, code, reason, unit },
        );
      }
    },
    report() {
      return {
        feed,
        items: this.items,
        records: this.records,
        filtered: this.filtered,
        outOfStock: this.outOfStock,
        dropped: this.dropped,
        truncated: this.truncated,
        warnings: { count, byAttribute: { ...byAttribute }, byCode: { ...byCode }, examples: [...examples] },
      };
    },
  };
}
