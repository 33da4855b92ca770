import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { prepareAllocatorTrim, trimAllocator, trimAllocatorNow } from '../../../src/workers/trim-allocator.js';

describe('workers/trim-allocator', () => {
  it('resolves, and a call while one is in flight shares it', async () => {
    const first = trimAllocator();
    const second = trimAllocator();

    expect(second).toBe(first);
    // glibc on Linux (these machines and the image); elsewhere it resolves false.
    await expect(first).resolves.toBe(process.platform === 'linux');
    await expect(trimAllocator()).resolves.toBe(process.platform === 'linux');
    expect(trimAllocatorNow()).toBe(process.platform === 'linux');
    expect(prepareAllocatorTrim()).toBe(process.platform === 'linux');
  });

  it.runIf(process.platform === 'linux')('gives back the pages of freed buffers that glibc kept', () => {
    // A child with the allocator settings of `npm start`: 4,000 buffers of 64 KiB (under the mmap threshold,
    // so in glibc's arenas), of which every 16th is kept: the others' space lies between kept ones, where
    // glibc's own trimming of an arena's top never reaches. RSS is read before and after the trim.
    const module = fileURLToPath(new URL('../../../src/workers/trim-allocator.ts', import.meta.url));
    const script = `
      const { trimAllocator } = await import(${JSON.stringify(module)});
      const rss = () => process.memoryUsage().rss;
      let buffers = Array.from({ length: 4000 }, () => Buffer.allocUnsafeSlow(64 * 1024).fill(1));
      const kept = buffers.filter((_, index) => index % 16 === 0);
      buffers = undefined;
      gc();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const before = rss();
      const trimmed = await trimAllocator();
      console.log(JSON.stringify({ before, after: rss(), trimmed, kept: kept.length }));`;
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' },
    });

    expect(run.stderr).toBe('');
    const { before, after, trimmed } = JSON.parse(run.stdout) as { before: number; after: number; trimmed: boolean };
    expect(trimmed).toBe(true);
    // ~240 MiB were freed between kept buffers; at least 48 MiB of it is given back by the trim alone.
    expect(before - after).toBeGreaterThan(48 * 1024 * 1024);
  });
});
