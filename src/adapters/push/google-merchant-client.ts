import type { merchantapi_inventories_v1, merchantapi_products_v1 } from '@googleapis/merchantapi';
import { Agent, type Dispatcher, request } from 'undici';
import { mapLimit } from '../../core/async/map-limit.js';
import type { ChannelClient, PushBatchItem, PushOutcome, PushTargetOutcome } from '../../core/push/channel-client.js';
import { DAILY_WORDING, GOOGLE_MAX_CONCURRENT } from '../../core/push/google-quota.js';
import type { GoogleLocalInventory, GoogleProductInput, GoogleProductRequest } from '../../core/push/payloads/google.js';
import { productName } from '../../core/push/payloads/google.js';
import type { GooglePayload } from '../../core/push/target-payloads.js';
import { createRedactor, REDACTED } from '../../core/redact-secrets.js';
import { isProgrammingError } from '../pos/pos-responses.js';
import {
  cleanMessage,
  DEFAULT_MAX_RETRY_AFTER_MS,
  networkRetry,
  type RetryContext,
  readJson,
  retryableStatus,
  retryOutcome,
  withCause,
} from './channel-http.js';
import { googleErrorOf } from './google-error.js';
import { createGoogleTokenSource, GoogleTokenError, type ServiceAccountKey } from './google-token.js';

/**
 * Google Merchant API v1 client (docs/decisions/0013-channel-push.md, "Google Merchant API v1"):
 * `productInputs.insert` / `patch` / `delete` into one data source and `localInventories.insert` per unit,
 * one REST call per target (the API has no batch that saves quota), at most `concurrency` at once.
 * Plain undici rather than the official client's transport: gaxios retries 429/5xx on its own by default
 * (`retry: true` in googleapis-common), which would hide outcomes from the outbox's backoff; the request
 * shapes stay checked against the official client's `Schema$*` types below.
 */

// Compile-time check that the payload shapes are what the official client would send.
const _shapes: [
  (body: GoogleProductInput) => merchantapi_products_v1.Schema$ProductInput,
  (body: GoogleLocalInventory) => merchantapi_inventories_v1.Schema$LocalInventory,
] = [
  // `gtins` is readonly here and mutable there; the element type is what matters.
  (body) => ({ ...body, productAttributes: { ...body.productAttributes, gtins: body.productAttributes.gtins?.slice() ?? null } }),
  (body) => body,
];
void _shapes;

export interface GoogleMerchantClientOptions {
  /** GOOGLE_MERCHANT_API_URL, e.g. `https://merchantapi.googleapis.com` (a path prefix is kept). */
  readonly rootUrl: string;
  /** GOOGLE_MERCHANT_ACCOUNT_ID. */
  readonly account: string;
  /** GOOGLE_MERCHANT_DATA_SOURCE_ID. */
  readonly dataSourceId: string;
  readonly contentLanguage: string;
  readonly feedLabel: string;
  /** The parsed service-account key file (`parseServiceAccountKey`). */
  readonly key: ServiceAccountKey;
  /** GOOGLE_OAUTH_TOKEN_URL; else the key file's `token_uri`. */
  readonly tokenUrl?: string;
  /** PUSH_TIMEOUT_MS: headers and body of one call each within it. */
  readonly timeoutMs: number;
  readonly concurrency?: number;
  readonly now?: () => number;
  readonly maxRetryAfterMs?: number;
  readonly dispatcher?: Dispatcher;
}

export interface GoogleMerchantClient extends ChannelClient<GooglePayload> {
  close(): Promise<void>;
}

interface Call {
  readonly method: 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query: Record<string, string>;
  readonly body?: unknown;
}

function callOf(payload: GooglePayload, options: GoogleMerchantClientOptions): Call {
  const dataSource = `accounts/${options.account}/dataSources/${options.dataSourceId}`;
  if (payload.kind === 'localDelete') {
    const store = encodeURIComponent(payload.storeCode);
    return {
      method: 'DELETE',
      path: `/inventories/v1/${productName(options, payload.offerId)}/localInventories/${store}`,
      query: {},
    };
  }
  if (payload.kind === 'local') {
    return {
      method: 'POST',
      path: `/inventories/v1/${productName(options, payload.offerId)}/localInventories:insert`,
      query: {},
      body: payload.inventory,
    };
  }
  const product: GoogleProductRequest = payload.request;
  if (product.method === 'insert') {
    return {
      method: 'POST',
      path: `/products/v1/accounts/${options.account}/productInputs:insert`,
      query: { dataSource },
      body: product.body,
    };
  }
  if (product.method === 'patch') {
    return {
      method: 'PATCH',
      path: `/products/v1/${product.name}`,
      query: { dataSource, updateMask: product.updateMask },
      body: product.body,
    };
  }
  return { method: 'DELETE', path: `/products/v1/${product.name}`, query: { dataSource } };
}

/**
 * Maps an answer: 2xx ok (and 404 to a DELETE); 429 / RESOURCE_EXHAUSTED and the statuses of `retryableStatus`
 * (401/403, 408, 409, 425, 5xx) retry; other 4xx (INVALID_ARGUMENT…) rejected.
 */
function outcomeOf(
  status: number,
  headers: Dispatcher.ResponseData['headers'],
  answer: unknown,
  context: RetryContext,
  method: Call['method'],
): PushOutcome {
  if (status >= 200 && status < 300) return { kind: 'ok' };
  // A delete of what is not there has its effect already (a product deleted before its local inventory).
  if (status === 404 && method === 'DELETE') return { kind: 'ok' };
  const { rpc, message } = googleErrorOf(answer);
  const text = `HTTP ${status}${rpc === undefined ? '' : ` ${rpc}`}${message === undefined ? '' : `: ${message}`}`;
  if (status === 429 || rpc === 'RESOURCE_EXHAUSTED') {
    // A daily limit closes the Google channel's gate (services/push/google-channel.ts) until the reset or a quota read that
    // shows quota again; the row itself waits only the worker's backoff, so a reopened gate sends it at once.
    const daily = DAILY_WORDING.test(text);
    return withCause(retryOutcome(headers, text, context, undefined), daily ? 'quota' : 'rate-limit');
  }
  // A refused token keeps the channel pending (decision 0013: PUSH_AUTH_FAILED), it does not drop updates.
  if (status === 401 || status === 403) {
    return withCause(retryOutcome(headers, `${text} (check the Google service account)`, context), 'auth');
  }
  const cause = retryableStatus(status);
  if (cause !== undefined) return withCause(retryOutcome(headers, text, context), cause);
  return { kind: 'rejected', message: cleanMessage(text, context.redact), cause: 'invalid' };
}

/**
 * Creates the Merchant API client.
 *
 * @example
 * const google = createGoogleMerchantClient({ rootUrl, account: '123', dataSourceId: '456', contentLanguage: 'cs',
 *   feedLabel: 'CZ', key: parseServiceAccountKey(await readFile(keyPath, 'utf8')), timeoutMs: 30_000 });
 */
export function createGoogleMerchantClient(options: GoogleMerchantClientOptions): GoogleMerchantClient {
  const root = new URL(options.rootUrl);
  const prefix = root.pathname.replace(/\/+$/, '');
  const concurrency = options.concurrency ?? GOOGLE_MAX_CONCURRENT;
  const owned = options.dispatcher === undefined ? new Agent({ connections: concurrency }) : undefined;
  const dispatcher: Dispatcher = options.dispatcher ?? (owned as Agent);
  const now = options.now ?? Date.now;
  const tokens = createGoogleTokenSource({
    key: options.key,
    ...(options.tokenUrl === undefined ? {} : { tokenUrl: options.tokenUrl }),
    timeoutMs: options.timeoutMs,
    now,
    dispatcher,
  });
  const redact = createRedactor([options.key.private_key, options.key.private_key.replace(/\n/g, '\\n')]);
  const context: RetryContext = { now, maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS, redact };
  // The access token is redacted too: it changes, so each call redacts the one it sent.
  const withToken = (token: string) => (text: string) => (token === '' ? redact(text) : redact(text).split(token).join(REDACTED));

  async function sendOne(item: PushBatchItem<GooglePayload>): Promise<PushTargetOutcome> {
    const call = callOf(item.payload, options);
    let token = '';
    try {
      token = await tokens.token();
      const url = new URL(`${prefix}${call.path}`, root.origin);
      for (const [name, value] of Object.entries(call.query)) url.searchParams.set(name, value);
      const response = await request(url, {
        method: call.method,
        dispatcher,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      const answer = await readJson(response.body);
      // A refused token is fetched anew by the next call (revoked, or expired early).
      if (response.statusCode === 401) tokens.invalidate();
      const outcome = outcomeOf(
        response.statusCode,
        response.headers,
        answer,
        { ...context, redact: withToken(token) },
        call.method,
      );
      return { target: item.target, gen: item.gen, outcome };
    } catch (error) {
      // A bad argument to undici is our bug: retrying it forever would hide it.
      if (isProgrammingError(error)) throw error;
      const retry = networkRetry(error, withToken(token));
      // The token endpoint refusing the service account is a credentials problem, not the network.
      return {
        target: item.target,
        gen: item.gen,
        outcome: error instanceof GoogleTokenError ? withCause(retry, 'auth') : retry,
      };
    }
  }

  return {
    channel: 'google',
    send: (batch) => mapLimit(batch, concurrency, sendOne),
    close: async () => {
      await owned?.close();
    },
  };
}
