import type { Request, Response, Router } from 'express';
import pLimit from 'p-limit';
import { ALL_UNITS, type CatalogSnapshot, type Product } from '../../core/catalog/catalog.js';
import { hashText } from '../../core/catalog/catalog-version.js';
import type { FamilyIndex } from '../../core/catalog/family-index.js';
import {
  createProductSearchIndexes,
  type ProductSearchIndexes,
  type SearchMatch,
  searchProducts,
} from '../../core/catalog/product-search.js';
import { createRouter } from '../create-router.js';
import { type HttpErrorCode, statusOf } from '../error-codes.js';
import { createFeedTokenGuard } from '../routes/feed-routes.js';
import { sendError } from '../send-error.js';
import { consoleContext, sendPage } from './layout.js';
import { renderSearchPage, type SearchPageModel } from './product-search-page.js';
import {
  type ProductSearchAnswer,
  type ProductSearchItem,
  SEARCH_LIMITS,
  type SearchParam,
  type SearchProblemKind,
  type SearchQueryProblem,
} from './product-search-types.js';

export interface ProductSearchRoutesDeps {
  readonly current: () => CatalogSnapshot | undefined;
  /** The family index of a snapshot (its codes), built once per catalog family (`CatalogService.familyIndex`). */
  readonly familyIndex: (snapshot: CatalogSnapshot) => Promise<FamilyIndex>;
  /** FEED_TOKEN: when set, search (which shows prices and stock, like the feeds) needs it too. */
  readonly token: string | undefined;
  /** Why no catalog is served yet, for the 503's message. */
  readonly waiting?: () => string;
  /** The search indexes, one per catalog family; a cache of its own (over `familyIndex`) by default. */
  readonly indexes?: ProductSearchIndexes;
}

interface SearchQuery {
  /** Trimmed. */
  readonly q: string;
  readonly limit: number;
  readonly unit: string;
}

const UNIT_PATTERN = /^[A-Za-z0-9._~-]{1,64}$/;
const LIMIT_PATTERN = /^\d{1,3}$/;
const RETRY_AFTER_SECONDS = 10;
/**
 * Searches run one at a time: eight at once would each take a slice per turn of the event loop, holding it
 * eight slices long (bench/search-worst-case.ts). At most this many wait; more are answered `503`.
 */
const SEARCHES_WAITING = 16;

function problem(param: SearchParam, kind: SearchProblemKind, message: string): { ok: false; problem: SearchQueryProblem } {
  return { ok: false, problem: { param, kind, message: `${param}: ${message}` } };
}

/** Reads and checks `q`, `limit` and `unit` (whether the unit exists is checked against the catalog later). */
function parseSearchQuery(
  query: Readonly<Record<string, unknown>>,
  defaultLimit: number,
): { ok: true; query: SearchQuery } | { ok: false; problem: SearchQueryProblem } {
  const { maxQueryLength, maxLimit } = SEARCH_LIMITS;
  const { q: rawQ, limit: rawLimit, unit: rawUnit } = query;
  if (rawQ === undefined) return problem('q', 'missing', `is required: what to search for, 1–${maxQueryLength} characters`);
  if (typeof rawQ !== 'string') return problem('q', 'repeated', 'must be given once');
  const q = rawQ.trim();
  if (q === '') return problem('q', 'empty', 'must not be empty');
  if (q.length > maxQueryLength) return problem('q', 'too-long', `must be at most ${maxQueryLength} characters`);
  let limit = defaultLimit;
  if (rawLimit !== undefined) {
    limit = typeof rawLimit === 'string' && LIMIT_PATTERN.test(rawLimit) ? Number(rawLimit) : 0;
    if (limit < 1 || limit > maxLimit) return problem('limit', 'bad-limit', `must be a whole number from 1 to ${maxLimit}`);
  }
  if (rawUnit !== undefined && (typeof rawUnit !== 'string' || !UNIT_PATTERN.test(rawUnit))) {
    return problem('unit', 'bad-unit', `must be a unit code or ${ALL_UNITS}`);
  }
  return { ok: true, query: { q, limit, unit: rawUnit ?? ALL_UNITS } };
}

/** The offer whose price and stock a search shows: the `all` aggregate or one unit's. */
function offerOf(product: Product, unit: string) {
  return unit === ALL_UNITS ? product.aggregate : product.offers.find((offer) => offer.unit === unit);
}

function itemOf(product: Product, matchedBy: SearchMatch, unit: string): ProductSearchItem {
  const offer = offerOf(product, unit);
  return {
    id: product.id,
    name: product.name,
    ...(product.ean === undefined ? {} : { ean: product.ean }),
    ...(product.plu === undefined ? {} : { plu: product.plu }),
    ...(product.internalIdentifier === undefined ? {} : { internalIdentifier: product.internalIdentifier }),
    matchedBy,
    ...(offer?.price === undefined ? {} : { price: offer.price }),
    ...(offer?.salePrice === undefined ? {} : { salePrice: offer.salePrice }),
    ...(offer?.stock === undefined ? {} : { stock: offer.stock }),
    // Every product has an offer in every unit (docs/catalog-rules.md); a missing one is not for sale there.
    availability: offer?.availability ?? 'out_of_stock',
    url: `/api/products/${encodeURIComponent(product.id)}`,
  };
}

/** A search that can run: its parameters checked against the served catalog. */
interface ResolvedSearch {
  readonly ok: true;
  readonly snapshot: CatalogSnapshot;
  readonly query: SearchQuery;
}

interface SearchFailure {
  readonly ok: false;
  readonly code: Extract<HttpErrorCode, 'BAD_QUERY' | 'CATALOG_NOT_READY'>;
  readonly message: string;
  readonly problem?: SearchQueryProblem;
}

function badQuery(found: SearchQueryProblem): SearchFailure {
  return { ok: false, code: 'BAD_QUERY', message: found.message, problem: found };
}

/**
 * Product search (docs/http-interface.md#product-search, docs/console.md#finding-a-product):
 * `GET /api/products?q=…` as JSON and `GET /products?q=…` as a console page, from one index per catalog
 * family (`core/catalog/product-search.ts`) and the prices and stock of the version served.
 */
export function createProductSearchRoutes(deps: ProductSearchRoutesDeps): Router {
  const router = createRouter();
  const guard = createFeedTokenGuard(deps.token);
  const indexes = deps.indexes ?? createProductSearchIndexes(deps.familyIndex);
  const cacheControl = deps.token === undefined ? 'no-cache' : 'private, no-cache';
  const oneAtATime = pLimit(1);
  /** The answer, or `undefined` when too many searches wait already. */
  const runQueued = (resolved: ResolvedSearch): Promise<ProductSearchAnswer> | undefined =>
    oneAtATime.pendingCount >= SEARCHES_WAITING ? undefined : oneAtATime(() => run(resolved));

  function notReady(): SearchFailure {
    const reason = deps.waiting?.() ?? 'the first catalog is still being built';
    return { ok: false, code: 'CATALOG_NOT_READY', message: `No catalog yet: ${reason}; try again shortly` };
  }

  /** The parameters checked, then against `snapshot` (read once per request: one version answers it). */
  function resolve(
    raw: Readonly<Record<string, unknown>>,
    defaultLimit: number,
    snapshot: CatalogSnapshot | undefined,
  ): ResolvedSearch | SearchFailure {
    const parsed = parseSearchQuery(raw, defaultLimit);
    if (!parsed.ok) return badQuery(parsed.problem);
    if (snapshot === undefined) return notReady();
    const { unit } = parsed.query;
    if (unit !== ALL_UNITS && !snapshot.units.some((candidate) => candidate.code === unit)) {
      const known = [ALL_UNITS, ...snapshot.units.map((candidate) => candidate.code)].join(', ');
      return badQuery(problem('unit', 'unknown-unit', `no unit "${unit}"; known units: ${known}`).problem);
    }
    return { ok: true, snapshot, query: parsed.query };
  }

  async function run({ snapshot, query }: ResolvedSearch): Promise<ProductSearchAnswer> {
    const { hits, total, complete } = await searchProducts(await indexes.get(snapshot), query.q, query.limit);
    const items: ProductSearchItem[] = [];
    for (const hit of hits) {
      const product = snapshot.products[hit.position];
      if (product !== undefined) items.push(itemOf(product, hit.matchedBy, query.unit));
    }
    return { query: query.q, unit: query.unit, version: snapshot.version, count: items.length, total, complete, items };
  }

  function sendFailure(res: Response, failure: SearchFailure): void {
    if (statusOf(failure.code) === 503) res.set('retry-after', String(RETRY_AFTER_SECONDS));
    sendError(res, failure.code, failure.message);
  }

  router.get('/api/products', guard, async (req, res) => {
    const resolved = resolve(req.query, SEARCH_LIMITS.apiLimit, deps.current());
    if (!resolved.ok) {
      sendFailure(res, resolved);
      return;
    }
    const { snapshot, query } = resolved;
    // The answer is a function of the version and the parameters: a client asking again gets a 304 unsearched.
    res.set({
      etag: `"${snapshot.version}-${hashText(`${query.unit}\n${query.limit}\n${query.q}`)}"`,
      'cache-control': cacheControl,
      'x-catalog-version': snapshot.version,
    });
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    const queued = runQueued(resolved);
    if (queued === undefined) {
      res.removeHeader('etag');
      res.set('retry-after', '1');
      sendError(res, 'SEARCH_BUSY');
      return;
    }
    const answer = await queued;
    // A search cut by its time budget depends on the machine's load, not only on the version: not to be kept.
    if (!answer.complete) {
      res.removeHeader('etag');
      res.set('cache-control', 'no-store');
    }
    res.json(answer);
  });

  router.get('/products', guard, async (req: Request, res) => {
    const context = consoleContext(req, res);
    const snapshot = deps.current();
    const base: SearchPageModel = {
      currency: snapshot?.currency ?? '',
      units: snapshot?.units.map((unit) => unit.code) ?? [],
    };
    if (req.query['q'] === undefined) {
      // The form alone (the page as the navigation opens it); without a catalog, say why nothing can be found yet.
      const page = renderSearchPage(context, { ...base, ...(snapshot === undefined ? { notReady: notReady().message } : {}) });
      sendPage(res, context, page);
      return;
    }
    const rawQ = typeof req.query['q'] === 'string' ? req.query['q'] : '';
    const rawUnit = typeof req.query['unit'] === 'string' ? req.query['unit'] : ALL_UNITS;
    const resolved = resolve(req.query, SEARCH_LIMITS.pageLimit, snapshot);
    if (!resolved.ok) {
      const model: SearchPageModel = {
        ...base,
        q: rawQ,
        unit: rawUnit,
        ...(resolved.problem === undefined ? { notReady: resolved.message } : { problem: resolved.problem }),
      };
      if (statusOf(resolved.code) === 503) res.set('retry-after', String(RETRY_AFTER_SECONDS));
      sendPage(res, context, renderSearchPage(context, model), statusOf(resolved.code));
      return;
    }
    const queued = runQueued(resolved);
    if (queued === undefined) {
      res.set('retry-after', '1');
      sendPage(res, context, renderSearchPage(context, { ...base, q: rawQ, unit: rawUnit, busy: true }), 503);
      return;
    }
    const answer = await queued;
    const { query } = resolved;
    const more = query.limit < SEARCH_LIMITS.maxLimit ? { moreLimit: SEARCH_LIMITS.maxLimit } : {};
    sendPage(res, context, renderSearchPage(context, { ...base, q: query.q, unit: query.unit, ...more, answer }));
  });

  return router;
}
