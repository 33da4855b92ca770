import { collectFeed } from './collect-feed.js';
import type { CompiledFeed } from './compiled-feed.js';
import type { FeedContext, FeedItem } from './feed-item.js';
import type { FeedReport, FeedWarning, FeedWarningCode } from './feed-report.js';
import { type CsvProfile, renderCsvFeed } from './render-csv-feed.js';

/**
 * Why one product is, or is not, in one feed of one view (docs/console.md#product-detail): the template
 * renders a feed of that one item, and its report says which rule left it out. The text shown for an
 * included item is cut out of that render between the document's frame (`CompiledFeed.frame`), so it is
 * the renderer's own output, byte for byte what the full feed carries for the item.
 */

/** Why an item is left out: the codes of docs/report-codes.md (`missing`, `too-long`, `no-match`, `filtered`, …). */
export type LeftOutCode = 'not-offered' | 'excluded' | 'filtered' | 'out-of-stock' | FeedWarningCode;

/** Which rule: the unit offers nothing, the sheet's `exclude` column, the template's filter, its stock policy, a required value. */
export type LeftOutRule = 'view' | 'exclude' | 'filter' | 'stockPolicy' | 'required';

export interface LeftOutReason {
  readonly code: LeftOutCode;
  readonly rule: LeftOutRule;
  /** The element (`g:link`), attribute (`item@id`), column or `require` check that failed. */
  readonly attribute?: string;
  /** The unit whose record failed (feeds with a record per unit). */
  readonly unit?: string;
  /** `too-long`: the length limit in characters. */
  readonly limit?: number;
  /** `no-match`: the pattern the value must match. */
  readonly pattern?: string;
  /** In English; the console words it per code in the reader's language. */
  readonly message: string;
}

/** A unit's record the feed left out while keeping others of the item (feeds with a record per unit). */
export interface LeftOutRecord {
  readonly unit?: string;
  readonly attribute: string;
  readonly code: FeedWarningCode;
  readonly message: string;
}

export type ItemVerdict =
  | {
      readonly included: true;
      /** The item's exact text in the feed body; absent where not cheap (the workbook). */
      readonly text?: string;
      /** Records of single units left out by a rule while the item is in. */
      readonly leftOutRecords?: readonly LeftOutRecord[];
    }
  | { readonly included: false; readonly reason: LeftOutReason };

/** The view offers nothing of the product (no offer of that unit). */
export function notOffered(view: string): ItemVerdict {
  return {
    included: false,
    reason: { code: 'not-offered', rule: 'view', message: `the view "${view}" has no offer of this product` },
  };
}

function rejectionReason(warning: FeedWarning): LeftOutReason {
  const limit = warning.code === 'too-long' ? /\d+/.exec(warning.reason)?.[0] : undefined;
  const pattern = warning.code === 'no-match' ? warning.reason.replace(/^does not match /, '') : undefined;
  return {
    code: warning.code,
    rule: 'required',
    attribute: warning.attribute,
    ...(warning.unit === undefined ? {} : { unit: warning.unit }),
    ...(limit === undefined ? {} : { limit: Number(limit) }),
    ...(pattern === undefined ? {} : { pattern }),
    message: `${warning.attribute}: ${warning.reason}`,
  };
}

/** Why a render of one item has nothing of it, from its report. */
export function reasonOf(report: FeedReport): LeftOutReason {
  if (report.excluded > 0) {
    return { code: 'excluded', rule: 'exclude', message: `the enrichment sheet's exclude column names ${report.feed}` };
  }
  const [warning] = report.warnings.examples;
  if (report.dropped > 0 && warning !== undefined) return rejectionReason(warning);
  if (report.outOfStock > 0) {
    return { code: 'out-of-stock', rule: 'stockPolicy', message: 'out of stock, and the stock policy omits sold-out goods' };
  }
  return { code: 'filtered', rule: 'filter', message: "the feed's filter leaves it out" };
}

/** `body` without its frame: fails loudly rather than show a text that is not the item's. */
function between(body: string, head: string, tail: string): string {
  if (!body.startsWith(head) || !body.endsWith(tail) || body.length < head.length + tail.length) {
    throw new Error('the rendered item is not inside its feed frame');
  }
  return body.slice(head.length, body.length - tail.length);
}

/** One item against one template feed in the view of `context`. */
export function explainTemplateItem(
  feed: Pick<CompiledFeed, 'render' | 'frame'>,
  context: FeedContext,
  item: FeedItem,
): ItemVerdict {
  const { body, report } = collectFeed(feed.render(context, [item]));
  if (report.items === 0) return { included: false, reason: reasonOf(report) };
  const { head, tail } = feed.frame(context);
  const records = report.warnings.examples.map((warning) => ({
    ...(warning.unit === undefined ? {} : { unit: warning.unit }),
    attribute: warning.attribute,
    code: warning.code,
    message: warning.reason,
  }));
  return {
    included: true,
    text: between(body.toString('utf8'), head, tail),
    ...(records.length === 0 ? {} : { leftOutRecords: records }),
  };
}

/** The item's row of the built-in CSV feed (`products.csv`): its header row cut off a render of the one item. */
export function csvItemText(
  context: FeedContext,
  item: FeedItem,
  options: { readonly unitColumns: readonly string[]; readonly profile?: CsvProfile },
): string {
  const head = collectFeed(renderCsvFeed(context, [], options)).body.toString('utf8');
  const body = collectFeed(renderCsvFeed(context, [item], options)).body.toString('utf8');
  return between(body, head, '');
}
