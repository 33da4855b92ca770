/** The statements the migration needs from the inbox's connection. */
export interface MigrationConnection {
  exec(sql: string): Promise<void>;
  all<Row>(sql: string, params: readonly unknown[]): Promise<Row[]>;
}

/** Tables and key prefixes of the keyv-based SQLite inbox used before (same file, `catalog.inbox.sqlite`). */
const EVENTS_TABLE = 'webhook_inbox';
const SEEN_TABLE = 'webhook_seen';
const EVENT_KEY_PREFIX = 'catalog-bridge-inbox:event:';
const SEEN_KEY_PREFIX = 'catalog-bridge-seen:seen:';

/**
 * Moves what the keyv-based inbox left in the same file into `webhook_events`, in one transaction, then
 * drops its tables: events accepted and not processed before an upgrade stay pending (none is lost), and
 * the ids it remembered keep dropping repeated deliveries. keyv stored each value as JSON
 * `{"value": …, "expires": …}`: an `InboxEntry` for events (with its `source`, unless it was accepted
 * before sources were recorded: such events are discarded as foreign at start), the receipt time in ms for
 * dedupe marks.
 */
export async function migrateKeyvInbox(db: MigrationConnection): Promise<void> {
  const tables = await db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)", [
    EVENTS_TABLE,
    SEEN_TABLE,
  ]);
  const present = new Set(tables.map((table) => table.name));
  if (present.size === 0) return;
  const statements = ['BEGIN IMMEDIATE'];
  if (present.has(EVENTS_TABLE)) {
    statements.push(
      `INSERT INTO webhook_events (id, source, dedupe_key, received_at, received_ms, event)
       SELECT json_extract(value, '$.value.id'), json_extract(value, '$.value.source'), json_extract(value, '$.value.dedupeKey'),
              json_extract(value, '$.value.receivedAt'),
              CAST(unixepoch(json_extract(value, '$.value.receivedAt'), 'subsec') * 1000 AS INTEGER),
              json_extract(value, '$.value.event')
       FROM ${EVENTS_TABLE}
       WHERE key LIKE '${EVENT_KEY_PREFIX}%' AND json_valid(value) AND json_extract(value, '$.value.id') IS NOT NULL
       ON CONFLICT (id) DO NOTHING`,
      `DROP TABLE ${EVENTS_TABLE}`,
    );
  }
  if (present.has(SEEN_TABLE)) {
    statements.push(
      `INSERT INTO webhook_events (id, dedupe_key, received_at, received_ms, event, completed_ms)
       SELECT substr(key, ${SEEN_KEY_PREFIX.length + 1}), '',
              strftime('%Y-%m-%dT%H:%M:%fZ', json_extract(value, '$.value') / 1000.0, 'unixepoch'),
              json_extract(value, '$.value'), NULL, json_extract(value, '$.value')
       FROM ${SEEN_TABLE}
       WHERE key LIKE '${SEEN_KEY_PREFIX}%' AND json_valid(value) AND typeof(json_extract(value, '$.value')) = 'integer'
       ON CONFLICT (id) DO NOTHING`,
      `DROP TABLE ${SEEN_TABLE}`,
    );
  }
  statements.push('COMMIT');
  try {
    await db.exec(statements.join(';\n'));
  } catch (error) {
    await db.exec('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
