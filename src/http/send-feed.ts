import { type FileHandle, open } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pLimit from 'p-limit';
import parseRange from 'range-parser';
import { type BodyForm, type EncodedFeed, formOf, isCompressible, type StoredFile } from '../services/feeds/encoded-feed.js';
import { errorBody, statusOf } from './error-codes.js';
export type ContentCoding = 'br' | 'gzip' | 'identity';

/** Every coding a feed can be sent in, in order of preference on equal weights. */
const ALL_CODINGS: readonly ContentCoding[] = ['br', 'gzip', 'identity'];
/** A body compressed already (the workbook): it is only ever sent as it is. */
const IDENTITY_ONLY: readonly ContentCoding[] = ['identity'];

/**
 * Picks the coding from Accept-Encoding (RFC 9110 §12.5.3) among `available`: highest q wins, ties prefer br, then gzip;
 * identity is acceptable unless excluded, and loses to any compressed coding the client accepts. `undefined` means nothing acceptable (406).
 */
export function negotiateEncoding(
  header: string | undefined,
  available: readonly ContentCoding[] = ALL_CODINGS,
): ContentCoding | undefined {
  if (header === undefined || header.trim() === '') return available.includes('identity') ? 'identity' : undefined;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [rawName = '', ...params] = part.trim().split(';');
    const name = rawName.trim().toLowerCase();
    if (name === '') continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.trim().split('=');
      if (key?.trim().toLowerCase() === 'q') {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      }
    }
    weights.set(name, q);
  }
  const star = weights.get('*');
  const weightOf = (coding: ContentCoding): number => {
    const explicit = weights.get(coding) ?? (coding === 'gzip' ? weights.get('x-gzip') : undefined);
    if (explicit !== undefined) return explicit;
    if (star !== undefined) return star;
    // Identity is acceptable unless excluded, but any coding the client names is preferred to it.
    return coding === 'identity' ? 0.001 : 0;
  };
  let best: ContentCoding | undefined;
  let bestWeight = 0;
  for (const coding of available) {
    const weight = weightOf(coding);
    if (weight > bestWeight) {
      best = coding;
      bestWeight = weight;
    }
  }
  return best;
}

function etagOf(feed: EncodedFeed, coding: ContentCoding): string {
  // Strong validators must differ between encodings of the same content (RFC 9110 §8.8.3).
  return coding === 'identity' ? `"${feed.tag}"` : `"${feed.tag}-${coding}"`;
}

/** Negotiated codings of recently seen Accept-Encoding values: clients send a handful of distinct ones. */
const codingByHeader = new Map<string, ContentCoding | 'none'>();
const MAX_REMEMBERED_HEADERS = 64;

function codingFor(header: string | undefined, feed: EncodedFeed): ContentCoding | undefined {
  if (header === undefined) return 'identity';
  // Rare (workbook downloads), so not remembered: the cache below is for the codings of every feed.
  if (!isCompressible(feed)) return negotiateEncoding(header, IDENTITY_ONLY);
  const known = codingByHeader.get(header);
  if (known !== undefined) return known === 'none' ? undefined : known;
  const coding = negotiateEncoding(header);
  if (codingByHeader.size < MAX_REMEMBERED_HEADERS) codingByHeader.set(header, coding ?? 'none');
  return coding;
}

/** Flat `[name, value, …]` lists for writeHead, built once per feed, coding and privacy. */
type HeaderList = readonly string[];

interface Representation {
  /** The bytes sent: in memory, or a file streamed from the page cache. */
  readonly body: BodyForm;
  readonly etag: string;
  readonly ok: HeaderList;
  /** A `206`'s headers but its Content-Length and Content-Range. */
  readonly partial: HeaderList;
  readonly notModified: HeaderList;
}

/** A feed's representations by coding: all three, or identity alone for a body compressed already. */
type Representations = Partial<Record<ContentCoding, Representation>>;

/** Everything about a cached feed that does not depend on the request, so a request allocates nothing for it. */
interface PreparedFeed {
  readonly etags: ReadonlySet<string>;
  /** `public`, then `private`; each built on first use. */
  readonly representations: [Representations | undefined, Representations | undefined];
}

/** Weak, so a feed dropped from the cache takes its headers with it. */
const preparedFeeds = new WeakMap<EncodedFeed, PreparedFeed>();

function codingsOf(feed: EncodedFeed): readonly ContentCoding[] {
  return isCompressible(feed) ? ALL_CODINGS : IDENTITY_ONLY;
}

function preparedOf(feed: EncodedFeed): PreparedFeed {
  let prepared = preparedFeeds.get(feed);
  if (prepared === undefined) {
    prepared = {
      etags: new Set(codingsOf(feed).map((coding) => etagOf(feed, coding))),
      representations: [undefined, undefined],
    };
    preparedFeeds.set(feed, prepared);
  }
  return prepared;
}

function commonHeaders(feed: EncodedFeed, isPrivate: boolean): string[] {
  return [
    'cache-control',
    `${isPrivate ? 'private' : 'public'}, no-cache`,
    'last-modified',
    feed.lastModified.toUTCString(),
    'vary',
    'Accept-Encoding',
    'x-catalog-version',
    feed.version,
    // A browser opening a feed must not guess another type from its text (an item's name holding HTML).
    'x-content-type-options',
    'nosniff',
  ];
}

function representationsOf(feed: EncodedFeed, prepared: PreparedFeed, isPrivate: boolean): Representations {
  const slot = isPrivate ? 1 : 0;
  const existing = prepared.representations[slot];
  if (existing !== undefined) return existing;
  const represent = (coding: ContentCoding, body: BodyForm): Representation => {
    const etag = etagOf(feed, coding);
    const notModified = [...commonHeaders(feed, isPrivate), 'etag', etag];
    const partial = [...notModified, 'content-type', feed.contentType, 'accept-ranges', 'bytes'];
    if (coding !== 'identity') partial.push('content-encoding', coding);
    if (feed.fileName !== undefined) partial.push('content-disposition', `inline; filename="${feed.fileName}"`);
    const ok = [...partial, 'content-length', String(body.length)];
    return { body, etag, ok: Object.freeze(ok), partial: Object.freeze(partial), notModified: Object.freeze(notModified) };
  };
  const representations: Representations = {};
  for (const coding of codingsOf(feed)) {
    const body = formOf(feed, coding);
    if (body !== undefined) representations[coding] = represent(coding, body);
  }
  prepared.representations[slot] = representations;
  return representations;
}

/** Weak comparison, as If-None-Match requires; any encoding of this version counts as a match. */
function matchesIfNoneMatch(header: string, etags: ReadonlySet<string>): boolean {
  // The usual case: a poller echoing the ETag it got.
  if (etags.has(header)) return true;
  if (header.trim() === '*') return true;
  for (const candidate of header.split(',')) {
    const tag = candidate.trim().replace(/^W\//, '');
    if (etags.has(tag)) return true;
  }
  return false;
}

function notModifiedSince(header: string, lastModified: Date): boolean {
  const since = Date.parse(header);
  if (Number.isNaN(since)) return false;
  // HTTP dates have one-second resolution.
  return Math.floor(lastModified.getTime() / 1000) <= Math.floor(since / 1000);
}

/** What `sendFeed` sent: the coding and the body's bytes (0 for a `304` or a `HEAD`), for the fetch log. */
export interface SentFeed {
  readonly encoding: ContentCoding;
  readonly bytes: number;
}

/** No body, in the coding negotiated (a `304` or `HEAD` still tells which representation the client holds). */
const NO_BODY: Readonly<Record<ContentCoding, SentFeed>> = {
  br: { encoding: 'br', bytes: 0 },
  gzip: { encoding: 'gzip', bytes: 0 },
  identity: { encoding: 'identity', bytes: 0 },
};

export interface SendFeedOptions {
  /** `private` when the feed needs a token, so shared caches do not keep it. */
  readonly private: boolean;
  /**
   * Told when a feed file failed while its body was being sent (a read error, a file shorter than its
   * manifest): the answer was cut short, which is all the client sees.
   */
  readonly onFileError?: (error: unknown, path: string) => void;
}

function sendNotAcceptable(req: IncomingMessage, res: ServerResponse, feed: EncodedFeed, isPrivate: boolean): SentFeed {
  const body = errorBody(
    'NOT_ACCEPTABLE',
    isCompressible(feed)
      ? 'No acceptable content coding (br, gzip or identity)'
      : 'No acceptable content coding: this file is compressed already and is sent as it is (identity)',
  );
  res.writeHead(statusOf('NOT_ACCEPTABLE'), [
    ...commonHeaders(feed, isPrivate),
    'content-type',
    'application/json; charset=utf-8',
    'content-length',
    String(Buffer.byteLength(body)),
  ]);
  res.end(req.method === 'HEAD' ? undefined : body);
  return req.method === 'HEAD' ? NO_BODY.identity : { encoding: 'identity', bytes: Buffer.byteLength(body) };
}

/** The byte range asked for, when it applies (RFC 9110 §14): one range, and If-Range naming this representation. */
function rangeOf(
  req: IncomingMessage,
  representation: Representation,
  lastModified: Date,
): { readonly start: number; readonly end: number } | 'unsatisfiable' | undefined {
  const header = req.headers.range;
  if (header === undefined || req.method !== 'GET') return undefined;
  const ifRange = req.headers['if-range'];
  if (Array.isArray(ifRange)) return undefined;
  if (ifRange !== undefined) {
    // An entity tag compares strongly; a date must be the exact Last-Modified.
    if (ifRange.startsWith('"') || ifRange.startsWith('W/')) {
      if (ifRange !== representation.etag) return undefined;
    } else if (Math.floor(Date.parse(ifRange) / 1000) !== Math.floor(lastModified.getTime() / 1000)) return undefined;
  }
  const ranges = parseRange(representation.body.length, header, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  // Malformed, another unit, or several ranges: the whole body, as RFC 9110 allows.
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  return ranges[0];
}

/**
 * Writes a cached feed with strong validators, 304 handling, HEAD, byte ranges and content negotiation.
 * Uses the node response directly: no per-request hashing or copying of multi-megabyte bodies, and header
 * lists built once per feed (this is the path every poll and every 304 takes). A body in a file is opened
 * before the headers go and streamed from the kernel's page cache; `undefined` means its file was gone
 * (replaced by a newer render meanwhile) and nothing was sent: serve the newest render instead.
 */
export async function sendFeed(
  req: IncomingMessage,
  res: ServerResponse,
  feed: EncodedFeed,
  options: SendFeedOptions,
): Promise<SentFeed | undefined> {
  const coding = codingFor(req.headers['accept-encoding'], feed);
  const prepared = preparedOf(feed);
  const representation = coding === undefined ? undefined : representationsOf(feed, prepared, options.private)[coding];
  if (coding === undefined || representation === undefined) return sendNotAcceptable(req, res, feed, options.private);

  const ifNoneMatch = req.headers['if-none-match'];
  const notModified =
    ifNoneMatch !== undefined
      ? matchesIfNoneMatch(ifNoneMatch, prepared.etags)
      : req.headers['if-modified-since'] !== undefined && notModifiedSince(req.headers['if-modified-since'], feed.lastModified);
  if (notModified) {
    res.writeHead(304, representation.notModified as string[]);
    res.end();
    return NO_BODY[coding];
  }
  const range = rangeOf(req, representation, feed.lastModified);
  const { body } = representation;
  if (range === 'unsatisfiable') {
    res.writeHead(416, [...representation.notModified, 'content-range', `bytes */${body.length}`, 'content-length', '0']);
    res.end();
    return NO_BODY[coding];
  }
  if (req.method === 'HEAD') {
    res.writeHead(200, representation.ok as string[]);
    res.end();
    return NO_BODY[coding];
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? body.length - 1;
  let file: FileHandle | undefined;
  if (!Buffer.isBuffer(body)) {
    try {
      file = await open(body.path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }
  if (range === undefined) res.writeHead(200, representation.ok as string[]);
  else {
    res.writeHead(206, [
      ...representation.partial,
      'content-range',
      `bytes ${start}-${end}/${body.length}`,
      'content-length',
      String(end - start + 1),
    ]);
  }
  if (file === undefined) res.end(range === undefined ? body : (body as Buffer).subarray(start, end + 1));
  else void sendFile(res, file, start, end).catch((error: unknown) => options.onFileError?.(error, (body as StoredFile).path));
  return { encoding: coding, bytes: Math.max(0, end - start + 1) };
}

/** One read of a feed file. */
const READ_CHUNK_BYTES = 256 * 1024;

/**
 * Feed file reads in flight at once, for all responses together. The reads copy from the page cache in
 * libuv's pool; hundreds of downloads reading at once kept both cores busy there and the event loop waited
 * (a /healthz probe up to 222 ms beside 100 downloads of 45 MB on this 2-core machine, against 60–125 ms
 * with two reads at a time at the same throughput; decision 0016).
 */
const fileReads = pLimit(2);

/**
 * Read buffers, one per response for its whole body and kept for the next: a fresh 256 KiB buffer per
 * read is memory outside V8's heap that V8 counts, and churning gigabytes of it set off a full collection
 * of the main heap (the catalog's) every few reads: 36 ms of CPU per 3.5 MB answer, 10 % of a bare server
 * sending the same bytes (bench/serve-feeds.ts).
 */
const spareBuffers: Buffer[] = [];
const MAX_SPARE_BUFFERS = 32;

/**
 * Settles once `chunk` is handed to the kernel (`true`), or the response is gone (`false`). A write's callback
 * is not called when the client goes away while it is pending (Node 20): waiting for it alone left the
 * stream stuck and its file open until the garbage collector closed it, with a warning.
 */
export function written(res: Pick<ServerResponse, 'write' | 'once' | 'off'>, chunk: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const gone = () => resolve(false);
    res.once('close', gone);
    res.write(chunk, () => {
      res.off('close', gone);
      resolve(true);
    });
  });
}

/**
 * Streams bytes `start`..`end` of an open feed file to the response (headers sent already), a chunk at a
 * time as the client takes them, through one buffer. A client that goes away stops the reading; a read
 * that fails or a file shorter than named (never for a whole file) destroys the response, so the client
 * sees a body shorter than its Content-Length rather than a wrong one, and rejects with the reason.
 */
async function sendFile(res: ServerResponse, file: FileHandle, start: number, end: number): Promise<void> {
  let failure: unknown;
  const buffer = spareBuffers.pop() ?? Buffer.allocUnsafeSlow(READ_CHUNK_BYTES);
  let position = start;
  // Whether the buffer may serve another response: not when a write of it never called back.
  let reusable = true;
  try {
    while (position <= end && !res.destroyed) {
      const size = Math.min(READ_CHUNK_BYTES, end - position + 1);
      const { bytesRead } = await fileReads(() => file.read(buffer, 0, size, position));
      if (bytesRead === 0) throw new Error('the feed file is shorter than its manifest says');
      position += bytesRead;
      reusable = await written(res, buffer.subarray(0, bytesRead));
      if (!reusable) break;
    }
    if (!res.destroyed) res.end();
  } catch (error) {
    failure = error;
    res.destroy();
  } finally {
    await file.close().catch(() => {});
    if (reusable && spareBuffers.length < MAX_SPARE_BUFFERS) spareBuffers.push(buffer);
  }
  if (failure !== undefined) throw failure;
}
