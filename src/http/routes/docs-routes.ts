import type { Response, Router } from 'express';
import { createRouter } from '../create-router.js';
import { sendError } from '../send-error.js';

export interface DocsRoutesDeps {
  /** A page of the shipped `docs/` folder as HTML (`''`: the index), or `undefined` when there is none. */
  readonly page: (name: string) => Promise<string | undefined>;
}

/** The path a status page links for a report code: its entry in docs/report-codes.md. */
export function reportCodeHref(base: string, code: string): string {
  return `${base}/docs/report-codes#${encodeURIComponent(code)}`;
}

/**
 * `GET /docs/{page}`: the bridge's own documentation, rendered from the `docs/` folder it was shipped
 * with (docs/report-codes.md says why). Public, like the documentation itself: no token.
 */
export function createDocsRoutes(deps: DocsRoutesDeps): Router {
  const router = createRouter();

  async function send(res: Response, name: string): Promise<void> {
    const html = await deps.page(name);
    if (html === undefined) {
      sendError(res, 'NOT_FOUND', `No documentation page "${name}"; see /docs/ for the list`);
      return;
    }
    res
      .set('cache-control', 'public, max-age=300')
      // Never inside another site's frame (clickjacking), as the console's pages.
      .set('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
      .set('x-frame-options', 'DENY')
      .set('x-content-type-options', 'nosniff')
      .type('html')
      .send(html);
  }

  router.get('/docs', async (req, res) => {
    // The index's relative links need the trailing slash (`/docs` and `/docs/` both reach this route).
    if (req.path.endsWith('/')) await send(res, '');
    else res.redirect(301, 'docs/');
  });
  router.get('/docs/*path', async (req, res) => {
    const segments = (req.params as { path?: string[] }).path ?? [];
    const name = segments.join('/').replace(/\.md$/, '');
    await send(res, name);
  });
  return router;
}
