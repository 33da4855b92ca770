import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { textsFor } from '../../core/text/local-text.js';
import type { ConsoleWarnings } from '../../services/console/console-warning-sources.js';
import { countWarnings } from '../../services/console/console-warnings.js';
import { createRouter } from '../create-router.js';
import { createFeedTokenGuard } from '../routes/feed-routes.js';
import { sendError } from '../send-error.js';
import { consoleContext, sendPage } from './layout.js';
import { WARNINGS_TEXTS, warningsBody } from './warnings-page.js';

/** What the warnings need (docs/console.md#warnings). */
export interface WarningRoutesDeps {
  /** `FEED_TOKEN`: the console and its API are guarded like the status page. */
  readonly token: string | undefined;
  readonly warnings: Pick<ConsoleWarnings, 'list'>;
}

/** Unknown parameters (`token`, `lang`) pass; `severity` keeps one severity. */
const WarningsQuery = z.object({ severity: z.enum(['error', 'warning', 'info']).optional() });

/** `GET /api/warnings` and the page `GET /warnings`. */
export function createWarningRoutes(deps: WarningRoutesDeps): Router {
  const router = createRouter();
  const guard = createFeedTokenGuard(deps.token);

  router.get('/api/warnings', guard, async (req: Request, res: Response) => {
    const query = WarningsQuery.safeParse(req.query);
    if (!query.success) {
      const message = query.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
      sendError(res, 'BAD_QUERY', message);
      return;
    }
    const all = await deps.warnings.list();
    const { severity } = query.data;
    const shown = severity === undefined ? all : all.filter((warning) => warning.severity === severity);
    res.set('cache-control', 'no-store').json({
      counts: countWarnings(all),
      warnings: shown.map((warning) => ({ ...warning, docs: `/docs/report-codes#${warning.docs ?? warning.code}` })),
    });
  });

  router.get('/warnings', guard, async (req: Request, res: Response) => {
    const context = consoleContext(req, res);
    sendPage(res, context, {
      title: textsFor(WARNINGS_TEXTS, context.lang).title,
      section: 'warnings',
      body: warningsBody(await deps.warnings.list(), context),
    });
  });

  return router;
}
