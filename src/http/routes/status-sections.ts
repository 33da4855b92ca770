import type { FeedReadiness } from '../../core/feeds/feed-report.js';
import type { EnrichmentSyncReport } from '../../services/catalog/enrich-catalog.js';
import type { EnrichmentStatus } from '../../services/enrichment/enrichment-service.js';

/**
 * Parts of the status page about what makes feeds channel-ready (docs/enrichment.md): the operator's
 * warnings, the enrichment sheet in use, and each feed's readiness (items missing recommended values).
 */

export const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Everything the operator should fix, first on the page. */
export function warningsNotice(warnings: readonly string[]): string {
  if (warnings.length === 0) return '';
  const items = warnings.map((warning) => `<li>${escapeHtml(warning)}</li>`).join('');
  return `<div class="notice" id="warnings"><strong>To fix</strong><ul>${items}</ul></div>`;
}

/** How the last full sync matched the sheet's rows to products. */
function matchText(report: EnrichmentSyncReport | undefined): string {
  if (report === undefined) return '';
  return ` Last full sync: ${report.matched} of ${report.rows} product rows matched (${report.unmatched} unmatched, ${report.ambiguous} ambiguous, ${report.duplicates} duplicate), ${report.enrichedProducts} products enriched.`;
}

/** The enrichment sheet in use, what its check found, how it matched, and its last problem. */
export function enrichmentLine(status: EnrichmentStatus | undefined, match?: EnrichmentSyncReport): string {
  if (status === undefined) {
    return '<p id="enrichment" class="muted">No enrichment sheet (ENRICHMENT_SOURCE): feeds carry what the POS has.</p>';
  }
  const h = escapeHtml;
  const current = status.current;
  const inUse =
    current === undefined
      ? 'no sheet in use yet'
      : `${h(current.name)} read ${h(current.fetchedAt)}: ${current.check.rows ?? 0} product rows, ${current.check.groups ?? 0} group rows, key column <code>${h(current.check.keyColumn ?? '?')}</code>`;
  const problems = current?.check.problems ?? [];
  const problemList =
    problems.length === 0
      ? ''
      : `<details><summary>${current?.check.problemCount ?? problems.length} cells or rows ignored</summary><ul>${problems
          .map(
            (problem) =>
              `<li>${problem.line === undefined ? '' : `row ${problem.line}`}${problem.column === undefined ? '' : `, column ${h(problem.column)}`}: ${h(problem.message)}</li>`,
          )
          .join('')}</ul></details>`;
  const failure =
    status.problem === undefined
      ? ''
      : ` <span class="failed">Last read failed (${h(status.problem.code)}): ${h(status.problem.message)}</span>`;
  return `<p id="enrichment">Enrichment sheet ${h(status.source)}: ${inUse}.${h(matchText(match))}${failure}</p>${problemList}`;
}

/** A feed's readiness: how many items carry every recommended value, and which are missing most. */
export function readinessCell(readiness: FeedReadiness | undefined, items: number | null): string {
  if (readiness === undefined || items === null) return '';
  const h = escapeHtml;
  const missing = Object.entries(readiness.missing).sort((a, b) => b[1] - a[1]);
  if (missing.length === 0) return `${readiness.complete} complete`;
  const examples = readiness.examples
    .slice(0, 5)
    .map((example) => `<li>e.g. ${h(example.itemId)}: no ${h(example.missing.join(', '))}</li>`)
    .join('');
  return `<details><summary>${readiness.complete} of ${items} complete</summary><ul>${missing
    .map(([name, count]) => `<li>${count} without ${h(name)}</li>`)
    .join('')}${examples}</ul></details>`;
}
