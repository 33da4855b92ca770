import { Router } from 'express';
import { z } from 'zod';
import type { JobOutcome } from '../../jobs/scheduler.js';
import type { SyncReport } from '../../services/catalog-service.js';
import { bearerTokenOf, secretMatches } from '../middleware/token-auth.js';
import { sendError } from '../send-error.js';

export interface AdminRoutesDeps {
  /** `undefined` disables the admin endpoints (ADMIN_TOKEN unset). */
  readonly token: string | undefined;
  readonly runJob: (job: 'sync-catalog' | 'sync-stock') => Promise<JobOutcome>;
  /** Why a sync cannot run now (the store does not answer), or `undefined`. */
  readonly unavailable?: () => string | undefined;
}

const SyncQuerySchema = z.object({
  wait: z.enum(['true', 'false', '1', '0']).optional(),
  job: z.enum(['catalog', 'stock']).optional(),
});

const STATUS_OF_OUTCOME: Record<SyncReport['outcome'], number> = {
  published: 200,
  unchanged: 200,
  skipped: 200,
  refused: 409,
  failed: 502,
};

/** `POST /admin/sync` (docs/http-interface.md): 202 and a run in the background, or with `?wait=true` the run's report. */
export function createAdminRoutes(deps: AdminRoutesDeps): Router {
  const router = Router();
  router.use('/admin', (req, res, next) => {
    if (deps.token === undefined) {
      sendError(res, 404, 'ADMIN_DISABLED', 'The admin endpoints are disabled; set ADMIN_TOKEN to enable them');
      return;
    }
    if (!secretMatches(bearerTokenOf(req), deps.token)) {
      res.set('www-authenticate', 'Bearer realm="catalog-bridge admin"');
      sendError(res, 401, 'UNAUTHORIZED', 'A valid admin token is required (Authorization: Bearer …)');
      return;
    }
    next();
  });

  router.post('/admin/sync', async (req, res) => {
    const query = SyncQuerySchema.safeParse(req.query);
    if (!query.success) {
      sendError(
        res,
        400,
        'BAD_REQUEST',
        `Invalid query: ${query.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
      );
      return;
    }
    const job = query.data.job === 'stock' ? 'sync-stock' : 'sync-catalog';
    // Refused at once: a sync now could not store what it makes, and the caller would wait for nothing.
    const unavailable = deps.unavailable?.();
    if (unavailable !== undefined) {
      res.set('retry-after', '10');
      sendError(res, 503, 'STORE_UNAVAILABLE', unavailable);
      return;
    }
    const running = deps.runJob(job);
    if (query.data.wait !== 'true' && query.data.wait !== '1') {
      // The run goes on without the client; its outcome is logged and kept by the scheduler.
      running.catch(() => undefined);
      res.status(202).json({ job, status: 'started' });
      return;
    }
    const outcome = await running;
    if (!outcome.ok) {
      sendError(res, 500, 'SYNC_CRASHED', outcome.error.message);
      return;
    }
    const report = outcome.result as SyncReport;
    res.status(STATUS_OF_OUTCOME[report.outcome]).json(report);
  });
  return router;
}
