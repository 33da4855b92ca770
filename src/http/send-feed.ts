import type { IncomingMessage, ServerResponse } from 'node:http';

/** A rendered feed body in every encoding we serve, all from one catalog version. */
export interface EncodedFeed {
  readonly identity: Buffer;
  readonly gzip: Buffer;
  readonly br: Buffer;
  readonly contentType: string;
  /** Opaque, unquoted, unique per catalog version and feed variant; the encoding is appended per representation. */
  readonly tag: string;
  readonly version: string;
  readonly lastModified: Date;
  /** Suggested file name for downloads (Content-Disposition), if any. */
  readonly fileName?: string;
}

export type ContentCoding = 'br' | 'gzip' | 'identity';

/**
 * Picks the coding from Accept-Encoding (RFC 9110 §12.5.3): highest q wins, ties prefer br, then gzip;
 * identity is acceptable unless excluded, and loses to any compressed coding the client accepts. `undefined` means nothing acceptable (406).
 */
export function negotiateEncoding(header: string | undefined): ContentCoding | undefined {
  if (header === undefined || header.trim() === '') return 'identity';
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
  for (const coding of ['br', 'gzip', 'identity'] as const) {
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

/** Weak comparison, as If-None-Match requires; any encoding of this version counts as a match. */
function matchesIfNoneMatch(header: string, feed: EncodedFeed): boolean {
  if (header.trim() === '*') return true;
  const ours = new Set([etagOf(feed, 'identity'), etagOf(feed, 'gzip'), etagOf(feed, 'br')]);
  for (const candidate of header.split(',')) {
    const tag = candidate.trim().replace(/^W\//, '');
    if (ours.has(tag)) return true;
  }
  return false;
}

function notModifiedSince(header: string, lastModified: Date): boolean {
  const since = Date.parse(header);
  if (Number.isNaN(since)) return false;
  // HTTP dates have one-second resolution.
  return Math.floor(lastModified.getTime() / 1000) <= Math.floor(since / 1000);
}

export interface SendFeedOptions {
  /** `private` when the feed needs a token, so shared caches do not keep it. */
  readonly private: boolean;
}

/**
 * Writes a cached feed with strong validators, 304 handling, HEAD and content negotiation. Uses the
 * node response directly: no per-request hashing or copying of multi-megabyte bodies.
 */
export function sendFeed(req: IncomingMessage, res: ServerResponse, feed: EncodedFeed, options: SendFeedOptions): void {
  const coding = negotiateEncoding(req.headers['accept-encoding']);
  const headers: Record<string, string | number> = {
    'cache-control': `${options.private ? 'private' : 'public'}, no-cache`,
    'last-modified': feed.lastModified.toUTCString(),
    vary: 'Accept-Encoding',
    'x-catalog-version': feed.version,
  };
  if (coding === undefined) {
    const body = JSON.stringify({
      error: { code: 'NOT_ACCEPTABLE', message: 'No acceptable content coding (br, gzip or identity)' },
    });
    res.writeHead(406, {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  headers['etag'] = etagOf(feed, coding);

  const ifNoneMatch = req.headers['if-none-match'];
  const ifModifiedSince = req.headers['if-modified-since'];
  const notModified =
    ifNoneMatch !== undefined
      ? matchesIfNoneMatch(ifNoneMatch, feed)
      : ifModifiedSince !== undefined && notModifiedSince(ifModifiedSince, feed.lastModified);
  if (notModified) {
    res.writeHead(304, headers);
    res.end();
    return;
  }

  const body = coding === 'identity' ? feed.identity : feed[coding];
  headers['content-type'] = feed.contentType;
  headers['content-length'] = body.length;
  if (coding !== 'identity') headers['content-encoding'] = coding;
  if (feed.fileName !== undefined) headers['content-disposition'] = `inline; filename="${feed.fileName}"`;
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}
