import { type Dispatcher, Pool, request } from 'undici';
import type { ChannelClient, PushBatchItem, PushOutcome, PushTargetOutcome } from '../../core/push/channel-client.js';
import { cutShoptetBatches, type ShoptetStockItem, type ShoptetStockMovementsBody } from '../../core/push/payloads/shoptet.js';
import { createRedactor } from '../../core/redact-secrets.js';
import { isProgrammingError } from '../pos/pos-responses.js';
import {
  allOutcome,
  cleanMessage,
  DEFAULT_MAX_RETRY_AFTER_MS,
  headerValue,
  networkRetry,
  type RetryContext,
  readJson,
  retryableStatus,
  retryOutcome,
  withCause,
} from './channel-http.js';
import {
  SHOPTET_CONTENT_TYPE,
  SHOPTET_FINAL_ERROR_CODES,
  SHOPTET_TOKEN_HEADER,
  type ShoptetError,
  type ShoptetUpdateQuantityInStockResponse,
} from './shoptet-openapi-types.js';

/**
 * Shoptet stock client (docs/decisions/0013-channel-push.md, "Shoptet REST API"): `PATCH
 * /api/stocks/{stockId}/movements` in bodies of ≤ 300 items, the token in `Shoptet-Private-Api-Token`, over
 * one undici Pool of at most 3 connections (Shoptet allows "3 per token" and answers 429 beyond).
 */

/** Shoptet's limit of connections per token. */
export const SHOPTET_CONNECTIONS_PER_TOKEN = 3;
/** "identical write repeated during processing → 423 (lock ≤ 5 s): retry after 5 s" (decision 0013). */
export const SHOPTET_LOCK_RETRY_MS = 5000;

export interface ShoptetClientOptions {
  /** The shop's API origin, e.g. `https://api.myshoptet.com` (a path prefix is kept). */
  readonly baseUrl: string;
  readonly token: string;
  readonly stockId: number;
  /** PUSH_TIMEOUT_MS: headers and body of one call each within it. */
  readonly timeoutMs: number;
  /** Items per call, ≤ 300. */
  readonly batchSize?: number;
  /** Wall clock for `Retry-After` dates. */
  readonly now?: () => number;
  readonly maxRetryAfterMs?: number;
  /** A dispatcher of the caller's (tests); without one the client owns a Pool of 3 connections. */
  readonly dispatcher?: Dispatcher;
  /** `X-RateLimit-Bucket-Filling: used/size` of each answer, for the pacer (slow down above 80 %). */
  readonly onBucketFilling?: (filling: { readonly used: number; readonly size: number }) => void;
}

/** `X-RateLimit-Bucket-Filling: 150/200` ("Leaky bucket"); `undefined` when absent or malformed. */
export function parseBucketFilling(value: string | undefined): { used: number; size: number } | undefined {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value ?? '');
  if (match === null) return undefined;
  const size = Number(match[2]);
  return size > 0 ? { used: Number(match[1]), size } : undefined;
}

export interface ShoptetClient extends ChannelClient<ShoptetStockItem> {
  close(): Promise<void>;
}

function isFinal(code: string): boolean {
  return (SHOPTET_FINAL_ERROR_CODES as readonly string[]).includes(code);
}

/** The well-formed entries of `errors` (`components.schemas.Errors`); anything else counts as none. */
function errorsOf(answer: ShoptetUpdateQuantityInStockResponse | undefined): ShoptetError[] {
  const errors: unknown = answer?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.filter(
    (error): error is ShoptetError =>
      typeof error === 'object' && error !== null && typeof error.errorCode === 'string' && typeof error.instance === 'string',
  );
}

/** Per-item outcomes of a 200/400 answer: `errors[].instance` names the product code. */
function itemOutcomes(
  items: readonly PushBatchItem<ShoptetStockItem>[],
  status: number,
  answer: ShoptetUpdateQuantityInStockResponse | undefined,
  redact: (text: string) => string,
): PushTargetOutcome[] {
  const errors = new Map(errorsOf(answer).map((error) => [error.instance, error]));
  const namesAnItem = items.some(({ payload }) => errors.has(payload.productCode));
  // A 400 naming no item of the call refused the request itself (its shape): a repeat cannot fix that.
  const whole =
    status === 400 && !namesAnItem
      ? (errorsOf(answer)[0] ?? { errorCode: 'http-400', message: 'HTTP 400', instance: '' })
      : undefined;
  return items.map(({ target, gen, payload }): PushTargetOutcome => {
    const error = errors.get(payload.productCode) ?? whole;
    if (error === undefined) {
      // Shoptet answers 400 only when every item failed: an item it did not name there is sent again.
      if (status === 400) return { target, gen, outcome: { kind: 'retry', message: 'HTTP 400 named no error for this item' } };
      return { target, gen, outcome: { kind: 'ok' } };
    }
    const message = cleanMessage(`${error.errorCode}: ${String(error.message)}`, redact);
    // Codes a repeat cannot fix, or a refusal of the whole request, are final; other item errors are retried.
    const final = isFinal(error.errorCode) || error === whole;
    const outcome: PushOutcome = final ? { kind: 'rejected', message, cause: 'invalid' } : { kind: 'retry', message };
    return { target, gen, outcome };
  });
}

function errorText(answer: ShoptetUpdateQuantityInStockResponse | undefined, status: number): string {
  const first = errorsOf(answer)[0];
  return first === undefined ? `HTTP ${status}` : `HTTP ${status} ${first.errorCode}: ${first.message}`;
}

/** Maps one call's answer to its items' outcomes. */
function outcomesOf(
  items: readonly PushBatchItem<ShoptetStockItem>[],
  response: Dispatcher.ResponseData,
  answer: ShoptetUpdateQuantityInStockResponse | undefined,
  context: RetryContext,
): PushTargetOutcome[] {
  const status = response.statusCode;
  if (status === 200 || status === 400) {
    if (answer === undefined)
      return allOutcome(items, withCause(retryOutcome(response.headers, `HTTP ${status}: unreadable answer`, context), 'server'));
    return itemOutcomes(items, status, answer, context.redact);
  }
  const text = errorText(answer, status);
  // A refused token keeps the channel pending (decision 0013: PUSH_AUTH_FAILED), it does not drop updates.
  if (status === 401 || status === 403) {
    return allOutcome(items, withCause(retryOutcome(response.headers, `${text} (check SHOPTET_API_TOKEN)`, context), 'auth'));
  }
  if (status === 423) {
    return allOutcome(items, withCause(retryOutcome(response.headers, text, context, SHOPTET_LOCK_RETRY_MS), 'server'));
  }
  if (status >= 200 && status < 300) return allOutcome(items, { kind: 'ok' });
  const cause = retryableStatus(status);
  if (cause !== undefined) return allOutcome(items, withCause(retryOutcome(response.headers, text, context), cause));
  return allOutcome(items, { kind: 'rejected', message: cleanMessage(text, context.redact), cause: 'invalid' });
}

/**
 * Creates the Shoptet client.
 *
 * @example
 * const shoptet = createShoptetClient({ baseUrl, token, stockId: 1, timeoutMs: 30_000 });
 * const outcomes = await shoptet.send([{ target: 's:43/BIL', gen: 1, payload: { productCode: '43/BIL', realStock: 10 } }]);
 */
export function createShoptetClient(options: ShoptetClientOptions): ShoptetClient {
  const base = new URL(options.baseUrl);
  const path = `${base.pathname.replace(/\/+$/, '')}/api/stocks/${encodeURIComponent(String(options.stockId))}/movements`;
  const owned =
    options.dispatcher === undefined ? new Pool(base.origin, { connections: SHOPTET_CONNECTIONS_PER_TOKEN }) : undefined;
  const dispatcher: Dispatcher = options.dispatcher ?? (owned as Pool);
  const redact = createRedactor([options.token]);
  const context: RetryContext = {
    now: options.now ?? Date.now,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS,
    redact,
  };

  async function sendBody(body: ShoptetStockMovementsBody, items: readonly PushBatchItem<ShoptetStockItem>[]) {
    try {
      const response = await request(new URL(path, base.origin), {
        method: 'PATCH',
        dispatcher,
        headers: { [SHOPTET_TOKEN_HEADER]: options.token, 'content-type': SHOPTET_CONTENT_TYPE, accept: 'application/json' },
        body: JSON.stringify(body),
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      const filling = parseBucketFilling(headerValue(response.headers, 'x-ratelimit-bucket-filling'));
      if (filling !== undefined) options.onBucketFilling?.(filling);
      const answer = (await readJson(response.body)) as ShoptetUpdateQuantityInStockResponse | undefined;
      return outcomesOf(items, response, answer, context);
    } catch (error) {
      // A bad argument to undici is our bug: retrying it forever would hide it.
      if (isProgrammingError(error)) throw error;
      return allOutcome(items, networkRetry(error, redact));
    }
  }

  return {
    channel: 'shoptet',
    async send(batch) {
      const byCode = new Map(batch.map((item) => [item.payload.productCode, item]));
      const bodies = cutShoptetBatches(
        batch.map((item) => item.payload),
        options.batchSize,
      );
      // All calls start at once; the Pool keeps them to 3 connections and queues the rest.
      const results = await Promise.all(
        bodies.map((body) =>
          sendBody(
            body,
            body.data.map((entry) => byCode.get(entry.productCode) as PushBatchItem<ShoptetStockItem>),
          ),
        ),
      );
      return results.flat();
    },
    close: async () => {
      await owned?.close();
    },
  };
}
