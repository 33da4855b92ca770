import { type Dispatcher, request } from 'undici';
import { DocumentTooLargeError } from '../../core/catalog/document-limits.js';
import { PosEnvelopeSchema } from './pos-envelope-schema.js';
import { PosError, PosRejectedError, PosUnavailableError } from './pos-errors.js';
import {
  decodeUtf8,
  describeNetworkError,
  ERROR_BODY_BYTES,
  isProgrammingError,
  type Operation,
  type ResponseHandler,
  readCapped,
  rejectionHint,
  safeCause,
} from './pos-responses.js';
import { type AttemptContext, parseRetryAfterMs, type RetryEffects, type RetryPolicy, withRetries } from './retry.js';

/**
 * One call to the POS over HTTP (`pos-client.ts` composes the operations on top): `x-api-key` on every
 * request, a timer per attempt, retries with backoff on transient failures, and the error families of
 * pos-errors.ts for whatever went wrong. What a 2xx response means is the caller's `ResponseHandler`.
 */

/** The two log levels the client uses; a pino logger fits. */
export interface PosClientLogger {
  debug(meta: object, message: string): void;
  warn(meta: object, message: string): void;
}

export interface PosTransportSettings {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly exportPathPrefix: string;
  readonly timeoutMs: number;
  readonly dispatcher: Dispatcher;
  readonly logger: PosClientLogger;
  readonly policy: RetryPolicy;
  readonly effects: RetryEffects;
  /** Removes the key from foreign text (POS messages, network errors). */
  readonly redact: (text: string) => string;
}

export interface PosTransport {
  /** The base URL's path without a trailing slash, prefixed to every path called. */
  readonly basePath: string;
  /** A JSON operation (POST, body serialised) at `path` below the base path. */
  jsonOperation(path: string, body: unknown): Operation;
  /**
   * A document export (GET) at `path` below the base path and the export prefix, timed to its headers
   * (`Operation.timedToHeaders`).
   */
  exportOperation(path: string, accept: string): Operation;
  /** Makes the call, retrying transient failures; `signal` cuts it short with no further attempt. */
  call<T>(operation: Operation, handle: ResponseHandler<T>, signal?: AbortSignal): Promise<T>;
}

type ResponseData = Dispatcher.ResponseData;

/** undici's and the socket's codes for a connection closed under a request. */
const CLOSED_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

type Where = { method: string; path: string; attempts: number };

export function createPosTransport(settings: PosTransportSettings): PosTransport {
  const { dispatcher, logger, policy, redact } = settings;
  const base = new URL(settings.baseUrl);
  // Query, fragment and credentials of the base URL are ignored: the key travels only in `x-api-key`.
  const origin = base.origin;
  const basePath = base.pathname.replace(/\/+$/, '');

  async function attempt<T>(
    operation: Operation,
    context: AttemptContext,
    handle: ResponseHandler<T>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const controller = new AbortController();
    let timedOut = false;
    const abortByCaller = () => controller.abort();
    signal?.addEventListener('abort', abortByCaller, { once: true });
    // Our own timer (not AbortSignal.timeout) so it can be cleared at the headers of a document, and so
    // fake timers drive it in tests. It covers connect, headers and, for JSON calls, the whole body.
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, context.timeoutMs);
    const where = { method: operation.method, path: operation.path, attempts: context.attempt };
    try {
      let response: ResponseData;
      try {
        response = await request(origin + operation.path, {
          dispatcher,
          method: operation.method,
          headers: headersFor(operation),
          ...(operation.body === undefined ? {} : { body: operation.body }),
          signal: controller.signal,
          // undici's own timers as a second line: a server that stops sending after the headers is caught too.
          headersTimeout: context.timeoutMs,
          bodyTimeout: settings.timeoutMs,
        });
      } catch (error) {
        if (isProgrammingError(error)) throw error;
        signal?.throwIfAborted();
        throw unavailable(error, timedOut, context, where);
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        throw await statusError(response, where);
      }
      if (operation.timedToHeaders === true) clearTimeout(timer);
      try {
        return await handle(response, operation);
      } catch (error) {
        // Whatever went wrong, the connection must not stay tied to a half-read body.
        if (!response.body.destroyed) response.body.destroy();
        signal?.throwIfAborted();
        // A body over its limit is an answer, not a broken transfer: no retry.
        if (error instanceof PosError || error instanceof DocumentTooLargeError) throw error;
        // The body broke off or timed out while it was read: transient, like a failed connection.
        throw unavailable(error, timedOut, context, { ...where, status: response.statusCode });
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abortByCaller);
    }
  }

  function headersFor(operation: Operation): Record<string, string> {
    const headers: Record<string, string> = { 'x-api-key': settings.apiKey, accept: operation.accept };
    if (operation.body !== undefined) headers['content-type'] = 'application/json';
    return headers;
  }

  /** `where.status` is set once the answer's status came: a connection closed after it is no stale one. */
  function unavailable(
    error: unknown,
    timedOut: boolean,
    context: AttemptContext,
    where: Where & { status?: number },
  ): PosUnavailableError {
    const code = errorCode(error);
    const connectionClosed = !timedOut && where.status === undefined && code !== undefined && CLOSED_CODES.has(code);
    let reason: string;
    if (timedOut) reason = `no complete answer within ${context.timeoutMs} ms`;
    else if (code === 'UND_ERR_BODY_TIMEOUT') reason = `the body stalled: no data for ${settings.timeoutMs} ms`;
    else reason = describeNetworkError(error, redact);
    return new PosUnavailableError(reason, {
      ...where,
      cause: safeCause(error, redact),
      ...(connectionClosed ? { connectionClosed } : {}),
    });
  }

  async function statusError(response: ResponseData, where: Where): Promise<PosError> {
    const status = response.statusCode;
    const posErrors = await readErrorTexts(response);
    if (status === 408 || status === 429 || status >= 500) {
      const retryAfterMs = parseRetryAfterMs(response.headers['retry-after'], settings.effects.now());
      return new PosUnavailableError(`HTTP ${status}`, {
        ...where,
        status,
        ...(posErrors.length === 0 ? {} : { details: { posErrors } }),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }
    return new PosRejectedError(rejectionHint(status, where.path), { ...where, status, posErrors });
  }

  /** Best effort: the POS's `errors` texts from an error response, if it is an envelope. */
  async function readErrorTexts(response: ResponseData): Promise<string[]> {
    try {
      const bytes = await readCapped(response.body, ERROR_BODY_BYTES, 'truncate');
      const parsed = PosEnvelopeSchema.safeParse(JSON.parse(decodeUtf8(bytes)));
      return parsed.success ? (parsed.data.errors ?? []).map(redact) : [];
    } catch {
      return [];
    } finally {
      if (!response.body.destroyed) response.body.destroy();
    }
  }

  return {
    basePath,
    jsonOperation(path, body) {
      return { method: 'POST', path: basePath + path, body: JSON.stringify(body), accept: 'application/json' };
    },
    exportOperation(path, accept) {
      return { method: 'GET', path: basePath + settings.exportPathPrefix + path, accept, timedToHeaders: true };
    },
    async call(operation, handle, signal) {
      return withRetries(
        (context) => {
          // Aborted by the caller (a sync's deadline, a shutdown): no further attempt.
          signal?.throwIfAborted();
          return attempt(operation, context, handle, signal);
        },
        policy,
        settings.effects,
        ({ error, attempt, delayMs, immediate }) => {
          const meta = {
            method: operation.method,
            path: operation.path,
            status: error.status,
            attempt,
            delayMs,
            reason: error.message,
          };
          // Routine with kept-alive connections (the POS closes idle ones on its own clock): not worth a
          // warning unless the new connection fails too.
          if (immediate) logger.debug(meta, 'POS closed a kept-alive connection; retrying at once');
          else logger.warn(meta, 'POS request failed, retrying');
        },
      );
    },
  };
}
