import { type RequestHandler, type Response, Router } from 'express';
import { z } from 'zod';
import { encodeSolidPng } from './encode-png.js';
import { FaultRuleListSchema, FaultRuleSchema } from './fault-injector.js';
import { hash32 } from './prng.js';
import { SaleInputError, type SaleRecorder } from './record-sale.js';
import { escapeXml } from './render-price-list.js';
import { readJsonBody } from './request-body.js';
import type { SandboxState } from './sandbox-state.js';
import type { WebhookSender } from './webhook-sender.js';

const SaleBodySchema = z
  .object({
    unitCode: z.string().min(1).exactOptional(),
    lines: z
      .array(z.object({ localId: z.string().min(1), count: z.number().positive().max(10_000) }).strict())
      .min(1)
      .max(20)
      .exactOptional(),
  })
  .strict();

const IMAGE_SIZE = 32;

export interface ControlRoutesOptions {
  readonly auth: RequestHandler;
  readonly sales: SaleRecorder;
  readonly webhooks: WebhookSender | undefined;
}

export interface ControlRoutes {
  /** Need the API key: sales, faults, request log, webhook deliveries. */
  readonly keyed: Router;
  /** Open: product pages and images that feed links point at. */
  readonly open: Router;
}

/** Errors of the sandbox's own control API (not part of the POS interface). */
function controlError(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ error: { code, message } });
}

function issueText(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

/** Same colour for the same id, spread over the hue circle, always mid-bright so it looks like a swatch. */
function colourOf(id: string): [number, number, number] {
  const codes: number[] = [];
  for (const char of id) codes.push(char.codePointAt(0) ?? 0);
  const h = hash32(...codes);
  return [64 + (h & 0x7f), 64 + ((h >>> 8) & 0x7f), 64 + ((h >>> 16) & 0x7f)];
}

function formatCzk(value: number): string {
  return `${value.toFixed(2).replace('.', ',')} Kč`;
}

/** The sandbox's own endpoints under /sandbox: sales, faults, request log, product pages and images. */
export function createControlRoutes(state: SandboxState, options: ControlRoutesOptions): ControlRoutes {
  const { auth, sales, webhooks } = options;
  const keyed = Router();
  keyed.use(auth);

  keyed.post('/sales', (req, res) => {
    const parsed = readJsonBody(req);
    if (!parsed.ok) return controlError(res, 400, 'INVALID_JSON', parsed.message);
    const body = SaleBodySchema.safeParse(parsed.value ?? {});
    if (!body.success) return controlError(res, 400, 'INVALID_SALE', issueText(body.error));
    try {
      const sale = sales.record(body.data);
      webhooks?.send(sale.events);
      res.status(201).json(sale.result);
    } catch (error) {
      if (error instanceof SaleInputError) return controlError(res, 400, 'INVALID_SALE', error.message);
      throw error;
    }
  });

  // An article leaves the article list (as one deleted in the POS) and comes back (a new one for the bridge);
  // its stock and price-list rows stay, as a real POS keeps them for a deleted article.
  const listing =
    (listed: boolean): RequestHandler =>
    (req, res) => {
      const localId = String(req.params['localId']);
      const index = state.catalog.indexOfLocalId(localId);
      if (index === undefined) return controlError(res, 404, 'NOT_FOUND', `No article "${localId}"`);
      state.setListed(index, listed);
      res.json({ localId, listed });
    };
  keyed.delete('/articles/:localId', listing(false));
  keyed.put('/articles/:localId', listing(true));

  keyed.get('/faults', (_req, res) => {
    res.json({ faults: state.faults.list() });
  });
  // PUT replaces every rule with the one or many given; POST adds one rule after the existing ones.
  keyed.put('/faults', (req, res) => {
    const parsed = readJsonBody(req);
    if (!parsed.ok) return controlError(res, 400, 'INVALID_JSON', parsed.message);
    // Parsed as a list or as one rule (not as a union), so the message names the field that is wrong.
    const rules = Array.isArray(parsed.value)
      ? FaultRuleListSchema.safeParse(parsed.value)
      : FaultRuleSchema.safeParse(parsed.value);
    if (!rules.success) return controlError(res, 400, 'INVALID_FAULT', `Invalid fault rule: ${issueText(rules.error)}`);
    state.faults.set(Array.isArray(rules.data) ? rules.data : [rules.data]);
    res.json({ faults: state.faults.list() });
  });
  keyed.post('/faults', (req, res) => {
    const parsed = readJsonBody(req);
    if (!parsed.ok) return controlError(res, 400, 'INVALID_JSON', parsed.message);
    const rule = FaultRuleSchema.safeParse(parsed.value);
    if (!rule.success) return controlError(res, 400, 'INVALID_FAULT', `Invalid fault rule: ${issueText(rule.error)}`);
    state.faults.add(rule.data);
    res.json({ faults: state.faults.list() });
  });
  keyed.delete('/faults', (_req, res) => {
    state.faults.clear();
    res.json({ faults: [] });
  });

  keyed.get('/requests', (_req, res) => {
    res.json({ requests: state.requests.list() });
  });
  keyed.delete('/requests', (_req, res) => {
    state.requests.clear();
    res.json({ requests: [] });
  });

  keyed.get('/webhooks', (_req, res) => {
    res.json({ url: webhooks?.url ?? null, deliveries: webhooks?.deliveries() ?? [] });
  });
  // The sandbox's own share of webhook latency (waiting before the first attempt) apart from the receiver's.
  keyed.get('/webhooks/stats', (_req, res) => {
    res.json(webhooks?.stats() ?? null);
  });
  keyed.delete('/webhooks/stats', (_req, res) => {
    webhooks?.resetStats();
    res.status(204).end();
  });

  const open = Router();
  open.get('/products/:localId', (req, res) => {
    const index = state.catalog.indexOfLocalId(req.params.localId);
    if (index === undefined) return controlError(res, 404, 'NOT_FOUND', `No article "${req.params.localId}"`);
    const article = state.article(index);
    const name = escapeXml(article.name);
    const image = `/sandbox/images/${encodeURIComponent(article.localId)}.png`;
    res
      .status(200)
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html>\n<html lang="cs"><head><meta charset="utf-8"><title>${name}</title></head>\n<body>\n` +
          `<h1>${name}</h1>\n<img src="${image}" alt="${name}" width="${IMAGE_SIZE * 4}" height="${IMAGE_SIZE * 4}">\n` +
          `<p class="price">${formatCzk(article.salesPrice)}</p>\n<p>Kód: ${escapeXml(article.localId)}` +
          `${article.ean !== undefined ? `, EAN: ${article.ean}` : ''}</p>\n</body></html>\n`,
      );
  });
  open.get('/images/:file', (req, res) => {
    const match = /^(.+)\.png$/.exec(req.params.file);
    const localId = match?.[1];
    if (localId === undefined || state.catalog.indexOfLocalId(localId) === undefined) {
      return controlError(res, 404, 'NOT_FOUND', `No image "${req.params.file}"`);
    }
    res
      .status(200)
      .setHeader('Cache-Control', 'public, max-age=86400')
      .type('image/png')
      .send(encodeSolidPng(IMAGE_SIZE, IMAGE_SIZE, colourOf(localId)));
  });

  return { keyed, open };
}
