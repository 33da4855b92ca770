import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Logger } from '../adapters/logger/create-logger.js';
import { createHealthRoutes, type HealthSource } from './routes/health-routes.js';

export interface HttpAppDeps {
  readonly logger: Logger;
  readonly health: HealthSource;
}

/** The bridge's HTTP app; never calls listen() so tests can drive it with supertest. */
export function createHttpApp(deps: HttpAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Feeds compute their own strong ETags from the catalog version; express's body hashing is wasted work.
  app.set('etag', false);
  app.use(createHealthRoutes(deps.health));
  app.use(notFound);
  app.use(createErrorHandler(deps.logger));
  return app;
}

const notFound: RequestHandler = (req, res) => {
  res.status(404).json({ error: { code: 'NOT_FOUND', message: `No route for ${req.method} ${req.path}` } });
};

function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const status = httpStatusOf(err);
    if (status >= 500) logger.error({ err, method: req.method, path: req.path }, 'request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const message = status >= 500 ? 'Internal error' : err instanceof Error ? err.message : 'Bad request';
    res.status(status).json({ error: { code: status >= 500 ? 'INTERNAL' : 'BAD_REQUEST', message } });
  };
}

/** express/body-parser errors carry a 4xx `status`; anything else is ours and a 500. */
function httpStatusOf(err: unknown): number {
  if (typeof err === 'object' && err !== null && 'status' in err && typeof err.status === 'number') {
    return err.status >= 400 && err.status < 600 ? err.status : 500;
  }
  return 500;
}
