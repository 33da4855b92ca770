import { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms`, or less when `signal` aborts (a stop); never rejects. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}
