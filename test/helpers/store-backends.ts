import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, inject, type TestContext } from 'vitest';
import { type RedisServer, startRedisServer } from './redis-server.js';

/**
 * The three STORE_URL backends for contract tests (`describe.each`): each call of a URL factory gives a
 * fresh, empty store: memory, a new SQLite file in a temp dir, or another Redis database number of a
 * real `redis-server` started for the file (so tests do not see each other's keys). Registers the
 * `beforeAll`/`afterAll` hooks that start and stop Redis and remove the temp dir. Without a `redis-server`
 * (the global setup said so in one line) the Redis cases are skipped: see `skipWithoutBackend`.
 */
export function storeBackends(name: string): [string, () => string][] {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  let redis: RedisServer | undefined;
  const binary = inject('redisServerBinary');
  beforeAll(async () => {
    if (binary !== null) redis = await startRedisServer(binary);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await redis?.stop();
  });
  let counter = 0;
  return [
    ['memory', () => 'memory://'],
    ['sqlite', () => `sqlite://${join(dir, `${name}-${++counter}.sqlite`)}`],
    ['redis', () => `${redis?.url}/${++counter % 16}`],
  ];
}

/** For a `beforeEach` of a backend's suite: skips its tests when that backend cannot run on this machine. */
export function skipWithoutBackend(context: TestContext, backend: string): void {
  if (backend === 'redis' && inject('redisServerBinary') === null) context.skip('no redis-server on this machine');
}
