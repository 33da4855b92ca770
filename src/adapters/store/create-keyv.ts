import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import { Keyv } from 'keyv';
import { settledWithin } from '../../core/async/settled-within.js';
import { sqliteStorePath } from './beside-store.js';

export type StoreKind = 'sqlite' | 'redis' | 'memory';

type RedisModule = typeof import('@keyv/redis');
let redis: RedisModule | undefined;

/**
 * `@keyv/redis` and the Redis client under it (about 500 modules) are loaded when a Redis store is first
 * opened, not with this module: a bridge on SQLite never needs them, and each process and start pays for
 * loading them. Its CommonJS build, loaded synchronously, is the only copy the bridge uses.
 */
function redisModule(): RedisModule {
  redis ??= createRequire(import.meta.url)('@keyv/redis') as RedisModule;
  return redis;
}

export interface OpenedKeyv {
  readonly keyv: Keyv;
  readonly kind: StoreKind;
  /** Where the data lives, without credentials (for logs and the status page). */
  readonly location: string;
  /**
   * Closes the store's connection, waiting for calls in flight at most a moment: a Redis that is away
   * would keep a graceful close waiting for a reconnect.
   */
  close(): Promise<void>;
}

/**
 * Opens the keyv store named by STORE_URL. `throwOnErrors` makes a failing backend reject the call;
 * by default keyv only emits an "error" event and reads come back empty, which would look like
 * "no catalog" instead of "store down". `sqliteTable` gives a keyv its own table in the same SQLite
 * file (the default is keyv's `keyv` table), so that listing its keys does not scan the catalog.
 */
export function openKeyv(
  storeUrl: string,
  namespace = 'catalog-bridge',
  options: { readonly sqliteTable?: string } = {},
): OpenedKeyv {
  if (storeUrl === 'memory://') {
    const keyv = new Keyv({ namespace, throwOnErrors: true });
    return { keyv, kind: 'memory', location: 'memory', close: () => keyv.disconnect() };
  }
  const path = sqliteStorePath(storeUrl);
  if (path !== undefined) {
    mkdirSync(dirname(path), { recursive: true });
    const store = new KeyvSqlite({
      uri: `sqlite://${path}`,
      busyTimeout: 10_000,
      ...(options.sqliteTable === undefined ? {} : { table: options.sqliteTable }),
    });
    // WAL: a write no longer waits behind another connection's large write (a catalog publish), which
    // took a webhook's accept far beyond its ~1 ms (decision 0005). In WAL mode, `synchronous=NORMAL`
    // drops the fsync of each commit (~0.5 ms → ~0.15 ms): a committed write then survives a crash of the
    // process, but a crash of the machine can lose the last ones. That is fine for data the POS can give
    // again (the catalog). The webhook inbox, which must be durable (docs/webhooks.md: stored before
    // answered), is a SQLite file of its own with `synchronous=FULL` (`sqlite-webhook-inbox.ts`). NORMAL is
    // only ever set on top of WAL: in rollback mode it risks corruption on power loss.
    // Best effort: another connection may be switching the same file, and the defaults still work.
    void (async () => {
      try {
        const rows = (await store.query('PRAGMA journal_mode=WAL')) as { journal_mode?: string }[] | undefined;
        if (rows?.[0]?.journal_mode === 'wal') await store.query('PRAGMA synchronous=NORMAL');
      } catch {
        // Kept on the defaults.
      }
    })();
    const keyv = new Keyv({ store, namespace, throwOnErrors: true });
    return { keyv, kind: 'sqlite', location: path, close: () => keyv.disconnect() };
  }
  if (storeUrl.startsWith('redis://') || storeUrl.startsWith('rediss://')) {
    const { default: KeyvRedis } = redisModule();
    const store = new KeyvRedis(createRedisClient(storeUrl), {
      throwOnConnectError: true,
      throwOnErrors: true,
      // A Redis that is not there makes a call fail after this, instead of waiting for it forever.
      connectionTimeout: REDIS_CONNECT_TIMEOUT_MS,
    });
    const keyv = new Keyv({ store, namespace, throwOnErrors: true });
    // Each failing call rejects (throwOnErrors) and the store-health probe reports the outage; the
    // client's error events would only repeat that, once per reconnect attempt.
    keyv.on('error', () => undefined);
    const close = async () => {
      await settledWithin(store.disconnect(), REDIS_CLOSE_WAIT_MS);
      // Still open: Redis is away and the graceful close waits for it. Cut.
      await store.disconnect(true).catch(() => undefined);
    };
    return { keyv, kind: 'redis', location: withoutCredentials(storeUrl), close };
  }
  throw new Error(`Unsupported STORE_URL scheme: ${withoutCredentials(storeUrl)}`);
}

const REDIS_CONNECT_TIMEOUT_MS = 3_000;
/** How long closing waits for Redis to answer the calls in flight. */
const REDIS_CLOSE_WAIT_MS = 2_000;
/** No single command of the bridge's takes long (chunks are ~1 MB); past this Redis is not answering. */
const REDIS_COMMAND_TIMEOUT_MS = 10_000;

/**
 * The Redis client under keyv, set up so that an outage never turns into requests that hang
 * (docs/failure-modes.md): each command has a deadline, also while it waits for a reconnect, and the
 * client reconnects by itself, backing off to 2 s. (Refusing commands while disconnected would also
 * refuse those sent while the first connection is being made.) Callers that must answer sooner (a
 * webhook's accept) set their own, shorter deadline.
 */
export function createRedisClient(url: string) {
  return redisModule().createClient({
    url,
    commandOptions: { timeout: REDIS_COMMAND_TIMEOUT_MS },
    socket: {
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000),
    },
  });
}

/** A store URL without its user and password, for logs and the status page. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//');
  }
}
