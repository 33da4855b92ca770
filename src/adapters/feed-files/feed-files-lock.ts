import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LOCK_NAME } from './feed-file-names.js';

/** Directories this process holds. */
const held = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

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
    if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
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
