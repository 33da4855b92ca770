import type { Request, Router } from 'express';
import { z } from 'zod';
import { CONSUMERS } from '../../core/fetches/classify-consumer.js';
import { textsFor } from '../../core/text/local-text.js';
import type { FetchLog, FetchQuery } from '../../services/fetches/fetch-log.js';
import { createRouter } from '../create-router.js';
import { createFeedTokenGuard } from '../routes/feed-routes.js';
import { sendError } from '../send-error.js';
import { FETCHES_TEXTS, renderFetchesBody } from './fetches-page.js';
import { consoleContext, sendPage, sendQueryProblem } from './layout.js';

export interface FetchRoutesDeps {
  readonly fetches: FetchLog;
  /** FEED_TOKEN: the log names the feeds and who fetches them, so it is guarded like them. */
  readonly token: string | undefined;
  readonly now?: () => Date;
}

export const MAX_FETCH_LIMIT = 500;
const DEFAULT_LIMIT = 100;

/** An empty form field (`feed=`) means "any". */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

const FetchesQuerySchema = z.object({
  feed: optional(z.string().regex(/^[A-Za-z0-9._~-]{1,100}$/, 'must be a feed file name, e.g. google.xml')),
  view: optional(z.string().regex(/^[A-Za-z0-9._~-]{1,64}$/, 'must be a unit code or "all"')),
  consumer: optional(z.enum(CONSUMERS)),
  limit: z.preprocess(
    (value) => (value === '' || value === undefined ? undefined : value),
    z.coerce.number().int().min(1).max(MAX_FETCH_LIMIT).default(DEFAULT_LIMIT),
  ),
  token: z.string().optional(),
  lang: z.enum(['cs', 'en']).optional(),
});

function parseQuery(req: Request, badQuery: (problem: string) => void): FetchQuery | undefined {
  const parsed = FetchesQuerySchema.safeParse(req.query);
  if (!parsed.success) {
    badQuery(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`).join('; '));
    return undefined;
  }
  const { feed, view, consumer, limit } = parsed.data;
  return { feed, view, consumer, limit };
}

/**
 * The fetch log (docs/http-interface.md, docs/console.md#who-fetches-the-feeds): `GET /api/fetches` (JSON)
 * and the console page `GET /fetches`, both behind the feed token.
 */
export function createFetchRoutes(deps: FetchRoutesDeps): Router {
  const router = createRouter();
  const guard = createFeedTokenGuard(deps.token);
  const now = deps.now ?? (() => new Date());

  router.get('/api/fetches', guard, async (req, res) => {
    const query = parseQuery(req, (problem) => sendError(res, 'BAD_QUERY', problem));
    if (query === undefined) return;
    const at = now();
    const summary = deps.fetches
      .summaries(at)
      .filter(
        (entry) =>
          (query.feed === undefined || entry.feed === query.feed) &&
          (query.view === undefined || entry.view === query.view) &&
          (query.consumer === undefined || entry.consumer === query.consumer),
      );
    const recent = (await deps.fetches.recent(query)).map((entry) => ({ ...entry, at: new Date(entry.at).toISOString() }));
    res.set('cache-control', 'no-store').json({
      since: deps.fetches.since().toISOString(),
      summary,
      recent,
      warnings: [...deps.fetches.staleFetchers(at), ...deps.fetches.neverFetched()],
    });
  });

  router.get('/fetches', guard, async (req, res) => {
    const context = consoleContext(req, res);
    const query = parseQuery(req, (problem) => sendQueryProblem(res, context, 'fetches', problem));
    if (query === undefined) return;
    const at = now();
    const body = renderFetchesBody(context, {
      summaries: deps.fetches.summaries(at),
      recent: await deps.fetches.recent(query),
      warnings: [...deps.fetches.staleFetchers(at), ...deps.fetches.neverFetched()],
      since: deps.fetches.since(),
      now: at,
      filter: {
        ...(query.feed === undefined ? {} : { feed: query.feed }),
        ...(query.view === undefined ? {} : { view: query.view }),
        ...(query.consumer === undefined ? {} : { consumer: query.consumer }),
        limit: query.limit,
      },
    });
    sendPage(res, context, { title: textsFor(FETCHES_TEXTS, context.lang).title, section: 'fetches', body });
  });

  return router;
}
