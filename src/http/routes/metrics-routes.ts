import { Router } from 'express';
import type { Registry } from 'prom-client';

/** `GET /metrics`: Prometheus text format. */
export function createMetricsRoutes(registry: Registry): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    res
      .set('content-type', registry.contentType)
      .set('cache-control', 'no-store')
      .send(await registry.metrics());
  });
  return router;
}
