import { createSlicer } from '../../core/async/create-slicer.js';
import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import { truncateText } from '../../core/feeds/truncate-text.js';
import type { ChannelClient, PayloadResult, PushBatchItem, PushTargetOutcome } from '../../core/push/channel-client.js';
import type { ClaimedRow, PushChannelState, PushOutbox } from '../../core/push/outbox.js';
import type { Pacer } from '../../core/push/pacer.js';
import { pushRetryDelayMs } from '../../core/push/push-backoff.js';
import type { PushChannel } from '../../core/push/push-channel.js';
import type { CatalogLogger } from '../catalog/catalog-types.js';
import { type BatchResult, createPushStateRecorder, type PushStateRecorder } from './push-state-recorder.js';

/**
 * The delivery loop of one channel (docs/decisions/0013-channel-push.md, section 4), leader only: wait for due
 * rows and the pacer, claim up to a batch with a lease, build payloads from the version served now, send,
 * then ack / retry / reject each target. Time comes only through `now` and `sleep`, so tests drive it.
 */

/** The channel's error message as kept in state: cut to 300 characters (decision 0013, "Credentials"). */
export const PUSH_ERROR_MAX = 300;

export interface PushWorkerDeps<Payload> {
  readonly channel: PushChannel;
  readonly outbox: PushOutbox;
  readonly client: ChannelClient<Payload>;
  /** The payload of one claimed row from the served version (`undefined` before the first version). */
  readonly buildPayload: (row: ClaimedRow, snapshot: CatalogSnapshot | undefined) => PayloadResult<Payload>;
  readonly current: () => CatalogSnapshot | undefined;
  readonly pacer: Pacer;
  readonly batchSize: number;
  /** A claim's lease: longer than a request may take (PUSH_TIMEOUT_MS plus margin). */
  readonly leaseMs: number;
  readonly maxBackoffMs: number;
  /** How long to wait when nothing is due, paused, or not the leader: the outbox is polled. */
  readonly idleMs: number;
  readonly now: () => number;
  readonly random: () => number;
  /** Resolves after `ms` or as soon as `signal` aborts. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly isLeader?: () => boolean;
  /** In a group: the lease holder's `instance|token` for the outbox's fenced claim (see `PushOutbox.claim`). */
  readonly fence?: () => string;
  readonly logger: CatalogLogger;
  /**
   * Per answered batch, how long each item the channel accepted waited: from its row's `sinceMs` (its oldest
   * change enqueued) to the answer (the `catalog_bridge_push_lag_seconds` histogram).
   */
  readonly onDelivered?: (lagMs: readonly number[]) => void;
  /** How often at most the last success and error are written to the outbox state (default 1 s). */
  readonly stateWriteMs?: number;
}

export interface PushWorkerCounters {
  readonly requests: { ok: number; failed: number };
  readonly items: { ok: number; retry: number; rejected: number; skipped: number };
  lastSuccessAt?: number;
  lastErrorAt?: number;
  lastError?: string;
}

export interface PushWorkerStatus extends PushWorkerCounters {
  readonly channel: PushChannel;
  readonly pending: number;
  /** Age of the oldest pending row at `now`; absent when none is pending. */
  readonly oldestPendingAgeS?: number;
  readonly paused: boolean;
  /** Items the channel refused for good since the outbox was created (all instances). */
  readonly rejected: number;
  /** The outbox state (last success and error of any instance, quota, reconciliation), newest first. */
  readonly state: PushChannelState;
}

export interface PushWorker {
  /** One round: how long to wait before the next (0: go on at once). The loop is `start`; tests call this. */
  step(): Promise<number>;
  start(): void;
  /** Ends a wait early: the deriver enqueued something (the outbox is otherwise polled every `idleMs`). */
  wake(): void;
  /** Ends the loop after the request in flight is answered (its outcomes are recorded). */
  stop(): Promise<void>;
  status(): Promise<PushWorkerStatus>;
  /**
   * A channel error found outside a send (a Meta batch check): the last error, and the last rejection when
   * `rejected` (an item dropped for good; else its items were enqueued again).
   */
  noteError(message: string, rejected: boolean): void;
}

function newCounters(): PushWorkerCounters {
  return { requests: { ok: 0, failed: 0 }, items: { ok: 0, retry: 0, rejected: 0, skipped: 0 } };
}

/** A push error as it is stored and shown: at most `PUSH_ERROR_MAX` code points (never half a surrogate pair). */
export const cutPushError = (message: string): string => truncateText(message, PUSH_ERROR_MAX);

/**
 * Claimed rows to batch items; rows that send nothing (skipped) are acked at once. A row whose payload cannot
 * be built (the builder throws: an amount out of range, a name the channel cannot take) is rejected alone with
 * the error's message (`unbuildable`): left leased, it would come due again first, forever, and hold the
 * channel's whole batch back with it.
 */
async function prepare<Payload>(
  deps: PushWorkerDeps<Payload>,
  rows: readonly ClaimedRow[],
  counters: PushWorkerCounters,
  unbuildable: (message: string) => void,
) {
  const snapshot = deps.current();
  const batch: PushBatchItem<Payload>[] = [];
  // A payload read through the feed's template costs ~0.1 ms: 3,000 of them are built in slices that yield.
  const slicer = createSlicer();
  for (const row of rows) {
    await slicer.next();
    let result: PayloadResult<Payload>;
    try {
      result = deps.buildPayload(row, snapshot);
    } catch (error) {
      const message = cutPushError(`payload not built: ${error instanceof Error ? error.message : String(error)}`);
      counters.items.rejected += 1;
      await deps.outbox.reject(deps.channel, row.target, row.gen, message);
      deps.logger.warn({ channel: deps.channel, target: row.target, error: message }, 'push: an update was dropped');
      unbuildable(message);
      continue;
    }
    if (result.kind === 'send') {
      batch.push({ target: row.target, gen: row.gen, payload: result.payload });
      continue;
    }
    counters.items.skipped += 1;
    await deps.outbox.ack(deps.channel, row.target, row.gen);
  }
  return batch;
}

async function settle<Payload>(
  deps: PushWorkerDeps<Payload>,
  rows: ReadonlyMap<string, ClaimedRow>,
  outcomes: readonly PushTargetOutcome[],
  counters: PushWorkerCounters,
  now: number,
): Promise<BatchResult> {
  let error: BatchResult['error'];
  let rejected: string | undefined;
  let retrying = false;
  const lags: number[] = [];
  // One jitter draw per answer: it spreads requests apart, not the rows of one refused request, which would
  // otherwise come due at scattered times and go out as many small requests (more calls against the quota).
  const draw = deps.random();
  for (const { target, gen, outcome } of outcomes) {
    if (outcome.kind === 'ok') {
      counters.items.ok += 1;
      const since = rows.get(target)?.sinceMs;
      if (since !== undefined) lags.push(Math.max(0, now - since));
      await deps.outbox.ack(deps.channel, target, gen);
    } else if (outcome.kind === 'rejected') {
      counters.items.rejected += 1;
      rejected = cutPushError(outcome.message);
      error = { message: rejected, ...(outcome.cause === undefined ? {} : { cause: outcome.cause }) };
      await deps.outbox.reject(deps.channel, target, gen, rejected);
    } else {
      counters.items.retry += 1;
      retrying = true;
      error = {
        message: cutPushError(outcome.message ?? 'retry'),
        ...(outcome.cause === undefined ? {} : { cause: outcome.cause }),
      };
      const attempts = (rows.get(target)?.attempts ?? 0) + 1;
      const delay = pushRetryDelayMs(attempts, () => draw, deps.maxBackoffMs, outcome.afterMs);
      // The channel's Retry-After holds for the whole channel, not only for this target.
      if (outcome.afterMs !== undefined) deps.pacer.closeUntil(now + outcome.afterMs);
      await deps.outbox.retry(deps.channel, target, gen, now + delay, error.message);
    }
  }
  if (lags.length > 0) deps.onDelivered?.(lags);
  const result: BatchResult = {
    delivered: lags.length > 0 || (outcomes.length > 0 && error === undefined),
    ...(error === undefined ? {} : { error }),
    ...(rejected === undefined ? {} : { rejected }),
    retrying,
  };
  record(counters, result, now);
  return result;
}

/** This process's counters (the requests and items since start; `/metrics` counts them). */
function record(counters: PushWorkerCounters, result: BatchResult, now: number) {
  if (result.error === undefined) {
    counters.requests.ok += 1;
    counters.lastSuccessAt = now;
    return;
  }
  counters.requests.failed += 1;
  counters.lastErrorAt = now;
  counters.lastError = result.error.message;
}

const msOf = (iso: string | undefined): number | undefined => {
  const ms = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
};

/** The status's last success and error from the (shared) state rather than this process's counters. */
function fromState(state: PushChannelState): Pick<PushWorkerCounters, 'lastSuccessAt' | 'lastErrorAt' | 'lastError'> {
  const lastSuccessAt = msOf(state.lastSuccessAt);
  const lastErrorAt = msOf(state.lastErrorAt);
  return {
    ...(lastSuccessAt === undefined ? {} : { lastSuccessAt }),
    ...(lastErrorAt === undefined ? {} : { lastErrorAt }),
    ...(state.lastError === undefined ? {} : { lastError: state.lastError }),
  };
}

/** One line per request the channel did not fully take, so a refused token shows in the log (messages are redacted). */
function logFailures<Payload>(deps: PushWorkerDeps<Payload>, items: number, outcomes: readonly PushTargetOutcome[]): void {
  const failed = outcomes.filter(({ outcome }) => outcome.kind !== 'ok');
  const first = failed[0]?.outcome;
  if (first === undefined) return;
  const message = first.kind === 'ok' ? undefined : cutPushError(first.message ?? first.kind);
  deps.logger.warn(
    { channel: deps.channel, items, failed: failed.length, outcome: first.kind, error: message },
    'push: the channel did not take every update',
  );
}

export function createPushWorker<Payload>(deps: PushWorkerDeps<Payload>): PushWorker {
  const counters = newCounters();
  const recorder: PushStateRecorder = createPushStateRecorder(deps.outbox, deps.channel, deps.stateWriteMs);
  const abort = new AbortController();
  // One controller per wait, so `wake` ends a wait without ending the loop.
  let nap = new AbortController();
  abort.signal.addEventListener('abort', () => nap.abort(), { once: true });
  let loop: Promise<void> | undefined;

  /** An error found outside a send: the last error, and the last rejection when an item was dropped for good. */
  function noteError(message: string, rejected: boolean): void {
    const now = deps.now();
    const text = cutPushError(message);
    counters.lastErrorAt = now;
    counters.lastError = text;
    // Written with the next round's state (the recorder), as a send's outcome would be.
    recorder.note(
      {
        delivered: false,
        error: { message: text, cause: 'invalid' },
        retrying: !rejected,
        ...(rejected ? { rejected: text } : {}),
      },
      now,
    );
  }

  async function send(rows: readonly ClaimedRow[]): Promise<void> {
    const batch = await prepare(deps, rows, counters, (message) => noteError(message, true));
    if (batch.length === 0) return;
    let outcomes: readonly PushTargetOutcome[];
    try {
      outcomes = await deps.client.send(batch);
    } catch (error) {
      // A client must not throw for a channel's answer; a bug still must not lose the rows: retry them.
      const message = error instanceof Error ? error.message : String(error);
      outcomes = batch.map(({ target, gen }) => ({ target, gen, outcome: { kind: 'retry', message } }));
    }
    // Retry-After counts from the answer, not from the claim.
    const answeredAt = deps.now();
    const result = await settle(deps, new Map(rows.map((row) => [row.target, row])), outcomes, counters, answeredAt);
    recorder.note(result, answeredAt);
    logFailures(deps, batch.length, outcomes);
  }

  async function step(): Promise<number> {
    await recorder.flushIfDue(deps.now());
    if (deps.isLeader?.() === false || (await deps.outbox.paused(deps.channel))) return deps.idleMs;
    // No version served (the start sync failed and no stored catalog): every row would read as a removed
    // item (a DELETE) or be skipped and acked (lost). Nothing is claimed until a version is served.
    if (deps.current() === undefined) return deps.idleMs;
    const now = deps.now();
    const at = deps.pacer.nextAvailableAt(now);
    if (at === undefined) return deps.idleMs;
    if (at > now) return at - now;
    const rows = await deps.outbox.claim(deps.channel, now, deps.batchSize, deps.leaseMs, deps.fence?.());
    if (rows.length === 0) return deps.idleMs;
    if (!deps.pacer.tryTake(now)) return 0;
    try {
      await send(rows);
    } finally {
      deps.pacer.release();
    }
    await recorder.flushIfDue(deps.now());
    return 0;
  }

  async function run(): Promise<void> {
    while (!abort.signal.aborted) {
      let wait: number;
      try {
        wait = await step();
      } catch (error) {
        // The outbox failed (store down): rows stay leased and come due again; try again later.
        deps.logger.error({ err: error, channel: deps.channel }, 'push: delivery round failed');
        wait = deps.idleMs;
      }
      if (wait > 0 && !abort.signal.aborted && !nap.signal.aborted) await deps.sleep(wait, nap.signal);
      if (!abort.signal.aborted) nap = new AbortController();
    }
  }

  return {
    step,
    start() {
      loop ??= run();
    },
    wake() {
      nap.abort();
    },
    async stop() {
      abort.abort();
      await loop;
      await recorder.flush().catch((error: unknown) => {
        deps.logger.warn({ err: error, channel: deps.channel }, 'push: writing the last status failed');
      });
    },
    noteError,

    async status() {
      const stats = await deps.outbox.stats(deps.channel);
      const paused = await deps.outbox.paused(deps.channel);
      const state = await recorder.view();
      return {
        ...counters,
        ...fromState(state),
        rejected: stats.rejected,
        state,
        channel: deps.channel,
        pending: stats.pending,
        ...(stats.oldestSinceMs === undefined
          ? {}
          : { oldestPendingAgeS: Math.max(0, (deps.now() - stats.oldestSinceMs) / 1000) }),
        paused,
        requests: { ...counters.requests },
        items: { ...counters.items },
      };
    },
  };
}
