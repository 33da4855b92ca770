import { createSlicer } from '../async/create-slicer.js';
import type { GoogleFileFetch } from './google-file-upload.js';
import type { GoogleIssue, GoogleVerdict, GoogleVerdictStatus } from './google-product-status.js';
import type { RenderedIssueText } from './google-rendered-issues.js';

/**
 * What a channel said of the items as a whole, after one read of its verdicts (docs/channel-push.md,
 * "Google's verdicts"): how many are approved, pending and disapproved, the issues that touch the most items,
 * and the read's own trouble. Kept beside the verdicts themselves, which are kept in buckets by offer id, so
 * a product page reads one small bucket; only the leader, while it reads, holds every verdict (as text).
 */

/** How the verdicts' texts name a channel that reports back (the warnings, the console). */
export function verdictChannelName(channel: string): string {
  return channel === 'google' ? 'Google' : channel;
}

/** Verdicts a bucket holds at most on average: one bucket parses in about a millisecond. */
const BUCKET_TARGET = 150;

/** How many buckets a read of `verdicts` products is kept in: a power of two, 16 at least. */
export function bucketCountFor(verdicts: number): number {
  let count = 16;
  while (count * BUCKET_TARGET < verdicts && count < 65_536) count *= 2;
  return count;
}

/**
 * A read's verdicts as they arrive, each kept as its JSON text (a third of the objects' memory), then
 * grouped into the buckets' texts (a JSON array each) once the read is whole and its size known.
 */
export function createVerdictBuckets() {
  const texts: [string, string][] = [];
  return {
    add(verdict: { readonly offerId: string }): void {
      texts.push([verdict.offerId, JSON.stringify(verdict)]);
    },
    size: () => texts.length,
    /**
     * The bucket texts by bucket (buckets without verdicts left out), and their count; in slices that yield
     * (at 100,000 products grouping took ~170 ms in one go).
     */
    async group(): Promise<{ readonly count: number; readonly buckets: ReadonlyMap<number, string> }> {
      const count = bucketCountFor(texts.length);
      // Concatenated, not joined: V8 keeps `a + b` as a rope and copies it only when it is written, a bucket
      // at a time, so grouping allocates no second copy of the read at once (a GC pause of ~50 ms at 100,000).
      const buckets = new Map<number, string>();
      const slicer = createSlicer();
      for (const [offerId, text] of texts) {
        const pause = slicer.next();
        if (pause !== undefined) await pause;
        const bucket = bucketOf(offerId, count);
        const sofar = buckets.get(bucket);
        buckets.set(bucket, sofar === undefined ? `[${text}` : `${sofar},${text}`);
      }
      texts.length = 0;
      for (const [bucket, text] of buckets) buckets.set(bucket, `${text}]`);
      return { count, buckets };
    },
  };
}
/** Issues named in a summary (the overview and the warnings show the first). */
const TOP_ISSUES = 5;

export interface TopIssue {
  readonly code: string;
  readonly severity: string;
  readonly description?: string;
  readonly attribute?: string;
  readonly documentation?: string;
  /** Items it touches. */
  readonly items: number;
  /** One of them, for a link to its product page. */
  readonly example: string;
}

export interface VerdictCounts {
  readonly approved: number;
  readonly pending: number;
  readonly disapproved: number;
}

export interface VerdictSummary {
  /** When the verdicts in the store were read (ISO 8601); absent before the first complete read. */
  readonly readAt?: string;
  readonly counts: VerdictCounts;
  /** The issues that disapprove or demote the most items, most first (`NOT_IMPACTED` ones are left out). */
  readonly topIssues: readonly TopIssue[];
  /** Products of the listing that could not be read, and the first of their names (a read with many fails). */
  readonly unreadable?: { readonly count: number; readonly first: string };
  /** The last read that failed, while the verdicts of the read before stay in use. */
  readonly lastError?: { readonly at: string; readonly message: string };
  /** Google's last fetch of the `google.xml` file source (GOOGLE_MERCHANT_FILE_DATA_SOURCE_ID), or why it was not read. */
  readonly fileFetch?: GoogleFileFetch | { readonly problem: string };
  /** Google's texts of the issues on the most items, by issue code, in the console's languages. */
  readonly issueTexts?: IssueTexts;
  /** Issues of the account itself (`renderaccountissues`) in the console's languages. */
  readonly accountIssues?: AccountIssues;
}

/**
 * An issue code's texts as Google rendered them, per language (`cs`, `en`; a language may be missing when
 * its text could not be told apart), when Google was last asked, and the product they were rendered for
 * (Google words some texts for that product: its values, its Merchant Center page).
 */
export type IssueTexts = Readonly<
  Record<
    string,
    {
      readonly renderedAt: string;
      readonly example: string;
      readonly texts: Readonly<Partial<Record<string, RenderedIssueText>>>;
    }
  >
>;

/** The entries of `texts` for `codes` (a product's issues, the top issues); `undefined` when none is there. */
export function issueTextsFor(texts: IssueTexts | undefined, codes: Iterable<string>): IssueTexts | undefined {
  if (texts === undefined) return undefined;
  const picked = Object.fromEntries([...codes].flatMap((code) => (texts[code] === undefined ? [] : [[code, texts[code]]])));
  return Object.keys(picked).length === 0 ? undefined : picked;
}

/** The account's issues in the console's languages as last read, and the last read's error while one failed. */
export interface AccountIssues {
  readonly readAt?: string;
  readonly texts: Readonly<Partial<Record<string, readonly RenderedIssueText[]>>>;
  readonly lastError?: { readonly at: string; readonly message: string };
}

export const EMPTY_COUNTS: VerdictCounts = { approved: 0, pending: 0, disapproved: 0 };

/** The bucket of an offer id (FNV-1a over its UTF-16 code units: stable across processes and versions). */
export function bucketOf(offerId: string, buckets: number): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < offerId.length; index++) {
    hash ^= offerId.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % buckets;
}

function counted(issue: GoogleIssue): boolean {
  return issue.severity === 'DISAPPROVED' || issue.severity === 'DEMOTED';
}

/** Adds up the verdicts of one read, as they arrive page by page. */
export function createVerdictTally() {
  const counts: Record<GoogleVerdictStatus, number> = { approved: 0, pending: 0, disapproved: 0 };
  const issues = new Map<
    string,
    { issue: GoogleIssue; items: number; example: string; simplest: { offerId: string; codes: readonly string[] } }
  >();
  return {
    add(verdict: GoogleVerdict): void {
      counts[verdict.status] += 1;
      const codes = [...new Set(verdict.issues.map((issue) => issue.code))];
      const seen = new Set<string>();
      for (const issue of verdict.issues) {
        if (!counted(issue) || seen.has(issue.code)) continue;
        seen.add(issue.code);
        const entry = issues.get(issue.code);
        const simplest = { offerId: verdict.offerId, codes };
        if (entry === undefined) issues.set(issue.code, { issue, items: 1, example: verdict.offerId, simplest });
        else {
          entry.items += 1;
          if (codes.length < entry.simplest.codes.length) entry.simplest = simplest;
        }
      }
    },
    /**
     * The issue codes on the most items (`limit` at most), each with the product that has the fewest other
     * issues besides it: the products whose texts Google is asked for (`matchIssueTexts`).
     */
    renderSubjects(
      limit: number,
    ): readonly { readonly code: string; readonly offerId: string; readonly codes: readonly string[] }[] {
      return [...issues.entries()]
        .sort(([codeA, a], [codeB, b]) => b.items - a.items || codeA.localeCompare(codeB))
        .slice(0, limit)
        .map(([code, entry]) => ({ code, ...entry.simplest }));
    },
    summary(readAt: string, unreadable: { readonly count: number; readonly first?: string }): VerdictSummary {
      const topIssues = [...issues.values()]
        .sort((a, b) => b.items - a.items || a.issue.code.localeCompare(b.issue.code))
        .slice(0, TOP_ISSUES)
        .map(({ issue, items, example }) => ({
          code: issue.code,
          severity: issue.severity,
          ...(issue.description === undefined ? {} : { description: issue.description }),
          ...(issue.attribute === undefined ? {} : { attribute: issue.attribute }),
          ...(issue.documentation === undefined ? {} : { documentation: issue.documentation }),
          items,
          example,
        }));
      return {
        readAt,
        counts: { ...counts },
        topIssues,
        ...(unreadable.first === undefined ? {} : { unreadable: { count: unreadable.count, first: unreadable.first } }),
      };
    },
  };
}
