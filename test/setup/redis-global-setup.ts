import type { TestProject } from 'vitest/node';
import { resolveRedisServer, settle } from './test-binaries.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of a runnable `redis-server`; `null` when there is none (its tests are skipped, never under CI). */
    redisServerBinary: string | null;
  }
}

/** Global setup of the integration project: finds `redis-server` once for every test file. */
export async function setup(project: TestProject): Promise<void> {
  const resolution = await resolveRedisServer();
  project.provide(
    'redisServerBinary',
    settle(resolution, {
      what: 'redis-server',
      skipped: 'the Redis store contract tests are',
      install: 'apt-get install redis-server (Debian/Ubuntu), brew install redis (macOS), or set REDIS_SERVER_BINARY',
    }),
  );
}
