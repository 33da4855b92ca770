import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FetchEncoding } from '../core/fetches/fetch-summary.js';
import type { RecordedFetch } from '../services/fetches/fetch-log.js';
import type { SentFeed } from './send-feed.js';

/** A finished feed response (`services/fetches/fetch-log.ts` records it). */
export type FinishedFetch = RecordedFetch;

export type FetchRecorder = (fetch: FinishedFetch) => void;

/** What the feed routes sent, noted for the response's `finish` (a feed's headers are written as lists, not kept). */
const sentBy = new WeakMap<ServerResponse, SentFeed>();

export function noteSent(res: ServerResponse, sent: SentFeed): void {
  sentBy.set(res, sent);
}

/** The statuses of a feed answered: the body, a range of it, or "not modified". */
const ANSWERED = new Set([200, 206, 304]);

/** Longest feed or view name recorded: a made-up URL must not fill the log with kilobytes. */
const MAX_NAME = 100;

function encodingOf(res: ServerResponse): FetchEncoding {
  const header = res.getHeader('content-encoding');
  return header === 'gzip' || header === 'br' ? header : 'identity';
}

function contentLengthOf(res: ServerResponse): number {
  const length = Number(res.getHeader('content-length'));
  return Number.isFinite(length) ? length : 0;
}

/**
 * Records the request once its response has finished with the feed (`200`, `206`, `304`; a download cut short
 * never finishes and is not recorded): status, coding and body bytes as sent, from `noteSent` or from the
 * response's headers.
 */
export function recordWhenFinished(
  req: IncomingMessage,
  res: ServerResponse,
  feed: string,
  view: string,
  record: FetchRecorder,
): void {
  res.once('finish', () => {
    // Only answered fetches: anyone can be refused (a 401 without the feed token) under any agent, and such
    // entries would push the channels' real fetches out and hide a channel that stopped fetching.
    if (!ANSWERED.has(res.statusCode)) return;
    const sent = sentBy.get(res);
    const noBody = req.method === 'HEAD' || res.statusCode === 304;
    record({
      feed: feed.length > MAX_NAME ? feed.slice(0, MAX_NAME) : feed,
      view: view.length > MAX_NAME ? view.slice(0, MAX_NAME) : view,
      userAgent: req.headers['user-agent'],
      status: res.statusCode,
      encoding: sent?.encoding ?? encodingOf(res),
      bytes: noBody ? 0 : (sent?.bytes ?? contentLengthOf(res)),
    });
  });
}

const LOCAL_INVENTORY = 'local-inventory.tsv';

/** The feed and view of a `/feeds/…` path the feed routes answer (`/feeds/{view}/{file}`, `/feeds/local-inventory.tsv`). */
export function feedOfPath(path: string): { readonly feed: string; readonly view: string } | undefined {
  if (!path.startsWith('/feeds/')) return undefined;
  const rest = path.slice('/feeds/'.length);
  const slash = rest.indexOf('/');
  if (slash === -1) return rest === LOCAL_INVENTORY ? { feed: LOCAL_INVENTORY, view: 'all' } : undefined;
  const feed = rest.slice(slash + 1);
  if (slash === 0 || feed === '' || feed.includes('/')) return undefined;
  return { feed, view: rest.slice(0, slash) };
}
