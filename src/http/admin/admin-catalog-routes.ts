import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { withTimeout } from '../../core/async/deadline.js';
import { adminCsvHeader, adminCsvLine, adminJsonItem, adminRowOf } from '../../core/catalog/admin-catalog-rows.js';
import type { CatalogSnapshot, Product } from '../../core/catalog/catalog.js';
import { CSV_DIALECTS, formulaSafe } from '../../core/feeds/csv-dialect.js';
import type { PurchasePrices } from '../../services/catalog/catalog-service.js';
import { sendError } from '../send-error.js';
import { parseQuery } from './admin-query.js';
import { streamLines } from './stream-rows.js';

export interface AdminCatalogDeps {
  readonly catalog: () => CatalogSnapshot | undefined;
  readonly purchasePrices: () => Promise<PurchasePrices | undefined>;
}

/** How long a download waits for the purchase prices (a first read at 100,000 products takes well under 1 s). */
const PRICES_DEADLINE_MS = 5_000;

const CsvQuerySchema = z.object({ profile: z.enum(['rfc4180', 'excel']).optional() });

/** Admin data must never be kept by a cache, shared or the browser's own. */
function setPrivateHeaders(res: Response, snapshot: CatalogSnapshot, prices: PurchasePrices | undefined): void {
  res.set({
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
    'x-catalog-version': snapshot.version,
    ...(prices === undefined ? {} : { 'x-internal-version': prices.version }),
  });
}

async function loaded(
  deps: AdminCatalogDeps,
  res: Response,
): Promise<{ readonly snapshot: CatalogSnapshot; readonly prices: PurchasePrices | undefined } | undefined> {
  const snapshot = deps.catalog();
  if (snapshot === undefined) {
    res.set('retry-after', '10');
    sendError(res, 'CATALOG_NOT_READY', 'No catalog has been published yet');
    return undefined;
  }
  try {
    // A stalled store answers 503 in seconds, never a download that hangs for its command timeout.
    return { snapshot, prices: await withTimeout(deps.purchasePrices(), PRICES_DEADLINE_MS, 'reading the purchase prices') };
  } catch (error) {
    res.set('retry-after', '10');
    const reason = error instanceof Error ? error.message : String(error);
    sendError(res, 'STORE_UNAVAILABLE', `The store does not answer (${reason}); the purchase prices are kept there`);
    return undefined;
  }
}

function rowAt(products: readonly Product[], prices: PurchasePrices | undefined, index: number) {
  const product = products[index] as Product;
  return adminRowOf(product, prices?.byId.get(product.id));
}

async function sendJson(deps: AdminCatalogDeps, res: Response): Promise<void> {
  const data = await loaded(deps, res);
  if (data === undefined) return;
  const { snapshot, prices } = data;
  setPrivateHeaders(res, snapshot, prices);
  res.status(200).type('application/json; charset=utf-8');
  const head = {
    version: snapshot.version,
    internalVersion: prices?.version ?? null,
    generatedAt: snapshot.generatedAt,
    currency: snapshot.currency,
    primaryUnit: snapshot.primaryUnit,
    count: snapshot.products.length,
  };
  res.write(`${JSON.stringify(head).slice(0, -1)},"items":[`);
  await streamLines(res, snapshot.products.length, (index) => adminJsonItem(rowAt(snapshot.products, prices, index)), ',');
  res.end(']}');
}

async function sendCsv(deps: AdminCatalogDeps, req: Request, res: Response): Promise<void> {
  const query = parseQuery(CsvQuerySchema, req, res);
  if (query === undefined) return;
  const data = await loaded(deps, res);
  if (data === undefined) return;
  const { snapshot, prices } = data;
  // Purchase prices are read in spreadsheets: no cell may start a formula, in either profile.
  const dialect = formulaSafe(CSV_DIALECTS[query.profile ?? 'rfc4180']);
  setPrivateHeaders(res, snapshot, prices);
  const excel = dialect.name === 'excel';
  res
    .status(200)
    .type('text/csv; charset=utf-8; header=present')
    .set('content-disposition', `attachment; filename="internal-catalog${excel ? '-excel' : ''}.csv"`);
  res.write(adminCsvHeader(dialect));
  await streamLines(res, snapshot.products.length, (index) =>
    adminCsvLine(rowAt(snapshot.products, prices, index), snapshot.currency, dialect),
  );
  res.end();
}

/** `GET /admin/catalog.json` and `GET /admin/catalog.csv` (docs/http-interface.md); mounted behind the admin gate. */
export function addAdminCatalogRoutes(router: Router, deps: AdminCatalogDeps): void {
  router.get('/admin/catalog.json', (_req, res) => sendJson(deps, res));
  router.get('/admin/catalog.csv', (req, res) => sendCsv(deps, req, res));
}
