import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler } from 'express';
import { type Logger, pino } from 'pino';
import { createControlRoutes } from './control-routes.js';
import { DEFAULT_PAGE_SIZE, PAGE_SIZE_CAP } from './pos-request-reading.js';
import { createPosRoutes } from './pos-routes.js';
import { createSaleRecorder, type SaleRecorder } from './record-sale.js';
import type { RecordedRequest } from './request-log.js';
import { invalidEnvelope } from './sandbox-replies.js';
import type { SandboxState } from './sandbox-state.js';
import type { WebhookSender } from './webhook-sender.js';

export interface SandboxAppOptions {
  readonly apiKey: string;
  readonly logger?: Logger;
  /** Records sales for POST /sandbox/sales; pass the one startSandbox's makeSale uses so both share a sequence. */
  readonly sales?: SaleRecorder;
  /** Delivers the sales' webhooks; without it sales are recorded but not announced. */
  readonly webhooks?: WebhookSender;
}

const BODY_LIMIT = '10mb';
/** The price-list feed is also fetched by Shoptet's automatic import, which cannot send headers. */
const PRICE_LIST_PATH = /^(\/ext)?\/unit\/[^/]+\/price-list\/export\/(eshop|shoptet)-update\/?$/;

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function describePage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>catalog-bridge sandbox POS</title></head>
<body>
<h1>catalog-bridge sandbox POS</h1>
<p>A deterministic simulator of the POS interface (docs/pos-interface.md of catalog-bridge). Every call except this page,
<code>/sandbox/products/{localId}</code> and <code>/sandbox/images/{localId}.png</code> needs the header
<code>x-api-key</code> (the sandbox's key, SANDBOX_API_KEY). List pages are capped at ${PAGE_SIZE_CAP} items (default ${DEFAULT_PAGE_SIZE}).</p>
<h2>POS interface</h2>
<ul>
<li>POST /ext/assortment/article/list {limit, skip, options: {priceOutput: with_vat | without_vat}}</li>
<li>POST /ext/stockholding/movement/list {filter: {dateFrom, dateTo, unit, article}, limit, skip}</li>
<li>POST /ext/address-book/client/get {_id | externalId | email | phone | clientCardIdentifier | company: {TIN, VATID}}</li>
<li>POST /ext/unit/list {limit, skip, select}</li>
<li>GET [/ext]/unit/{localId|code}/price-list/export/eshop-update (also ?key=)</li>
<li>GET [/ext]/warehouse/stock/export/{csv|txt|tsv}/{localId|code}</li>
<li>GET [/ext]/warehouse/stock/export/{csv|txt|tsv}</li>
<li>POST [/ext]/address-book/client/import, POST [/ext]/assortment/import</li>
</ul>
<h2>Sandbox control</h2>
<ul>
<li>POST /sandbox/sales {unitCode?, lines?: [{localId, count}]}: make a sale now</li>
<li>GET | PUT | POST | DELETE /sandbox/faults: fault injection</li>
<li>GET | DELETE /sandbox/requests: recent requests</li>
<li>GET /sandbox/webhooks: recent webhook deliveries</li>
<li>GET /sandbox/products/{localId}, GET /sandbox/images/{localId}.png</li>
</ul>
<p>Full description: src/sandbox/README.md.</p>
</body></html>
`;
}

/**
 * The sandbox POS as an express app without listen(), so supertest can drive it in-process.
 * startSandbox() wraps it in a real server.
 */
export function createSandboxApp(state: SandboxState, options: SandboxAppOptions): Express {
  const logger = options.logger ?? pino({ enabled: false });
  const expectedKey = digest(options.apiKey);
  const sales = options.sales ?? createSaleRecorder(state);
  const logEntries = new WeakMap<Request, RecordedRequest>();

  function keyMatches(given: unknown): boolean {
    // Hashing first gives equal lengths for timingSafeEqual and hides the key length.
    return typeof given === 'string' && timingSafeEqual(digest(given), expectedKey);
  }

  const auth: RequestHandler = (req, res, next) => {
    if (keyMatches(req.get('x-api-key'))) return next();
    if (PRICE_LIST_PATH.test(req.path) && keyMatches(req.query.key)) return next();
    res.status(401).json(invalidEnvelope(['Missing or invalid x-api-key header']));
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use((req, res, next) => {
    // The log's own reads are left out, so polling it does not push real calls out of the ring.
    if (req.path === '/sandbox/requests') return next();
    const entry = state.requests.add({ method: req.method, path: req.path, time: state.now().toISOString(), status: 0 });
    logEntries.set(req, entry);
    res.once('finish', () => {
      entry.status = res.statusCode;
    });
    res.once('close', () => {
      // A truncated body never finishes, but its status line went out.
      if (entry.status === 0 && res.headersSent) entry.status = res.statusCode;
      logger.debug({ method: req.method, path: req.path, status: entry.status, fault: entry.fault }, 'sandbox request');
    });
    next();
  });
  app.use(express.raw({ type: () => true, limit: BODY_LIMIT }));

  app.get('/', (_req, res) => {
    res.type('text/html; charset=utf-8').send(describePage());
  });

  const pos = createPosRoutes(state, {
    auth,
    onFault(req, fault) {
      const entry = logEntries.get(req);
      if (entry !== undefined) entry.fault = fault.mode;
      logger.debug({ path: req.path, mode: fault.mode }, 'sandbox fault injected');
    },
  });
  app.use('/ext', pos.lists);
  // Interface 4.10 leaves open whether 4.5-4.9 live under /ext: the sandbox serves both.
  app.use('/ext', pos.exports);
  app.use(pos.exports);

  const control = createControlRoutes(state, { auth, sales, webhooks: options.webhooks });
  app.use('/sandbox', control.open);
  app.use('/sandbox', control.keyed);

  app.use((req, res) => {
    res.status(404).json(invalidEnvelope([`No such endpoint: ${req.method} ${req.path}`]));
  });

  const onError: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    const status =
      typeof error === 'object' && error !== null && 'status' in error && typeof error.status === 'number' ? error.status : 500;
    if (status >= 500) logger.error({ err: error, path: req.path }, 'sandbox request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // Body-parser's 4xx messages (unsupported encoding, aborted upload) are safe to show; 5xx details are not.
    const detail = error instanceof Error ? error.message : 'Bad request';
    const message = status === 413 ? `Request body larger than ${BODY_LIMIT}` : status >= 500 ? 'Internal sandbox error' : detail;
    res.status(status).json(invalidEnvelope([message]));
  };
  app.use(onError);
  return app;
}
