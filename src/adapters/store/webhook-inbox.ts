import { createHash } from 'node:crypto';

/** One accepted webhook event, as stored until it has been processed. */
export interface InboxEntry<Event> {
  /** Derived from the event's dedupe key: the same event always has the same id. */
  readonly id: string;
  readonly dedupeKey: string;
  readonly receivedAt: string;
  readonly event: Event;
}

export interface WebhookInbox<Event> {
  /**
   * Stores the event durably unless an event with the same dedupe key was accepted before (within the
   * dedupe window). Resolves once it is stored; rejects when the store fails (the POS should retry).
   */
  accept(
    dedupeKey: string,
    event: Event,
    receivedAt: Date,
  ): Promise<{ readonly entry: InboxEntry<Event>; readonly duplicate: boolean }>;
  /** Every stored, not yet completed event, oldest first (after a restart: what is left to do). */
  pending(): Promise<InboxEntry<Event>[]>;
  /** Removes processed events; their dedupe keys stay for the dedupe window. */
  complete(ids: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** How long a delivered event's key is remembered to drop repeated deliveries, by default. */
export const DEFAULT_DEDUPE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Derived from the event's dedupe key: the same event always has the same id. */
export function inboxIdOf(dedupeKey: string): string {
  return createHash('sha256').update(dedupeKey).digest('hex').slice(0, 32);
}
