import { abortableSleep } from '../../core/async/abortable-sleep.js';
import type { StoredWebhookEvent } from './webhook-events.js';
import type { InboxEntry, WebhookInbox } from './webhook-inbox.js';

export interface QueuedEntry {
  readonly entry: InboxEntry<StoredWebhookEvent>;
  readonly attempts: number;
  /** Monotonic ms when it was first queued (latency metric). */
  readonly queuedAt: number;
  /**
   * Set once the sale's movements were applied (or found missing): a retry then only re-reads these
   * units and stores the result, and never applies the movements twice.
   */
  readonly handled?: { readonly units: readonly string[] };
}

export interface WebhookQueueDeps {
  readonly inbox: Pick<WebhookInbox<StoredWebhookEvent>, 'complete'>;
  readonly logger: {
    warn(meta: object, message: string): void;
    error(meta: object, message: string): void;
  };
  readonly maxAttempts: number;
  readonly retryDelayMs: number;
  readonly batchSize: number;
  /**
   * Least time between the starts of two batches: the events of a burst that come meanwhile wait and make one
   * batch (one catalog version) instead of one each. 0: a batch starts as soon as the previous one ends.
   */
  readonly batchGapMs: number;
  /** Processes one batch; a throw retries the whole batch later. */
  readonly processBatch: (batch: readonly QueuedEntry[]) => Promise<void>;
  /** An event given up on after its last attempt. */
  readonly onDropped: (queued: QueuedEntry) => void;
}

/** The processor's queue of accepted events: batches, retries, and completion in the inbox. */
export interface WebhookQueue {
  /** Queues an event unless it is queued already (or the queue stopped). */
  enqueue(queued: QueuedEntry): void;
  /** Removes events from the inbox; they stay known as queued until that is done (so `resume` skips them). */
  complete(entries: readonly QueuedEntry[]): void;
  /** Queues a batch again after the retry delay; `counts: false` when it was no failed attempt. */
  retryLater(batch: readonly QueuedEntry[], counts?: boolean): void;
  /** Keeps an inbox update in flight until it settles (logged when it fails). */
  track<T>(promise: Promise<T>): void;
  /** Events accepted and not yet out of the inbox. */
  pending(): number;
  /** The batch loop and inbox updates under way. */
  busy(): Promise<unknown>[];
  /** Nothing queued and no retry waiting. */
  empty(): boolean;
  stopped(): boolean;
  /** Takes nothing more and drops the waiting retries (their events stay in the inbox for the next start). */
  stop(): void;
}

export function freshEntry(entry: InboxEntry<StoredWebhookEvent>): QueuedEntry {
  return { entry, attempts: 0, queuedAt: performance.now() };
}

export function createWebhookQueue(deps: WebhookQueueDeps): WebhookQueue {
  const { inbox, logger, maxAttempts, retryDelayMs, batchSize, batchGapMs } = deps;
  const queue: QueuedEntry[] = [];
  const queuedIds = new Set<string>();
  let running: Promise<void> | undefined;
  const inFlight = new Set<Promise<unknown>>();
  const retryTimers = new Set<NodeJS.Timeout>();
  let stopped = false;
  /** Monotonic ms when the last batch started. */
  let lastBatchAt = Number.NEGATIVE_INFINITY;
  /** Ends the gap before the next batch at once (`stop`). */
  const stopping = new AbortController();

  function enqueue(queued: QueuedEntry): void {
    if (stopped || queuedIds.has(queued.entry.id)) return;
    queuedIds.add(queued.entry.id);
    queue.push(queued);
    kick();
  }

  function kick(): void {
    running ??= drain().finally(() => {
      running = undefined;
      // Queued after the loop's last look.
      if (queue.length > 0 && !stopped) kick();
    });
  }

  async function drain(): Promise<void> {
    // Let the events of one burst gather into one batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (queue.length > 0 && !stopped) {
      // A timer can fire a little early (it counts from the loop's cached time): wait out the rest.
      for (let wait = lastBatchAt + batchGapMs - performance.now(); wait > 0 && !stopped; ) {
        await abortableSleep(wait, stopping.signal);
        wait = lastBatchAt + batchGapMs - performance.now();
      }
      if (stopped) return;
      lastBatchAt = performance.now();
      const batch = queue.splice(0, batchSize);
      try {
        await deps.processBatch(batch);
      } catch (error) {
        logger.error({ err: error, events: batch.length }, 'webhook batch failed');
        retryLater(batch);
      }
    }
  }

  function complete(entries: readonly QueuedEntry[]): void {
    if (entries.length === 0) return;
    const ids = entries.map((queued) => queued.entry.id);
    track(
      inbox.complete(ids).finally(() => {
        for (const id of ids) queuedIds.delete(id);
      }),
    );
  }

  function retryLater(batch: readonly QueuedEntry[], counts = true): void {
    const step = counts ? 1 : 0;
    const again = batch.filter((queued) => queued.attempts + step < maxAttempts);
    const dropped = batch.filter((queued) => queued.attempts + step >= maxAttempts);
    if (dropped.length > 0) {
      logger.warn(
        { events: dropped.length },
        'webhook events dropped after failed attempts; the scheduled stock sync catches up',
      );
      for (const queued of dropped) deps.onDropped(queued);
      complete(dropped);
    }
    if (again.length === 0) return;
    if (stopped) {
      // Left in the inbox for the next start.
      for (const queued of again) queuedIds.delete(queued.entry.id);
      return;
    }
    const timer = setTimeout(() => {
      retryTimers.delete(timer);
      // Still known as queued (see `complete`): straight back into the queue.
      for (const queued of again) queue.push({ ...queued, attempts: queued.attempts + step });
      kick();
    }, retryDelayMs);
    retryTimers.add(timer);
  }

  function track<T>(promise: Promise<T>): void {
    const settled = promise.then(
      () => undefined,
      (error: unknown) => logger.error({ err: error }, 'webhook inbox update failed'),
    );
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  }

  return {
    enqueue,
    complete,
    retryLater,
    track,
    pending: () => queuedIds.size,
    busy: () => [running, ...inFlight].filter((promise) => promise !== undefined),
    empty: () => queue.length === 0 && retryTimers.size === 0,
    stopped: () => stopped,
    stop() {
      stopped = true;
      stopping.abort();
      for (const timer of retryTimers) clearTimeout(timer);
      retryTimers.clear();
    },
  };
}
