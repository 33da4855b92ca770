import { createHash } from 'node:crypto';

/** How accepted webhook events are keyed in every inbox adapter: their id and how long a dedupe key is kept. */

/** How long a delivered event's key is remembered to drop repeated deliveries, by default. */
export const DEFAULT_DEDUPE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Derived from the source and the event's dedupe key: the same event always has the same id, and another
 * POS's receipt with the same key is another event.
 */
export function inboxIdOf(source: string, dedupeKey: string): string {
  return createHash('sha256').update(`${source}\n${dedupeKey}`).digest('hex').slice(0, 32);
}
