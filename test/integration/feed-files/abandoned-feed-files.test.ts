import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFeedFileStore } from '../../../src/adapters/feed-files/feed-file-store.js';
import { removeAbandonedFeedFiles, temporaryFeedFilesDir } from '../../../src/adapters/feed-files/feed-files-lock.js';

const root = mkdtempSync(join(tmpdir(), 'abandoned-feeds-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A process id that was used and is gone (a killed bridge). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** A temporary feed folder under `parent`, locked by `owner` (or not locked), with a feed file in it. */
function folder(parent: string, owner: number | undefined, ageMs = 0): string {
  const dir = temporaryFeedFilesDir(parent);
  mkdirSync(dir);
  const body = join(dir, 'google.xml~all~~x@v-1.abc.body');
  writeFileSync(body, '<rss/>');
  if (owner !== undefined) writeFileSync(join(dir, '.lock'), String(owner));
  const time = new Date(Date.now() - ageMs);
  for (const path of [body, dir]) utimesSync(path, time, time);
  return dir;
}

describe('adapters/feed-files: temporary folders of bridges that are gone', () => {
  it('deletes those whose lock names a process that is gone, and long unwritten ones without a lock; keeps the rest', async () => {
    const parent = join(root, 'sweep');
    mkdirSync(parent);
    const killed = folder(parent, deadPid());
    const running = folder(parent, process.ppid);
    const ours = folder(parent, process.pid);
    const unlockedOld = folder(parent, undefined, 2 * 60 * 60_000);
    const unlockedNew = folder(parent, undefined);
    // Written to recently (the one-shot CLI renders into a folder without a lock).
    const unlockedBusy = folder(parent, undefined, 2 * 60 * 60_000);
    appendFileSync(join(unlockedBusy, 'google.xml~all~~x@v-1.abc.body'), '<item/>');
    const other = join(parent, 'someone-else');
    mkdirSync(other);

    const removed = await removeAbandonedFeedFiles(parent);

    expect(removed.sort()).toEqual([killed, unlockedOld].sort());
    for (const dir of [running, ours, unlockedNew, unlockedBusy, other]) expect(existsSync(dir)).toBe(true);
    for (const dir of removed) expect(existsSync(dir)).toBe(false);
  });

  it('sweeps them when a temporary feed store opens, and says so', async () => {
    const parent = join(root, 'open');
    mkdirSync(parent);
    const killed = folder(parent, deadPid());
    const problems: string[] = [];
    const dir = temporaryFeedFilesDir(parent);
    const store = openFeedFileStore({
      dir,
      temporary: true,
      now: () => new Date(),
      onProblem: (message) => problems.push(message),
    });

    await store.restore();

    // In the background: the start does not wait for it.
    await expect.poll(() => existsSync(killed)).toBe(false);
    await expect.poll(() => problems).toEqual([`deleted the feed folders of bridges that are gone: ${killed}`]);
    await store.close();
    expect(existsSync(dir)).toBe(false);
    expect(basename(dir).startsWith('catalog-bridge-feeds-')).toBe(true);
  });
});
