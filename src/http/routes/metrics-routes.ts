import type { Router } from 'express';
import type { Registry } from 'prom-client';
import { createRouter } from '../create-router.js';

/** `GET /metrics`: Prometheus text format. */
export function createMetricsRoutes(registry: Registry): Router {
  const router = createRouter();
  router.get('/metrics', async (_req, res) => {
    res
      .set('content-type', registry.contentType)
      .set('cache-control', 'no-store')
      .send(await registry.metrics());
  });
  return router;
}
