import type { Router } from 'express';
import type { Registry } from 'prom-client';
import { createRouter } from '../create-router.js';
import { sendError } from '../send-error.js';
import type { DetailsAccess } from './health-routes.js';

/** `GET /metrics`: Prometheus text format, behind the operator's tokens (docs/security.md). */
export function createMetricsRoutes(registry: Registry, access: DetailsAccess = () => true): Router {
  const router = createRouter();
  router.get('/metrics', async (req, res) => {
    if (!access(req, req.query['token'])) {
      res.set('www-authenticate', 'Bearer realm="catalog-bridge metrics"');
      sendError(
        res,
        'UNAUTHORIZED',
        'The metrics need a token: Authorization: Bearer … (METRICS_TOKEN or FEED_TOKEN; FEED_TOKEN also as ?token=)',
      );
      return;
    }
    res
      .set('content-type', registry.contentType)
      .set('cache-control', 'no-store')
      .send(await registry.metrics());
  });
  return router;
}
