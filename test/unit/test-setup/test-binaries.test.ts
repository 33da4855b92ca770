import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveChromium, resolveRedisServer, runBounded, settle } from '../../setup/test-binaries.js';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

/** Running, not only present: a killed process whose parent is gone can stay a zombie (`Z`) in a container. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!existsSync('/proc/self/stat')) return true;
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'Z';
  } catch {
    return false;
  }
}

const MISSING = { what: 'redis-server', skipped: 'the Redis tests are', install: 'apt-get install redis-server' };

describe('runBounded', () => {
  it('kills the command and what it started once the time is up', async () => {
    // A parent that starts a grandchild (as redis-memory-server starts make), prints its pid and waits.
    const script = `
      const { spawn } = require('node:child_process');
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      console.log('grandchild ' + child.pid);
      setInterval(() => {}, 1000);`;

    const run = await runBounded(process.execPath, ['-e', script], 1_500);

    expect(run.timedOut).toBe(true);
    const pid = Number(/grandchild (\d+)/.exec(run.stdout)?.[1]);
    expect(pid).toBeGreaterThan(0);
    let alive = isAlive(pid);
    for (let attempt = 0; attempt < 50 && alive; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      alive = isAlive(pid);
    }
    expect(alive).toBe(false);
  });

  it('returns the exit code and output of a command that ends in time', async () => {
    const run = await runBounded(process.execPath, ['-e', 'console.log("out"); console.error("err"); process.exit(3)'], 30_000);

    expect(run).toEqual({ code: 3, stdout: 'out\n', stderr: 'err\n', timedOut: false });
  });
});

describe('settle', () => {
  it('passes a found program on', () => {
    expect(settle({ path: '/usr/bin/redis-server', how: 'redis-server on PATH' }, MISSING)).toBe('/usr/bin/redis-server');
  });

  it('without CI: skips with one line saying what is missing and what to install', () => {
    vi.stubEnv('CI', '');
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);

    expect(settle({ path: undefined, how: 'no network' }, MISSING)).toBeNull();

    const written = write.mock.calls.map(([text]) => String(text)).join('');
    expect(written.trim().split('\n')).toEqual([
      '⚠ redis-server not found (no network): the Redis tests are skipped. Install it: apt-get install redis-server',
    ]);
  });

  it('with CI set: fails instead of skipping', () => {
    vi.stubEnv('CI', 'true');

    expect(() => settle({ path: undefined, how: 'no network' }, MISSING)).toThrow(
      /redis-server not found \(no network\)\. CI is set, so this fails the run\. Install it: apt-get install redis-server/,
    );
  });
});

describe('the environment variables that name a program', () => {
  it('are taken as given when they name an executable', async () => {
    vi.stubEnv('REDIS_SERVER_BINARY', process.execPath);
    vi.stubEnv('CHROMIUM_PATH', process.execPath);

    await expect(resolveRedisServer()).resolves.toEqual({ path: process.execPath, how: 'REDIS_SERVER_BINARY' });
    await expect(resolveChromium()).resolves.toEqual({ path: process.execPath, how: 'CHROMIUM_PATH' });
  });

  it('are an error, never a skip, when they name nothing runnable', async () => {
    vi.stubEnv('REDIS_SERVER_BINARY', '/nonexistent/redis-server');
    vi.stubEnv('CHROMIUM_PATH', '/nonexistent/chromium');

    await expect(resolveRedisServer()).rejects.toThrow('REDIS_SERVER_BINARY=/nonexistent/redis-server is not an executable file');
    await expect(resolveChromium()).rejects.toThrow('CHROMIUM_PATH=/nonexistent/chromium is not an executable file');
  });
});
