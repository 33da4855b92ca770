import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { acquireDirLock, FeedFilesInUseError, releaseDirLock } from '../adapters/feed-files/feed-files-lock.js';
import { type StoreFile, sqliteStorePath, storeFilesOf } from '../adapters/store/beside-store.js';
import { copySqliteFile, type PendingCopy, removeDatabase } from '../adapters/store/sqlite-backup.js';
import { feedFilesPlaceOf } from '../app/feed-parts.js';
import type { Config } from '../config/load-config.js';

/**
 * `catalog-bridge backup --out FILE` (docs/going-live.md, "Backups"): every SQLite file of the configured
 * store, copied with SQLite's online backup while the bridge runs: the catalog's to FILE, the webhook
 * inbox's and the push outbox's beside it, named as the store names them (`backup.sqlite` →
 * `backup.inbox.sqlite`, `backup.push.sqlite`). A file the store does not have (no push configured) is
 * skipped. `catalog-bridge restore --from FILE` puts such a backup in the store's place, the bridge stopped.
 */

export interface BackedUpFile {
  readonly part: StoreFile['part'];
  readonly from: string;
  readonly to: string;
  /** Size of the copy in bytes; `undefined` when the store has no such file. */
  readonly bytes: number | undefined;
}

export type BackupResult =
  | {
      readonly ok: true;
      readonly files: readonly BackedUpFile[];
      /** A restore into a place that held no store: right on a new machine, wrong when the settings are not the service's. */
      readonly newStore?: string;
    }
  /** `usage`: the command cannot work with this store's configuration (exit 2); else it failed (1). */
  | { readonly ok: false; readonly message: string; readonly usage?: true };

/** The store's SQLite file, or why the command cannot work on this store. */
function sqliteStoreOf(config: Config): { path: string } | { message: string; usage: true } {
  const path = sqliteStorePath(config.store.url);
  if (path !== undefined) return { path };
  return {
    usage: true,
    message: config.store.url.startsWith('redis')
      ? "STORE_URL is Redis: back up and restore Redis's own files instead (AOF or RDB snapshots; docs/going-live.md, Backups)"
      : 'STORE_URL is memory://: there is nothing on disk to back up or restore',
  };
}

/** A backup is named by its catalog file; a folder (or a path ending in a slash) is refused, saying so. */
function folderProblem(flag: '--out' | '--from', given: string): string | undefined {
  const path = resolve(given);
  if (!/[\\/]$/.test(given) && !(existsSync(path) && statSync(path).isDirectory())) return undefined;
  return `${flag} ${path} is a folder: name the backup's file, e.g. ${resolve(path, 'catalog.sqlite')}`;
}

export async function backupStore(config: Config, out: string): Promise<BackupResult> {
  const store = sqliteStoreOf(config);
  if (!('path' in store)) return { ok: false, ...store };
  const target = resolve(out);
  const folder = folderProblem('--out', out);
  if (folder !== undefined) return { ok: false, message: folder };
  const sources = storeFilesOf(store.path);
  const targets = storeFilesOf(target);
  if (sources.some((file) => targets.some((copy) => copy.path === file.path))) {
    return { ok: false, message: `--out ${target} would overwrite the store itself` };
  }
  mkdirSync(dirname(target), { recursive: true });
  const copied = await copyStoreFiles(sources, targets);
  if (!copied.ok) return { ok: false, message: `${copied.message}; the previous backup is left as it was` };
  return copied;
}

/**
 * Copies each file of `sources` to the same part of `targets`, every one copied and checked before any is
 * put in place (a failed run leaves the targets as they were); a part `sources` lacks (no push configured)
 * is removed from `targets`, so a set never mixes files of two moments.
 */
async function copyStoreFiles(sources: readonly StoreFile[], targets: readonly StoreFile[]): Promise<BackupResult> {
  const files: BackedUpFile[] = [];
  const pending: PendingCopy[] = [];
  const absent: string[] = [];
  try {
    for (const file of sources) {
      const to = targets.find((candidate) => candidate.part === file.part)?.path;
      if (to === undefined) throw new Error(`no ${file.part} file beside the target`);
      if (file.part !== 'catalog' && !existsSync(file.path)) {
        absent.push(to);
        files.push({ part: file.part, from: file.path, to, bytes: undefined });
        continue;
      }
      const copy = await copySqliteFile(file.path, to);
      pending.push(copy);
      files.push({ part: file.part, from: file.path, to, bytes: copy.bytes });
    }
  } catch (error) {
    for (const copy of pending) copy.discard();
    const failed = sources[files.length];
    return { ok: false, message: `${failed?.part ?? 'store'} (${failed?.path ?? ''}): ${messageOf(error)}` };
  }
  try {
    for (const [index, copy] of pending.entries()) {
      copy.commit();
      // Put in place: no longer the run's to remove.
      pending[index] = { ...copy, discard: () => undefined };
    }
    for (const path of absent) removeDatabase(path);
  } catch (error) {
    for (const copy of pending) copy.discard();
    return { ok: false, message: `putting the copies in place failed: ${messageOf(error)}` };
  }
  return { ok: true, files };
}

/**
 * Puts the backup at `from` (and the files beside it) in the store's place, all of it or nothing: each file
 * copied and checked, the store's stale journal files removed, a part the backup lacks removed from the store
 * (an outbox newer than the backup would not match it). Refused while a bridge of this machine holds the store's feed files
 * (it runs); a bridge in another container cannot be seen, so stop it first.
 */
export async function restoreStore(config: Config, from: string): Promise<BackupResult> {
  const store = sqliteStoreOf(config);
  if (!('path' in store)) return { ok: false, ...store };
  const source = resolve(from);
  const folder = folderProblem('--from', from);
  if (folder !== undefined) return { ok: false, message: folder };
  if (!existsSync(source)) return { ok: false, message: `no backup at ${source}` };
  const backups = storeFilesOf(source);
  const targets = storeFilesOf(store.path);
  if (backups.some((file) => targets.some((target) => target.path === file.path))) {
    return { ok: false, message: `--from ${source} is the store itself` };
  }
  const fresh = !existsSync(store.path);
  const feeds = feedFilesPlaceOf(config).dir;
  try {
    await acquireDirLock(feeds);
  } catch (error) {
    if (error instanceof FeedFilesInUseError) {
      return {
        ok: false,
        message: `the bridge is running on the store ${store.path} (it holds ${feeds}): stop it first`,
      };
    }
    throw error;
  }
  let copied: BackupResult;
  try {
    mkdirSync(dirname(store.path), { recursive: true });
    copied = await copyStoreFiles(backups, targets);
  } finally {
    await releaseDirLock(feeds);
  }
  if (!copied.ok) return { ok: false, message: `${copied.message}; the store is left as it was` };
  // The rendered feed files stay: each names the catalog version it was rendered from, and the bridge serves
  // only those of the version it serves.
  return fresh ? { ...copied, newStore: store.path } : copied;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
