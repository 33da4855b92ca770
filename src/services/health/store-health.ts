import { withTimeout } from '../../core/async/deadline.js';

/**
 * The store watched (docs/failure-modes.md): a cheap probe every few seconds, with a deadline, tells
 * whether the store answers. An outage is logged once when it begins and once when it ends, shown by
 * `/readyz` and counted in the metrics; meanwhile feeds are served from memory, webhooks that cannot be
 * stored answer `503` and admin syncs are refused. When the store answers again without the catalog
 * (a Redis restarted without persistence), the served catalog is written back at once.
 */

export interface StoreState {
  readonly up: boolean;
  /** When the store last changed state (ISO 8601). */
  readonly since: string;
  /** Why the last probe failed, while the store is down. */
  readonly reason?: string;
}

export interface StoreHealth {
  state(): StoreState;
  /** Starts the periodic probe. */
  start(): void;
  stop(): void;
  /** One probe now (also what the periodic timer runs); settles when its consequences are handled. */
  check(): Promise<StoreState>;
}

export interface StoreHealthDeps {
  /** Where the store is, without credentials (for log lines). */
  readonly location: string;
  /**
   * A cheap read of the store: whether it still holds what the bridge wrote (its mark). Rejects when the
   * store does not answer.
   */
  readonly probe: () => Promise<boolean>;
  /** Whether a catalog is served, which the store should then hold. */
  readonly serving: () => boolean;
  /** Writes the served catalog (if any) and the mark back to a store that lost them. */
  readonly writeBack: () => Promise<void>;
  /** Whether this instance writes back (in a group only the leader does; the others wait for its mark). */
  readonly mayWriteBack?: () => boolean;
  readonly logger: {
    info(meta: object, message: string): void;
    warn(meta: object, message: string): void;
    error(meta: object, message: string): void;
  };
  readonly onChange?: (state: StoreState) => void;
  readonly now: () => Date;
  readonly intervalMs?: number;
  readonly timeoutMs?: number;
}

export const STORE_PROBE_INTERVAL_MS = 2_000;
export const STORE_PROBE_TIMEOUT_MS = 2_000;

export function createStoreHealth(deps: StoreHealthDeps): StoreHealth {
  const intervalMs = deps.intervalMs ?? STORE_PROBE_INTERVAL_MS;
  const timeoutMs = deps.timeoutMs ?? STORE_PROBE_TIMEOUT_MS;
  let state: StoreState = { up: true, since: deps.now().toISOString() };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<StoreState> | undefined;
  let writeBackFailures = 0;
  let nextWriteBack = 0;

  function change(next: StoreState): void {
    state = next;
    deps.onChange?.(next);
  }

  async function probeOnce(): Promise<StoreState> {
    /** Whether the store still holds what the bridge wrote. */
    let holdsCatalog: boolean;
    try {
      holdsCatalog = await withTimeout(deps.probe(), timeoutMs, 'the store probe');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (state.up) {
        deps.logger.error(
          { store: deps.location, reason },
          'the store does not answer: serving the catalog from memory, webhooks answer 503 until it is back',
        );
        change({ up: false, since: deps.now().toISOString(), reason });
      } else if (state.reason !== reason) {
        state = { ...state, reason };
      }
      return state;
    }
    if (!state.up) {
      const downMs = deps.now().getTime() - Date.parse(state.since);
      deps.logger.info({ store: deps.location, downMs }, 'the store answers again');
      change({ up: true, since: deps.now().toISOString() });
    }
    if (!holdsCatalog && (deps.mayWriteBack?.() ?? true) && Date.now() >= nextWriteBack) {
      const serving = deps.serving();
      if (serving) deps.logger.warn({ store: deps.location }, 'the store lost the catalog (restarted empty?): writing it back');
      try {
        await deps.writeBack();
        writeBackFailures = 0;
        if (serving) deps.logger.info({ store: deps.location }, 'the catalog is in the store again');
      } catch (error) {
        // A store that takes no writes (out of memory, a full disk) is not rewritten every 2 s.
        writeBackFailures += 1;
        const delayMs = Math.min(intervalMs * 2 ** writeBackFailures, 60_000);
        nextWriteBack = Date.now() + delayMs;
        deps.logger.error({ store: deps.location, err: error, retryInMs: delayMs }, 'could not write the catalog back');
      }
    }
    return state;
  }

  function check(): Promise<StoreState> {
    running ??= probeOnce().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    state: () => state,
    start() {
      if (timer !== undefined) return;
      timer = setInterval(() => void check(), intervalMs);
      timer.unref();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
    check,
  };
}

/**
 * At start: waits until the store answers, with one log line per failed attempt naming the store and the
 * reason (never a silent wait), trying again every `retryMs`.
 */
export async function waitForStore(deps: {
  readonly location: string;
  readonly probe: () => Promise<unknown>;
  readonly logger: StoreHealthDeps['logger'];
  readonly timeoutMs?: number;
  readonly retryMs?: number;
}): Promise<void> {
  const timeoutMs = deps.timeoutMs ?? 5_000;
  const retryMs = deps.retryMs ?? 5_000;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await withTimeout(deps.probe(), timeoutMs, 'connecting to the store');
      if (attempt > 1) deps.logger.info({ store: deps.location, attempts: attempt }, 'the store answers; starting');
      return;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      deps.logger.error(
        { store: deps.location, attempt, reason, retryInMs: retryMs },
        `cannot reach the store at ${deps.location}; trying again in ${retryMs / 1000} s`,
      );
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }
}
