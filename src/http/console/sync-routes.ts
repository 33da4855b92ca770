import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { textsFor } from '../../core/text/local-text.js';
import type { SyncJob, SyncReport, SyncRunSummary } from '../../services/catalog/catalog-service.js';
import { createRouter } from '../create-router.js';
import { createFeedTokenGuard } from '../routes/feed-routes.js';
import { sendError } from '../send-error.js';
import { escapeHtml as h } from './html.js';
import { consoleContext, sendPage } from './layout.js';
import { syncsBody } from './syncs-page.js';
import { SYNCS_TEXTS } from './syncs-texts.js';

/** What the sync history needs (docs/console.md#sync-history): the store's runs, read per request. */
export interface SyncRoutesDeps {
  /** `FEED_TOKEN`: the console and its API are guarded like the status page. */
  readonly token: string | undefined;
  readonly history: (job: SyncJob) => Promise<readonly SyncRunSummary[]>;
  readonly run: (runId: string) => Promise<SyncReport | undefined>;
  /** `SYNC_TIMEZONE`, for the times the page shows. */
  readonly timeZone: string;
}

const JOB_NAMES = { catalog: 'sync-catalog', stock: 'sync-stock' } as const satisfies Record<string, SyncJob>;
const JOBS: readonly SyncJob[] = ['sync-catalog', 'sync-stock'];

/** Unknown parameters (`token`, `lang`) pass; the known ones must be valid. */
const SyncsQuery = z.object({
  job: z.enum(['catalog', 'stock']).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
const RunQuery = z.object({ download: z.enum(['0', '1']).optional() });

/** What a run id looks like (`newRunId`, or `legacy-N`): anything else is no run. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/** The store did not answer a read of the history: said as such, not as a fault of the bridge. */
function storeProblem(res: Response, error: unknown): void {
  const reason = error instanceof Error ? error.message : String(error);
  res.set('retry-after', '5');
  sendError(res, 'STORE_UNAVAILABLE', `The store does not answer (${reason}); the sync history is read from it`);
}

function queryProblem(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`).join('; ');
}

/** Both jobs' runs (or one job's), newest first. */
async function runsOf(deps: SyncRoutesDeps, jobs: readonly SyncJob[]): Promise<SyncRunSummary[]> {
  const lists = await Promise.all(jobs.map((job) => deps.history(job)));
  return lists.flat().sort((a, b) => b.finishedAt.localeCompare(a.finishedAt));
}

/** `GET /api/syncs`, `GET /api/syncs/{runId}` and the page `GET /syncs`. */
export function createSyncRoutes(deps: SyncRoutesDeps): Router {
  const router = createRouter();
  const guard = createFeedTokenGuard(deps.token);

  router.get('/api/syncs', guard, async (req: Request, res: Response) => {
    const query = SyncsQuery.safeParse(req.query);
    if (!query.success) {
      sendError(res, 'BAD_QUERY', queryProblem(query.error));
      return;
    }
    const { job, limit } = query.data;
    let runs: SyncRunSummary[];
    try {
      runs = (await runsOf(deps, job === undefined ? JOBS : [JOB_NAMES[job]])).slice(0, limit);
    } catch (error) {
      storeProblem(res, error);
      return;
    }
    res.set('cache-control', 'no-store').json({
      runs: runs.map((run) => ({ ...run, report: `/api/syncs/${encodeURIComponent(run.runId)}` })),
    });
  });

  router.get('/api/syncs/:runId', guard, async (req: Request, res: Response) => {
    const query = RunQuery.safeParse(req.query);
    if (!query.success) {
      sendError(res, 'BAD_QUERY', queryProblem(query.error));
      return;
    }
    const runId = String(req.params['runId'] ?? '');
    let report: SyncReport | undefined;
    try {
      report = RUN_ID.test(runId) ? await deps.run(runId) : undefined;
    } catch (error) {
      storeProblem(res, error);
      return;
    }
    if (report === undefined) {
      sendError(res, 'UNKNOWN_RUN', `No stored sync run "${runId}"; GET /api/syncs lists the runs kept`);
      return;
    }
    res.set('cache-control', 'no-store');
    // The id is plain (`RUN_ID`), so the quoted file name needs no escaping.
    if (query.data.download === '1') res.set('content-disposition', `attachment; filename="sync-${runId}.json"`);
    res.json(report);
  });

  router.get('/syncs', guard, async (req: Request, res: Response) => {
    const context = consoleContext(req, res);
    const t = textsFor(SYNCS_TEXTS, context.lang);
    const history = new Map<SyncJob, readonly SyncRunSummary[]>();
    try {
      for (const job of JOBS) history.set(job, await deps.history(job));
    } catch {
      sendPage(
        res,
        context,
        {
          title: t.title,
          section: 'syncs',
          body: `<div class="notice failed-notice">${h(t.storeDown)}</div>`,
          refreshSeconds: 30,
        },
        503,
      );
      return;
    }
    sendPage(res, context, { title: t.title, section: 'syncs', body: syncsBody(history, context, deps.timeZone) });
  });

  return router;
}
