import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';

/**
 * A rendered feed body in every encoding served, all from one catalog version. A body that is already
 * compressed (the workbook, a zip) has no gzip or br form: compressing it again costs CPU and saves
 * nothing, so it is stored and sent as it is.
 */
export interface EncodedFeed {
  readonly identity: Buffer;
  readonly gzip?: Buffer;
  readonly br?: Buffer;
  readonly contentType: string;
  /** Opaque, unquoted, unique per catalog version and feed variant; the encoding is appended per representation. */
  readonly tag: string;
  readonly version: string;
  readonly lastModified: Date;
  /** Suggested file name for downloads (Content-Disposition), if any. */
  readonly fileName?: string;
}

/** A body in the three encodings (or identity alone, when already compressed), before the headers' details are known. */
export interface EncodedBody {
  readonly identity: Buffer;
  readonly gzip?: Buffer;
  readonly br?: Buffer;
}

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

/** Compresses in libuv's thread pool (the calling thread only waits); `compress: false` keeps identity alone. */
export async function encodeBody(identity: Buffer, compress = true): Promise<EncodedBody> {
  if (!compress) return { identity };
  const [gz, br] = await Promise.all([gzipAsync(identity, { level: 6 }), brotliAsync(identity, brotliOptions(identity.length))]);
  return { identity, gzip: gz, br };
}

/** The same compression, synchronously: for worker threads, whose only job it is. */
export function encodeBodySync(identity: Buffer, compress = true): EncodedBody {
  if (!compress) return { identity };
  return { identity, gzip: gzipSync(identity, { level: 6 }), br: brotliCompressSync(identity, brotliOptions(identity.length)) };
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
  return {
    ...body,
    contentType: details.contentType,
    tag: `${details.version}-${shortHash(details.key)}`,
    version: details.version,
    lastModified: details.lastModified,
    ...(details.fileName === undefined ? {} : { fileName: details.fileName }),
  };
}

/** Bytes a feed holds in memory, every encoding counted (the feed cache's budget is in these). */
export function encodedSize(feed: EncodedFeed): number {
  return feed.identity.length + (feed.gzip?.length ?? 0) + (feed.br?.length ?? 0);
}
