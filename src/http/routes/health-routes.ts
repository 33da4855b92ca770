import type { Router } from 'express';
import { createRouter } from '../create-router.js';

export interface ReadinessReport {
  readonly ready: boolean;
  readonly [detail: string]: unknown;
}

export interface HealthSource {
  readiness(): Promise<ReadinessReport> | ReadinessReport;
}

/** `/healthz`: the process answers. `/readyz`: a catalog can be served (503 until then). */
export function createHealthRoutes(source: HealthSource): Router {
  const router = createRouter();
  router.get('/healthz', (_req, res) => {
    res.set('cache-control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const report = await source.readiness();
    res
      .status(report.ready ? 200 : 503)
      .set('cache-control', 'no-store')
      .json(report);
  });
  return router;
}
