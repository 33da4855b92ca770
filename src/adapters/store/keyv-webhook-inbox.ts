import { createHash } from 'node:crypto';
import type { Keyv } from 'keyv';

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

export interface KeyvWebhookInboxOptions {
  /** How long a delivered event's key is remembered to drop repeated deliveries. Default 7 days. */
  readonly dedupeTtlMs?: number;
}

const EVENT_PREFIX = 'event:';
const SEEN_PREFIX = 'seen:';

function idOf(dedupeKey: string): string {
  return createHash('sha256').update(dedupeKey).digest('hex').slice(0, 32);
}

/**
 * The webhook inbox (docs/webhooks.md) on keyv: `event:{id}` holds an accepted event until it is processed,
 * `seen:{id}` (with a TTL) remembers that it was accepted. Give it a keyv of its own (namespace, and for
 * SQLite a table of its own: `pending()` iterates over the keyv, which must not mean over the catalog).
 *
 * Order of writes: the event, then its `seen` mark. A crash between the two leaves a stored event without
 * a mark; a repeated delivery then stores the same key again, harmlessly. Two deliveries of one event at
 * the same moment are told apart in-process; on two instances sharing Redis they could both be accepted
 * (keyv has no atomic "set if absent"), and the sale's movements would be applied twice until the
 * re-read of its unit that follows every sale puts the stock right.
 */
export function createKeyvWebhookInbox<Event>(
  keyv: Keyv,
  options: KeyvWebhookInboxOptions & {
    /** Where the dedupe marks live; default `keyv`. A keyv of their own keeps `pending()` from listing a week of them. */
    readonly seen?: Keyv;
  } = {},
): WebhookInbox<Event> {
  const ttl = options.dedupeTtlMs ?? 7 * 24 * 60 * 60 * 1000;
  const seen = options.seen ?? keyv;
  /** Ids being accepted right now in this process: a second delivery meanwhile is a duplicate. */
  const accepting = new Set<string>();
  return {
    async accept(dedupeKey, event, receivedAt) {
      const id = idOf(dedupeKey);
      const entry: InboxEntry<Event> = { id, dedupeKey, receivedAt: receivedAt.toISOString(), event };
      if (accepting.has(id)) return { entry, duplicate: true };
      accepting.add(id);
      try {
        if ((await seen.get(`${SEEN_PREFIX}${id}`)) !== undefined) return { entry, duplicate: true };
        await keyv.set(`${EVENT_PREFIX}${id}`, entry);
        await seen.set(`${SEEN_PREFIX}${id}`, receivedAt.getTime(), ttl);
        return { entry, duplicate: false };
      } finally {
        accepting.delete(id);
      }
    },

    async pending() {
      if (keyv.iterator === undefined) throw new Error('the webhook inbox needs a keyv store that can list its keys');
      const entries: InboxEntry<Event>[] = [];
      for await (const [key, value] of keyv.iterator(undefined)) {
        if (typeof key !== 'string' || !key.includes(EVENT_PREFIX) || !isEntry(value)) continue;
        entries.push(value as InboxEntry<Event>);
      }
      return entries.sort((a, b) => a.receivedAt.localeCompare(b.receivedAt) || a.id.localeCompare(b.id));
    },

    async complete(ids) {
      if (ids.length > 0) await keyv.deleteMany(ids.map((id) => `${EVENT_PREFIX}${id}`));
    },

    async close() {
      await keyv.disconnect();
      if (seen !== keyv) await seen.disconnect();
    },
  };
}

function isEntry(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return typeof entry['id'] === 'string' && typeof entry['receivedAt'] === 'string' && 'event' in entry;
}
