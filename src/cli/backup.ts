import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { sqliteStorePath, storeFilesOf } from '../adapters/store/beside-store.js';
import { backupSqliteFile } from '../adapters/store/sqlite-backup.js';
import type { Config } from '../config/load-config.js';

/**
 * `catalog-bridge backup --out FILE` (docs/going-live.md, "Backups"): every SQLite file of the configured
 * store, copied with SQLite's online backup while the bridge runs: the catalog's to FILE, the webhook
 * inbox's and the push outbox's beside it, named as the store names them (`backup.sqlite` →
 * `backup.inbox.sqlite`, `backup.push.sqlite`). A file the store does not have (no push configured) is
 * skipped. Restoring is copying the files back, the bridge stopped.
 */

export interface BackedUpFile {
  readonly part: 'catalog' | 'inbox' | 'push';
  readonly from: string;
  readonly to: string;
  /** Size of the copy in bytes; `undefined` when the store has no such file. */
  readonly bytes: number | undefined;
}

export type BackupResult =
  | { readonly ok: true; readonly files: readonly BackedUpFile[] }
  | { readonly ok: false; readonly message: string };

export async function backupStore(config: Config, out: string): Promise<BackupResult> {
  const storePath = sqliteStorePath(config.store.url);
  if (storePath === undefined) {
    const kind = config.store.url.startsWith('redis') ? 'Redis' : 'in-memory';
    return {
      ok: false,
      message:
        kind === 'Redis'
          ? "STORE_URL is Redis: back up Redis's own files instead (AOF or RDB snapshots; docs/going-live.md, Backups)"
          : 'STORE_URL is memory://: there is nothing on disk to back up',
    };
  }
  const target = resolve(out);
  const sources = storeFilesOf(storePath);
  const targets = storeFilesOf(target);
  if (sources.some((file) => targets.some((copy) => copy.path === file.path))) {
    return { ok: false, message: `--out ${target} would overwrite the store itself` };
  }
  mkdirSync(dirname(target), { recursive: true });
  const files: BackedUpFile[] = [];
  for (const [index, file] of sources.entries()) {
    const to = targets[index]?.path ?? target;
    if (file.part !== 'catalog' && !existsSync(file.path)) {
      // An older backup's file of this part must not be restored with this one.
      rmSync(to, { force: true });
      files.push({ part: file.part, from: file.path, to, bytes: undefined });
      continue;
    }
    try {
      files.push({ part: file.part, from: file.path, to, bytes: await backupSqliteFile(file.path, to) });
    } catch (error) {
      return { ok: false, message: `${file.part} (${file.path}): ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  return { ok: true, files };
}
