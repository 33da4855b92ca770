import { z } from 'zod';
import { truncateText } from '../feeds/truncate-text.js';
import { channelText } from './channel-text.js';

/**
 * What Meta says of the items and the catalog (docs/channel-push.md#metas-verdicts): the items a batch left
 * invalid, each with Meta's message (from `items_batch`'s `validation_status`, or its handle's
 * `check_batch_request_status` once ingested), cleared when a later batch of the item finishes clean; and the
 * catalog's diagnostics (`GET /{catalog_id}/diagnostics`, read daily): issues Meta found across the catalog,
 * by type and severity, with the number of items they touch.
 */

/** Items with an error kept at most; past it the oldest are dropped (a systematic problem: its message leads anyway). */
export const META_ITEM_ISSUES_MAX = 5_000;
const MESSAGE_MAX = 500;
const TOP_MESSAGES = 5;

export interface MetaItemIssue {
  readonly message: string;
  /** When Meta reported it (ISO 8601). */
  readonly at: string;
  /** When the batch Meta reported it of was sent (ISO 8601): an older batch's word never overrides it. */
  readonly sentAt: string;
}

/** Retailer id → Meta's last error on it; insertion order is report order (oldest first). */
export type MetaItemIssues = ReadonlyMap<string, MetaItemIssue>;

/**
 * `issues` with a batch's verdicts applied: `invalid` ids get Meta's message (moved to the newest), `valid` ids
 * lose theirs; a batch sent before the one an item's error came from changes nothing of that item (its check
 * may finish later than a newer batch's refusal). Bounded to META_ITEM_ISSUES_MAX. Returns a new map when
 * something changed, else `issues`.
 */
export function applyItemVerdicts(
  issues: MetaItemIssues,
  verdicts: {
    readonly invalid: readonly { readonly id: string; readonly message: string }[];
    readonly valid: readonly string[];
    readonly sentAt: string;
  },
  at: string,
): MetaItemIssues {
  const newer = (id: string) => {
    const held = issues.get(id);
    return held === undefined || held.sentAt <= verdicts.sentAt;
  };
  const cleared = verdicts.valid.filter((id) => issues.has(id) && newer(id));
  const invalid = verdicts.invalid.filter(({ id }) => newer(id));
  if (invalid.length === 0 && cleared.length === 0) return issues;
  const next = new Map(issues);
  for (const id of cleared) next.delete(id);
  for (const { id, message } of invalid) {
    next.delete(id);
    next.set(id, { message: truncateText(message, MESSAGE_MAX), at, sentAt: verdicts.sentAt });
  }
  for (const id of next.keys()) {
    if (next.size <= META_ITEM_ISSUES_MAX) break;
    next.delete(id);
  }
  return next;
}

export interface MetaTopMessage {
  readonly message: string;
  readonly items: number;
  readonly example: string;
}

/** Meta's messages on the most items, most first. */
export function topMessagesOf(issues: MetaItemIssues): readonly MetaTopMessage[] {
  const byMessage = new Map<string, { items: number; example: string }>();
  for (const [id, issue] of issues) {
    const entry = byMessage.get(issue.message);
    if (entry === undefined) byMessage.set(issue.message, { items: 1, example: id });
    else entry.items += 1;
  }
  return [...byMessage]
    .sort(([messageA, a], [messageB, b]) => b.items - a.items || messageA.localeCompare(messageB))
    .slice(0, TOP_MESSAGES)
    .map(([message, entry]) => ({ message, ...entry }));
}

const text = z.string().nullish();

/** One `ProductCatalogDiagnosticGroup` (Marketing API reference: the fields the bridge reads). */
export const MetaDiagnosticGroupSchema = z.object({
  /** e.g. `ATTRIBUTES_MISSING`, `IMAGE_QUALITY`, `POLICY_VIOLATION`, `EVENT_SOURCE_ISSUES`. */
  type: text,
  /** `MUST_FIX` or `OPPORTUNITY`. */
  severity: text,
  title: text,
  subtitle: text,
  number_of_affected_items: z.number().int().nonnegative().nullish(),
  number_of_affected_entities: z.number().int().nonnegative().nullish(),
  affected_channels: z.array(z.string()).nullish(),
});

/** A page of `GET /{catalog_id}/diagnostics`: `{ data, paging }` as every Graph API edge. */
export const MetaDiagnosticsPageSchema = z.object({
  data: z.array(z.unknown()),
  paging: z.object({ cursors: z.object({ after: text }).nullish(), next: text }).nullish(),
});

export interface MetaDiagnostic {
  readonly type: string;
  readonly severity: string;
  readonly title: string;
  readonly subtitle?: string;
  /** Items it touches, as Meta counts them. */
  readonly items?: number;
  readonly channels?: readonly string[];
}

export interface MetaDiagnosticsPage {
  readonly groups: readonly MetaDiagnostic[];
  /** Groups Meta sent that could not be read (left out). */
  readonly unreadable: number;
  /** Why the first of them could not be read (the field and zod's message). */
  readonly firstUnreadable?: string;
  readonly after?: string;
}

function diagnosticOf(raw: z.infer<typeof MetaDiagnosticGroupSchema>): MetaDiagnostic {
  const subtitle = channelText(raw.subtitle, 300);
  const items = raw.number_of_affected_items ?? raw.number_of_affected_entities ?? undefined;
  const channels = raw.affected_channels ?? undefined;
  return {
    type: channelText(raw.type, 60) ?? 'UNKNOWN',
    severity: channelText(raw.severity, 30) ?? 'UNKNOWN',
    title: channelText(raw.title, 300) ?? channelText(raw.type, 60) ?? 'Untitled diagnostic',
    ...(subtitle === undefined ? {} : { subtitle }),
    ...(items === undefined ? {} : { items }),
    ...(channels === undefined || channels.length === 0 ? {} : { channels: channels.slice(0, 10) }),
  };
}

/** Reads one page of diagnostics; each group checked on its own. A message when the page is not one. */
export function parseMetaDiagnostics(answer: unknown): MetaDiagnosticsPage | string {
  const page = MetaDiagnosticsPageSchema.safeParse(answer);
  if (!page.success) {
    const issue = page.error.issues[0];
    return `diagnostics answered something other than a list of diagnostics: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim();
  }
  const groups: MetaDiagnostic[] = [];
  let unreadable = 0;
  let firstUnreadable: string | undefined;
  for (const raw of page.data.data) {
    const group = MetaDiagnosticGroupSchema.safeParse(raw);
    if (group.success) {
      groups.push(diagnosticOf(group.data));
      continue;
    }
    unreadable += 1;
    const issue = group.error.issues[0];
    firstUnreadable ??= `${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim();
  }
  // Never cut: a cursor is only good whole.
  const after = page.data.paging?.next ? channelText(page.data.paging.cursors?.after) : undefined;
  return {
    groups,
    unreadable,
    ...(firstUnreadable === undefined ? {} : { firstUnreadable }),
    ...(after === undefined ? {} : { after }),
  };
}

/** The diagnostics as last read, or why the last read failed (the groups before stay). */
export interface MetaDiagnostics {
  readonly readAt?: string;
  readonly groups: readonly MetaDiagnostic[];
  readonly lastError?: { readonly at: string; readonly message: string };
}

/** What Meta's verdicts add up to, for the overview, `/readyz`, metrics and the warnings. */
export interface MetaVerdictSummary {
  /** Items whose last batch Meta found invalid. */
  readonly invalid: number;
  readonly topMessages: readonly MetaTopMessage[];
  readonly diagnostics?: MetaDiagnostics;
}

/** Meta's summary (items left invalid, diagnostics) rather than Google's (the counts of a read). */
export function isMetaVerdicts(verdicts: object): verdicts is MetaVerdictSummary {
  return 'invalid' in verdicts;
}
