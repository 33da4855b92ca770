import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isProcessAlive } from '../process-alive.js';
import { LOCK_NAME } from './feed-file-names.js';

/** Directories this process holds. */
const held = new Set<string>();

/** Thrown when another bridge (or another app in this process) uses the directory. */
export class FeedFilesInUseError extends Error {
  override readonly name = 'FeedFilesInUseError';
}

/**
 * Takes the feed files directory for this process: two bridges writing and pruning one directory would
 * delete each other's files. A lock left by a process that is gone (a crash) is taken over.
 */
export async function acquireDirLock(dir: string): Promise<void> {
  const key = resolve(dir);
  if (held.has(key)) throw new FeedFilesInUseError(`the feed files directory ${dir} is in use by another app of this process`);
  await mkdir(dir, { recursive: true });
  const path = join(dir, LOCK_NAME);
  try {
    await writeFile(path, String(process.pid), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const owner = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(owner) && owner !== process.pid && isProcessAlive(owner)) {
      throw new FeedFilesInUseError(
        `the feed files directory ${dir} is in use by process ${owner}; give each bridge its own FEED_FILES_DIR`,
      );
    }
    await writeFile(path, String(process.pid));
  }
  held.add(key);
}

export async function releaseDirLock(dir: string): Promise<void> {
  const key = resolve(dir);
  if (!held.delete(key)) return;
  await rm(join(dir, LOCK_NAME), { force: true });
}

/** How the temporary feed folders of bridges without a folder of their own are named, in the OS's temp folder. */
const TEMPORARY_PREFIX = 'catalog-bridge-feeds-';
/**
 * A temporary folder without a lock written to this recently may be in use: a starting bridge's, or the
 * one-shot CLI's (which renders into one without a lock and copies the files out).
 */
const UNLOCKED_GRACE_MS = 60 * 60_000;

/** A fresh temporary feed folder's path (a Redis group's instance, the one-shot CLI). */
export function temporaryFeedFilesDir(root = tmpdir()): string {
  return join(root, `${TEMPORARY_PREFIX}${randomUUID()}`);
}

/**
 * Deletes the temporary feed folders of bridges that are gone (killed, crashed: a clean stop deletes its
 * own), so that restarts never fill the temp folder with feeds of up to `FEED_CACHE_MB` each. A folder
 * whose lock names a live process on this machine is kept; one without a lock only once nothing in it was
 * written for `UNLOCKED_GRACE_MS`. A folder that cannot be deleted (another user's) is skipped. Returns the
 * paths deleted.
 */
export async function removeAbandonedFeedFiles(root = tmpdir(), now = Date.now()): Promise<string[]> {
  const names = (await readdir(root)).filter((name) => name.startsWith(TEMPORARY_PREFIX));
  const removed: string[] = [];
  for (const name of names) {
    const dir = join(root, name);
    // Ours, even should its lock file have gone (a temp-folder cleaner): never swept.
    if (held.has(resolve(dir))) continue;
    try {
      const owner = Number.parseInt(await readFile(join(dir, LOCK_NAME), 'utf8').catch(() => ''), 10);
      const inUse = Number.isInteger(owner)
        ? owner === process.pid || isProcessAlive(owner)
        : (await lastWrittenMs(dir)) > now - UNLOCKED_GRACE_MS;
      if (inUse) continue;
      await rm(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // Not ours to delete, or gone meanwhile: the next start looks again.
    }
  }
  return removed;
}

/** When the folder or anything in it was last written. */
async function lastWrittenMs(dir: string): Promise<number> {
  let newest = (await stat(dir)).mtimeMs;
  for (const name of await readdir(dir)) {
    const written = await stat(join(dir, name)).then(
      (entry) => entry.mtimeMs,
      () => 0,
    );
    newest = Math.max(newest, written);
  }
  return newest;
}
