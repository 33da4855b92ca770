import type { Keyv } from 'keyv';
import type { InboxEntry, WebhookInbox } from '../../services/webhooks/webhook-inbox.js';
import { DEFAULT_DEDUPE_TTL_MS, inboxIdOf } from './inbox-ids.js';

const EVENT_PREFIX = 'event:';
const SEEN_PREFIX = 'seen:';

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
  options: {
    /** The id of the source (POS) whose events this inbox accepts and lists. */
    readonly source: string;
    /** How long a delivered event's key is remembered to drop repeated deliveries. */
    readonly dedupeTtlMs?: number;
    /** Where the dedupe marks live; default `keyv`. A keyv of their own keeps `pending()` from listing a week of them. */
    readonly seen?: Keyv;
  },
): WebhookInbox<Event> {
  const { source } = options;
  const ttl = options.dedupeTtlMs ?? DEFAULT_DEDUPE_TTL_MS;
  const seen = options.seen ?? keyv;

  /** Every stored event, with its key. */
  async function* stored(): AsyncGenerator<{ readonly key: string; readonly entry: InboxEntry<Event> }> {
    if (keyv.iterator === undefined) throw new Error('the webhook inbox needs a keyv store that can list its keys');
    for await (const [key, value] of keyv.iterator(undefined)) {
      if (typeof key !== 'string' || !key.includes(EVENT_PREFIX) || !isEntry(value)) continue;
      yield { key, entry: value as InboxEntry<Event> };
    }
  }

  /** Ids being accepted right now in this process: a second delivery meanwhile is a duplicate. */
  const accepting = new Set<string>();
  return {
    async accept(dedupeKey, event, receivedAt) {
      const id = inboxIdOf(source, dedupeKey);
      const entry: InboxEntry<Event> = { id, dedupeKey, receivedAt: receivedAt.toISOString(), event, source };
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
      const entries: InboxEntry<Event>[] = [];
      for await (const { entry } of stored()) if (entry.source === source) entries.push(entry);
      return entries.sort((a, b) => a.receivedAt.localeCompare(b.receivedAt) || a.id.localeCompare(b.id));
    },

    async discardForeign() {
      const ids: string[] = [];
      for await (const { entry } of stored()) if (entry.source !== source) ids.push(entry.id);
      // One at a time, as `complete` names them: a few left by a switch of POS.
      for (const id of ids) await keyv.delete(`${EVENT_PREFIX}${id}`);
      return ids.length;
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
