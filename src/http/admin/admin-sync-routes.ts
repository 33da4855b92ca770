import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import type { JobOutcome } from '../../jobs/scheduler.js';
import type { SyncJob, SyncReport } from '../../services/catalog/catalog-service.js';
import type { GroupStatus } from '../../services/group/group-monitor.js';
import { sendError } from '../send-error.js';
import { adminContext, admittedAs, sendAdminPage } from './admin-gate.js';
import { progressPage } from './admin-pages.js';
import { parseQuery } from './admin-query.js';
import { type JobProgress, SYNC_JOBS } from './sync-progress.js';
import type { SyncRuns } from './sync-runs.js';

export interface AdminSyncDeps {
  readonly runs: SyncRuns;
  /** Why a sync cannot run now (the store does not answer), or `undefined`. */
  readonly unavailable?: () => string | undefined;
  readonly progress: (job: SyncJob, runId?: number) => JobProgress;
  readonly group: () => GroupStatus | undefined;
}

const SyncQuerySchema = z.object({
  wait: z.enum(['true', 'false', '1', '0']).optional(),
  job: z.enum(['catalog', 'stock']).optional(),
});

const ProgressQuerySchema = z.object({
  job: z.enum(['catalog', 'stock']).optional(),
  run: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
});

const STATUS_OF_OUTCOME: Record<SyncReport['outcome'], number> = {
  published: 200,
  unchanged: 200,
  skipped: 200,
  refused: 409,
  failed: 502,
};

const jobOf = (name: 'catalog' | 'stock' | undefined): SyncJob => (name === 'stock' ? 'sync-stock' : 'sync-catalog');

function sendOutcome(res: Response, outcome: JobOutcome): void {
  if (!outcome.ok) {
    sendError(res, 'SYNC_CRASHED', outcome.error.message);
    return;
  }
  const report = outcome.result as SyncReport;
  res.status(STATUS_OF_OUTCOME[report.outcome]).json(report);
}

/**
 * `POST /admin/sync`: `202` and a run in the background, with `?wait=true` the run's report; a browser
 * (session cookie) is sent on to the run's progress page (`303`).
 */
async function startSync(deps: AdminSyncDeps, req: Request, res: Response): Promise<void> {
  const query = parseQuery(SyncQuerySchema, req, res);
  if (query === undefined) return;
  const job = jobOf(query.job);
  // Refused at once: a sync now could not store what it makes, and the caller would wait for nothing.
  const unavailable = deps.unavailable?.();
  if (unavailable !== undefined) {
    res.set('retry-after', '10');
    sendError(res, 'STORE_UNAVAILABLE', unavailable);
    return;
  }
  const { run, done } = deps.runs.start(job);
  if (query.wait === 'true' || query.wait === '1') {
    sendOutcome(res, await done);
    return;
  }
  // The run goes on without the client; its outcome is logged and kept by the scheduler and `runs`.
  if (admittedAs(res).via === 'cookie') {
    res.redirect(303, `/admin/sync/progress?job=${query.job ?? 'catalog'}&run=${run.id}`);
    return;
  }
  res.status(202).json({ job, status: 'started' });
}

function showProgress(deps: AdminSyncDeps, req: Request, res: Response): void {
  const query = parseQuery(ProgressQuerySchema, req, res);
  if (query === undefined) return;
  const ctx = adminContext(req, res);
  const page = progressPage(ctx, deps.progress(jobOf(query.job), query.run), deps.group());
  sendAdminPage(res, ctx, { ...page, section: 'admin' });
}

function sendStatus(deps: AdminSyncDeps, res: Response): void {
  res
    .set('cache-control', 'private, no-store')
    .json({ jobs: Object.fromEntries(SYNC_JOBS.map((job) => [job, deps.progress(job)])), group: deps.group() ?? null });
}

/** Mounted behind the admin gate (docs/http-interface.md). */
export function addAdminSyncRoutes(router: Router, deps: AdminSyncDeps): void {
  router.post('/admin/sync', (req, res) => startSync(deps, req, res));
  router.get('/admin/sync/status', (_req, res) => sendStatus(deps, res));
  router.get('/admin/sync/progress', (req, res) => showProgress(deps, req, res));
}
