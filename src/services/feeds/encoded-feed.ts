import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, createGunzip, gzip, gzipSync } from 'node:zlib';

/**
 * A compressible body as kept: its gzip and br forms only. The identity body (~80 % of the three at a
 * 10:1 ratio) is dropped once compressed, since nearly every poller asks for gzip or br; the rare identity
 * answer is inflated from the gzip form while it is sent (`identityStream`).
 */
export interface CompressedBody {
  readonly identity?: undefined;
  /** Bytes of the body as rendered: the identity answer's Content-Length. */
  readonly identityLength: number;
  readonly gzip: Buffer;
  readonly br: Buffer;
}

/**
 * A body that is compressed already (the workbook, a zip): compressing it again costs CPU and saves
 * nothing, so it is kept and sent as it is.
 */
export interface PrecompressedBody {
  readonly identity: Buffer;
  readonly identityLength: number;
  readonly gzip?: undefined;
  readonly br?: undefined;
}

/** A rendered body as kept, before the headers' details are known. */
export type EncodedBody = CompressedBody | PrecompressedBody;

/** What a feed's answers carry besides the body. */
export interface FeedDetails {
  readonly contentType: string;
  /** Opaque, unquoted, unique per catalog version and feed variant; the encoding is appended per representation. */
  readonly tag: string;
  readonly version: string;
  readonly lastModified: Date;
  /** Suggested file name for downloads (Content-Disposition), if any. */
  readonly fileName?: string;
}

/** A rendered feed of one catalog version, as cached and served. */
export type EncodedFeed = EncodedBody & FeedDetails;

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** gzip level 6 and brotli quality 5: near-best size at a cost paid once per version (BENCHMARKS.md). */
function brotliOptions(size: number) {
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_SIZE_HINT]: size,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  };
}

/**
 * Compresses in libuv's thread pool (the calling thread only waits) and keeps the compressed forms alone;
 * `compress: false` keeps identity alone.
 */
export async function encodeBody(identity: Buffer, compress = true): Promise<EncodedBody> {
  if (!compress) return { identity, identityLength: identity.length };
  const [gz, br] = await Promise.all([gzipAsync(identity, { level: 6 }), brotliAsync(identity, brotliOptions(identity.length))]);
  return { identityLength: identity.length, gzip: gz, br };
}

/** The same compression, synchronously: for worker threads, whose only job it is. */
export function encodeBodySync(identity: Buffer, compress = true): EncodedBody {
  if (!compress) return { identity, identityLength: identity.length };
  return {
    identityLength: identity.length,
    gzip: gzipSync(identity, { level: 6 }),
    br: brotliCompressSync(identity, brotliOptions(identity.length)),
  };
}

/** Output chunks of an inflate: a quarter of zlib's trips through libuv's pool at its 16 KiB default. */
const INFLATE_CHUNK_BYTES = 64 * 1024;

/**
 * The identity body as a stream: as it is for a body compressed already, else inflated from the gzip form
 * in libuv's thread pool, a chunk at a time as the reader takes them (backpressure), so neither a whole
 * identity body nor a long inflate ever lands on the calling thread. Pipe it with `pipeline`, which
 * destroys it when the reader goes away.
 */
export function identityStream(body: EncodedBody): Readable {
  if (body.identity !== undefined) return Readable.from([body.identity], { objectMode: false });
  const gunzip = createGunzip({ chunkSize: INFLATE_CHUNK_BYTES });
  gunzip.end(body.gzip);
  return gunzip;
}

/** FNV-1a, enough to make feed variants' ETags distinct and short. */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

/** The feed of `key` at `version`, with its validator tag. */
export function encodedFeed(
  body: EncodedBody,
  details: {
    readonly key: string;
    readonly version: string;
    readonly lastModified: Date;
    readonly contentType: string;
    readonly fileName?: string;
  },
): EncodedFeed {
  const head: FeedDetails = {
    contentType: details.contentType,
    tag: `${details.version}-${shortHash(details.key)}`,
    version: details.version,
    lastModified: details.lastModified,
    ...(details.fileName === undefined ? {} : { fileName: details.fileName }),
  };
  // Only the body's own fields are copied: a render's report stays out of the cached feed.
  return body.identity === undefined
    ? { identityLength: body.identityLength, gzip: body.gzip, br: body.br, ...head }
    : { identity: body.identity, identityLength: body.identityLength, ...head };
}

/** Bytes a feed holds in memory, every body it keeps counted (the feed cache's budget is in these). */
export function encodedSize(feed: EncodedBody): number {
  return (feed.identity?.length ?? 0) + (feed.gzip?.length ?? 0) + (feed.br?.length ?? 0);
}
