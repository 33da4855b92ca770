import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import sqlite3 from 'sqlite3';

/**
 * The `sqlite3` driver's callbacks as promises, for the parts that keep their own tables in the store's
 * SQLite file beside keyv's (the webhook inbox, the push outbox): keyv cannot do what they need atomically.
 */

/** Opens (creating its folder) the database file with a busy timeout, so that writers wait for each other. */
export async function openSqliteFile(path: string): Promise<sqlite3.Database> {
  mkdirSync(dirname(path), { recursive: true });
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened: sqlite3.Database = new sqlite3.Database(path, (error) => (error ? reject(error) : resolve(opened)));
  });
  db.configure('busyTimeout', 10_000);
  return db;
}

export function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
}

export function run(db: sqlite3.Database, sql: string, params: readonly unknown[]): Promise<void> {
  return new Promise((resolve, reject) => db.run(sql, params, (error: Error | null) => (error ? reject(error) : resolve())));
}

export function all<Row>(db: sqlite3.Database, sql: string, params: readonly unknown[]): Promise<Row[]> {
  return new Promise((resolve, reject) =>
    db.all(sql, params, (error: Error | null, rows: Row[]) => (error ? reject(error) : resolve(rows))),
  );
}
