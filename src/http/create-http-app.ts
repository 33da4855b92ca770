import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type ErrorRequestHandler, type Express, type RequestHandler, type Router } from 'express';
import type { Logger } from '../adapters/logger/create-logger.js';
import { type FrontHandler, frontHandlerOf } from './front-handler.js';
import { createGuessThrottle, type GuessThrottle } from './guess-throttle.js';
import { createHealthRoutes, type DetailsAccess, type HealthSource } from './routes/health-routes.js';
import { sendError } from './send-error.js';

export interface HttpAppDeps {
  readonly logger: Logger;
  readonly health: HealthSource;
  /** Who may read the full `/readyz`; everyone when absent. */
  readonly details?: DetailsAccess;
  /** express's `trust proxy` (`TRUST_PROXY`): unset trusts no `X-Forwarded-*` header. */
  readonly trustProxy?: number | string | undefined;
  /** `PUBLIC_BASE_URL`: when https, browsers are told to come back over https only (HSTS). */
  readonly publicBaseUrl?: string | undefined;
  /** Feature routers (feeds, admin, webhooks, metrics), mounted in order. */
  readonly routers?: readonly Router[];
}

/** What `app(req, res)` calls: express's request entry, missing from its type declarations. */
interface ExpressEntry {
  handle(req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void;
}

/** The bridge's HTTP app; never calls listen() so tests can drive it with supertest. */
export function createHttpApp(deps: HttpAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Paths in their own letter case only, as every router (create-router.ts).
  app.set('case sensitive routing', true);
  // Feeds compute their own strong ETags from the catalog version; express's body hashing is wasted work.
  app.set('etag', false);
  // Only then do req.ip and req.secure follow X-Forwarded-For/-Proto: anyone can send those headers.
  if (deps.trustProxy !== undefined) app.set('trust proxy', deps.trustProxy);
  app.use(strictTransport(deps.publicBaseUrl));
  const routers = deps.routers ?? [];
  const fronts = routers.flatMap((router) => frontHandlerOf(router) ?? []);
  const guesses = createGuessThrottle({ trust: app.get('trust proxy fn') as (address: string, hop: number) => boolean });
  runFrontHandlers(app, fronts, guesses);
  app.use(createHealthRoutes(deps.health, deps.details));
  for (const router of routers) app.use(router);
  app.use(notFound);
  app.use(createErrorHandler(deps.logger));
  return app;
}

/**
 * Puts the guess throttle and the front handlers ahead of express's own dispatch. A request whose front
 * handler failed is handed to express with its error, which the first middleware passes on to the error
 * handler.
 */
function runFrontHandlers(app: Express, fronts: readonly FrontHandler[], guesses: GuessThrottle): void {
  const entry: Express & ExpressEntry = app as Express & ExpressEntry;
  const expressHandle = entry.handle.bind(app);
  const failures = new WeakMap<IncomingMessage, { readonly error: unknown }>();
  const fail = (req: IncomingMessage, res: ServerResponse, next: ((error?: unknown) => void) | undefined, error: unknown) => {
    failures.set(req, { error });
    expressHandle(req, res, next);
  };
  entry.handle = (req, res, next) => {
    if (guesses.refuse(req, res)) return;
    for (const front of fronts) {
      let served: false | Promise<void>;
      try {
        served = front(req, res);
      } catch (error) {
        fail(req, res, next, error);
        return;
      }
      if (served !== false) {
        served.catch((error: unknown) => fail(req, res, next, error));
        return;
      }
    }
    expressHandle(req, res, next);
  };
  app.use((req, _res, next) => {
    const failure = failures.get(req);
    if (failure === undefined) next();
    // As express does for a rejected route handler.
    else next(failure.error || new Error('Rejected promise'));
  });
}

/** One year, the usual HSTS age; no `includeSubDomains`: the shop's other hosts are not the bridge's to promise. */
const HSTS = 'max-age=31536000';

/**
 * `nosniff` on every answer, and HSTS on what browsers see (pages, the admin area) when they reach the bridge over https: a TLS
 * connection, a proxy `TRUST_PROXY` names saying https, or an https `PUBLIC_BASE_URL` (a browser ignores the
 * header on a plain http answer, so it costs nothing there).
 */
function strictTransport(publicBaseUrl: string | undefined): RequestHandler {
  const httpsPublic = publicBaseUrl?.startsWith('https:') === true;
  return (req, res, next) => {
    if (httpsPublic || req.secure) res.set('strict-transport-security', HSTS);
    // No answer of the bridge is to be sniffed into another type (a feed or a JSON error read as HTML).
    res.set('x-content-type-options', 'nosniff');
    next();
  };
}

const notFound: RequestHandler = (req, res) => {
  sendError(res, 'NOT_FOUND', `No route for ${req.method} ${req.path}`);
};

function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const status = httpStatusOf(err);
    if (status >= 500) logger.error({ err, method: req.method, path: req.path }, 'request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (status >= 500) {
      sendError(res, 'INTERNAL', 'Internal error', { status });
      return;
    }
    sendError(res, 'BAD_REQUEST', err instanceof Error ? err.message : 'Bad request', { status });
  };
}

/** express/body-parser errors carry a 4xx `status`; anything else is ours and a 500. */
function httpStatusOf(err: unknown): number {
  if (typeof err === 'object' && err !== null && 'status' in err && typeof err.status === 'number') {
    return err.status >= 400 && err.status < 600 ? err.status : 500;
  }
  return 500;
}
