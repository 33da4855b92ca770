import type { IncomingMessage } from 'node:http';
import type { Router } from 'express';
import { createRouter } from '../create-router.js';
import { sendError } from '../send-error.js';

export interface ReadinessReport {
  readonly ready: boolean;
  readonly [detail: string]: unknown;
}

export interface HealthSource {
  readiness(): Promise<ReadinessReport> | ReadinessReport;
}

/** Whether a request may read the full `/readyz` (token-auth.ts `operatorAccess`); everyone may, when absent. */
export type DetailsAccess = (req: IncomingMessage, queryToken: unknown) => boolean;

/**
 * `/healthz`: the process answers. `/readyz`: a catalog can be served (503 until then). Without the
 * details' token `/readyz` says only that, as a load balancer needs: the details name the POS, hosts and
 * error texts (docs/security.md).
 */
export function createHealthRoutes(source: HealthSource, details: DetailsAccess = () => true): Router {
  const router = createRouter();
  router.get('/healthz', (_req, res) => {
    res.set('cache-control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (req, res) => {
    const queryToken = req.query['token'];
    const full = details(req, queryToken);
    // A token that opens nothing is a guess: 401, which the guess throttle counts (else /readyz would be
    // a token oracle without a limit). Without any token, the short answer a load balancer needs.
    if (!full && (queryToken !== undefined || req.headers.authorization !== undefined)) {
      res.set('www-authenticate', 'Bearer realm="catalog-bridge"');
      sendError(res, 'UNAUTHORIZED', 'This token opens nothing here: /readyz takes FEED_TOKEN or METRICS_TOKEN, or none');
      return;
    }
    const report = await source.readiness();
    res
      .status(report.ready ? 200 : 503)
      .set('cache-control', 'no-store')
      .json(full ? report : publicReadiness(report));
  });
  return router;
}

/** What `/readyz` tells anyone: ready or not, degraded, shutting down; and where the rest is. */
export function publicReadiness(report: ReadinessReport): ReadinessReport {
  return {
    ready: report.ready,
    ...(report['degraded'] === true ? { degraded: true } : {}),
    ...(report['stopping'] === true ? { stopping: true } : {}),
    details: 'with a token (Authorization: Bearer …): docs/security.md',
  };
}
