import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RunAbortedError } from '../../../src/core/async/deadline.js';
import type { ApplyStockIssueReason } from '../../../src/core/catalog/apply-stock.js';
import type { MergeIssueReason } from '../../../src/core/catalog/merge-catalog.js';
import type { BridgeErrorCode } from '../../../src/core/errors.js';
import type { LeftOutCode } from '../../../src/core/feeds/explain-item.js';
import type { FeedWarningCode } from '../../../src/core/feeds/feed-report.js';
import { HTTP_ERRORS } from '../../../src/http/error-codes.js';
import type { WebhookRoutesDeps } from '../../../src/http/routes/webhook-routes.js';
import type { SyncOutcome } from '../../../src/services/catalog/catalog-types.js';
import type { ConsoleWarningCode } from '../../../src/services/console/console-warnings.js';
import type { EnrichmentProblemReport } from '../../../src/services/enrichment/enrichment-service.js';
import type { PushWarningCode } from '../../../src/services/push/push-warnings.js';
import type { VerdictWarningCode } from '../../../src/services/push/verdict-warnings.js';
import type { WebhookStats } from '../../../src/services/webhooks/webhook-processor.js';

/**
 * Every report code the bridge can emit has an entry in docs/report-codes.md (an element with `id` equal
 * to the code), and every entry there is a code the bridge has. Codes come from two places:
 * - the unions of the code (`allOf<Union>()(list)` does not compile while the list lacks a member, so a
 *   new code fails `npm run typecheck` until it is listed here, and then this test until it is documented);
 * - a scan of `src/` for the codes written as literals (HTTP error answers, error classes).
 */

type WebhookCallOutcome = Parameters<NonNullable<WebhookRoutesDeps['onEvent']>>[1];
type SaleOutcome = keyof WebhookStats['sales'];

/** The list, typed so that it must hold every member of `T`. */
function allOf<T extends string>() {
  return <const L extends readonly T[]>(
    list: L & ([Exclude<T, L[number]>] extends [never] ? unknown : { readonly missingCodes: Exclude<T, L[number]> }),
  ): L => list;
}

const TYPED_CODES: Readonly<Record<string, readonly string[]>> = {
  'sync outcomes': allOf<SyncOutcome>()(['published', 'unchanged', 'refused', 'failed', 'skipped']),
  'sync errors of the POS': allOf<BridgeErrorCode>()(['POS_UNAVAILABLE', 'POS_REJECTED', 'POS_RESPONSE_INVALID']),
  'aborted syncs': allOf<RunAbortedError['code']>()(['SYNC_DEADLINE', 'SYNC_ABORTED']),
  'merge issues': allOf<MergeIssueReason>()([
    'invalid-article',
    'duplicate-article',
    'invalid-sales-price',
    'no-price',
    'row-unmatched',
    'row-ambiguous',
    'row-duplicate',
    'row-key-conflict',
    'row-not-for-sale',
    'invalid-stock',
    'net-price-only',
    'currency-mismatch',
    'invalid-price',
    'action-price-not-below',
    'standard-price-not-above',
  ]),
  'stock issues': allOf<ApplyStockIssueReason>()([
    'unknown-unit',
    'unknown-article',
    'invalid-stock',
    'delta-on-unknown-stock',
    'row-unmatched',
    'row-ambiguous',
    'row-duplicate',
    'row-key-conflict',
  ]),
  'feed warnings': allOf<FeedWarningCode>()(['missing', 'too-long', 'no-match']),
  // Why a product's page says an item is left out of a feed (docs/console.md#product-detail).
  'left out of a feed': allOf<LeftOutCode>()([
    'not-offered',
    'excluded',
    'filtered',
    'out-of-stock',
    'missing',
    'too-long',
    'no-match',
  ]),
  'enrichment sheet': allOf<EnrichmentProblemReport['code']>()([
    'ENRICHMENT_UNREACHABLE',
    'ENRICHMENT_HTTP_STATUS',
    'ENRICHMENT_TOO_LARGE',
    'ENRICHMENT_TIMEOUT',
    'ENRICHMENT_NOT_FOUND',
    'ENRICHMENT_NOT_A_SHEET',
    'ENRICHMENT_INVALID',
  ]),
  'webhook calls': allOf<WebhookCallOutcome>()(['accepted', 'duplicate', 'ignored', 'rejected', 'unauthorized', 'failed']),
  'webhook sales': allOf<SaleOutcome>()(['applied', 'refetched', 'dropped']),
  'console warnings': allOf<ConsoleWarningCode>()([
    'no-product-link',
    'no-brand',
    'sandbox-pos',
    'store-down',
    'catalog-sync-failed',
    'catalog-sync-refused',
    'stock-sync-failed',
    'sync-rows',
    'empty-feed',
    'items-left-out',
    'poor-feed',
    'enrichment-not-updated',
    'enrichment-poor-match',
    'enrichment-unknown-feed',
    'feed-cache-too-small',
    'feed-files-failed',
    'feed-not-fetched',
    'feed-never-fetched',
  ]),
  'push warnings': allOf<PushWarningCode>()([
    'PUSH_REJECTED',
    'PUSH_AUTH_FAILED',
    'PUSH_RATE_LIMITED',
    'PUSH_QUOTA_EXHAUSTED',
    'PUSH_STALLED',
    'PUSH_PAUSED',
    'PUSH_DRY_RUN',
  ]),
  'channel verdict warnings': allOf<VerdictWarningCode>()([
    'CHANNEL_DISAPPROVED',
    'CHANNEL_VERDICTS_FAILED',
    'CHANNEL_ACCOUNT_ISSUES',
  ]),
  // Every code of the HTTP error answers (src/http/error-codes.ts).
  'HTTP errors': Object.keys(HTTP_ERRORS),
  // A metrics label written in src/app/jobs.ts (a job run that threw); checked against the source below.
  'job runs': ['crashed'],
};

/** Anchors of the page's sections, which are not codes. */
const SECTION_ANCHORS = [
  'sync-outcomes',
  'why-a-sync-failed',
  'rows-and-articles',
  'stock-updates',
  'feed-reports',
  'filtered',
  'excluded',
  'enrichment-sheet',
  'webhook-outcomes',
  'http-error-codes',
  'console-warnings',
  'push-warnings',
  'messages-without-a-code',
];

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Codes written as literals: error answers, problem answers, `code` fields and error classes' codes. */
const LITERAL_CODE_PATTERNS = [
  /sendError\(\s*\w+,\s*'([A-Z][A-Z0-9_]*)'/g,
  /errorBody\(\s*'([A-Z][A-Z0-9_]*)'/g,
  /problem\(\s*(?:\d{3},\s*)?'([A-Z][A-Z0-9_]*)'/g,
  /\bcode: '([A-Z][A-Z0-9_]*)'/g,
  /readonly code = '([A-Z][A-Z0-9_]*)'/g,
  /super\(\s*'([A-Z][A-Z0-9_]*)'/g,
];

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return (
    entries
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => join(entry.parentPath, entry.name))
      // The sandbox simulates the POS: its answers are the POS's, not the bridge's.
      .filter((path) => !path.includes(`${join('src', 'sandbox')}`))
  );
}

async function literalCodes(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const path of await sourceFiles(join(ROOT, 'src'))) {
    const text = await readFile(path, 'utf8');
    for (const pattern of LITERAL_CODE_PATTERNS) {
      for (const match of text.matchAll(pattern)) found.set(match[1] ?? '', path.slice(ROOT.length));
    }
  }
  return found;
}

async function documentedIds(): Promise<Set<string>> {
  const text = await readFile(join(ROOT, 'docs', 'report-codes.md'), 'utf8');
  return new Set([...text.matchAll(/\bid="([^"]+)"/g)].map((match) => match[1] ?? ''));
}

describe('docs/report-codes.md', () => {
  it('finds the codes written as literals in the source (the scan works)', async () => {
    const codes = await literalCodes();
    for (const code of [
      'CATALOG_NOT_READY',
      'FEED_NOT_IN_VIEW',
      'POS_REJECTED',
      'PRICE_LIST_INVALID',
      'SYNC_FAILED',
      'INTERNAL',
    ]) {
      expect(codes.has(code), code).toBe(true);
    }
  });

  it('documents every code the bridge can report', async () => {
    const ids = await documentedIds();
    const missing: string[] = [];
    for (const [group, codes] of Object.entries(TYPED_CODES)) {
      for (const code of codes) if (!ids.has(code)) missing.push(`${code} (${group})`);
    }
    for (const [code, file] of await literalCodes()) if (!ids.has(code)) missing.push(`${code} (${file})`);
    expect(missing, 'codes without an entry <a id="CODE"> in docs/report-codes.md').toEqual([]);
  });

  it('documents only codes the bridge has, besides its section anchors', async () => {
    const known = new Set([...Object.values(TYPED_CODES).flat(), ...(await literalCodes()).keys(), ...SECTION_ANCHORS]);
    const stale = [...(await documentedIds())].filter((id) => !known.has(id));
    expect(stale, 'entries of docs/report-codes.md that no code emits').toEqual([]);
  });

  it('lists only metrics labels that the source writes', async () => {
    const app = await readFile(join(ROOT, 'src', 'app', 'jobs.ts'), 'utf8');
    for (const label of TYPED_CODES['job runs'] ?? []) expect(app).toContain(`'${label}'`);
  });
});
