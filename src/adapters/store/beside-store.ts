import { resolve } from 'node:path';

const SQLITE_SCHEME = 'sqlite://';

/** The absolute path of a `sqlite://` store URL's file; `undefined` for any other store (Redis, memory). */
export function sqliteStorePath(storeUrl: string): string | undefined {
  return storeUrl.startsWith(SQLITE_SCHEME) ? resolve(storeUrl.slice(SQLITE_SCHEME.length)) : undefined;
}

/**
 * The path of a file or folder of its own beside a SQLite store's file, named by `part`: `catalog.sqlite`
 * → `catalog.<part>.sqlite` (`sqlite: true`) or `catalog.<part>`; a file without the `.sqlite` extension
 * (`store.db`) → `store.db.<part>`. The webhook inbox, the push outbox and the feed files each have one.
 */
export function besideStore(storePath: string, part: string, options: { readonly sqlite: boolean }): string {
  if (!storePath.endsWith('.sqlite')) return `${storePath}.${part}`;
  return `${storePath.slice(0, -'.sqlite'.length)}.${part}${options.sqlite ? '.sqlite' : ''}`;
}

/** The SQLite files a store is made of, as a backup copies them: the catalog's, then those beside it. */
export interface StoreFile {
  /** `catalog`, `inbox` (the webhook inbox) or `push` (the channel push's outbox). */
  readonly part: 'catalog' | 'inbox' | 'push';
  readonly path: string;
}

/** Every SQLite file of the store at `storePath` (each may be absent: the push outbox exists only with a channel). */
export function storeFilesOf(storePath: string): readonly StoreFile[] {
  return [
    { part: 'catalog', path: storePath },
    { part: 'inbox', path: besideStore(storePath, 'inbox', { sqlite: true }) },
    { part: 'push', path: besideStore(storePath, 'push', { sqlite: true }) },
  ];
}
