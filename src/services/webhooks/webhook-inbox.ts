/**
 * The webhook inbox port: accepted POS events kept durably until processed (docs/webhooks.md). Implemented
 * on SQLite (`adapters/store/sqlite-webhook-inbox.ts`), keyv and, shared by a group, Redis.
 */

/** One accepted webhook event, as stored until it has been processed. */
export interface InboxEntry<Event> {
  /** Derived from the event's dedupe key: the same event always has the same id. */
  readonly id: string;
  readonly dedupeKey: string;
  readonly receivedAt: string;
  readonly event: Event;
  /** The id of the source (POS) it was accepted for; absent in events accepted before sources were recorded. */
  readonly source?: string;
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
  /** Every stored, not yet completed event of this source, oldest first (after a restart: what is left to do). */
  pending(): Promise<InboxEntry<Event>[]>;
  /**
   * Removes the events accepted for another source (or before sources were recorded): they must never be
   * applied to this source's catalog. Returns how many there were.
   */
  discardForeign(): Promise<number>;
  /** Removes processed events; their dedupe keys stay for the dedupe window. */
  complete(ids: readonly string[]): Promise<void>;
  close(): Promise<void>;
  /**
   * Present when several instances share the inbox (Redis): events are then handed out by the group, not
   * processed by the instance that accepted them, and `pending()` is empty.
   */
  readonly shared?: SharedInbox<Event>;
}

/** How a shared inbox hands events to this instance (docs/scale-out.md). */
export interface SharedInbox<Event> {
  /**
   * Starts handing this instance its share of the events (and those a dead instance left, once they have
   * waited past the claim timeout) until the inbox is closed.
   */
  consume(deliver: (entries: readonly InboxEntry<Event>[]) => void): void;
  stats(): Promise<SharedInboxStats>;
}

export interface SharedInboxStats {
  /** Events in the inbox: accepted and not yet completed by any instance. */
  readonly depth: number;
  /** Of those, handed to an instance and not completed yet. */
  readonly pending: number;
  /** Events this instance took over from another since it started. */
  readonly claimed: number;
}
