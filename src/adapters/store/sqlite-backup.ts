import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import sqlite3 from 'sqlite3';
import { isProcessAlive } from '../process-alive.js';
import { all } from './sqlite-calls.js';

/**
 * A consistent copy of a live SQLite file with SQLite's online backup API, taken while the bridge writes to
 * it (docs/going-live.md, "Backups"). Copying the file with `cp` is not a backup: the last writes are in its
 * `-wal` file and a copy taken mid-write may be torn. The whole file is copied in one step, so in one read
 * transaction: the copy is the database as it was at one moment, whatever the bridge wrote meanwhile.
 */

/** What the driver's `Backup` object offers (its typings leave it out). */
interface DriverBackup {
  step(pages: number, callback: (error: Error | null) => void): void;
  finish(callback?: (error: Error | null) => void): void;
  readonly completed: boolean;
  readonly failed: boolean;
}

/** The driver's `Database#backup(filename, callback)`. */
type WithBackup = sqlite3.Database & { backup(filename: string, callback: (error: Error | null) => void): DriverBackup };

/** How long a step waits for a writer holding the file (busy or locked are retried, not failures). */
const BUSY_RETRIES = 100;
const BUSY_WAIT_MS = 100;

class SqliteBackupError extends Error {
  override readonly name = 'SqliteBackupError';
}

function openExisting(path: string): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    // Read-write without CREATE: a backup never makes a database where there was none. (Read-only would
    // fail on a WAL file whose -shm the bridge has not made yet.)
    const db: sqlite3.Database = new sqlite3.Database(path, sqlite3.OPEN_READWRITE, (error) =>
      error ? reject(error) : resolve(db),
    );
  });
}

function close(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve) => db.close(() => resolve()));
}

function startBackup(db: sqlite3.Database, destination: string): Promise<DriverBackup> {
  return new Promise((resolve, reject) => {
    const backup = (db as WithBackup).backup(destination, (error) => (error ? reject(error) : resolve(backup)));
  });
}

async function copyAll(backup: DriverBackup): Promise<void> {
  let done = false;
  try {
    for (let attempt = 0; !backup.completed; attempt++) {
      const error = await new Promise<Error | null>((resolve) => backup.step(-1, resolve));
      if (backup.completed) break;
      if (backup.failed || attempt >= BUSY_RETRIES) throw error ?? new SqliteBackupError('the backup stopped before the end');
      await delay(BUSY_WAIT_MS);
    }
    await new Promise<void>((resolve, reject) => backup.finish((error) => (error ? reject(error) : resolve())));
    done = true;
  } finally {
    // A backup given up on still holds the source: finished, or the source cannot be closed.
    if (!done) backup.finish();
  }
}

const JOURNALS = ['-wal', '-shm', '-journal'];

/** Removes the journal files SQLite may keep beside a database (a stale -wal would be replayed into another file). */
function removeJournals(path: string): void {
  for (const suffix of JOURNALS) rmSync(`${path}${suffix}`, { force: true });
}

/** Removes a database file and its journal files. */
export function removeDatabase(path: string): void {
  rmSync(path, { force: true });
  removeJournals(path);
}

/** Partial copies left beside `destination` by runs that were killed (a reboot, the OOM killer): each as large as the store. */
function removeStalePartials(destination: string): void {
  const prefix = `${basename(destination)}.partial-`;
  let names: string[];
  try {
    names = readdirSync(dirname(destination));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = name.startsWith(prefix) ? Number(name.slice(prefix.length)) : Number.NaN;
    if (Number.isInteger(pid) && pid !== process.pid && !isProcessAlive(pid)) removeDatabase(join(dirname(destination), name));
  }
}

/** A checked copy waiting beside its destination, put in place by `commit`, or removed by `discard`. */
export interface PendingCopy {
  readonly bytes: number;
  commit(): void;
  discard(): void;
}

/**
 * Copies the database at `source` to a file beside `destination` and checks it; nothing at `destination`
 * changes until `commit`, so a set of files is replaced only once every one of them is copied.
 */
export async function copySqliteFile(source: string, destination: string): Promise<PendingCopy> {
  if (!existsSync(source)) throw new SqliteBackupError(`no database at ${source}`);
  const partial = `${destination}.partial-${process.pid}`;
  removeStalePartials(destination);
  removeDatabase(partial);
  const db = await openExisting(source);
  try {
    await copyAll(await startBackup(db, partial));
  } catch (error) {
    removeDatabase(partial);
    throw error;
  } finally {
    await close(db);
  }
  await checkCopy(partial);
  return {
    bytes: statSync(partial).size,
    commit() {
      // A previous file's journal files must not be read with the new file; the rename replaces the file
      // itself in one step, so a crash here leaves the old file or the new one, never none.
      removeJournals(destination);
      renameSync(partial, destination);
    },
    discard: () => removeDatabase(partial),
  };
}

/** SQLite's own quick check of the copy: a backup that cannot be read is worse than none (removed). */
async function checkCopy(path: string): Promise<void> {
  const db = await openExisting(path);
  let verdict: string;
  try {
    const rows = await all<{ quick_check: string }>(db, 'PRAGMA quick_check', []);
    verdict = rows.map((row) => row.quick_check).join('; ');
  } catch (error) {
    verdict = `could not be checked: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await close(db);
  }
  if (verdict !== 'ok') {
    removeDatabase(path);
    throw new SqliteBackupError(`the copy of ${path} failed SQLite's check: ${verdict}`);
  }
  removeJournals(path);
}
