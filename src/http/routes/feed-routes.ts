import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import type { Request, RequestHandler, Response, Router } from 'express';
import { z } from 'zod';
import { ALL_UNITS, type CatalogSnapshot } from '../../core/catalog/catalog.js';
import { JSON_FEED_SCHEMAS } from '../../core/feeds/json-feed-schema.js';
import { CHANGES_FEED_FILE } from '../../core/feeds/render-changes-feed.js';
import type { FeedDescriptor, FeedService, FeedVariant } from '../../services/feeds/feed-service.js';
import { clientAddressOf } from '../client-address.js';
import { createRouter } from '../create-router.js';
import { type HttpErrorCode, statusOf } from '../error-codes.js';
import { type FetchRecorder, feedOfPath, noteSent, recordWhenFinished } from '../fetch-recording.js';
import { withFrontHandler } from '../front-handler.js';
import { bearerTokenOf, secretMatches } from '../middleware/token-auth.js';
import { sendError, sendRawError } from '../send-error.js';
import { type SendFeedOptions, type SentFeed, sendFeed } from '../send-feed.js';
import { createRenderAdmission } from './render-admission.js';

export interface FeedRoutesDeps {
  readonly feeds: FeedService;
  readonly current: () => CatalogSnapshot | undefined;
  /** FEED_TOKEN: when set, every feed URL (and the pages listing them) needs it. */
  readonly token: string | undefined;
  /** Counts a feed request by feed and status (metrics). */
  readonly onRequest?: (feed: string, status: number) => void;
  /** Told of every feed response once it has finished (the fetch log, docs/console.md#who-fetches-the-feeds). */
  readonly onFetch?: FetchRecorder;
  /** Why no catalog is served yet (the first sync runs, or failed and is tried again at …), for the 503's message. */
  readonly waiting?: () => string;
  /** Told when a feed file failed while being sent (the answer was cut short). */
  readonly onFileError?: (error: unknown, path: string) => void;
}

const UNIT_PATTERN = /^[A-Za-z0-9._~-]{1,64}$/;
const ProductsCsvQuery = z.object({ profile: z.enum(['rfc4180', 'excel']).optional() });
const ChangesQuery = z.object({
  since: z
    .string()
    .regex(/^[A-Za-z0-9._~-]{1,128}$/, 'must be a cursor from a previous answer')
    .optional(),
});

/** Seconds a client should wait before asking again while the first catalog is being built. */
const RETRY_AFTER_SECONDS = 10;
const DEFAULT_VARIANT: FeedVariant = {};
const FEED_PREFIX = '/feeds/';
const SLASH = 0x2f;
const QUESTION_MARK = 0x3f;
const PERCENT = 0x25;
const HASH = 0x23;
const SPACE = 0x20;
const NO_BREAK_SPACE = 0xa0;

interface FeedTarget {
  readonly unit: string;
  readonly file: string;
  /** The raw query string (after `?`), if any. */
  readonly query: string | undefined;
}

/**
 * The unit and file of `/feeds/{unit}/{file}[?query]` in the spelling clients use (lower-case prefix,
 * nothing to decode in the path, no fragment, not the changes feed); anything else is left to the
 * express routes, which match it exactly as before.
 */
function plainFeedTarget(url: string): FeedTarget | undefined {
  if (!url.startsWith(FEED_PREFIX)) return undefined;
  let slash = -1;
  let queryStart = -1;
  for (let i = FEED_PREFIX.length; i < url.length; i++) {
    const char = url.charCodeAt(i);
    // Characters for which express's URL parsing (parseurl) takes the slow road and may read the URL differently.
    if (char === HASH || char <= SPACE || char === NO_BREAK_SPACE) return undefined;
    if (queryStart !== -1) continue;
    if (char === QUESTION_MARK) queryStart = i;
    else if (char === PERCENT || (char === SLASH && slash !== -1)) return undefined;
    else if (char === SLASH) slash = i;
  }
  const end = queryStart === -1 ? url.length : queryStart;
  if (slash <= FEED_PREFIX.length || slash + 1 >= end) return undefined;
  const file = url.slice(slash + 1, end);
  // changes.json is the express route's. Routes match their own spelling only (create-router.ts): any other
  // spelling is no feed here either, and goes on to express's 404.
  if (file === CHANGES_FEED_FILE) return undefined;
  return { unit: url.slice(FEED_PREFIX.length, slash), file, query: queryStart === -1 ? undefined : url.slice(queryStart + 1) };
}

/** The token from `?token=` or `Authorization: Bearer`; never logged. */
function tokenOf(query: Readonly<Record<string, unknown>>, req: IncomingMessage): string | undefined {
  const fromQuery = query['token'];
  return typeof fromQuery === 'string' ? fromQuery : bearerTokenOf(req);
}

function authorized(token: string | undefined, query: () => Readonly<Record<string, unknown>>, req: IncomingMessage): boolean {
  return token === undefined || secretMatches(tokenOf(query(), req), token);
}

export function createFeedTokenGuard(token: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (authorized(token, () => req.query, req)) {
      next();
      return;
    }
    res.set('www-authenticate', 'Bearer realm="catalog-bridge feeds"');
    sendError(res, 'UNAUTHORIZED', 'This feed needs a token: ?token=… or Authorization: Bearer …');
  };
}

function paramOf(req: Request, name: string): string {
  const value = req.params[name];
  return typeof value === 'string' ? value : '';
}

function queryProblem(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`).join('; ');
}

/** A feed request that can be served: everything but the render. */
interface ResolvedFeed {
  readonly ok: true;
  readonly snapshot: CatalogSnapshot;
  readonly descriptor: FeedDescriptor;
  readonly unit: string;
  readonly variant: FeedVariant;
}

/** Why a feed request cannot be served, as the error answer to send. */
interface FeedProblem {
  readonly ok: false;
  readonly status: number;
  readonly code: HttpErrorCode;
  readonly message: string;
  /** The feed name to count the answer under (metrics), if it is counted. */
  readonly counted: string | undefined;
}

function problem(code: HttpErrorCode, message: string, counted: string | undefined): FeedProblem {
  return { ok: false, status: statusOf(code), code, message, counted };
}

/**
 * Feed routes (docs/http-interface.md): every feed of every unit view, from one catalog version per response, with
 * validators, 304, HEAD and pre-compressed bodies (send-feed.ts).
 */
export function createFeedRoutes(deps: FeedRoutesDeps): Router {
  const router = createRouter();
  const guard = createFeedTokenGuard(deps.token);
  const firstRenders = createRenderAdmission();
  const sendOptions: SendFeedOptions = {
    private: deps.token !== undefined,
    ...(deps.onFileError === undefined ? {} : { onFileError: deps.onFileError }),
  };

  /** The served snapshot, or why there is none for this unit (503 before the first catalog, 404 for an unknown unit). */
  function snapshotOf(unit: string, feed: string): CatalogSnapshot | FeedProblem {
    const snapshot = deps.current();
    if (snapshot === undefined) {
      const reason = deps.waiting?.() ?? 'the first catalog is still being built';
      return problem('CATALOG_NOT_READY', `No catalog yet: ${reason}; try again shortly`, feed);
    }
    if (unit !== ALL_UNITS && !snapshot.units.some((candidate) => candidate.code === unit)) {
      const known = [ALL_UNITS, ...snapshot.units.map((candidate) => candidate.code)].join(', ');
      return problem('UNKNOWN_UNIT', `No unit "${unit}"; known units: ${known}`, feed);
    }
    return snapshot;
  }

  /** Every check of a feed request, in the order the answers are given; touches neither request nor response. */
  function resolveFeed(unit: string, file: string, query: () => unknown): ResolvedFeed | FeedProblem {
    if (!UNIT_PATTERN.test(unit)) return problem('UNKNOWN_UNIT', `No unit "${unit}"`, undefined);
    const descriptor = deps.feeds.find(file);
    if (descriptor === undefined) return problem('UNKNOWN_FEED', `No feed "${file}"; see /feeds for the list`, 'unknown');
    let variant = DEFAULT_VARIANT;
    if (descriptor.file === 'products.csv') {
      const parsed = ProductsCsvQuery.safeParse(query());
      if (!parsed.success) return problem('BAD_QUERY', queryProblem(parsed.error), descriptor.file);
      if (parsed.data.profile !== undefined) variant = { csvProfile: parsed.data.profile };
    }
    const snapshot = snapshotOf(unit, descriptor.file);
    if ('ok' in snapshot) return snapshot;
    if (!descriptor.servesView(unit)) {
      return problem(
        'FEED_NOT_IN_VIEW',
        `The feed "${file}" is not served for ${unit === ALL_UNITS ? 'the all view' : 'a single unit'}`,
        descriptor.file,
      );
    }
    return { ok: true, snapshot, descriptor, unit, variant };
  }

  function sendProblem(res: Response, failure: FeedProblem): void {
    if (failure.status === 503) res.set('retry-after', String(RETRY_AFTER_SECONDS));
    sendError(res, failure.code, failure.message);
    if (failure.counted !== undefined) deps.onRequest?.(failure.counted, failure.status);
  }

  /**
   * `work` for a feed: at once when it has a render, else under one of the client's first-render slots
   * (render-admission.ts); `undefined` once a client past its slots has been answered `429`.
   */
  async function withFirstRender<T>(
    req: IncomingMessage,
    res: ServerResponse,
    feed: { readonly file: string; readonly unit: string; readonly variant: FeedVariant },
    work: () => Promise<T>,
  ): Promise<T | undefined> {
    if (deps.feeds.isRendered(feed.file, feed.unit, feed.variant)) return work();
    const release = firstRenders.admit(clientAddressOf(req));
    if (release === undefined) {
      sendRawError(req, res, 'TOO_MANY_RENDERS', { retryAfterSeconds: 5 });
      deps.onRequest?.(feed.file, statusOf('TOO_MANY_RENDERS'));
      return undefined;
    }
    try {
      return await work();
    } finally {
      release();
    }
  }

  async function serveResolved(req: IncomingMessage, res: ServerResponse, resolved: ResolvedFeed): Promise<void> {
    const { descriptor, unit, variant } = resolved;
    await withFirstRender(req, res, { file: descriptor.file, unit, variant }, () => sendServed(req, res, resolved));
  }

  async function sendServed(req: IncomingMessage, res: ServerResponse, resolved: ResolvedFeed): Promise<void> {
    const { snapshot, descriptor, unit, variant } = resolved;
    let sent: SentFeed | undefined;
    // A file replaced by a newer render between the lookup and its opening: the newer one is served.
    for (let attempt = 0; sent === undefined && attempt < 3; attempt++) {
      const served = await deps.feeds.serve(snapshot, descriptor.file, unit, variant);
      sent = await sendFeed(req, res, served.feed, sendOptions);
    }
    if (sent === undefined) {
      // Replaced three times in a row while being opened: a burst of renders; ask again shortly.
      sendRawError(req, res, 'FEED_RENDERING', { retryAfterSeconds: 1 });
      deps.onRequest?.(descriptor.file, 503);
      return;
    }
    if (deps.onFetch !== undefined) noteSent(res, sent);
    deps.onRequest?.(descriptor.file, res.statusCode);
  }

  async function serveFeed(req: Request, res: Response, unit: string, file: string): Promise<void> {
    const resolved = resolveFeed(unit, file, () => req.query);
    if (resolved.ok) await serveResolved(req, res, resolved);
    else sendProblem(res, resolved);
  }

  /**
   * The hot path (docs/quality-bars.md: polls and their 304s), run before express: a feed request that will be
   * served costs a prefix check, not a walk through the routers and express's request decoration.
   * Anything else (other spellings, a missing token, every error answer) is declined untouched and
   * takes the routes below, which answer it as before.
   */
  function front(req: IncomingMessage, res: ServerResponse): false | Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const target = plainFeedTarget(req.url ?? '');
    if (target === undefined) return false;
    let parsed: Readonly<Record<string, unknown>> | undefined;
    // express's default ("simple") query parser, parsed only if needed.
    const query = (): Readonly<Record<string, unknown>> => {
      parsed ??= target.query === undefined ? {} : parseQueryString(target.query);
      return parsed;
    };
    if (!authorized(deps.token, query, req)) return false;
    const resolved = resolveFeed(target.unit, target.file, query);
    if (!resolved.ok) return false;
    if (deps.onFetch !== undefined) recordWhenFinished(req, res, target.file, target.unit, deps.onFetch);
    return serveResolved(req, res, resolved);
  }

  // Every other feed request is recorded here when answered (fetch-recording.ts); the front handler records its own.
  const { onFetch } = deps;
  if (onFetch !== undefined) {
    router.use((req, res, next) => {
      const target = feedOfPath(req.path);
      if (target !== undefined) recordWhenFinished(req, res, target.feed, target.view, onFetch);
      next();
    });
  }

  router.get('/feeds/local-inventory.tsv', guard, async (req, res) => {
    await serveFeed(req, res, ALL_UNITS, 'local-inventory.tsv');
  });

  router.get('/feeds/:unit/changes.json', guard, async (req, res) => {
    const unit = paramOf(req, 'unit');
    const query = ChangesQuery.safeParse(req.query);
    if (!query.success) {
      sendError(res, 'BAD_QUERY', queryProblem(query.error));
      deps.onRequest?.(CHANGES_FEED_FILE, 400);
      return;
    }
    const snapshot = snapshotOf(unit, CHANGES_FEED_FILE);
    if ('ok' in snapshot) {
      sendProblem(res, snapshot);
      return;
    }
    const { since } = query.data;
    const read = () => deps.feeds.changes(snapshot, unit, since);
    // The whole catalog's list is a render like a feed's: its first render counts as one.
    const result =
      since === undefined
        ? await withFirstRender(req, res, { file: CHANGES_FEED_FILE, unit, variant: DEFAULT_VARIANT }, read)
        : await read();
    if (result === undefined) return;
    if (!result.ok) {
      sendError(res, 'CURSOR_EXPIRED', 'The cursor is unknown or too old; read the full feed, then continue from "next"', {
        extra: { next: result.next },
      });
      deps.onRequest?.(CHANGES_FEED_FILE, 410);
      return;
    }
    const sent = await sendFeed(req, res, result.feed, sendOptions);
    if (deps.onFetch !== undefined && sent !== undefined) noteSent(res, sent);
    deps.onRequest?.(CHANGES_FEED_FILE, res.statusCode);
  });

  router.get('/feeds/:unit/:file', guard, async (req, res) => {
    await serveFeed(req, res, paramOf(req, 'unit'), paramOf(req, 'file'));
  });

  // The published shape of products.json and changes.json: public, like any API documentation.
  router.get('/schemas/:name', (req, res) => {
    const name = paramOf(req, 'name');
    const schema = JSON_FEED_SCHEMAS[name];
    if (schema === undefined) {
      sendError(res, 'UNKNOWN_SCHEMA', `No schema "${name}"; known: ${Object.keys(JSON_FEED_SCHEMAS).join(', ')}`);
      return;
    }
    res.set('cache-control', 'public, max-age=3600');
    res.type('application/schema+json').send(JSON.stringify(schema));
  });

  return withFrontHandler(router, front);
}
