import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { type EncodedFeed, identityStream } from '../services/feeds/encoded-feed.js';
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

/** Whether the feed has gzip and br forms (not so for a body compressed already). */
function isCompressible(feed: EncodedFeed): boolean {
  return feed.gzip !== undefined && feed.br !== undefined;
}

/** Flat `[name, value, …]` lists for writeHead, built once per feed, coding and privacy. */
type HeaderList = readonly string[];

interface Representation {
  /** The bytes sent; `undefined` for the identity of a compressible feed, inflated as it is sent. */
  readonly body: Buffer | undefined;
  readonly ok: HeaderList;
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
  ];
}

function representationsOf(feed: EncodedFeed, prepared: PreparedFeed, isPrivate: boolean): Representations {
  const slot = isPrivate ? 1 : 0;
  const existing = prepared.representations[slot];
  if (existing !== undefined) return existing;
  const represent = (coding: ContentCoding, body: Buffer | undefined, length: number): Representation => {
    const notModified = [...commonHeaders(feed, isPrivate), 'etag', etagOf(feed, coding)];
    const ok = [...notModified, 'content-type', feed.contentType, 'content-length', String(length)];
    if (coding !== 'identity') ok.push('content-encoding', coding);
    if (feed.fileName !== undefined) ok.push('content-disposition', `inline; filename="${feed.fileName}"`);
    return { body, ok: Object.freeze(ok), notModified: Object.freeze(notModified) };
  };
  const representations: Representations = { identity: represent('identity', feed.identity, feed.identityLength) };
  if (feed.gzip !== undefined) representations.gzip = represent('gzip', feed.gzip, feed.gzip.length);
  if (feed.br !== undefined) representations.br = represent('br', feed.br, feed.br.length);
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

/**
 * Writes a cached feed with strong validators, 304 handling, HEAD and content negotiation. Uses the
 * node response directly: no per-request hashing or copying of multi-megabyte bodies, and header lists
 * built once per feed (this is the path every poll and every 304 takes). The identity of a feed kept
 * compressed is streamed (`sendInflated`): the rare client that asks for it gets the same bytes and headers.
 */
export function sendFeed(req: IncomingMessage, res: ServerResponse, feed: EncodedFeed, options: SendFeedOptions): SentFeed {
  const coding = codingFor(req.headers['accept-encoding'], feed);
  const prepared = preparedOf(feed);
  const representation = coding === undefined ? undefined : representationsOf(feed, prepared, options.private)[coding];
  if (representation === undefined) return sendNotAcceptable(req, res, feed, options.private);

  const ifNoneMatch = req.headers['if-none-match'];
  const notModified =
    ifNoneMatch !== undefined
      ? matchesIfNoneMatch(ifNoneMatch, prepared.etags)
      : req.headers['if-modified-since'] !== undefined && notModifiedSince(req.headers['if-modified-since'], feed.lastModified);
  if (notModified) {
    res.writeHead(304, representation.notModified as string[]);
    res.end();
    return NO_BODY[coding ?? 'identity'];
  }
  res.writeHead(200, representation.ok as string[]);
  if (req.method === 'HEAD') {
    res.end();
    return NO_BODY[coding ?? 'identity'];
  }
  if (representation.body !== undefined) res.end(representation.body);
  else sendInflated(res, feed);
  return { encoding: coding ?? 'identity', bytes: representation.body?.length ?? feed.identityLength };
}

/**
 * The identity body of a feed kept compressed, inflated from its gzip form in libuv's pool as the client
 * reads it (Content-Length is the stored identity length, sent already). A client that goes away
 * mid-body ends the pipeline with an error, which destroys the inflate too: nothing is left to do, and
 * the response is gone. An inflate that failed (never for a body this process compressed) destroys the
 * response, so the client sees a body shorter than its Content-Length rather than a wrong one.
 */
function sendInflated(res: ServerResponse, feed: EncodedFeed): void {
  pipeline(identityStream(feed), res, () => {});
}
