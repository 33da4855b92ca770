// Configuration problems the schema cannot see: misspelt settings, and channel settings given without the one that enables them.
import { CONFIG_VARIABLES } from './config-schema.js';
import { serviceAccountFileProblem } from './service-account-file.js';

const OWN_PREFIXES = [
  'POS_',
  'FEED_',
  'SANDBOX_',
  'SYNC_',
  'WEBHOOK_',
  'CATALOG_SYNC',
  'STOCK_SYNC',
  'ADMIN_',
  'UNIT_STORE',
  'UNIT_STOCK',
  'ENRICHMENT_',
  'PUSH_',
  'GOOGLE_MERCHANT',
  'GOOGLE_OAUTH',
  'GOOGLE_CONTENT',
  'GOOGLE_FEED',
  'GOOGLE_LOCAL',
  'GOOGLE_QUOTA',
  'SHOPTET_',
  'META_',
];
const KNOWN = new Set<string>(CONFIG_VARIABLES);

/** A misspelt setting would otherwise fall back to its default without a word. */
export function unknownSettings(values: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  for (const name of Object.keys(values)) {
    if (KNOWN.has(name) || !OWN_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    const closest = closestKnown(name);
    problems.push(`${name}: is not a known setting${closest ? ` (did you mean ${closest}?)` : ''}`);
  }
  return problems;
}

function closestKnown(name: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const known of KNOWN) {
    const distance = editDistance(name, known);
    if (distance <= 3 && (best === undefined || distance < best.distance)) best = { name: known, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * A channel is enabled by its token (Meta: catalog id and token); a channel setting given without it would be
 * silently ignored, so each missing one is a line of its own (docs/decisions/0013-channel-push.md, section 8).
 */
export function partlyConfiguredChannels(values: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  const requiredWith = (required: string, given: readonly string[], why: string) => {
    const set = given.filter((name) => values[name] !== undefined);
    if (values[required] === undefined && set.length > 0) {
      problems.push(`${required}: is required when ${set.join(', ')} ${set.length > 1 ? 'are' : 'is'} set (${why})`);
    }
  };
  requiredWith('SHOPTET_API_TOKEN', SHOPTET_SETTINGS, "the shop's API token; without it nothing is pushed to Shoptet");
  requiredWith('META_CATALOG_ID', META_SETTINGS, 'the id of the Meta catalog to update');
  requiredWith('META_ACCESS_TOKEN', META_SETTINGS, 'a system user token with catalog_management');
  requiredWith(
    'GOOGLE_MERCHANT_ACCOUNT_ID',
    GOOGLE_SETTINGS,
    'the Merchant Center account id; without it nothing is pushed to Google',
  );
  if (values['GOOGLE_MERCHANT_ACCOUNT_ID'] !== undefined) {
    requiredWith('GOOGLE_MERCHANT_DATA_SOURCE_ID', ['GOOGLE_MERCHANT_ACCOUNT_ID'], 'the id of the API data source');
    requiredWith('GOOGLE_APPLICATION_CREDENTIALS', ['GOOGLE_MERCHANT_ACCOUNT_ID'], "the service account's JSON key file");
    const file = values['GOOGLE_APPLICATION_CREDENTIALS'];
    const problem = file === undefined ? undefined : serviceAccountFileProblem(file);
    if (problem !== undefined) problems.push(`GOOGLE_APPLICATION_CREDENTIALS: ${problem}`);
  }
  // Asked for explicitly, local inventory without a single store code would silently send nothing.
  const local = values['GOOGLE_LOCAL_INVENTORY'];
  if ((local === 'true' || local === '1') && (values['UNIT_STORE_CODES'] ?? '').trim() === '') {
    problems.push(
      'UNIT_STORE_CODES: is required when GOOGLE_LOCAL_INVENTORY=true is set (the store code of each unit whose local inventory Google gets)',
    );
  }
  return problems;
}

const SHOPTET_SETTINGS = ['SHOPTET_API_URL', 'SHOPTET_STOCK_ID', 'SHOPTET_STOCK_UNIT', 'SHOPTET_STOCK_FIELD'];
const META_SETTINGS = [
  'META_CATALOG_ID',
  'META_ACCESS_TOKEN',
  'META_GRAPH_API_URL',
  'META_BATCH_SIZE',
  'META_DIAGNOSTICS_INTERVAL_MS',
];
// Not GOOGLE_APPLICATION_CREDENTIALS: Google's own tools read it too, so it may be set for something else.
const GOOGLE_SETTINGS = [
  'GOOGLE_MERCHANT_DATA_SOURCE_ID',
  'GOOGLE_MERCHANT_FILE_DATA_SOURCE_ID',
  'GOOGLE_OAUTH_TOKEN_URL',
  'GOOGLE_MERCHANT_API_URL',
  'GOOGLE_CONTENT_LANGUAGE',
  'GOOGLE_FEED_LABEL',
  'GOOGLE_LOCAL_INVENTORY',
  'GOOGLE_QUOTA_REFRESH_MS',
  'GOOGLE_STATUS_INTERVAL_MS',
];
