import type sqlite3 from 'sqlite3';
import { createMutex } from '../../core/async/create-mutex.js';
import {
  applyStatePatch,
  type ClaimedRow,
  type EnqueueResult,
  PUSH_MASK,
  PUSH_MASK_ADDED_AND_REMOVED,
  PUSH_MASK_ALL_FIELDS,
  type PushChannelState,
  type PushOutbox,
} from '../../core/push/outbox.js';
import type { PushChannel } from '../../core/push/push-channel.js';
import { all, exec, openSqliteFile, run } from '../store/sqlite-calls.js';

interface Row {
  readonly channel: string;
  readonly target: string;
  readonly mask: number;
  readonly gen: number;
  readonly since_ms: number;
  readonly due_ms: number;
  readonly attempts: number;
  readonly last_error: string | null;
}

// Tables as docs/decisions/0013-channel-push.md, section 3.
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS push_outbox (
    channel TEXT NOT NULL,
    target TEXT NOT NULL,
    mask INTEGER NOT NULL,
    gen INTEGER NOT NULL,
    since_ms INTEGER NOT NULL,
    due_ms INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    low INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (channel, target)
  );
  CREATE TABLE IF NOT EXISTS push_meta (key TEXT PRIMARY KEY, value TEXT);`;

/**
 * The claim's index, created after `low` exists (a file of an older build gets the column first). It
 * replaces the older `(channel, due_ms)` index, which no query uses any more.
 */
const CLAIM_INDEX = `
  CREATE INDEX IF NOT EXISTS push_outbox_claim ON push_outbox (channel, low, due_ms);
  DROP INDEX IF EXISTS push_outbox_due;`;

/** `low` (a reconciliation's pure re-send, claimed after live changes: `isLowPriority`) of a mask in SQL. */
function lowSql(mask: string): string {
  return `CASE WHEN ${mask} = ${PUSH_MASK.FULL} THEN 1 ELSE 0 END`;
}

/** `mergeMask` (core/push/outbox.ts) in SQL: OR, except that ADDED and REMOVED cancel to FULL + every field. */
function mergeMaskSql(pending: string, incoming: string): string {
  const merged = `(${pending} | ${incoming})`;
  const both = PUSH_MASK_ADDED_AND_REMOVED;
  const cancelled = `((${merged} & ~${both}) | ${PUSH_MASK_ALL_FIELDS | PUSH_MASK.FULL})`;
  return `CASE WHEN (${merged} & ${both}) = ${both} THEN ${cancelled} ELSE ${merged} END`;
}

/**
 * All updates of one enqueue in one statement: a new target gets a row, a known one is merged (mask,
 * `gen + 1`, the earlier due time stays: a row leased for a send is due again at once; `low` from the
 * merged mask: every SET expression reads the row as it was). `WHERE true` lets SQLite parse the
 * `ON CONFLICT` after a `SELECT`.
 */
const ENQUEUE = `
  INSERT INTO push_outbox (channel, target, mask, gen, since_ms, due_ms, attempts, low)
  SELECT json_extract(value, '$.channel'), json_extract(value, '$.target'), json_extract(value, '$.mask'), 1,
         json_extract(value, '$.atMs'), json_extract(value, '$.atMs'), 0, ${lowSql("json_extract(value, '$.mask')")}
  FROM json_each(?1) WHERE true
  ON CONFLICT (channel, target) DO UPDATE SET
    mask = ${mergeMaskSql('push_outbox.mask', 'excluded.mask')},
    gen = push_outbox.gen + 1,
    due_ms = MIN(push_outbox.due_ms, excluded.due_ms),
    low = ${lowSql(`(${mergeMaskSql('push_outbox.mask', 'excluded.mask')})`)}`;

/**
 * The due rows of one priority (`?4`: 0 live changes, 1 re-sends) in claim order: earliest due first, ties
 * by target (as Redis orders a sorted set's ties). One range of the claim index per priority.
 */
const DUE =
  'SELECT rowid AS id, * FROM push_outbox WHERE channel = ?1 AND low = ?4 AND due_ms <= ?2 ORDER BY due_ms, target LIMIT ?3';

/** Leases rows by moving their due time to the lease's end (a visibility timeout). */
const LEASE = 'UPDATE push_outbox SET due_ms = ?1 WHERE rowid IN (SELECT value FROM json_each(?2))';

const CURSOR_KEY = 'cursor';

/**
 * The push outbox in tables of its own in the store's SQLite file (decision 0013, section 3), through
 * SQLite's own statements: keyv cannot merge a row atomically. Statements run one at a time on one
 * connection (a mutex), so a transaction's statements are never interleaved with another call's.
 * WAL with `synchronous=NORMAL`, as the store itself: the cursor is written in the same transaction as the
 * rows, so a commit lost to a power cut loses both, and catch-up from the change log derives them again.
 *
 * Only one process may use the file (the single-instance SQLite default).
 */
export function openSqlitePushOutbox(path: string): PushOutbox {
  const ready = open(path);
  const serial = createMutex();
  let closed = false;

  /** Runs `task` alone on the connection, inside `BEGIN IMMEDIATE … COMMIT` when `transaction`. */
  function use<T>(task: (db: sqlite3.Database) => Promise<T>, transaction = false): Promise<T> {
    if (closed) return Promise.reject(new Error('the push outbox is closed'));
    return serial(async () => {
      const db = await ready;
      if (!transaction) return task(db);
      await exec(db, 'BEGIN IMMEDIATE');
      try {
        const result = await task(db);
        await exec(db, 'COMMIT');
        return result;
      } catch (error) {
        await exec(db, 'ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async function readMeta(db: sqlite3.Database, key: string): Promise<string | undefined> {
    const rows = await all<{ value: string | null }>(db, 'SELECT value FROM push_meta WHERE key = ?', [key]);
    return rows[0]?.value ?? undefined;
  }

  function writeMeta(db: sqlite3.Database, key: string, value: string): Promise<void> {
    return run(db, 'INSERT INTO push_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
      key,
      value,
    ]);
  }

  return {
    enqueue(expectedCursor, newCursor, updates) {
      return use(async (db): Promise<EnqueueResult> => {
        const cursor = await readMeta(db, CURSOR_KEY);
        if (cursor !== expectedCursor) return { ok: false, reason: 'stale-cursor', cursor };
        if (updates.length > 0) await run(db, ENQUEUE, [JSON.stringify(updates)]);
        await writeMeta(db, CURSOR_KEY, newCursor);
        return { ok: true };
      }, true);
    },

    claim(channel, now, limit, leaseMs) {
      if (limit <= 0) return Promise.resolve([]);
      // Read, then lease, in one transaction: the rows come back in claim order (`UPDATE … RETURNING`
      // returns them in no defined order).
      return use(async (db) => {
        // Live changes first; re-sends fill the rest of the limit.
        const due = await all<Row & { id: number }>(db, DUE, [channel, now, limit, 0]);
        if (due.length < limit) due.push(...(await all<Row & { id: number }>(db, DUE, [channel, now, limit - due.length, 1])));
        if (due.length > 0) await run(db, LEASE, [now + leaseMs, JSON.stringify(due.map((row) => row.id))]);
        return due.map((row) => toClaimed({ ...row, due_ms: now + leaseMs }));
      }, true);
    },

    ack(channel, target, gen) {
      return use(async (db) => {
        const deleted = await all(db, 'DELETE FROM push_outbox WHERE channel = ? AND target = ? AND gen = ? RETURNING target', [
          channel,
          target,
          gen,
        ]);
        return deleted.length > 0;
      });
    },

    retry(channel, target, gen, dueMs, error) {
      return use((db) =>
        run(
          db,
          `UPDATE push_outbox SET attempts = attempts + 1, last_error = ?4, due_ms = CASE WHEN gen = ?3 THEN ?5 ELSE due_ms END
           WHERE channel = ?1 AND target = ?2`,
          [channel, target, gen, error, dueMs],
        ),
      );
    },

    reject(channel, target, gen, error) {
      return use(async (db) => {
        // Counted whether or not the row is still there: the channel refused an item.
        await run(
          db,
          `INSERT INTO push_meta (key, value) VALUES (?1, '1')
           ON CONFLICT (key) DO UPDATE SET value = CAST(push_meta.value AS INTEGER) + 1`,
          [`rejected:${channel}`],
        );
        const deleted = await all(db, 'DELETE FROM push_outbox WHERE channel = ? AND target = ? AND gen = ? RETURNING target', [
          channel,
          target,
          gen,
        ]);
        if (deleted.length > 0) return true;
        await run(db, 'UPDATE push_outbox SET last_error = ? WHERE channel = ? AND target = ?', [error, channel, target]);
        return false;
      }, true);
    },

    stats(channel) {
      return use(async (db) => {
        const [counts] = await all<{ pending: number; oldest: number | null }>(
          db,
          'SELECT COUNT(*) AS pending, MIN(since_ms) AS oldest FROM push_outbox WHERE channel = ?',
          [channel],
        );
        const rejected = Number((await readMeta(db, `rejected:${channel}`)) ?? 0);
        const counted = { pending: counts?.pending ?? 0, rejected };
        return counts?.oldest == null ? counted : { ...counted, oldestSinceMs: counts.oldest };
      });
    },

    cursor() {
      return use((db) => readMeta(db, CURSOR_KEY));
    },

    paused(channel) {
      return use(async (db) => (await readMeta(db, `paused:${channel}`)) === '1');
    },

    setPaused(channel, paused) {
      return use((db) => writeMeta(db, `paused:${channel}`, paused ? '1' : '0'));
    },

    state(channel) {
      return use(async (db) => {
        const stored = await readMeta(db, `state:${channel}`);
        return stored === undefined ? {} : (JSON.parse(stored) as PushChannelState);
      });
    },

    patchState(channel, patch) {
      // Read and written in one turn of the connection's queue: no other call runs in between.
      return use(async (db) => {
        const stored = await readMeta(db, `state:${channel}`);
        const state = stored === undefined ? {} : (JSON.parse(stored) as PushChannelState);
        await writeMeta(db, `state:${channel}`, JSON.stringify(applyStatePatch(state, patch)));
      });
    },

    async close() {
      if (closed) return;
      // Let the calls already queued finish, then refuse new ones and close the connection.
      await serial(async () => undefined);
      closed = true;
      const db = await ready.catch(() => undefined);
      if (db !== undefined)
        await new Promise<void>((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

function toClaimed(row: Row): ClaimedRow {
  const claimed = {
    channel: row.channel as PushChannel,
    target: row.target,
    mask: row.mask,
    gen: row.gen,
    sinceMs: row.since_ms,
    dueMs: row.due_ms,
    attempts: row.attempts,
  };
  return row.last_error === null ? claimed : { ...claimed, lastError: row.last_error };
}

async function open(path: string): Promise<sqlite3.Database> {
  const db = await openSqliteFile(path);
  // NORMAL only on top of WAL (as create-keyv.ts): in rollback mode it risks corruption on power loss.
  const [mode] = await all<{ journal_mode?: string }>(db, 'PRAGMA journal_mode = WAL', []);
  if (mode?.journal_mode === 'wal') await exec(db, 'PRAGMA synchronous = NORMAL');
  await exec(db, SCHEMA);
  await addLowColumn(db);
  await exec(db, CLAIM_INDEX);
  return db;
}

/** A file of a build before claim priorities has `push_outbox` without `low`: adds it, set from each mask. */
async function addLowColumn(db: sqlite3.Database): Promise<void> {
  const columns = await all<{ name: string }>(db, 'PRAGMA table_info(push_outbox)', []);
  if (columns.some((column) => column.name === 'low')) return;
  await exec(db, 'BEGIN IMMEDIATE');
  try {
    await exec(db, 'ALTER TABLE push_outbox ADD COLUMN low INTEGER NOT NULL DEFAULT 0');
    await exec(db, `UPDATE push_outbox SET low = ${lowSql('mask')}`);
    await exec(db, 'COMMIT');
  } catch (error) {
    await exec(db, 'ROLLBACK').catch(() => undefined);
    throw error;
  }
}
