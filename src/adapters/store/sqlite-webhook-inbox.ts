import type sqlite3 from 'sqlite3';
import type { InboxEntry, WebhookInbox } from '../../services/webhooks/webhook-inbox.js';
import { DEFAULT_DEDUPE_TTL_MS, inboxIdOf } from './inbox-ids.js';
import { migrateKeyvInbox } from './migrate-keyv-inbox.js';
import { all, exec, openSqliteFile, run } from './sqlite-calls.js';

export interface SqliteWebhookInboxOptions {
  /** The id of the source (POS) whose events this inbox accepts and lists. */
  readonly source: string;
  /** How long an accepted event's id is kept to drop repeated deliveries (from its receipt). */
  readonly dedupeTtlMs?: number;
  /** Clock for the dedupe window (tests). */
  readonly now?: () => number;
}

interface Waiting<Event> {
  readonly entry: InboxEntry<Event>;
  readonly resolve: (result: { readonly entry: InboxEntry<Event>; readonly duplicate: boolean }) => void;
  readonly reject: (error: unknown) => void;
}

interface EventRow {
  readonly id: string;
  readonly dedupe_key: string;
  readonly received_at: string;
  readonly event: string;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS webhook_events (
    id TEXT PRIMARY KEY,
    source TEXT,
    dedupe_key TEXT NOT NULL,
    received_at TEXT NOT NULL,
    received_ms INTEGER NOT NULL,
    event TEXT,
    completed_ms INTEGER
  );
  CREATE INDEX IF NOT EXISTS webhook_events_pending ON webhook_events (source, received_at, id) WHERE completed_ms IS NULL;
  CREATE INDEX IF NOT EXISTS webhook_events_received ON webhook_events (received_ms);`;

/**
 * Accepts of one batch in one statement: an id already present is left alone (the same event accepted
 * before), unless it was processed and its dedupe window has passed (`?2`), and `RETURNING` names the rows
 * written. One statement is one transaction, so one sync to disk covers the whole batch.
 */
const INSERT_BATCH = `
  INSERT INTO webhook_events (id, source, dedupe_key, received_at, received_ms, event)
  SELECT json_extract(value, '$.id'), ?3, json_extract(value, '$.key'), json_extract(value, '$.at'),
         json_extract(value, '$.ms'), json_extract(value, '$.event')
  FROM json_each(?1) WHERE true
  ON CONFLICT (id) DO UPDATE SET
    source = excluded.source, dedupe_key = excluded.dedupe_key, received_at = excluded.received_at, received_ms = excluded.received_ms,
    event = excluded.event, completed_ms = NULL
  WHERE webhook_events.completed_ms IS NOT NULL AND webhook_events.received_ms < ?2
  RETURNING id`;

/** How often completed events past the dedupe window are deleted. */
const PURGE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The webhook inbox in a SQLite file of its own, through SQLite's own statements rather than keyv:
 * accepting an event is "insert unless present", atomic in one statement, and accepts that arrive while
 * one is being written are **group-committed**: the next statement takes all of them. A webhook's accept
 * must be synced to disk before its `200` (`synchronous=FULL`); at 50 sales a second, with a catalog
 * being written to the same disk, three separate synced keyv writes per event took 30-50 ms each and
 * deliveries queued up (decision 0006). Processed events keep their row (without the body) until the
 * dedupe window has passed, so a late redelivery is still recognised.
 *
 * Only one process may use the file (the single-instance SQLite default); instances sharing a store use
 * Redis.
 */
export function openSqliteWebhookInbox<Event>(path: string, options: SqliteWebhookInboxOptions): WebhookInbox<Event> {
  const { source } = options;
  const ttl = options.dedupeTtlMs ?? DEFAULT_DEDUPE_TTL_MS;
  const now = options.now ?? Date.now;
  const ready = open(path);
  let queue: Waiting<Event>[] = [];
  let writing: Promise<void> | undefined;
  let closed = false;

  const purgeTimer = setInterval(() => void purge().catch(() => undefined), PURGE_INTERVAL_MS);
  purgeTimer.unref();

  async function purge(): Promise<void> {
    const db = await ready;
    await run(db, 'DELETE FROM webhook_events WHERE completed_ms IS NOT NULL AND received_ms < ?', [now() - ttl]);
  }

  /** Writes everything queued, then whatever arrived meanwhile, one statement per round. */
  function drain(): Promise<void> {
    writing ??= (async () => {
      try {
        while (queue.length > 0) {
          const batch = queue;
          queue = [];
          await writeBatch(batch);
        }
      } finally {
        writing = undefined;
      }
    })();
    return writing;
  }

  async function writeBatch(batch: readonly Waiting<Event>[]): Promise<void> {
    // The first of several deliveries of one event in a batch is the one written; the rest are duplicates.
    const firsts = new Map<string, Waiting<Event>>();
    for (const waiting of batch) if (!firsts.has(waiting.entry.id)) firsts.set(waiting.entry.id, waiting);
    const rows = [...firsts.values()].map(({ entry }) => ({
      id: entry.id,
      key: entry.dedupeKey,
      at: entry.receivedAt,
      ms: Date.parse(entry.receivedAt),
      event: JSON.stringify(entry.event),
    }));
    let inserted: Set<string>;
    try {
      const db = await ready;
      const returned = await all<{ id: string }>(db, INSERT_BATCH, [JSON.stringify(rows), now() - ttl, source]);
      inserted = new Set(returned.map((row) => row.id));
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    for (const waiting of batch) {
      const isFirst = firsts.get(waiting.entry.id) === waiting;
      waiting.resolve({ entry: waiting.entry, duplicate: !(isFirst && inserted.has(waiting.entry.id)) });
    }
  }

  return {
    accept(dedupeKey, event, receivedAt) {
      if (closed) return Promise.reject(new Error('the webhook inbox is closed'));
      const id = inboxIdOf(source, dedupeKey);
      const entry: InboxEntry<Event> = { id, dedupeKey, receivedAt: receivedAt.toISOString(), event, source };
      return new Promise((resolve, reject) => {
        queue.push({ entry, resolve, reject });
        void drain();
      });
    },

    async pending() {
      const db = await ready;
      const rows = await all<EventRow>(
        db,
        'SELECT id, dedupe_key, received_at, event FROM webhook_events WHERE source = ? AND completed_ms IS NULL ORDER BY received_at, id',
        [source],
      );
      return rows.map((row) => ({
        id: row.id,
        dedupeKey: row.dedupe_key,
        receivedAt: row.received_at,
        event: JSON.parse(row.event) as Event,
        source,
      }));
    },

    async discardForeign() {
      const db = await ready;
      const removed = await all<{ id: string }>(
        db,
        'DELETE FROM webhook_events WHERE completed_ms IS NULL AND (source IS NULL OR source <> ?) RETURNING id',
        [source],
      );
      return removed.length;
    },

    async complete(ids) {
      if (ids.length === 0) return;
      const db = await ready;
      await run(
        db,
        'UPDATE webhook_events SET event = NULL, completed_ms = ? WHERE id IN (SELECT value FROM json_each(?)) AND completed_ms IS NULL',
        [now(), JSON.stringify(ids)],
      );
    },

    async close() {
      closed = true;
      clearInterval(purgeTimer);
      await writing;
      const db = await ready.catch(() => undefined);
      if (db !== undefined)
        await new Promise<void>((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

async function open(path: string): Promise<sqlite3.Database> {
  const db = await openSqliteFile(path);
  // WAL with FULL: every committed accept is on disk before its 200 (a crash of the machine loses none).
  await exec(db, `PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; ${SCHEMA}`);
  await migrateKeyvInbox({ exec: (sql) => exec(db, sql), all: (sql, params) => all(db, sql, params) });
  return db;
}
