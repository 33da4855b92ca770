import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { EncodedFeed } from '../http/send-feed.js';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export interface RenderedBody {
  readonly body: Buffer;
  readonly contentType: string;
  readonly fileName?: string;
}

export interface FeedCacheOptions {
  /** Upper bound of cached bytes (all encodings); least recently used feeds are dropped beyond it. */
  readonly maxBytes: number;
}

export interface FeedCache {
  /**
   * The encoded feed of `key` at `version`, rendering and compressing it once; concurrent requests
   * for the same feed share one render. A failed render is not cached.
   */
  get(version: string, key: string, lastModified: Date, render: () => Promise<RenderedBody>): Promise<EncodedFeed>;
  /** Drops every entry of other versions (called when a new version is published). */
  retainOnly(version: string): void;
  stats(): { entries: number; bytes: number };
}

interface Entry {
  readonly promise: Promise<EncodedFeed>;
  bytes: number;
}

/** gzip level 6 and brotli quality 5: near-best size at a cost paid once per version (BENCHMARKS.md). */
export async function encodeFeed(rendered: RenderedBody, version: string, tag: string, lastModified: Date): Promise<EncodedFeed> {
  const [gz, br] = await Promise.all([
    gzipAsync(rendered.body, { level: 6 }),
    brotliAsync(rendered.body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 5,
        [constants.BROTLI_PARAM_SIZE_HINT]: rendered.body.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    }),
  ]);
  return {
    identity: rendered.body,
    gzip: gz,
    br,
    contentType: rendered.contentType,
    tag,
    version,
    lastModified,
    ...(rendered.fileName === undefined ? {} : { fileName: rendered.fileName }),
  };
}

export function createFeedCache(options: FeedCacheOptions): FeedCache {
  // Map iteration order is insertion order: re-inserting on use makes the first entry the least recent.
  const entries = new Map<string, Entry>();
  let bytes = 0;

  function evict(): void {
    for (const [key, entry] of entries) {
      if (bytes <= options.maxBytes || entries.size <= 1) return;
      entries.delete(key);
      bytes -= entry.bytes;
    }
  }

  return {
    get(version, key, lastModified, render) {
      const cacheKey = `${version}\u0000${key}`;
      const hit = entries.get(cacheKey);
      if (hit !== undefined) {
        entries.delete(cacheKey);
        entries.set(cacheKey, hit);
        return hit.promise;
      }
      const tag = `${version}-${shortHash(key)}`;
      const promise = render().then((rendered) => encodeFeed(rendered, version, tag, lastModified));
      const entry: Entry = { promise, bytes: 0 };
      entries.set(cacheKey, entry);
      promise.then(
        (feed) => {
          if (entries.get(cacheKey) !== entry) return;
          entry.bytes = feed.identity.length + feed.gzip.length + feed.br.length;
          bytes += entry.bytes;
          evict();
        },
        () => {
          if (entries.get(cacheKey) === entry) entries.delete(cacheKey);
        },
      );
      return promise;
    },
    retainOnly(version) {
      const prefix = `${version}\u0000`;
      for (const [key, entry] of entries) {
        if (key.startsWith(prefix)) continue;
        entries.delete(key);
        bytes -= entry.bytes;
      }
    },
    stats() {
      return { entries: entries.size, bytes };
    },
  };
}

/** FNV-1a, enough to make feed variants' ETags distinct and short. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}
