import type { IssueLog, IssueSource } from './create-issue-log.js';
import { IDENTITY_KEYS } from './identity-codes.js';
import type { IdentityIndex } from './identity-index.js';
import type { MergeIssueReason, SourceReport } from './merge-types.js';
import { type IdentityKeyChoice, type IdentityResolution, resolveIdentity } from './resolve-identity.js';

/** Replays a unit's capped log into the run's: its examples in order, then what it only counted. */
export function replay(into: IssueLog<MergeIssueReason>, from: IssueLog<MergeIssueReason>): void {
  const { counts, examples } = from.summary();
  const kept = new Map<MergeIssueReason, number>();
  for (const issue of examples) {
    into.add(issue);
    kept.set(issue.reason, (kept.get(issue.reason) ?? 0) + 1);
  }
  for (const [reason, count] of Object.entries(counts) as [MergeIssueReason, number][]) {
    into.addCount(reason, count - (kept.get(reason) ?? 0));
  }
}

/** The report of a document the unit does not have. */
export function absentReport(index: IdentityIndex, excluded: IdentityIndex, choice: IdentityKeyChoice): SourceReport {
  return sourceReport(false, 0, resolveIdentity(index, [], choice, excluded));
}

export function reportIdentity(
  issues: IssueLog<MergeIssueReason>,
  source: IssueSource,
  unit: string,
  resolution: IdentityResolution,
  rowNumber: (row: number) => number | undefined,
): void {
  function at(row: number): { row?: number } {
    const number = rowNumber(row);
    return number === undefined ? {} : { row: number };
  }
  for (const entry of resolution.unmatched) {
    issues.add({ reason: 'row-unmatched', source, unit, code: entry.code, ...at(entry.row) });
  }
  for (const entry of resolution.ambiguous) {
    issues.add({
      reason: 'row-ambiguous',
      source,
      unit,
      code: entry.code,
      ...at(entry.row),
      articleIds: entry.articleIds,
      detail: `${entry.key} names several articles`,
    });
  }
  for (const entry of resolution.duplicates) {
    const first = rowNumber(entry.firstRow);
    issues.add({
      reason: 'row-duplicate',
      source,
      unit,
      code: entry.code,
      ...at(entry.row),
      articleId: entry.articleId,
      detail: `article already taken by row ${first ?? entry.firstRow + 1}; the first row wins`,
    });
  }
  for (const entry of resolution.conflicts) {
    issues.add({
      reason: 'row-key-conflict',
      source,
      unit,
      code: entry.code,
      ...at(entry.row),
      articleId: entry.articleId,
      articleIds: [entry.articleId, entry.otherArticleId],
      detail: `matched by ${entry.key}; by ${entry.otherKey} it would name ${entry.otherArticleId}`,
    });
  }
  for (const entry of resolution.notForSale) {
    issues.add({
      reason: 'row-not-for-sale',
      source,
      unit,
      code: entry.code,
      ...at(entry.row),
      ...(entry.articleId === undefined ? {} : { articleId: entry.articleId }),
    });
  }
}

export function sourceReport(present: boolean, rows: number, resolution: IdentityResolution): SourceReport {
  return {
    present,
    rows,
    // Summed over the keys rather than `matches.length`: the merge takes matches through `onMatch`.
    matched: IDENTITY_KEYS.reduce((sum, key) => sum + resolution.keyCounts[key], 0),
    unmatched: resolution.unmatched.length,
    ambiguous: resolution.ambiguous.length,
    duplicates: resolution.duplicates.length,
    notForSale: resolution.notForSale.length,
    conflicts: resolution.conflicts.length,
    keyOrder: resolution.keyOrder,
    keyCounts: resolution.keyCounts,
    sampleKeyCounts: resolution.sample.keyCounts,
  };
}
