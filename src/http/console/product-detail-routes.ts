import type { Request, Router } from 'express';
import { z } from 'zod';
import type { ProductLookup, ProductLookupResult } from '../../services/products/product-lookup.js';
import { createRouter } from '../create-router.js';
import { requestBaseUrl } from '../request-base-url.js';
import { createFeedTokenGuard } from '../routes/feed-routes.js';
import { sendError } from '../send-error.js';
import { consoleContext, sendQueryProblem } from './layout.js';
import { sendProductNotFound, sendProductPage } from './product-page.js';

/**
 * `GET /api/products/{id}` and the console's page of one product, `GET /products/{id}`
 * (docs/http-interface.md, docs/console.md#product-detail): its values per unit, their sources, and per
 * feed the rendered item or why it is left out. Guarded like the feeds.
 */
export interface ProductDetailRoutesDeps {
  readonly lookup: ProductLookup;
  readonly token: string | undefined;
  /** Public base URL of the bridge (`PUBLIC_BASE_URL`), for the feeds' URLs; else the request's. */
  readonly publicBaseUrl: string | undefined;
}

const UNIT_PATTERN = /^[A-Za-z0-9._~-]{1,64}$/;

/** `unit` restricts the views; `token` and `lang` are the guard's and the console's. */
const ProductQuery = z.object({
  unit: z.string().regex(UNIT_PATTERN, 'a unit code or "all"').optional(),
  token: z.string().optional(),
  lang: z.enum(['cs', 'en']).optional(),
});

function queryProblem(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`).join('; ');
}

/** The lookup's answer for the request, or `undefined` once a `400` has been sent. */
async function lookUp(
  req: Request,
  lookup: ProductLookup,
  badQuery: (problem: string) => void,
): Promise<ProductLookupResult | undefined> {
  const query = ProductQuery.safeParse(req.query);
  if (!query.success) {
    badQuery(queryProblem(query.error));
    return undefined;
  }
  const result = await lookup.find(String(req.params['id'] ?? ''), query.data.unit);
  if (!result.ok && result.reason === 'unknown-unit') {
    badQuery(`unit: no unit "${(query.data.unit ?? '').slice(0, 64)}" in the catalog`);
    return undefined;
  }
  return result;
}

export function createProductDetailRoutes(deps: ProductDetailRoutesDeps): Router {
  const router = createRouter();
  const guard = createFeedTokenGuard(deps.token);

  router.get('/api/products/:id', guard, async (req, res) => {
    const result = await lookUp(req, deps.lookup, (problem) => sendError(res, 'BAD_QUERY', problem));
    if (result === undefined) return;
    res.set('cache-control', 'no-store');
    if (!result.ok) {
      if (result.reason === 'not-ready') {
        res.set('retry-after', '10');
        sendError(res, 'CATALOG_NOT_READY', 'No catalog yet: the first sync is still running; try again shortly');
      } else sendError(res, 'UNKNOWN_PRODUCT', `No product with the id "${String(req.params['id']).slice(0, 100)}"`);
      return;
    }
    const base = requestBaseUrl(req, deps.publicBaseUrl);
    const { feeds, ...rest } = result.view;
    res.json({ ...rest, feeds: feeds.map(({ path, ...feed }) => ({ ...feed, url: `${base}${path}` })) });
  });

  router.get('/products/:id', guard, async (req, res) => {
    const context = consoleContext(req, res);
    const result = await lookUp(req, deps.lookup, (problem) => sendQueryProblem(res, context, 'products', problem));
    if (result === undefined) return;
    if (result.ok) sendProductPage(res, context, result.view);
    else sendProductNotFound(res, context, String(req.params['id']), result.reason === 'not-ready');
  });

  return router;
}
