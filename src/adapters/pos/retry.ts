import { PosUnavailableError } from './pos-errors.js';

/**
 * Retry policy of POS calls: exponential backoff with full jitter (AWS architecture blog, "Exponential
 * Backoff And Jitter"), `Retry-After` honoured, and a bound on the total time of one call so that a
 * sync never hangs on a sick POS. Only `PosUnavailableError` is retried; rejections and invalid
 * responses are final. Time is injected (`sleep`, `now`, `random`) so tests never wait for real.
 */

export interface RetryPolicy {
  /** Retries after the first attempt (`POS_MAX_RETRIES`). */
  readonly maxRetries: number;
  /** Upper bound of the first backoff; doubles per retry. */
  readonly baseDelayMs: number;
  /** Upper bound of any backoff. */
  readonly maxDelayMs: number;
  /** Longest `Retry-After` honoured; a longer one is cut to this. */
  readonly maxRetryAfterMs: number;
  /** Timeout of one attempt (`POS_TIMEOUT_MS`). */
  readonly timeoutMs: number;
  /** Bound on the whole call, attempts and waits together. */
  readonly budgetMs: number;
}

export interface RetryEffects {
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
  readonly now: () => number;
}

export interface AttemptContext {
  /** 1-based attempt number. */
  readonly attempt: number;
  /** Time this attempt may take: the per-request timeout, cut to what is left of the call's budget. */
  readonly timeoutMs: number;
}

export interface RetryNotice {
  readonly error: PosUnavailableError;
  /** The attempt that failed (1-based). */
  readonly attempt: number;
  readonly delayMs: number;
  /** Retried at once: a first attempt on a connection the POS had closed (`connectionClosed`). */
  readonly immediate: boolean;
}

/**
 * Full-jitter backoff before retry number `retry` (1-based): uniform in [0, min(max, base × 2^(retry-1))).
 *
 * @example
 * backoffDelayMs(3, { baseDelayMs: 500, maxDelayMs: 30_000 }, () => 0.5); // 1000
 */
export function backoffDelayMs(
  retry: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Milliseconds to wait from a `Retry-After` header: delta seconds or an HTTP-date (RFC 9110 §10.2.3).
 * A date in the past means "now" (0). Anything unreadable is `undefined` (the normal backoff applies).
 */
export function parseRetryAfterMs(header: string | readonly string[] | undefined, nowMs: number): number | undefined {
  const value = (typeof header === 'string' ? header : header?.[0])?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Only date-like text: Date.parse accepts odd inputs such as "1" or "-5".
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/**
 * Runs `attempt` until it succeeds, fails with something other than `PosUnavailableError`, the retries
 * are used up, or the next wait would end past the call's budget. The last error is rethrown as is:
 * attempts construct their errors with their attempt number, so the message says how often it was tried.
 */
export async function withRetries<T>(
  attempt: (context: AttemptContext) => Promise<T>,
  policy: RetryPolicy,
  effects: RetryEffects,
  onRetry: (notice: RetryNotice) => void,
): Promise<T> {
  const deadline = effects.now() + policy.budgetMs;
  for (let number = 1; ; number++) {
    const left = deadline - effects.now();
    try {
      return await attempt({ attempt: number, timeoutMs: Math.max(1, Math.min(policy.timeoutMs, left)) });
    } catch (error) {
      if (!(error instanceof PosUnavailableError) || number > policy.maxRetries) throw error;
      // A first attempt on a connection the POS had closed: a new one is made at once, no reason to wait.
      const staleConnection = number === 1 && error.connectionClosed === true;
      const delayMs = staleConnection
        ? 0
        : error.retryAfterMs === undefined
          ? backoffDelayMs(number, policy, effects.random)
          : Math.min(error.retryAfterMs, policy.maxRetryAfterMs);
      // Waiting past the budget would only postpone the same answer: give up now with the real error.
      if (effects.now() + delayMs >= deadline) throw error;
      onRetry({ error, attempt: number, delayMs, immediate: staleConnection });
      if (!staleConnection) await effects.sleep(delayMs);
    }
  }
}
