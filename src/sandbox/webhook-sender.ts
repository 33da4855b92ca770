import type { Logger } from 'pino';
import { request } from 'undici';
import type { PosEvent } from './pos-resources.js';

const ATTEMPT_TIMEOUT_MS = 5_000;
const MAX_ATTEMPTS = 3;
const BACKOFF_MS: readonly number[] = [250, 1_000];
const DELIVERY_LOG_SIZE = 200;
/** Deliveries whose timings the stats cover. */
const STATS_SIZE = 10_000;
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
  /** From the sale's events being handed to the sender to the first attempt of this event (ms). */
  readonly lagMs: number;
  /** From the first attempt to the last answer (ms): the receiver's share. */
  readonly roundTripMs: number;
}

/** Percentiles (ms) of a list of durations. */
export interface DurationSummary {
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

/** The sender's own share of the deliveries so far, apart from the receiver's. */
export interface DeliveryStats {
  readonly delivered: number;
  readonly failed: number;
  readonly dropped: number;
  /** Waiting in the sandbox before the first attempt (a delivery slot, earlier events of the sale). */
  readonly lagMs: DurationSummary;
  /** The receiver's answer time, first attempt to last answer. */
  readonly roundTripMs: DurationSummary;
}

export interface WebhookSender {
  setUrl(url: string | undefined): void;
  readonly url: string | undefined;
  /** Delivers one sale's events in order, in the background; never throws. */
  send(events: readonly PosEvent[]): void;
  /** Recent deliveries, oldest first (bounded). */
  deliveries(): WebhookDelivery[];
  /** Delivery lag and round trips of the last deliveries (up to 10,000); `reset` starts afresh (benchmarks). */
  stats(): DeliveryStats;
  resetStats(): void;
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
  let timings = { delivered: 0, failed: 0, dropped: 0, lags: [] as number[], roundTrips: [] as number[] };

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
    if (delivery.ok) timings.delivered += 1;
    else timings.failed += 1;
    timings.lags.push(delivery.lagMs);
    timings.roundTrips.push(delivery.roundTripMs);
    if (timings.lags.length > STATS_SIZE) {
      timings.lags.shift();
      timings.roundTrips.shift();
    }
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

  async function deliver(target: string, event: PosEvent, queuedAt: number): Promise<void> {
    const body = JSON.stringify(event);
    const firstAttempt = performance.now();
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
      lagMs: round(firstAttempt - queuedAt),
      roundTripMs: round(performance.now() - firstAttempt),
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
        timings.dropped += 1;
        if (dropped === 1 || dropped % 1000 === 0)
          options.logger.warn({ dropped }, 'sandbox webhook backlog full, dropping sales events');
        return;
      }
      const queuedAt = performance.now();
      const run = (async () => {
        await acquire();
        try {
          for (const event of events) {
            // Events still waiting when stop() came are dropped: the sandbox is shutting down.
            if (stopped) break;
            await deliver(target, event, queuedAt);
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
    stats: () => ({
      delivered: timings.delivered,
      failed: timings.failed,
      dropped: timings.dropped,
      lagMs: summarize(timings.lags),
      roundTripMs: summarize(timings.roundTrips),
    }),
    resetStats() {
      timings = { delivered: 0, failed: 0, dropped: 0, lags: [], roundTrips: [] };
    },
    async stop() {
      stopped = true;
      stopController.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function summarize(values: readonly number[]): DurationSummary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
  return { count: sorted.length, p50: at(50), p95: at(95), p99: at(99), max: sorted.at(-1) ?? 0 };
}
