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

/** An item in the feed that lacks a value its channel recommends (brand, description, category, image). */
export interface ReadinessExample {
  readonly itemId: string;
  readonly missing: readonly string[];
}

/**
 * Channel readiness of a rendered feed (a template's `recommend` checks): of the items in the body, how
 * many carry every recommended value, and per check how many do not, with first examples.
 */
export interface FeedReadiness {
  readonly complete: number;
  /** Per check name (`brand`, `description`, …): items in the feed without it. */
  readonly missing: Readonly<Record<string, number>>;
  readonly examples: readonly ReadinessExample[];
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
  /** Items the enrichment sheet's `exclude` column leaves out of this feed. */
  readonly excluded: number;
  readonly warnings: FeedWarnings;
  /** Only for templates with `recommend` checks. */
  readonly readiness?: FeedReadiness;
}

/** The chunks of one rendered feed (UTF-8 text, about 64 KB each); the return value is its report. */
export type FeedChunks = Generator<string, FeedReport, undefined>;

/** Chunk size the renderers aim at: big enough to amortise per-chunk costs, small enough to stream. */
export const FEED_CHUNK_SIZE = 64 * 1024;

/**
 * Items read between two parts at most, however little they rendered: a feed whose rules leave most
 * items out (no product URL set, say) would otherwise read the whole catalog before its first part, and
 * a renderer driving several feeds over one parse of each chunk (`render-in-lockstep.ts`), or one yielding
 * to the event loop between parts, could not steer it. A part may then be empty.
 */
export const FEED_PART_ITEMS = 256;

/** When a template renderer gives back the text it has: see `createPartPacer`. */
export interface PartPacer {
  /** Called before each item is read, with the text's length so far: whether to give that text back first. */
  due(textLength: number): boolean;
}

/** A part at `FEED_CHUNK_SIZE` characters of text or `FEED_PART_ITEMS` items read, whichever comes first. */
export function createPartPacer(): PartPacer {
  let read = 0;
  return {
    due(textLength) {
      const due = textLength >= FEED_CHUNK_SIZE || read === FEED_PART_ITEMS;
      read = due ? 1 : read + 1;
      return due;
    },
  };
}

/** How many warnings a report keeps as examples. */
export const MAX_WARNING_EXAMPLES = 20;

export interface FeedReporter {
  items: number;
  records: number;
  filtered: number;
  outOfStock: number;
  dropped: number;
  truncated: number;
  excluded: number;
  /** Warnings so far (lets a renderer tell whether an item's rows were left out by a rule). */
  readonly warningCount: number;
  warn(itemId: string, attribute: string, rejection: FeedRejection, unit?: string): void;
  /** The recommended values the item being rendered lacks (set when it is admitted; `[]` when none). */
  recommendMissing(itemId: string, missing: readonly string[]): void;
  /** Counts the item being rendered as in the body (and its readiness). */
  countItem(): void;
  report(): FeedReport;
}

interface ReadinessCounter {
  note(itemId: string, missing: readonly string[]): void;
  count(): void;
  result(): FeedReadiness | undefined;
}

function createReadinessCounter(maxExamples: number): ReadinessCounter {
  const missingCounts: Record<string, number> = {};
  const examples: ReadinessExample[] = [];
  let used = false;
  let complete = 0;
  let pendingId = '';
  let pending: readonly string[] = [];
  return {
    note(itemId, missing) {
      used = true;
      pendingId = itemId;
      pending = missing;
    },
    count() {
      if (!used) return;
      if (pending.length === 0) complete++;
      for (const name of pending) missingCounts[name] = (missingCounts[name] ?? 0) + 1;
      if (pending.length > 0 && examples.length < maxExamples) examples.push({ itemId: pendingId, missing: pending });
      pending = [];
    },
    result: () => (used ? { complete, missing: { ...missingCounts }, examples: [...examples] } : undefined),
  };
}

export function createFeedReporter(feed: string, maxExamples: number = MAX_WARNING_EXAMPLES): FeedReporter {
  const byAttribute: Record<string, number> = {};
  const byCode: Partial<Record<FeedWarningCode, number>> = {};
  const examples: FeedWarning[] = [];
  const readiness = createReadinessCounter(maxExamples);
  let count = 0;
  return {
    items: 0,
    records: 0,
    filtered: 0,
    outOfStock: 0,
    dropped: 0,
    truncated: 0,
    excluded: 0,
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
    recommendMissing: readiness.note,
    countItem() {
      this.items++;
      readiness.count();
    },
    report() {
      const ready = readiness.result();
      return {
        feed,
        items: this.items,
        records: this.records,
        filtered: this.filtered,
        outOfStock: this.outOfStock,
        dropped: this.dropped,
        truncated: this.truncated,
        excluded: this.excluded,
        warnings: { count, byAttribute: { ...byAttribute }, byCode: { ...byCode }, examples: [...examples] },
        ...(ready === undefined ? {} : { readiness: ready }),
      };
    },
  };
}
