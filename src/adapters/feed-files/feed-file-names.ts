import { randomBytes } from 'node:crypto';
import type { BodyCoding } from '../../services/feeds/encoded-feed.js';
import { shortHash } from '../../services/feeds/encoded-feed.js';

/**
 * File names in the feed files directory (docs/decisions/0016-feed-files.md):
 * - `<base>.json`: the manifest of a feed key (`google.xml|all|` → `google.xml~all~~<hash>.json`);
 * - `<base>@<version>.<nonce>.<ext>`: a body form (`.body` identity, `.gz`, `.br`), unique per render, so a
 *   render never overwrites a file being sent and a replaced render's files can be deleted outright;
 * - `.tmp-…`: a file being written, renamed when whole; any left at start are from a crash.
 */

const UNSAFE = /[^A-Za-z0-9._-]/g;

/** A key's readable part (file, view, profile) and a hash of the key itself, which the readable part may not tell apart. */
export function feedFileBase(key: string): string {
  return `${key
    .split('|')
    .map((part) => part.replace(UNSAFE, '_'))
    .join('~')}~${shortHash(key)}`;
}

export function manifestName(base: string): string {
  return `${base}.json`;
}

const EXTENSIONS: Readonly<Record<BodyCoding, string>> = { identity: 'body', gzip: 'gz', br: 'br' };

/** The names of one render's files, one per coding. */
export function bodyFileNames(base: string, version: string): Readonly<Record<BodyCoding, string>> {
  const stem = `${base}@${version.replace(UNSAFE, '_')}.${randomBytes(4).toString('hex')}`;
  return {
    identity: `${stem}.${EXTENSIONS.identity}`,
    gzip: `${stem}.${EXTENSIONS.gzip}`,
    br: `${stem}.${EXTENSIONS.br}`,
  };
}

export const TEMP_PREFIX = '.tmp-';

/** A temporary name for `name` while it is written. */
export function tempName(name: string): string {
  return `${TEMP_PREFIX}${randomBytes(4).toString('hex')}-${name}`;
}

/** The lock file: the process that uses the directory. */
export const LOCK_NAME = '.lock';
