import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { z } from 'zod';
import { type RunningSandbox, type SandboxOptions, startSandbox } from '../../../src/sandbox/start-sandbox.js';
import { waitFor } from '../../helpers/wait-for.js';

export const API_KEY = 'test-key-123';
export const JSON_HEADERS = { 'x-api-key': API_KEY, 'content-type': 'application/json' };

/** A small sandbox on 127.0.0.1:0 with simulated sales off; override what the test needs. */
export function startTestSandbox(overrides: Partial<SandboxOptions> = {}): Promise<RunningSandbox> {
  return startSandbox({
    units: 3,
    articles: 300,
    seed: 42,
    salesPerMinute: 0,
    apiKey: API_KEY,
    host: '127.0.0.1',
    port: 0,
    ...overrides,
  });
}

export interface HttpResult {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly bytes: Buffer;
}

export async function call(
  url: string,
  init: {
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
    headers?: Record<string, string>;
    body?: string;
    signal?: AbortSignal;
  } = {},
): Promise<HttpResult> {
  const response = await request(url, {
    method: init.method ?? 'GET',
    headers: init.headers ?? { 'x-api-key': API_KEY },
    ...(init.body !== undefined ? { body: init.body } : {}),
    ...(init.signal !== undefined ? { signal: init.signal } : {}),
  });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, headers: response.headers, text: bytes.toString('utf8'), bytes };
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = JSON_HEADERS) {
  const result = await call(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { ...result, json: JSON.parse(result.text) as unknown };
}

export async function sendJson(url: string, method: 'PUT' | 'POST' | 'DELETE' | 'GET', body?: unknown) {
  const result = await call(url, {
    method,
    headers: JSON_HEADERS,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { ...result, json: JSON.parse(result.text) as unknown };
}

/** Polls `probe` until it returns a value (not undefined): the shared `waitFor`, with its bound. */
export async function pollUntil<T>(probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  return (await waitFor(probe)) as T;
}

// --- Schemas of the interface's resources (docs/pos-interface.md, part 2), strict: no extra fields.

export const ArticleSchema = z.strictObject({
  localId: z.string().min(1),
  name: z.string().min(1),
  localGroupId: z.string().min(1).optional(),
  ean: z
    .string()
    .regex(/^\d{13}$/)
    .optional(),
  plu: z.number().int().optional(),
  internalIdentifier: z.string().min(1).optional(),
  measureUnit: z.string().min(1),
  isSalesItem: z.boolean().optional(),
  isStockItem: z.boolean().optional(),
  isQuick: z.boolean(),
  salesPrice: z.number(),
  purchasePrice: z.number(),
  avgPurchasePrice: z.number(),
});
export type Article = z.infer<typeof ArticleSchema>;

export const ArticleListResponseSchema = z.strictObject({ data: z.strictObject({ items: z.array(ArticleSchema) }) });

export const UnitSchema = z.strictObject({
  code: z.string().min(1),
  name: z.string().min(1),
  localId: z.string().regex(/^[0-9a-f]{24}$/),
  priceLists: z.array(z.strictObject({ localId: z.string(), externalId: z.string(), name: z.string() })),
});

export function envelopeSchema<T extends z.ZodType>(data: T) {
  return z.strictObject({
    data,
    isValid: z.boolean(),
    errors: z.array(z.string()),
    warnings: z.array(z.string()),
    messages: z.array(z.string()),
  });
}

const AmountSchema = z.strictObject({ amount: z.number(), VAT: z.number(), amountVAT: z.number() });

export const MovementSchema = z.strictObject({
  _id: z.string().regex(/^[0-9a-f]{24}$/),
  count: z.number(),
  unit: z.strictObject({ _id: z.string(), code: z.string(), name: z.string() }),
  article: z.strictObject({
    _id: z.string(),
    name: z.string(),
    plu: z.number().optional(),
    ean: z.string().optional(),
    internalIdentifier: z.string().optional(),
    measureUnit: z.string(),
  }),
  warehouseOperation: z.strictObject({
    _id: z.string(),
    number: z.string(),
    currency: z.string(),
    price: AmountSchema,
    createdAt: z.iso.datetime(),
    type: z.number(),
    receipt: z
      .strictObject({ _id: z.string(), number: z.string(), cashier: z.strictObject({ _id: z.string(), name: z.string() }) })
      .optional(),
    supplier: z.strictObject({ _id: z.string(), name: z.string() }).optional(),
  }),
});
export type Movement = z.infer<typeof MovementSchema>;

export const MovementListSchema = envelopeSchema(z.strictObject({ total: z.number().int(), items: z.array(MovementSchema) }));
export const UnitListSchema = envelopeSchema(z.strictObject({ total: z.number().int(), items: z.array(UnitSchema) }));

const AddressSchema = z.strictObject({
  city: z.string().optional(),
  street: z.string().optional(),
  buildingNumber: z.string().optional(),
  ZIP: z.string().optional(),
  country: z.string().optional(),
});

export const ClientSchema = z.strictObject({
  _id: z.string(),
  externalId: z.string().optional(),
  clientCardIdentifier: z.string().optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
  address: AddressSchema.optional(),
  company: z
    .strictObject({
      address: AddressSchema.optional(),
      name: z.string().optional(),
      TIN: z.string().optional(),
      VATID: z.string().optional(),
    })
    .optional(),
  clientPoints: z.number().optional(),
  dateOfBirth: z.string().optional(),
  reverseChargeEU: z.boolean().optional(),
  note: z.string().optional(),
});

export const ClientGetSchema = z.strictObject({
  isValid: z.boolean(),
  errors: z.array(z.string()),
  data: ClientSchema.nullable(),
});

export const ReceiptSchema = z.strictObject({
  number: z.string(),
  total: AmountSchema,
  localId: z.string(),
  tip: z.number(),
  note: z.string(),
  table: z.string(),
  state: z.literal('open'),
  paymentType: z.literal('transfer'),
  device: z.strictObject({ localId: z.string(), uuid: z.uuid() }),
  cashier: z.strictObject({ localId: z.string() }),
  client: z.strictObject({ localId: z.string() }).optional(),
});

export const SaleEventSchema = z.union([
  z.strictObject({
    timestamp: z.iso.datetime(),
    event: z.literal('accounting.receipt.sale'),
    accountId: z.string(),
    unitId: z.string(),
    data: ReceiptSchema,
  }),
  z.strictObject({ timestamp: z.iso.datetime(), event: z.literal('accounting.receipt.sale'), data: ReceiptSchema }),
]);

export const ClientPointsEventSchema = z.strictObject({
  timestamp: z.iso.datetime(),
  event: z.literal('address-book.client.points'),
  accountId: z.string(),
  data: z.strictObject({
    received: z.number(),
    spent: z.number(),
    balance: z.number(),
    client: z.strictObject({ localId: z.string() }),
    receipt: z.strictObject({ localId: z.string(), number: z.string() }),
  }),
});

/** Reads the whole article list page by page the way docs/catalog-rules.md rule 2 requires (skip += items received). */
export async function readAllArticles(url: string, limit = 500): Promise<Article[]> {
  const all: Article[] = [];
  for (let page = 0; page < 10_000; page++) {
    const { json } = await postJson(`${url}/ext/assortment/article/list`, {
      limit,
      skip: all.length,
      options: { priceOutput: 'with_vat' },
    });
    const items = ArticleListResponseSchema.parse(json).data.items;
    if (items.length === 0) return all;
    all.push(...items);
  }
  throw new Error('article list did not end');
}

export interface ReceivedWebhook {
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedWebhook[];
  /** Status the receiver answers with (default 200). */
  status: number;
  close(): Promise<void>;
}

/** A tiny local webhook receiver that records every call. */
export async function startReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const receiver = { status: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(receiver.status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/webhooks/pos`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
