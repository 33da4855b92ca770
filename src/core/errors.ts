/**
 * The error base of catalog-bridge (decision 0001, error model): one class, stable string codes, no HTTP
 * statuses. The HTTP edge maps codes to statuses in one exhaustive `Record<BridgeErrorCode, number>`,
 * so adding a code here makes the compiler point at every table that must learn it.
 *
 * Add codes as `SCREAMING_SNAKE` string literals to the union; keep each one stable once released,
 * because logs, metrics and API error bodies carry it.
 */
export type BridgeErrorCode =
  /** The POS could not be reached or answered 429/5xx/timeouts: retry later, keep the last good catalog. */
  | 'POS_UNAVAILABLE'
  /** The POS refused the call (401/403/404, other 4xx, `isValid: false`): configuration or credentials. */
  | 'POS_REJECTED'
  /** The POS answered, but not in the shape the interface describes (or paging could not end). */
  | 'POS_RESPONSE_INVALID';

export interface BridgeErrorOptions {
  readonly cause?: unknown;
  /** Structured, secret-free context for logs and reports. */
  readonly details?: Readonly<Record<string, unknown>>;
}

export class BridgeError extends Error {
  override readonly name: string = 'BridgeError';
  readonly code: BridgeErrorCode;
  readonly details?: Readonly<Record<string, unknown>>;

  constructor(code: BridgeErrorCode, message: string, options: BridgeErrorOptions = {}) {
    // `cause` goes through the standard option so that it stays non-enumerable (not in JSON.stringify).
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.code = code;
    if (options.details !== undefined) this.details = options.details;
  }
}

/** Narrowing helper for catch blocks and error handlers. */
export function isBridgeError(value: unknown): value is BridgeError {
  return value instanceof BridgeError;
}
