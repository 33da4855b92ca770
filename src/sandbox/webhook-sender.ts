import type { Logger } from 'pino';
import { request } from 'undici';
import type { PosEvent } from './pos-resources.js';

const ATTEMPT_TIMEOUT_MS = 5_000;
const MAX_ATTEMPTS = 3;
const BACKOFF_MS: readonly number[] = [250, 1_000];
const DELIVERY_LOG_SIZE = 200;
/** Sales delivered at the same time; a sale's own events always go one after another. */
const MAX_CONCURRENT_SALES = 8;
/** Sales waiting for a delivery slot; beyond this a dead receiver would grow memory without end, so new ones are dropped. */
const MAX_WAITING_SALES = 1_000;

export interface WebhookDelivery {
  readonly event: string;
  readonly url: string;
  readonly time: string;
  /** Status of the last attempt; 0 when no answer came (network error, timeout). */
  readonly status: number;
  readonly attempts: number;
  readonly ok: boolean;
  readonly error?: string;
}

export interface WebhookSender {
  setUrl(url: string | undefined): void;
  readonly url: string | undefined;
  /** Delivers one sale's events in order, in the background; never throws. */
  send(events: readonly PosEvent[]): void;
  /** Recent deliveries, oldest first (bounded). */
  deliveries(): WebhookDelivery[];
  /** No more retries; waits for attempts already on the wire (each bounded by its timeout). */
  stop(): Promise<void>;
}

export interface WebhookSenderOptions {
  readonly apiKey: string;
  readonly url: string | undefined;
  readonly logger: Logger;
  readonly now: () => Date;
}

/**
 * Posts events to the receiver with `x-api-key` and JSON, the way the POS does (interface part 6).
 * A non-2xx answer or a network error is retried a couple of times with a short backoff; failures
 * are logged and recorded, never thrown, so a broken receiver cannot take the sandbox down. A few
 * sales are delivered concurrently so one slow answer does not hold up the rest.
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  let url = options.url;
  let stopped = false;
  const stopController = new AbortController();
  const inFlight = new Set<Promise<void>>();
  const log: WebhookDelivery[] = [];
  const waiting: (() => void)[] = [];
  let active = 0;
  let dropped = 0;

  /** A delivery slot; a released slot passes straight to the next waiting sale. */
  async function acquire(): Promise<void> {
    if (active < MAX_CONCURRENT_SALES) {
      active += 1;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  }

  function release(): void {
    const next = waiting.shift();
    if (next !== undefined) next();
    else active -= 1;
  }

  function record(delivery: WebhookDelivery): void {
    log.push(delivery);
    if (log.length > DELIVERY_LOG_SIZE) log.splice(0, log.length - DELIVERY_LOG_SIZE);
  }

  /** Waits before a retry; stop() cuts the wait short. */
  function waitBackoff(ms: number): Promise<void> {
    const signal = stopController.signal;
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      function onAbort(): void {
        clearTimeout(timer);
        resolve();
      }
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      timer.unref();
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  async function deliver(target: string, event: PosEvent): Promise<void> {
    const body = JSON.stringify(event);
    let status = 0;
    let error: string | undefined;
    let attempts = 0;
    while (attempts < MAX_ATTEMPTS) {
      attempts += 1;
      error = undefined;
      try {
        const response = await request(target, {
          method: 'POST',
          headers: { 'x-api-key': options.apiKey, 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
          headersTimeout: ATTEMPT_TIMEOUT_MS,
          bodyTimeout: ATTEMPT_TIMEOUT_MS,
        });
        status = response.statusCode;
        await response.body.dump();
        if (status >= 200 && status < 300) break;
      } catch (cause) {
        status = 0;
        error = cause instanceof Error ? cause.message : String(cause);
      }
      if (stopped || attempts >= MAX_ATTEMPTS) break;
      await waitBackoff(BACKOFF_MS[attempts - 1] ?? 1_000);
      if (stopped) break;
    }
    const ok = status >= 200 && status < 300;
    record({
      event: event.event,
      url: target,
      time: options.now().toISOString(),
      status,
      attempts,
      ok,
      ...(error ? { error } : {}),
    });
    if (!ok) options.logger.warn({ event: event.event, status, attempts, error }, 'sandbox webhook delivery failed');
    else options.logger.debug({ event: event.event, status, attempts }, 'sandbox webhook delivered');
  }

  return {
    setUrl(next) {
      url = next;
    },
    get url() {
      return url;
    },
    send(events) {
      const target = url;
      if (target === undefined || stopped || events.length === 0) return;
      if (waiting.length >= MAX_WAITING_SALES) {
        dropped += 1;
        if (dropped === 1 || dropped % 1000 === 0)
          options.logger.warn({ dropped }, 'sandbox webhook backlog full, dropping sales events');
        return;
      }
      const run = (async () => {
        await acquire();
        try {
          for (const event of events) {
            // Events still waiting when stop() came are dropped: the sandbox is shutting down.
            if (stopped) break;
            await deliver(target, event);
          }
        } finally {
          release();
        }
      })().catch((error: unknown) => {
        options.logger.error({ err: error }, 'sandbox webhook delivery crashed');
      });
      inFlight.add(run);
      void run.finally(() => inFlight.delete(run));
    },
    deliveries: () => [...log],
    async stop() {
      stopped = true;
      stopController.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}
