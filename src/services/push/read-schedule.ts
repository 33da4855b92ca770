import { setTimeout as delay } from 'node:timers/promises';
import type { ServiceLogger as Logger } from '../logging/service-logger.js';

/**
 * When a channel's verdicts are read back and followed (docs/channel-push.md, "Google's verdicts" and "Meta's
 * verdicts"): the leader reads a while after the start and then every interval; every instance takes what
 * the store holds every `followMs`, so the followers of a group show what the leader read.
 */
export interface ReadSchedule {
  readonly isLeader: () => boolean;
  /** How often the channel is read. */
  readonly intervalMs: number;
  /** The first read after the start. */
  readonly firstDelayMs: number;
  /** How often an instance takes the verdicts from the store. */
  readonly followMs: number;
  readonly now: () => number;
  readonly logger: Logger;
}

/** Starts the reads and the follows until `signal` aborts; `read` and `follow` report their own failures. */
export function startReadSchedule(
  schedule: ReadSchedule,
  signal: AbortSignal,
  read: () => Promise<unknown>,
  follow: () => Promise<void>,
): void {
  void follow().catch(() => undefined);
  const following = setInterval(() => void follow().catch(() => undefined), schedule.followMs).unref();
  signal.addEventListener('abort', () => clearInterval(following), { once: true });
  const loop = async () => {
    await delay(schedule.firstDelayMs, undefined, { signal, ref: false });
    while (!signal.aborted) {
      await read().catch((error: unknown) => schedule.logger.warn({ err: error }, 'push: a read of verdicts failed'));
      await delay(schedule.intervalMs, undefined, { signal, ref: false });
    }
  };
  void loop().catch(() => undefined);
}
