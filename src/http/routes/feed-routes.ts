import { type Request, type RequestHandler, type Response, Router } from 'express';
import { z } from 'zod';
import { ALL_UNITS, type CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { FeedService } from '../../services/feed-service.js';
import { bearerTokenOf, secretMatches } from '../middleware/token-auth.js';
import { sendError } from '../send-error.js';
import { sendFeed } from '../send-feed.js';

export interface FeedRoutesDeps {
  readonly feeds: FeedService;
  readonly current: () => CatalogSnapshot | undefined;
  /** FEED_TOKEN: when set, every feed URL (and the pages listing them) needs it. */
  readonly token: string | undefined;
  /** Counts a feed request by feed and status (metrics). */
  readonly onRequest?: (feed: string, status: number) => void;
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

/** The token from `?token=` or `Authorization: Bearer`; never logged. */
function tokenOf(req: Request): string | undefined {
  const query = req.query['token'];
  return typeof query === 'string' ? query : bearerTokenOf(req);
}

export function createFeedTokenGuard(token: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (token === undefined || secretMatches(tokenOf(req), token)) {
      next();
      return;
    }
    res.set('www-authenticate', 'Bearer realm="catalog-bridge feeds"');
    sendError(res, 401, 'UNAUTHORIZED', 'This feed needs a token: ?token=… or Authorization: Bearer …');
  };
}

function paramOf(req: Request, name: string): string {
  const value = req.params[name];
  return typeof value === 'string' ? value : '';
}

function queryProblem(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`).join('; ');
}

/**
 * Feed routes of SPEC §5: every feed of every unit view, from one catalog version per response, with
 * validators, 304, HEAD and pre-compressed bodies (send-feed.ts).
 */
export function createFeedRoutes(deps: FeedRoutesDeps): Router {
  const router = Router();
  const guard = createFeedTokenGuard(deps.token);
  const isPrivate = deps.token !== undefined;

  /** The served snapshot, or a 503 (before the first catalog) / 404 (unknown unit) already sent. */
  function snapshotFor(res: Response, unit: string, feed: string): CatalogSnapshot | undefined {
    const snapshot = deps.current();
    if (snapshot === undefined) {
      res.set('retry-after', String(RETRY_AFTER_SECONDS));
      sendError(res, 503, 'CATALOG_NOT_READY', 'The first catalog is still being built; try again shortly');
      deps.onRequest?.(feed, 503);
      return undefined;
    }
    if (unit !== ALL_UNITS && !snapshot.units.some((candidate) => candidate.code === unit)) {
      const known = [ALL_UNITS, ...snapshot.units.map((candidate) => candidate.code)].join(', ');
      sendError(res, 404, 'UNKNOWN_UNIT', `No unit "${unit}"; known units: ${known}`);
      deps.onRequest?.(feed, 404);
      return undefined;
    }
    return snapshot;
  }

  async function serveFeed(req: Request, res: Response, unit: string, file: string): Promise<void> {
    if (!UNIT_PATTERN.test(unit)) {
      sendError(res, 404, 'UNKNOWN_UNIT', `No unit "${unit}"`);
      return;
    }
    const descriptor = deps.feeds.find(file);
    if (descriptor === undefined) {
      sendError(res, 404, 'UNKNOWN_FEED', `No feed "${file}"; see /feeds for the list`);
      deps.onRequest?.('unknown', 404);
      return;
    }
    const query =
      descriptor.file === 'products.csv' ? ProductsCsvQuery.safeParse(req.query) : ({ success: true, data: {} } as const);
    if (!query.success) {
      sendError(res, 400, 'BAD_QUERY', queryProblem(query.error));
      deps.onRequest?.(descriptor.file, 400);
      return;
    }
    const snapshot = snapshotFor(res, unit, descriptor.file);
    if (snapshot === undefined) return;
    if (!descriptor.servesView(unit)) {
      sendError(
        res,
        404,
        'FEED_NOT_IN_VIEW',
        `The feed "${file}" is not served for ${unit === ALL_UNITS ? 'the all view' : 'a single unit'}`,
      );
      deps.onRequest?.(descriptor.file, 404);
      return;
    }
    const profile = 'profile' in query.data ? query.data.profile : undefined;
    const { feed } = await deps.feeds.render(
      snapshot,
      descriptor.file,
      unit,
      profile === undefined ? {} : { csvProfile: profile },
    );
    sendFeed(req, res, feed, { private: isPrivate });
    deps.onRequest?.(descriptor.file, res.statusCode);
  }

  router.get('/feeds/local-inventory.tsv', guard, async (req, res) => {
    await serveFeed(req, res, ALL_UNITS, 'local-inventory.tsv');
  });

  router.get('/feeds/:unit/changes.json', guard, async (req, res) => {
    const unit = paramOf(req, 'unit');
    const query = ChangesQuery.safeParse(req.query);
    if (!query.success) {
      sendError(res, 400, 'BAD_QUERY', queryProblem(query.error));
      deps.onRequest?.('changes.json', 400);
      return;
    }
    const snapshot = snapshotFor(res, unit, 'changes.json');
    if (snapshot === undefined) return;
    const result = await deps.feeds.changes(snapshot, unit, query.data.since);
    if (!result.ok) {
      sendError(res, 410, 'CURSOR_EXPIRED', 'The cursor is unknown or too old; read the full feed, then continue from "next"', {
        next: result.next,
      });
      deps.onRequest?.('changes.json', 410);
      return;
    }
    sendFeed(req, res, result.feed, { private: isPrivate });
    deps.onRequest?.('changes.json', res.statusCode);
  });

  router.get('/feeds/:unit/:file', guard, async (req, res) => {
    await serveFeed(req, res, paramOf(req, 'unit'), paramOf(req, 'file'));
  });

  return router;
}
