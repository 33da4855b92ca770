import { setTimeout as delay } from 'node:timers/promises';
import { abortableSleep } from '../../core/async/abortable-sleep.js';
import { mapLimit } from '../../core/async/map-limit.js';
import type { ChannelClient, PushTargetOutcome } from '../../core/push/channel-client.js';
import type { GoogleDataSourceKind } from '../../core/push/google-data-source.js';
import {
  callLimitsOf,
  GOOGLE_DEFAULT_CALLS_PER_MINUTE,
  GOOGLE_MAX_CONCURRENT,
  type GoogleQuotaPlan,
  isDailyQuotaMessage,
  planQuota,
} from '../../core/push/google-quota.js';
import { createPacer, nextMiddayUtc } from '../../core/push/pacer.js';
import type { GooglePayload } from '../../core/push/target-payloads.js';
import type { ServiceLogger as Logger } from '../logging/service-logger.js';
import type { DataSourceRead, GoogleAccountReads, QuotaRead } from './google-account-port.js';
import type { PushChannelStatus } from './push-status.js';

/**
 * The Google channel's own state around its worker (docs/channel-push.md, Google; decision 0013, "Google
 * Merchant API v1"): the data source check before the first send, the quota read at start and every
 * GOOGLE_QUOTA_REFRESH_MS, per-call pacing at 80 % of the busiest method's per-minute limit, and the daily
 * close until 12:00 UTC. The worker sees it as a gate (`open`): while closed it claims nothing, so updates
 * wait in the outbox (never dropped) and are sent once it opens.
 */

/** A delivery round holds about this many seconds of calls at the paced rate (well inside the claim's lease). */
const ROUND_SECONDS = 10;
/** Most calls in one round (decision 0013, "Batching"). */
export const GOOGLE_MAX_ROUND = 100;
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 5 * 60_000;

export interface GoogleChannelDeps {
  readonly client: ChannelClient<GooglePayload>;
  /** `undefined` in dry run: nothing is read from Google, the source counts as primary. */
  readonly reads: GoogleAccountReads | undefined;
  readonly dataSourceName: string;
  readonly refreshMs: number;
  readonly now: () => number;
  readonly logger: Logger;
  /**
   * Whether this instance leads its group (single instance: always). A follower reads nothing from Google, so
   * it spends none of the account's quota; a new leader reads the quotas (and the data source, if unknown)
   * before its first send.
   */
  readonly isLeader?: () => boolean;
}

export interface GoogleChannel {
  /** The paced client the worker sends through: calls wait for the pacer, at most 10 in flight. */
  readonly client: ChannelClient<GooglePayload>;
  /** The data source's kind (for the payload builder); `primary` until known (nothing is sent before). */
  dataSource(): GoogleDataSourceKind;
  /** Whether the worker may claim and send now (never on a follower). */
  open(): boolean;
  /** The day's quota as last read (`undefined` before the first answer): the reconciliation's budget. */
  quota(): { readonly used: number; readonly limit: number } | undefined;
  /** Calls in the next round: ~10 s at the paced rate, 1 to 100. */
  roundSize(): number;
  /** What `/readyz` adds to the worker's status: the quota, and a data source problem as the last error. */
  status(): Partial<PushChannelStatus>;
  /**
   * A read of the account (the verdicts' `products.list`) in turn with the sends: it waits for the pacer, so
   * reads and sends together stay within the quota. `undefined` while the day's quota is spent.
   */
  paced<T>(call: () => Promise<T>): Promise<T | undefined>;
  start(): void;
  stop(): Promise<void>;
}

export function createGoogleChannel(deps: GoogleChannelDeps): GoogleChannel {
  const { now, logger: log } = deps;
  const pacer = createPacer(callLimitsOf(GOOGLE_DEFAULT_CALLS_PER_MINUTE), now());
  const abort = new AbortController();
  let kind: GoogleDataSourceKind | undefined = deps.reads === undefined ? 'primary' : undefined;
  let sourceProblem: { message: string; at: number } | undefined;
  let plan: GoogleQuotaPlan | undefined;
  let dailyUntil: number | undefined;
  // The first quota read (answered or failed) comes before the first send: the first round is paced by it.
  let quotasRead = deps.reads === undefined;
  let timer: NodeJS.Timeout | undefined;
  const isLeader = deps.isLeader ?? (() => true);
  // Leadership as last seen by `open`: on taking the lead the quotas are read again before anything is sent.
  let leading = false;

  const closeDaily = (until: number, why: string) => {
    if (dailyUntil === undefined)
      log.warn({ until: new Date(until).toISOString(), why }, 'push: Google daily quota spent; waiting');
    dailyUntil = until;
  };

  async function readQuotas(): Promise<void> {
    if (deps.reads === undefined) return;
    const read: QuotaRead = await deps.reads.quotas();
    quotasRead = true;
    if ('problem' in read) {
      log.warn({ problem: read.problem }, 'push: Google quotas not read; pacing as before');
      return;
    }
    plan = planQuota(read.groups, now());
    pacer.setLimits(plan.callLimits, now());
    if (plan.closedUntil !== undefined) closeDaily(plan.closedUntil, 'quota usage reached the daily limit');
    else if (dailyUntil !== undefined) {
      log.info({}, 'push: Google daily quota available again');
      dailyUntil = undefined;
    }
  }

  /** Reads the data source until its kind is known or it is found unusable; network failures back off. */
  async function checkDataSource(): Promise<void> {
    if (deps.reads === undefined) return;
    for (let wait = RETRY_FIRST_MS; !abort.signal.aborted; wait = Math.min(wait * 2, RETRY_MAX_MS)) {
      const read: DataSourceRead = await deps.reads.dataSource();
      if ('kind' in read) {
        if (sourceProblem !== undefined) log.info({ dataSource: deps.dataSourceName }, 'push: Google data source usable again');
        kind = read.kind;
        sourceProblem = undefined;
        log.info({ dataSource: deps.dataSourceName, kind }, 'push: Google data source checked');
        return;
      }
      sourceProblem = { message: read.problem, at: now() };
      if (!read.retry) {
        log.error({ dataSource: deps.dataSourceName }, `push: ${read.problem}`);
        return;
      }
      log.warn({ dataSource: deps.dataSourceName, retryInMs: wait }, `push: ${read.problem}; trying again`);
      await abortableSleep(wait, abort.signal);
    }
  }

  let refreshing = false;
  async function refresh(): Promise<void> {
    // Followers read nothing: every read is a call on the account's quota.
    if (refreshing || !isLeader()) return;
    refreshing = true;
    try {
      // A source found unusable is looked at again: an operator may fix it without a restart.
      if (kind === undefined) await checkDataSource();
      await readQuotas();
    } finally {
      refreshing = false;
    }
  }

  async function takeTurn(): Promise<void> {
    for (;;) {
      const at = now();
      if (pacer.tryTake(at)) return;
      const next = pacer.nextAvailableAt(at);
      await delay(next === undefined ? 50 : Math.max(1, next - at));
    }
  }

  async function sendOne(item: Parameters<ChannelClient<GooglePayload>['send']>[0][number]): Promise<PushTargetOutcome> {
    await takeTurn();
    try {
      const [outcome] = await deps.client.send([item]);
      if (outcome === undefined) return { target: item.target, gen: item.gen, outcome: { kind: 'retry', message: 'no answer' } };
      if (outcome.outcome.kind === 'retry' && isDailyQuotaMessage(outcome.outcome.message)) {
        closeDaily(nextMiddayUtc(now()), 'HTTP 429 daily limit');
      }
      return outcome;
    } finally {
      pacer.release();
    }
  }

  return {
    client: { channel: 'google', send: (batch) => mapLimit(batch, GOOGLE_MAX_CONCURRENT, sendOne) },
    dataSource: () => kind ?? 'primary',
    open() {
      if (!isLeader()) {
        leading = false;
        return false;
      }
      if (!leading && timer !== undefined && !abort.signal.aborted) {
        // Just took the lead (or started): the quota read of this term comes before its first send.
        leading = true;
        quotasRead = false;
        void refresh().catch((error: unknown) => log.warn({ err: error }, 'push: Google reads on taking the lead failed'));
      }
      if (kind === undefined || !quotasRead) return false;
      if (dailyUntil !== undefined && now() >= dailyUntil) dailyUntil = undefined;
      return dailyUntil === undefined;
    },
    roundSize() {
      const perSecond = plan?.callLimits.refillPerSecond ?? GOOGLE_DEFAULT_CALLS_PER_MINUTE / 60;
      return Math.min(GOOGLE_MAX_ROUND, Math.max(1, Math.floor(perSecond * ROUND_SECONDS)));
    },
    quota: () => (plan?.quota === undefined ? undefined : { used: plan.quota.used, limit: plan.quota.limit }),
    status() {
      const quota = plan?.quota;
      return {
        ...(quota === undefined ? {} : { quota: { used: quota.used, limit: quota.limit, resetAt: quota.resetAt } }),
        ...(sourceProblem === undefined
          ? {}
          : { lastError: sourceProblem.message, lastErrorAt: new Date(sourceProblem.at).toISOString() }),
      };
    },
    async paced(call) {
      if (dailyUntil !== undefined && now() < dailyUntil) return undefined;
      await takeTurn();
      try {
        return await call();
      } finally {
        pacer.release();
      }
    },
    start() {
      if (deps.reads === undefined || timer !== undefined || abort.signal.aborted) return;
      leading = isLeader();
      // A remote check must not stop the start: it runs in the background, the channel waits for it.
      void refresh().catch((error: unknown) => log.error({ err: error }, 'push: Google start-up reads failed'));
      timer = setInterval(() => {
        void refresh().catch((error: unknown) => log.warn({ err: error }, 'push: Google quota read failed'));
      }, deps.refreshMs).unref();
    },
    async stop() {
      abort.abort();
      clearInterval(timer);
    },
  };
}

/** The worker with the Google channel's reads started and stopped beside it. */
export function withGoogleChannel<W extends { start(): void; stop(): Promise<void> }>(worker: W, google: GoogleChannel): W {
  return {
    ...worker,
    start() {
      google.start();
      worker.start();
    },
    async stop() {
      await google.stop();
      await worker.stop();
    },
  };
}
