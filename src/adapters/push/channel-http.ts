import type { Dispatcher } from 'undici';
import { truncateText } from '../../core/feeds/truncate-text.js';
import type { PushBatchItem, PushOutcome, PushTargetOutcome } from '../../core/push/channel-client.js';
import type { PushErrorCause } from '../../core/push/push-channel.js';
import { retryAfterMs } from '../../core/push/retry-after.js';
import { decodeUtf8, describeNetworkError, readCapped } from '../pos/pos-responses.js';

/**
 * What the channel clients share (docs/decisions/0013-channel-push.md, "4. Delivery" and
 * "Credentials"): bounded body reads, `Retry-After` to `retry(afterMs)`, and messages that are redacted and
 * cut to 300 characters before they leave the client.
 */

/** The channel's error message is kept, cut to this many characters (decision 0013, "Credentials"). */
export const MAX_MESSAGE_CHARS = 300;
/** A channel's answer to a batch is small (errors per item); more than this is not a channel's answer. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** The longest `Retry-After` honoured: a huge value must not stall a channel for days. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

/** Redacts the secrets and cuts to MAX_MESSAGE_CHARS code points (never half a surrogate pair). */
export function cleanMessage(text: string, redact: (text: string) => string): string {
  const redacted = redact(text);
  if (redacted.length <= MAX_MESSAGE_CHARS) return redacted;
  const cut = truncateText(redacted, MAX_MESSAGE_CHARS - 1);
  return cut.length === redacted.length ? redacted : `${cut}…`;
}

/** The same outcome for every item of a batch (a whole-request answer). */
export function allOutcome<P>(batch: readonly PushBatchItem<P>[], outcome: PushOutcome): PushTargetOutcome[] {
  return batch.map(({ target, gen }) => ({ target, gen, outcome }));
}

/** Reads a response body as JSON under MAX_RESPONSE_BYTES; `undefined` when it is not JSON or too large. */
export async function readJson(body: Dispatcher.ResponseData['body']): Promise<unknown> {
  try {
    const bytes = await readCapped(body, MAX_RESPONSE_BYTES, 'fail');
    return JSON.parse(decodeUtf8(bytes)) as unknown;
  } catch {
    return undefined;
  }
}

/** A header's first value. */
export function headerValue(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A retry outcome, always with its (clean) message. */
export type RetryOutcome = Extract<PushOutcome, { kind: 'retry' }> & { readonly message: string };

export interface RetryContext {
  readonly now: () => number;
  readonly maxRetryAfterMs: number;
  readonly redact: (text: string) => string;
}

/**
 * `retry` with the channel's `Retry-After` when it sent one, else `fallbackMs` (a channel's documented wait,
 * e.g. Shoptet's 5 s lock), else no delay (the worker's backoff decides).
 */
export function retryOutcome(
  headers: Dispatcher.ResponseData['headers'],
  message: string,
  context: RetryContext,
  fallbackMs?: number,
): RetryOutcome {
  const afterMs = retryAfterMs(headerValue(headers, 'retry-after'), context.now(), context.maxRetryAfterMs) ?? fallbackMs;
  const text = cleanMessage(message, context.redact);
  return afterMs === undefined ? { kind: 'retry', message: text } : { kind: 'retry', afterMs, message: text };
}

/** Network errors and timeouts: sent again later (the request is absolute, so a repeat is harmless). */
export function networkRetry(error: unknown, redact: (text: string) => string): RetryOutcome {
  return { kind: 'retry', message: cleanMessage(describeNetworkError(error, redact), redact), cause: 'network' };
}

/** The outcome with why it failed (the status's `lastErrorKind`, the warnings' codes). */
export function withCause<O extends Exclude<PushOutcome, { kind: 'ok' }>>(outcome: O, cause: PushErrorCause): O {
  return { ...outcome, cause };
}

/**
 * The one rule of which HTTP statuses a repeat can fix, for every channel client (each still reads its own
 * error body first: Meta's Graph codes, Google's `RESOURCE_EXHAUSTED`, Shoptet's per-item errors). The
 * answer is the cause of the retry, or `undefined` when the request itself is refused (rejected):
 * - 401/403: a credential refused; the updates wait for a fixed one (decision 0013: PUSH_AUTH_FAILED);
 * - 408 Request Timeout: the channel gave up waiting for the request, as a network timeout;
 * - 409 Conflict, 423 Locked, 425 Too Early: the target is busy with another write (Shoptet's 5 s lock, a
 *   Google operation still running); the same absolute request succeeds later;
 * - 429 and 5xx: rate limits and the channel's own faults.
 * 413 Content Too Large stays rejected: every client cuts its calls below the channel's size limit, so a 413
 * means the items themselves are too large, and the same request would be refused forever.
 */
export function retryableStatus(status: number): PushErrorCause | undefined {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate-limit';
  if (status === 408) return 'network';
  if (status === 409 || status === 423 || status === 425 || status >= 500) return 'server';
  return undefined;
}
