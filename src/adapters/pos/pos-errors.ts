import { BridgeError, type BridgeErrorCode } from '../../core/errors.js';

/**
 * The three families of POS call failures (decision 0001, error model). They differ in what the sync does:
 * unavailable → keep the last good catalog and try again on the next tick; rejected → configuration or
 * credentials, degrade readiness; invalid → the POS contract changed (or paging cannot end).
 *
 * Every error names the HTTP method, the request path (never with a query string, and the client never
 * puts the API key in a URL: it always sends the `x-api-key` header) and the status when there was one.
 * The API key is never part of a message or an enumerable property, so `String(err)`,
 * `JSON.stringify(err)` and pino's error serializer cannot leak it.
 */

export interface PosErrorContext {
  readonly method: string;
  /** Path of the request, e.g. `/ext/unit/list`. */
  readonly path: string;
  /** HTTP status of the response, absent for network errors and timeouts. */
  readonly status?: number;
  /** 1-based number of the attempt that produced this error (retries included). */
  readonly attempts?: number;
  readonly cause?: unknown;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Shared shape of the family; use the concrete classes to construct and to branch. */
export abstract class PosError extends BridgeError {
  readonly method: string;
  readonly path: string;
  readonly status?: number;
  readonly attempts?: number;

  protected constructor(code: BridgeErrorCode, summary: string, context: PosErrorContext) {
    super(code, describe(summary, context), {
      ...('cause' in context ? { cause: context.cause } : {}),
      ...(context.details === undefined ? {} : { details: context.details }),
    });
    this.method = context.method;
    this.path = stripQuery(context.path);
    if (context.status !== undefined) this.status = context.status;
    if (context.attempts !== undefined) this.attempts = context.attempts;
  }
}

/** Network error, timeout, 408, 429 or 5xx: worth retrying later. */
export class PosUnavailableError extends PosError {
  override readonly name = 'PosUnavailableError';
  /** Server-requested wait (`Retry-After`) in milliseconds, when the POS sent one. */
  readonly retryAfterMs?: number;
  /**
   * The connection closed before any answer: most often one kept alive from an earlier request that the
   * POS had closed meanwhile (the client's pool had not seen it yet). A new connection usually works.
   */
  readonly connectionClosed?: boolean;

  constructor(
    reason: string,
    context: PosErrorContext & { readonly retryAfterMs?: number; readonly connectionClosed?: boolean },
  ) {
    super('POS_UNAVAILABLE', `POS unavailable: ${reason}`, context);
    if (context.retryAfterMs !== undefined) this.retryAfterMs = context.retryAfterMs;
    if (context.connectionClosed === true) this.connectionClosed = true;
  }
}

/** 401/403/404, any other 4xx (or 3xx), or an envelope with `isValid: false`. Not retried. */
export class PosRejectedError extends PosError {
  override readonly name = 'PosRejectedError';
  /** The POS's own error texts (envelope `errors`), when it sent any. */
  readonly posErrors: readonly string[];

  constructor(reason: string, context: PosErrorContext & { readonly posErrors?: readonly string[] }) {
    const posErrors = context.posErrors ?? [];
    super(
      'POS_REJECTED',
      posErrors.length === 0 ? `POS rejected the call: ${reason}` : `POS rejected the call: ${reason}: ${posErrors.join('; ')}`,
      context,
    );
    this.posErrors = posErrors;
  }
}

/** Malformed JSON, an envelope that fails its schema, an oversized body, or paging that cannot end. */
export class PosResponseInvalidError extends PosError {
  override readonly name = 'PosResponseInvalidError';
  /** Schema issues (`path: message`), when the failure was a schema failure. */
  readonly issues: readonly string[];

  constructor(reason: string, context: PosErrorContext & { readonly issues?: readonly string[] }) {
    const issues = context.issues ?? [];
    // A handful of issues is enough to see what changed; the rest stay on `issues`.
    const shown = issues.slice(0, 5).join('; ');
    super(
      'POS_RESPONSE_INVALID',
      issues.length === 0 ? `POS response invalid: ${reason}` : `POS response invalid: ${reason}: ${shown}`,
      context,
    );
    this.issues = issues;
  }
}

function describe(summary: string, context: PosErrorContext): string {
  const status = context.status === undefined ? '' : ` (HTTP ${context.status})`;
  const attempts = context.attempts !== undefined && context.attempts > 1 ? ` after ${context.attempts} attempts` : '';
  return `${summary} [${context.method} ${stripQuery(context.path)}${status}${attempts}]`;
}

/** Defence in depth: the client never builds query strings, but a path must never carry one into a message. */
function stripQuery(path: string): string {
  const cut = path.search(/[?#]/);
  return cut < 0 ? path : path.slice(0, cut);
}
