import express, { type ErrorRequestHandler, type Express, type RequestHandler, type Router } from 'express';
import type { Logger } from '../adapters/logger/create-logger.js';
import { createHealthRoutes, type HealthSource } from './routes/health-routes.js';
import { sendError } from './send-error.js';

export interface HttpAppDeps {
  readonly logger: Logger;
  readonly health: HealthSource;
  /** Feature routers (feeds, admin, webhooks, metrics), mounted in order. */
  readonly routers?: readonly Router[];
}

/** The bridge's HTTP app; never calls listen() so tests can drive it with supertest. */
export function createHttpApp(deps: HttpAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Feeds compute their own strong ETags from the catalog version; express's body hashing is wasted work.
  app.set('etag', false);
  app.use(createHealthRoutes(deps.health));
  for (const router of deps.routers ?? []) app.use(router);
  app.use(notFound);
  app.use(createErrorHandler(deps.logger));
  return app;
}

const notFound: RequestHandler = (req, res) => {
  sendError(res, 404, 'NOT_FOUND', `No route for ${req.method} ${req.path}`);
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
      sendError(res, status, 'INTERNAL', 'Internal error');
      return;
    }
    sendError(res, status, 'BAD_REQUEST', err instanceof Error ? err.message : 'Bad request');
  };
}

/** express/body-parser errors carry a 4xx `status`; anything else is ours and a 500. */
function httpStatusOf(err: unknown): number {
  if (typeof err === 'object' && err !== null && 'status' in err && typeof err.status === 'number') {
    return err.status >= 400 && err.status < 600 ? err.status : 500;
  }
  return 500;
}
