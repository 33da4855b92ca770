/** Where a reported problem was found. */
export type IssueSource = 'articles' | 'units' | 'price-list' | 'stock' | 'movements';

/** One reported problem of a sync: enough to find the row in the POS document and fix it there. */
export interface CatalogIssue<Reason extends string = string> {
  readonly reason: Reason;
  readonly source: IssueSource;
  /** Unit code, for per-unit documents. */
  readonly unit?: string;
  /** The row's code (or the article id for article problems). */
  readonly code?: string;
  /** 1-based position of the XML item, or line of the stock export. */
  readonly row?: number;
  readonly articleId?: string;
  readonly articleIds?: readonly string[];
  readonly detail?: string;
}

/** Counts of every reason plus the first `maxExamples` issues of each reason, in the order found. */
export interface IssueSummary<Reason extends string = string> {
  readonly counts: Partial<Record<Reason, number>>;
  readonly examples: readonly CatalogIssue<Reason>[];
}

export interface IssueLog<Reason extends string> {
  add(issue: CatalogIssue<Reason>): void;
  /**
   * Counts `count` more issues of `reason` without their details, as if they were added here: for
   * replaying another capped log (its examples with `add`, then what it only counted).
   */
  addCount(reason: Reason, count: number): void;
  summary(): IssueSummary<Reason>;
}

/**
 * A capped collector: every issue is counted, only the first `maxExamples` of each reason are kept,
 * so a POS document with 100,000 bad rows yields a small report.
 */
export function createIssueLog<Reason extends string>(maxExamples: number): IssueLog<Reason> {
  const counts: Partial<Record<Reason, number>> = {};
  const examples: CatalogIssue<Reason>[] = [];
  return {
    add(issue) {
      const count = (counts[issue.reason] ?? 0) + 1;
      counts[issue.reason] = count;
      if (count <= maxExamples) examples.push(issue);
    },
    addCount(reason, count) {
      if (count > 0) counts[reason] = (counts[reason] ?? 0) + count;
    },
    summary() {
      return { counts: { ...counts }, examples: [...examples] };
    },
  };
}
