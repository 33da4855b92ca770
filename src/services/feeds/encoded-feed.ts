import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/** One form of a rendered body written to a file (`docs/decisions/0016-feed-files.md`). */
export interface StoredFile {
  /** Absolute path. */
  readonly path: string;
  readonly length: number;
}

/**
 * A rendered body in memory: the identity form, and for a text body its gzip and br forms. Small bodies
 * (the changes feed) and renders outside the app (tools, tests) are kept so.
 */
export interface MemoryBody {
  readonly identity: Buffer;
  /** Bytes of the body as rendered: the identity answer's Content-Length. */
  readonly identityLength: number;
  readonly gzip?: Buffer;
  readonly br?: Buffer;
  readonly files?: undefined;
}

/** The forms of one body: identity always, gzip and br for a text body. */
export interface BodyForms<T> {
  readonly identity: T;
  readonly gzip?: T | undefined;
  readonly br?: T | undefined;
}

/** The forms `forms` has, identity first. */
export function formList<T>(forms: BodyForms<T>): T[] {
  return [forms.identity, ...(forms.gzip === undefined ? [] : [forms.gzip]), ...(forms.br === undefined ? [] : [forms.br])];
}

/** `forms` with `each` applied to every form it has. */
export function mapForms<A, B>(forms: BodyForms<A>, each: (form: A) => B): BodyForms<B> {
  return {
    identity: each(forms.identity),
    ...(forms.gzip === undefined ? {} : { gzip: each(forms.gzip) }),
    ...(forms.br === undefined ? {} : { br: each(forms.br) }),
  };
}

/**
 * A rendered body written to files, one per form (identity, and gzip and br for a text body): what the
 * app's renderer produces. The heap keeps these few fields; the bodies live in the kernel's page cache.
 */
export interface FileBody {
  readonly files: BodyForms<StoredFile>;
  readonly identityLength: number;
  readonly identity?: undefined;
  readonly gzip?: undefined;
  readonly br?: undefined;
}

/** A rendered body as kept, before the headers' details are known. */
export type EncodedBody = MemoryBody | FileBody;

/** The content codings a body is kept in. */
export type BodyCoding = 'identity' | 'gzip' | 'br';

/** Every coding a body can be kept in, identity first. */
export const BODY_CODINGS: readonly BodyCoding[] = ['identity', 'gzip', 'br'];

/** One form of a body: its bytes in memory or its file. */
export type BodyForm = Buffer | StoredFile;

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
export function brotliOptions(size: number) {
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      ...(size > 0 ? { [constants.BROTLI_PARAM_SIZE_HINT]: size } : {}),
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  };
}

/** gzip's level for every body (see `brotliOptions`). */
export const GZIP_LEVEL = 6;

/**
 * Compresses in libuv's thread pool (the calling thread only waits) and keeps all three forms: no answer
 * is ever inflated or compressed per request. `compress: false` keeps identity alone (a body compressed
 * already, such as the workbook).
 */
export async function encodeBody(identity: Buffer, compress = true): Promise<MemoryBody> {
  if (!compress) return { identity, identityLength: identity.length };
  const [gz, br] = await Promise.all([
    gzipAsync(identity, { level: GZIP_LEVEL }),
    brotliAsync(identity, brotliOptions(identity.length)),
  ]);
  return { identity, identityLength: identity.length, gzip: gz, br };
}

/** The form of `body` in `coding`, if it is kept in it. */
export function formOf(body: EncodedBody, coding: BodyCoding): BodyForm | undefined {
  return body.files === undefined ? body[coding] : body.files[coding];
}

/** Whether the body has gzip and br forms (not so for a body compressed already). */
export function isCompressible(body: EncodedBody): boolean {
  return formOf(body, 'gzip') !== undefined && formOf(body, 'br') !== undefined;
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

/** The validator tag of the feed of `key` at `version`. */
export function feedTag(key: string, version: string): string {
  return `${version}-${shortHash(key)}`;
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
    tag: feedTag(details.key, details.version),
    version: details.version,
    lastModified: details.lastModified,
    ...(details.fileName === undefined ? {} : { fileName: details.fileName }),
  };
  // Only the body's own fields are copied: a render's report stays out of the cached feed.
  if (body.files !== undefined) return { files: body.files, identityLength: body.identityLength, ...head };
  return {
    identity: body.identity,
    identityLength: body.identityLength,
    ...(body.gzip === undefined ? {} : { gzip: body.gzip }),
    ...(body.br === undefined ? {} : { br: body.br }),
    ...head,
  };
}

/** Bytes a feed keeps, every form counted: in memory, or on disk for a body in files (the feed cache's budget). */
export function encodedSize(feed: EncodedBody): number {
  let bytes = 0;
  for (const coding of BODY_CODINGS) bytes += formOf(feed, coding)?.length ?? 0;
  return bytes;
}
