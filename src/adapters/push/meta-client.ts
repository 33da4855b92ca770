import { Agent, type Dispatcher, request } from 'undici';
import type { ChannelClient, PushBatchItem, PushOutcome, PushTargetOutcome } from '../../core/push/channel-client.js';
import type { MetaBatchStatus } from '../../core/push/meta-batch-status.js';
import { type MetaDiagnostic, parseMetaDiagnostics } from '../../core/push/meta-verdicts.js';
import { buildMetaBatchBody, cutMetaBatches, encodeMetaBatchForm, type MetaBatchRequest } from '../../core/push/payloads/meta.js';
import { createRedactor } from '../../core/redact-secrets.js';
import type { MetaDiagnosticsRead } from '../../services/push/meta-verdicts.js';
import { describeNetworkError, isProgrammingError } from '../pos/pos-responses.js';
import {
  allOutcome,
  cleanMessage,
  DEFAULT_MAX_RETRY_AFTER_MS,
  networkRetry,
  type RetryContext,
  type RetryOutcome,
  readJson,
  retryableStatus,
  retryOutcome,
  withCause,
} from './channel-http.js';

/**
 * Meta catalog client (docs/decisions/0013-channel-push.md, "Meta `items_batch`"): `POST
 * {META_GRAPH_API_URL}/{catalog_id}/items_batch` as a form (`item_type`, `allow_upsert`, `requests`
 * JSON; `allow_upsert=true` only for calls of whole items, see `buildMetaFullRequest`), the token in `Authorization: Bearer` and never in the URL. Items refused in `validation_status` are
 * rejected, the rest acked. Meta ingests asynchronously: each call's handle goes to `onHandle`, and
 * `checkBatchStatus` reads it later (`check_batch_request_status`), so the worker can re-enqueue what failed.
 */

/** Meta documents no `Retry-After` for its rate limit (80014); the decision waits at least 60 s. */
export const META_RATE_LIMIT_RETRY_MS = 60_000;
/** Graph API error codes of rate limits (80014: catalog batch; 4, 17, 32, 613: app/user/page limits). */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613, 80014]);
/** Graph API code of an invalid or expired token. */
const TOKEN_ERROR_CODE = 190;

export interface MetaClientOptions {
  /** META_GRAPH_API_URL, version included, e.g. `https://graph.facebook.com/v21.0`. */
  readonly graphUrl: string;
  readonly catalogId: string;
  readonly token: string;
  /** PUSH_TIMEOUT_MS: headers and body of one call each within it. */
  readonly timeoutMs: number;
  /** META_BATCH_SIZE (1..5000, default 3000). */
  readonly batchSize?: number;
  readonly now?: () => number;
  readonly maxRetryAfterMs?: number;
  /** A dispatcher of the caller's (tests); without one the client owns a keep-alive Agent. */
  readonly dispatcher?: Dispatcher;
  /**
   * Called with each accepted call's handle and the targets it acked (for the batch checks); `settling`: those
   * sent whole (a CREATE, or an UPDATE with `allow_upsert`) or deleted, not field updates.
   */
  readonly onHandle?: (handle: string, targets: readonly string[], settling: readonly string[]) => void;
  /**
   * Called with the items an accepted call refused one by one (`validation_status`), with Meta's message, and
   * the ids whose DELETE was refused: those have left the catalog (no page to show an error on), so their
   * errors are settled rather than kept.
   */
  readonly onRefused?: (refused: readonly { readonly id: string; readonly message: string }[], gone: readonly string[]) => void;
}

export type { MetaBatchStatus } from '../../core/push/meta-batch-status.js';

export interface MetaClient extends ChannelClient<MetaBatchRequest> {
  checkBatchStatus(handle: string): Promise<MetaBatchStatus>;
  /** The catalog's diagnostics (`GET /{catalog_id}/diagnostics`), every page, or why they could not be read. */
  diagnostics(): Promise<MetaDiagnosticsRead>;
  close(): Promise<void>;
}

interface MetaStatusAnswer {
  readonly data?: readonly {
    readonly status?: string;
    readonly ids_of_invalid_requests?: readonly string[];
    readonly errors?: readonly { readonly id?: unknown; readonly message?: unknown }[];
  }[];
}

/** Meta's message per invalid retailer id (`errors[]`), cut; ids without one are left out. */
function messagesOf(errors: unknown, redact: (text: string) => string): Record<string, string> | undefined {
  if (!Array.isArray(errors)) return undefined;
  const messages: Record<string, string> = {};
  for (const error of errors as { id?: unknown; message?: unknown }[]) {
    if (typeof error?.id !== 'string' || typeof error.message !== 'string') continue;
    messages[error.id] ??= cleanMessage(error.message, redact);
  }
  return Object.keys(messages).length === 0 ? undefined : messages;
}

const PENDING_STATUSES = new Set(['scheduled', 'dispatched', 'started']);

/** Reads a `check_batch_request_status` answer; a status Meta does not document is asked again. */
function batchStatusOf(answer: MetaStatusAnswer | undefined, redact: (text: string) => string): MetaBatchStatus {
  const entry = answer?.data?.[0];
  const status = entry?.status;
  if (status === 'finished') {
    // Meta's own sample answer names a refused item in `errors[].id` with `ids_of_invalid_requests` empty
    // (guide "Check Batch Request Status": "individual requests with errors were not saved"): both count.
    const messages = messagesOf(entry?.errors, redact);
    const listed = (Array.isArray(entry?.ids_of_invalid_requests) ? entry.ids_of_invalid_requests : []).map(String);
    const invalidIds = [...new Set([...listed, ...Object.keys(messages ?? {})])];
    return { kind: 'finished', invalidIds, ...(messages === undefined ? {} : { messages }) };
  }
  if (status === 'error' || status === 'canceled') return { kind: 'failed', status };
  if (status !== undefined && PENDING_STATUSES.has(status)) return { kind: 'pending', status };
  return { kind: 'retry', message: `check_batch_request_status answered an unknown status: ${String(status).slice(0, 40)}` };
}

interface MetaAnswer {
  readonly handles?: readonly string[];
  readonly validation_status?: readonly {
    readonly retailer_id?: string;
    readonly errors?: readonly { readonly message?: string }[];
  }[];
  readonly error?: { readonly message?: string; readonly code?: number; readonly is_transient?: boolean };
}

function asAnswer(json: unknown): MetaAnswer | undefined {
  return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as MetaAnswer) : undefined;
}

/** Outcomes of a 200: refused retailer ids rejected, the rest ok; no handle means nothing was ingested. */
function acceptedOutcomes(
  items: readonly PushBatchItem<MetaBatchRequest>[],
  answer: MetaAnswer,
  context: RetryContext,
): PushTargetOutcome[] {
  if (!Array.isArray(answer.handles) || answer.handles.length === 0) {
    return allOutcome(items, {
      kind: 'retry',
      message: 'items_batch answered no handle: nothing was ingested',
      cause: 'server',
    });
  }
  const refused = new Map<string, string>();
  const statuses: MetaAnswer['validation_status'] = Array.isArray(answer.validation_status) ? answer.validation_status : [];
  for (const status of statuses ?? []) {
    const errors: readonly { readonly message?: string }[] = Array.isArray(status?.errors) ? status.errors : [];
    if (typeof status?.retailer_id !== 'string' || errors.length === 0) continue;
    refused.set(status.retailer_id, errors.map((error) => String(error?.message ?? 'refused')).join('; '));
  }
  return items.map(({ target, gen, payload }) => {
    const message = refused.get(payload.data.id);
    if (message === undefined) return { target, gen, outcome: { kind: 'ok' } };
    return { target, gen, outcome: { kind: 'rejected', message: cleanMessage(message, context.redact), cause: 'invalid' } };
  });
}

/** The outcome of a call Meta refused as a whole (any non-2xx answer). */
function errorOutcome(
  response: Dispatcher.ResponseData,
  answer: MetaAnswer | undefined,
  context: RetryContext,
): RetryOutcome | Extract<PushOutcome, { kind: 'rejected' }> {
  const status = response.statusCode;
  const code = answer?.error?.code;
  const text = `HTTP ${status}${code === undefined ? '' : ` code ${code}`}: ${answer?.error?.message ?? 'no error message'}`;
  // A refused token keeps the channel pending (decision 0013: PUSH_AUTH_FAILED), it does not drop updates.
  if (status === 401 || status === 403 || code === TOKEN_ERROR_CODE)
    return withCause(retryOutcome(response.headers, `${text} (check META_ACCESS_TOKEN)`, context), 'auth');
  if (status === 429 || (code !== undefined && RATE_LIMIT_CODES.has(code))) {
    return withCause(retryOutcome(response.headers, text, context, META_RATE_LIMIT_RETRY_MS), 'rate-limit');
  }
  // A Graph error Meta marks `is_transient` is worth a repeat whatever its status (Graph API, "Handling Errors").
  const cause = retryableStatus(status) ?? (answer?.error?.is_transient === true ? 'server' : undefined);
  if (cause !== undefined) return withCause(retryOutcome(response.headers, text, context), cause);
  return { kind: 'rejected', message: cleanMessage(text, context.redact), cause: 'invalid' };
}

function outcomesOf(
  items: readonly PushBatchItem<MetaBatchRequest>[],
  response: Dispatcher.ResponseData,
  answer: MetaAnswer | undefined,
  context: RetryContext,
): PushTargetOutcome[] {
  const status = response.statusCode;
  if (status < 200 || status >= 300) return allOutcome(items, errorOutcome(response, answer, context));
  if (answer === undefined)
    return allOutcome(items, { kind: 'retry', message: `HTTP ${status}: unreadable answer`, cause: 'server' });
  return acceptedOutcomes(items, answer, context);
}

/** What one call to the Graph API needs. */
interface MetaCall {
  readonly options: MetaClientOptions;
  readonly origin: string;
  /** The graph URL's path (the version), without a trailing slash. */
  readonly basePath: string;
  readonly dispatcher: Dispatcher;
  readonly context: RetryContext;
}

/** One `items_batch` call; its handle goes to `onHandle` with the targets it acked. */
async function sendBatch(call: MetaCall, items: readonly PushBatchItem<MetaBatchRequest>[]): Promise<PushTargetOutcome[]> {
  const { options, dispatcher, context } = call;
  const upsert = items.some((item) => item.payload.upsert === true);
  const form = encodeMetaBatchForm(
    buildMetaBatchBody(
      items.map((item) => item.payload),
      upsert,
    ),
  );
  let answer: MetaAnswer | undefined;
  let outcomes: PushTargetOutcome[];
  try {
    const response = await request(
      new URL(`${call.basePath}/${encodeURIComponent(options.catalogId)}/items_batch`, call.origin),
      {
        method: 'POST',
        dispatcher,
        headers: {
          authorization: `Bearer ${options.token}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      },
    );
    answer = asAnswer(await readJson(response.body));
    outcomes = outcomesOf(items, response, answer, context);
  } catch (error) {
    // A bad argument to undici is our bug: retrying it forever would hide it.
    if (isProgrammingError(error)) throw error;
    return allOutcome(items, networkRetry(error, context.redact));
  }
  // Outside the try: a failing callback is the caller's error, not a network failure to retry.
  const handle = Array.isArray(answer?.handles) ? answer.handles[0] : undefined;
  const acked = outcomes.filter(({ outcome }) => outcome.kind === 'ok').map(({ target }) => target);
  if (typeof handle === 'string' && acked.length > 0) {
    const ackedSet = new Set(acked);
    const settling = items
      .filter((item) => ackedSet.has(item.target) && (item.payload.upsert === true || item.payload.method !== 'UPDATE'))
      .map((item) => item.target);
    options.onHandle?.(handle, acked, settling);
  }
  // With a handle the call was taken: a rejected item is one Meta refused on its own (validation_status).
  if (typeof handle === 'string') {
    const refused: { id: string; message: string }[] = [];
    const gone: string[] = [];
    for (const [index, item] of items.entries()) {
      const outcome = outcomes[index]?.outcome;
      if (outcome?.kind !== 'rejected') continue;
      if (item.payload.method === 'DELETE') gone.push(item.payload.data.id);
      else refused.push({ id: item.payload.data.id, message: outcome.message });
    }
    if (refused.length + gone.length > 0) options.onRefused?.(refused, gone);
  }
  return outcomes;
}

/** Field updates first, then whole items (each group in the batch's order); empty groups left out. */
function splitByUpsert(batch: readonly PushBatchItem<MetaBatchRequest>[]): PushBatchItem<MetaBatchRequest>[][] {
  const plain = batch.filter((item) => item.payload.upsert !== true);
  const whole = batch.filter((item) => item.payload.upsert === true);
  return [plain, whole].filter((group) => group.length > 0);
}

/** A GET of one of the catalog's edges, the token in the header (never in the URL). */
async function catalogGet(
  call: MetaCall,
  edge: string,
  query: Readonly<Record<string, string>>,
): Promise<{ readonly response: Dispatcher.ResponseData; readonly json: unknown }> {
  const { options, dispatcher } = call;
  const url = new URL(`${call.basePath}/${encodeURIComponent(options.catalogId)}/${edge}`, call.origin);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const response = await request(url, {
    method: 'GET',
    dispatcher,
    headers: { authorization: `Bearer ${options.token}`, accept: 'application/json' },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  return { response, json: await readJson(response.body) };
}

/** `GET …/check_batch_request_status` of one handle (guide "get-batch-request"). */
async function checkBatchStatus(call: MetaCall, handle: string): Promise<MetaBatchStatus> {
  const { context } = call;
  try {
    const { response, json } = await catalogGet(call, 'check_batch_request_status', {
      handle,
      load_ids_of_invalid_requests: 'true',
    });
    if (response.statusCode === 200) return batchStatusOf(json as MetaStatusAnswer | undefined, context.redact);
    const outcome = errorOutcome(response, asAnswer(json), context);
    // A refused check (e.g. an unknown handle) cannot tell what was ingested: the batch is sent again.
    if (outcome.kind === 'rejected') return { kind: 'failed', status: outcome.message };
    return outcome;
  } catch (error) {
    // A bad argument to undici is our bug: retrying it forever would hide it.
    if (isProgrammingError(error)) throw error;
    return networkRetry(error, context.redact);
  }
}

/** Pages of diagnostics followed at most (Meta groups them by type: a handful). */
const MAX_DIAGNOSTICS_PAGES = 10;

/** `GET …/{catalog_id}/diagnostics`, page after page (Marketing API reference "Product Catalog Diagnostics"). */
async function readDiagnostics(call: MetaCall): Promise<MetaDiagnosticsRead> {
  const { context } = call;
  const groups: MetaDiagnostic[] = [];
  let unreadable = 0;
  let firstUnreadable: string | undefined;
  let after: string | undefined;
  try {
    for (let page = 0; page < MAX_DIAGNOSTICS_PAGES; page++) {
      const { response, json } = await catalogGet(call, 'diagnostics', after === undefined ? {} : { after });
      if (response.statusCode !== 200) {
        const error = asAnswer(json)?.error;
        const text = `HTTP ${response.statusCode}${error?.code === undefined ? '' : ` code ${error.code}`}: ${error?.message ?? 'no error message'}`;
        return { problem: `diagnostics could not be read (${cleanMessage(text, context.redact)})` };
      }
      const parsed = parseMetaDiagnostics(json);
      if (typeof parsed === 'string') return { problem: parsed };
      groups.push(...parsed.groups);
      unreadable += parsed.unreadable;
      firstUnreadable ??= parsed.firstUnreadable;
      after = parsed.after;
      if (after === undefined) break;
    }
    if (after !== undefined) return { problem: `diagnostics did not end within ${MAX_DIAGNOSTICS_PAGES} pages` };
    // Odd groups are left out; none readable at all is a changed format, not a clean catalog.
    if (unreadable > 0 && groups.length === 0) {
      return { problem: `none of the ${unreadable} diagnostics could be read (the first: ${firstUnreadable ?? ''})` };
    }
    return { groups };
  } catch (error) {
    if (isProgrammingError(error)) throw error;
    return { problem: `diagnostics could not be read: ${describeNetworkError(error, context.redact)}` };
  }
}

/**
 * Creates the Meta client.
 *
 * @example
 * const meta = createMetaClient({ graphUrl: 'https://graph.facebook.com/v21.0', catalogId, token, timeoutMs: 30_000 });
 * const outcomes = await meta.send([{ target: 'm:42', gen: 3, payload: { method: 'DELETE', data: { id: '42' } } }]);
 */
export function createMetaClient(options: MetaClientOptions): MetaClient {
  const base = new URL(options.graphUrl);
  const owned = options.dispatcher === undefined ? new Agent({ keepAliveTimeout: 10_000 }) : undefined;
  const dispatcher: Dispatcher = options.dispatcher ?? (owned as Agent);
  const context: RetryContext = {
    now: options.now ?? Date.now,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS,
    redact: createRedactor([options.token]),
  };
  const call: MetaCall = { options, origin: base.origin, basePath: base.pathname.replace(/\/+$/, ''), dispatcher, context };

  return {
    channel: 'meta',
    checkBatchStatus: (handle) => checkBatchStatus(call, handle),
    diagnostics: () => readDiagnostics(call),
    async send(batch) {
      const outcomes: PushTargetOutcome[] = [];
      // `allow_upsert` is per call: whole items (upsert) and field updates travel in separate calls.
      for (const group of splitByUpsert(batch)) {
        const cuts = cutMetaBatches(
          group.map((item) => item.payload),
          options.batchSize,
        );
        let start = 0;
        // One call after another: Meta limits calls per minute, and cuts keep the batch's order.
        for (const cut of cuts) {
          outcomes.push(...(await sendBatch(call, group.slice(start, start + cut.length))));
          start += cut.length;
        }
      }
      return outcomes;
    },
    close: async () => {
      await owned?.close();
    },
  };
}
