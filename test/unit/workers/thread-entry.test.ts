import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { afterAll, describe, expect, it } from 'vitest';
import { workerEntryAt } from '../../../src/workers/worker-entry.js';

const dir = mkdtempSync(join(tmpdir(), 'thread-entry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function entryFile(name: string, source: string): URL {
  const path = join(dir, name);
  writeFileSync(path, source);
  return pathToFileURL(path);
}

describe('workers/thread-entry.cjs: every thread starts it and it imports the entry', () => {
  it('starts a CommonJS file, and runs the ES module entry with the workerData given', async () => {
    const entry = entryFile(
      'echo.mjs',
      "import { workerData } from 'node:worker_threads';\nexport default (message) => ({ message, shop: workerData.shop, entry: workerData.entry });\n",
    );
    const options = workerEntryAt(entry, { shop: 'demo' });
    expect(options.filename).toMatch(/\/thread-entry\.cjs$/);

    const pool = new Piscina({ ...options, minThreads: 0, maxThreads: 1 });
    try {
      await expect(pool.run({ n: 1 })).resolves.toEqual({ message: { n: 1 }, shop: 'demo', entry: entry.href });
    } finally {
      await pool.destroy();
    }
  });

  it('fails the task with the error of an entry that cannot load, and the next task gets a new thread', async () => {
    const entry = entryFile('broken.mjs', "throw new Error('entry broken at load');\nexport default () => 1;\n");
    const pool = new Piscina({ ...workerEntryAt(entry, {}), minThreads: 0, maxThreads: 1 });
    let threads = 0;
    pool.on('workerCreate', () => {
      threads += 1;
    });
    const firstEnded = once(pool, 'workerDestroy');
    try {
      await expect(pool.run(1)).rejects.toThrow('entry broken at load');
      await firstEnded;
      await expect(pool.run(2)).rejects.toThrow('entry broken at load');
      // The failed thread ended: a passing failure (a file being replaced) is not kept for its lifetime.
      expect(threads).toBe(2);
    } finally {
      await pool.destroy();
    }
  });

  it('survives pools destroyed while their threads load their entry', async () => {
    const entry = entryFile('slow.mjs', 'export default (message) => message;\n');
    for (let round = 0; round < 10; round += 1) {
      const pool = new Piscina({ ...workerEntryAt(entry, {}), minThreads: 0, maxThreads: 1 });
      const task = pool.run(round).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, round * 3));
      await pool.destroy();
      const result = await task;
      // Done before the destroy, or cut by it; never the process aborted.
      expect(result === round || result instanceof Error).toBe(true);
    }
  });
});
