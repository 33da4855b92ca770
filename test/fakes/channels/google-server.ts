import { createVerify, type KeyObject } from 'node:crypto';
import type {
  merchantapi_datasources_v1,
  merchantapi_issueresolution_v1,
  merchantapi_products_v1,
} from '@googleapis/merchantapi';
import type { z } from 'zod';
import {
  GoogleDataSourceSchema,
  GoogleDeleteRequestSchema,
  GoogleLanguageCodeSchema,
  GoogleLocalInventorySchema,
  GooglePatchRequestSchema,
  GoogleProductInputSchema,
  GoogleRenderIssuesRequestSchema,
} from './google-schema.js';
import { type HarnessServer, type RecordedRequest, type Reply, startHarness } from './http-harness.js';

/**
 * A fake Merchant API v1 and OAuth token endpoint (docs/decisions/0013-channel-push.md, "Google Merchant API
 * v1" and "Test plan"): `POST /token` checks the JWT-bearer assertion (RS256 under the test key, `iss`, `aud`,
 * `scope`) and issues a token; the `productInputs` insert / patch / delete and `localInventories:insert` calls
 * need that token, are validated with `google-schema.ts` (400 `INVALID_ARGUMENT` otherwise) and change the
 * fake's state; `products.list` lists those inputs as processed products with the status a test set. Faults (429 / 503 with `Retry-After`) come from the harness.
 */

export interface GoogleServerOptions {
  readonly account: string;
  readonly dataSourceId: string;
  readonly clientEmail: string;
  /** The public half of the throwaway test key the assertion must be signed with. */
  readonly publicKey: KeyObject;
  /** Wall clock (seconds) the assertion's `iat`/`exp` are checked against. */
  readonly now?: () => number;
}

/** What `dataSources.get` answers: a primary or supplemental API source, a file source, or an HTTP error. */
export type FakeDataSourceKind = 'primary' | 'supplemental' | 'file' | 404 | 403;

/** One quota group as `quotas.list` answers it; `usage` is counted up by every call to its methods. */
export interface FakeQuotaGroup {
  name: string;
  usage: number;
  dailyLimit: number;
  minuteLimit: number;
  readonly methods: readonly string[];
}

/** What the fake holds for a product input: price micros, sale price micros, availability. */
export interface GoogleProductState {
  priceMicros?: string | undefined;
  salePriceMicros?: string | undefined;
  availability?: string | undefined;
}

export interface GoogleServer extends HarnessServer {
  /** `contentLanguage~feedLabel~offerId` → the product's state. */
  readonly products: Map<string, GoogleProductState>;
  /** `contentLanguage~feedLabel~offerId` → store code → local inventory attributes as received. */
  readonly localInventories: Map<string, Map<string, Record<string, unknown>>>;
  readonly tokenUrl: string;
  /** Access tokens issued so far. */
  readonly tokensIssued: () => number;
  /** The data source's answer (default a primary API source); change it between tests. */
  dataSourceKind: FakeDataSourceKind;
  /** The account's quota groups (default: one for the product and one for the inventory methods). */
  readonly quotaGroups: FakeQuotaGroup[];
  /** `quotas.list` calls so far. */
  readonly quotaReads: () => number;
  /**
   * Google's verdict per product (`contentLanguage~feedLabel~offerId`), as `products.list` reports it in
   * `productStatus`; a product input without one is listed approved for free listings and Shopping ads in CZ.
   */
  readonly statuses: Map<string, merchantapi_products_v1.Schema$ProductStatus>;
  /** Products listed besides the inputs (another language or label, an odd entry), as `products.list` items. */
  readonly extraListed: unknown[];
  /** `products.list` calls so far. */
  readonly productListReads: () => number;
  /** From now on `products.list` answers this HTTP error (`undefined`: lists again). */
  failProductListing(status: number | undefined): void;
  /** What `dataSources/{id}/fileUploads/latest` answers per file data source id (404 when absent). */
  readonly fileUploads: Map<string, merchantapi_datasources_v1.Schema$FileUpload>;
  /** The account's issues as `renderaccountissues` renders them, per language (none when absent). */
  readonly accountIssues: Map<string, merchantapi_issueresolution_v1.Schema$RenderedIssue[]>;
  /** `renderproductissues` and `renderaccountissues` calls so far (`{product or account}:{language}`). */
  readonly renderCalls: string[];
  /** Spends the day's quota of every group (usage = limit); calls are then refused with 429 daily limit. */
  exhaustDailyQuota(): void;
  /** Google's midday reset: every group's usage back to 0. */
  resetDailyQuota(): void;
}

type FakeStatuses = Map<string, merchantapi_products_v1.Schema$ProductStatus>;

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const SCOPE = 'https://www.googleapis.com/auth/content';
const RPC_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  503: 'UNAVAILABLE',
};

/** Google's error body (`google.rpc.Status` in JSON). */
export function googleErrorBody(status: number, message = `HTTP ${status}`): unknown {
  return { error: { code: status, message, status: RPC_STATUS[status] ?? 'UNKNOWN' } };
}

function refuse(status: number, message: string): Reply {
  return { status, body: googleErrorBody(status, message) };
}

function decodeJson(part: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Why an assertion is refused, or `undefined` when it is well formed and signed by the test key. */
function assertionProblem(assertion: string, options: GoogleServerOptions, audience: string): string | undefined {
  const [header, claims, signature, extra] = assertion.split('.');
  if (header === undefined || claims === undefined || signature === undefined || extra !== undefined) return 'not a JWS';
  const head = decodeJson(header);
  const body = decodeJson(claims);
  if (head?.alg !== 'RS256') return 'alg is not RS256';
  if (body === undefined) return 'claims are not JSON';
  const verified = createVerify('RSA-SHA256')
    .update(`${header}.${claims}`)
    .verify(options.publicKey, Buffer.from(signature, 'base64url'));
  if (!verified) return 'bad signature';
  if (body.iss !== options.clientEmail) return 'iss is not the service account';
  if (body.aud !== audience) return 'aud is not the token endpoint';
  if (body.scope !== SCOPE) return 'scope is not content';
  const now = (options.now ?? (() => Math.floor(Date.now() / 1000)))();
  if (typeof body.iat !== 'number' || typeof body.exp !== 'number' || body.exp - body.iat > 3600 || body.exp < now)
    return 'bad iat/exp';
  return undefined;
}

function issueToken(request: RecordedRequest, options: GoogleServerOptions, audience: string, issued: string[]): Reply {
  const form = new URLSearchParams(request.body);
  if (request.headers['content-type'] !== 'application/x-www-form-urlencoded')
    return { status: 400, body: { error: 'invalid_request' } };
  if (form.get('grant_type') !== JWT_BEARER) return { status: 400, body: { error: 'unsupported_grant_type' } };
  const problem = assertionProblem(form.get('assertion') ?? '', options, audience);
  if (problem !== undefined) return { status: 400, body: { error: 'invalid_grant', error_description: problem } };
  const token = `ya29.fake-${issued.length + 1}-${Math.random().toString(36).slice(2)}`;
  issued.push(token);
  return { status: 200, body: { access_token: token, expires_in: 3599, token_type: 'Bearer' } };
}

function issuesOf(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
}

interface State {
  readonly products: Map<string, GoogleProductState>;
  readonly local: Map<string, Map<string, Record<string, unknown>>>;
}

function keyOf(encoded: string): string {
  return Buffer.from(encoded, 'base64url').toString('utf8');
}

function applyAttributes(target: GoogleProductState, attributes: Record<string, unknown>, names: readonly string[]): void {
  const price = (value: unknown) => (value as { amountMicros?: string } | undefined)?.amountMicros;
  for (const name of names) {
    // Masked attributes absent from the body are deleted ("… will be deleted").
    if (name === 'price') target.priceMicros = price(attributes.price);
    if (name === 'salePrice') target.salePriceMicros = price(attributes.salePrice);
    if (name === 'availability') target.availability = attributes.availability as string | undefined;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `productInputs:insert`, `productInputs/{x}` patch and delete, under the configured data source. */
function productCall(request: RecordedRequest, url: URL, options: GoogleServerOptions, state: State): Reply {
  const dataSource = url.searchParams.get('dataSource') ?? '';
  if (
    !GoogleDataSourceSchema.safeParse(dataSource).success ||
    dataSource !== `accounts/${options.account}/dataSources/${options.dataSourceId}`
  )
    return refuse(400, `bad dataSource ${dataSource}`);
  const base = `/products/v1/accounts/${options.account}/productInputs`;
  if (request.method === 'POST' && url.pathname === `${base}:insert`) {
    const parsed = GoogleProductInputSchema.safeParse(parseJson(request.body));
    if (!parsed.success) return refuse(400, issuesOf(parsed.error));
    const input = parsed.data;
    const product: GoogleProductState = {};
    applyAttributes(product, input.productAttributes ?? {}, ['price', 'salePrice', 'availability']);
    state.products.set(`${input.contentLanguage}~${input.feedLabel}~${input.offerId}`, product);
    return { status: 200, body: { ...input, name: `${base.slice('/products/v1/'.length)}/x` } };
  }
  const name = url.pathname.slice('/products/v1/'.length);
  const encoded = url.pathname.slice(base.length + 1);
  if (!url.pathname.startsWith(`${base}/`)) return refuse(404, 'no such method');
  if (request.method === 'DELETE') {
    const parsed = GoogleDeleteRequestSchema.safeParse({ name });
    if (!parsed.success) return refuse(400, issuesOf(parsed.error));
    if (!state.products.delete(keyOf(encoded))) return refuse(404, 'product input not found');
    state.local.delete(keyOf(encoded));
    return { status: 200, body: {} };
  }
  if (request.method === 'PATCH') {
    const parsed = GooglePatchRequestSchema.safeParse({
      name,
      updateMask: url.searchParams.get('updateMask') ?? '',
      body: parseJson(request.body),
    });
    if (!parsed.success) return refuse(400, issuesOf(parsed.error));
    // "The product (primary input) must exist".
    const product = state.products.get(keyOf(encoded));
    if (product === undefined) return refuse(404, 'product input not found');
    const names = parsed.data.updateMask.map((path) =>
      path.replace(/^(productAttributes|product_attributes)\./, '').replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()),
    );
    applyAttributes(product, parsed.data.body.productAttributes ?? {}, names);
    return { status: 200, body: parsed.data.body };
  }
  return refuse(404, 'no such method');
}

/** `DELETE /inventories/v1/accounts/{a}/products/{x}/localInventories/{storeCode}` (inventories_v1 `delete`). */
function localInventoryDelete(url: URL, options: GoogleServerOptions, state: State): Reply {
  const match = new RegExp(
    `^/inventories/v1/accounts/${options.account}/products/([A-Za-z0-9_-]+)/localInventories/([^/]+)$`,
  ).exec(url.pathname);
  if (match?.[1] === undefined || match[2] === undefined) return refuse(404, 'no such method');
  const key = keyOf(match[1]);
  if (key.split('~').length !== 3) return refuse(400, 'product name is not contentLanguage~feedLabel~offerId');
  const stores = state.local.get(key);
  if (stores?.delete(decodeURIComponent(match[2])) !== true) return refuse(404, 'local inventory not found');
  return { status: 200, body: {} };
}

/** `POST /inventories/v1/accounts/{a}/products/{x}/localInventories:insert`. */
function localInventoryCall(request: RecordedRequest, url: URL, options: GoogleServerOptions, state: State): Reply {
  if (request.method === 'DELETE') return localInventoryDelete(url, options, state);
  const match = new RegExp(
    `^/inventories/v1/accounts/${options.account}/products/([A-Za-z0-9_-]+)/localInventories:insert$`,
  ).exec(url.pathname);
  if (request.method !== 'POST' || match?.[1] === undefined) return refuse(404, 'no such method');
  const key = keyOf(match[1]);
  if (key.split('~').length !== 3) return refuse(400, 'product name is not contentLanguage~feedLabel~offerId');
  const parsed = GoogleLocalInventorySchema.safeParse(parseJson(request.body));
  if (!parsed.success) return refuse(400, issuesOf(parsed.error));
  const stores = state.local.get(key) ?? new Map<string, Record<string, unknown>>();
  stores.set(parsed.data.storeCode, parsed.data.localInventoryAttributes ?? {});
  state.local.set(key, stores);
  return { status: 200, body: parsed.data };
}

/** The method path (`Schema$MethodDetails.path`) a push call counts against. */
function methodOf(request: RecordedRequest, url: URL): string | undefined {
  if (url.pathname.startsWith('/products/v1/') && request.method === 'GET') return 'products/v1/products.list';
  if (url.pathname.startsWith('/products/v1/')) {
    if (request.method === 'POST') return 'products/v1/productInputs.insert';
    return request.method === 'PATCH' ? 'products/v1/productInputs.patch' : 'products/v1/productInputs.delete';
  }
  if (url.pathname.startsWith('/inventories/v1/')) {
    return request.method === 'DELETE' ? 'inventories/v1/localInventories.delete' : 'inventories/v1/localInventories.insert';
  }
  return undefined;
}

/** A product's status when the test set none: approved where the bridge sells. */
export function approvedStatus(): merchantapi_products_v1.Schema$ProductStatus {
  return {
    destinationStatuses: [
      { reportingContext: 'SHOPPING_ADS', approvedCountries: ['CZ'] },
      { reportingContext: 'FREE_LISTINGS', approvedCountries: ['CZ'] },
    ],
    itemLevelIssues: [],
    lastUpdateDate: '2026-11-29T10:00:00Z',
  };
}

/** A product Google keeps out of Shopping ads in CZ for a broken image (free listings still show it). */
export function brokenImageStatus(): merchantapi_products_v1.Schema$ProductStatus {
  return {
    destinationStatuses: [
      { reportingContext: 'SHOPPING_ADS', disapprovedCountries: ['CZ'] },
      { reportingContext: 'FREE_LISTINGS', approvedCountries: ['CZ'] },
    ],
    itemLevelIssues: [
      {
        code: 'image_link_broken',
        severity: 'DISAPPROVED',
        resolution: 'MERCHANT_ACTION',
        attribute: 'image_link',
        reportingContext: 'SHOPPING_ADS',
        description: 'Invalid image [image_link]',
        detail: 'Ensure the image is accessible and uses an accepted image format (JPEG, PNG, GIF)',
        documentation: 'https://support.google.com/merchants/answer/6098289',
        applicableCountries: ['CZ'],
      },
    ],
  };
}

/** The fake's wording of the issue codes it renders (Google's own texts differ; the shape is what counts). */
const RENDERED_WORDS: Record<string, Record<string, { title: string; detail: string; action: string }>> = {
  cs: {
    image_link_broken: {
      title: 'Neplatný obrázek [image_link]',
      detail: 'Obrázek produktu nejde stáhnout. Zkontrolujte, že je adresa obrázku veřejně dostupná.',
      action: 'Opravit obrázek',
    },
  },
  en: {
    image_link_broken: {
      title: 'Invalid image [image_link]',
      detail: "The product's image cannot be downloaded. Check that the image URL is publicly reachable.",
      action: 'Fix the image',
    },
  },
};

/**
 * `POST /issueresolution/v1/{accounts/{a}/products/{p} | accounts/{a}}:render{product|account}issues`: the
 * product's item-level issues rendered in `languageCode` (in an order of Google's own: reversed here), each
 * without its code, as `Schema$RenderProductIssuesResponse`; the account's as the test set them.
 */
function renderIssuesCall(
  request: RecordedRequest,
  url: URL,
  options: GoogleServerOptions,
  statuses: FakeStatuses,
  accountIssues: ReadonlyMap<string, merchantapi_issueresolution_v1.Schema$RenderedIssue[]>,
  calls: string[],
): Reply {
  const match = new RegExp(
    `^/issueresolution/v1/accounts/${options.account}(?:/products/([A-Za-z0-9_~-]+))?:(renderproductissues|renderaccountissues)$`,
  ).exec(url.pathname);
  if (match === null || request.method !== 'POST') return refuse(404, 'no such method');
  const [, product, method] = match;
  if ((product === undefined) !== (method === 'renderaccountissues')) return refuse(400, 'name does not fit the method');
  const body = GoogleRenderIssuesRequestSchema.safeParse(parseJson(request.body));
  if (!body.success) return refuse(400, `Invalid JSON payload received. ${issuesOf(body.error)}`);
  const language = GoogleLanguageCodeSchema.safeParse(url.searchParams.get('languageCode') ?? 'en-US');
  if (!language.success) return refuse(400, 'Invalid language code.');
  const lang = language.data.slice(0, 2);
  calls.push(`${product === undefined ? 'account' : keyOf(product)}:${lang}`);
  if (product === undefined) return { status: 200, body: { renderedIssues: accountIssues.get(lang) ?? [] } };
  const status = statuses.get(keyOf(product));
  const rendered = [...(status?.itemLevelIssues ?? [])]
    .reverse()
    .map((issue): merchantapi_issueresolution_v1.Schema$RenderedIssue => {
      const words = RENDERED_WORDS[lang]?.[issue.code ?? ''];
      return {
        title: words?.title ?? issue.description ?? issue.code ?? '',
        impact: {
          severity: issue.severity === 'DISAPPROVED' ? 'ERROR' : 'WARNING',
          message: lang === 'cs' ? 'Zamítá 1 nabídku v 1 zemi' : 'Disapproves 1 offer in 1 country',
          breakdowns: [
            {
              regions: [{ code: 'CZ', name: lang === 'cs' ? 'Česko' : 'Czechia' }],
              details: [lang === 'cs' ? 'Nezobrazuje se v reklamách' : 'Not showing in ads'],
            },
          ],
        },
        prerenderedContent: `<div class="issue-detail"><div class="issue-content"><p class="content-element">${words?.detail ?? issue.detail ?? ''}</p></div></div>`,
        actions: [
          {
            buttonLabel: words?.action ?? 'Edit',
            isAvailable: true,
            builtinSimpleAction: { type: 'EDIT_ITEM_ATTRIBUTE', attributeCode: issue.attribute ?? null },
          },
          {
            buttonLabel: 'Merchant Center',
            isAvailable: true,
            externalAction: {
              type: 'REVIEW_PRODUCT_ISSUE_IN_MERCHANT_CENTER',
              uri: `https://merchants.google.com/mc/items/details?a=${options.account}`,
            },
          },
        ],
      };
    });
  return {
    status: 200,
    body: { renderedIssues: rendered } satisfies merchantapi_issueresolution_v1.Schema$RenderProductIssuesResponse,
  };
}

/** The largest page `products.list` gives (Google coerces larger `pageSize` values to it). */
const LIST_MAX_PAGE = 1_000;

/**
 * `GET /products/v1/accounts/{a}/products` as `Schema$ListProductsResponse`: the product inputs as processed
 * products with their status, in a stable order, `pageSize` (≤ 1,000, default 25) a page, `pageToken` the
 * offset as Google's opaque text.
 */
function productsListCall(url: URL, options: GoogleServerOptions, state: State, statuses: FakeStatuses, extra: unknown[]): Reply {
  if (url.pathname !== `/products/v1/accounts/${options.account}/products`) return refuse(404, 'no such method');
  const size = Math.min(Number(url.searchParams.get('pageSize') ?? '25') || 25, LIST_MAX_PAGE);
  const token = url.searchParams.get('pageToken');
  const offset = token === null ? 0 : Number(Buffer.from(token, 'base64url').toString('utf8').replace('offset:', ''));
  if (!Number.isInteger(offset) || offset < 0) return refuse(400, 'Invalid page token.');
  const keys = [...state.products.keys()].sort();
  // A whole product carries its attributes (a description of up to 5,000 characters); a partial response
  // (`fields=products(…)`) only what it names, as Google's system parameter does.
  const partial = url.searchParams.get('fields');
  const attributes = (offerId: string) =>
    partial !== null && !partial.includes('productAttributes')
      ? {}
      : { productAttributes: { title: `Product ${offerId}`, description: 'Popis produktu. '.repeat(300) } };
  const listed: unknown[] = keys.map((key) => {
    const [contentLanguage = '', feedLabel = '', ...rest] = key.split('~');
    const offerId = rest.join('~');
    return {
      name: `accounts/${options.account}/products/${Buffer.from(key).toString('base64url')}`,
      offerId,
      contentLanguage,
      feedLabel,
      dataSource: `accounts/${options.account}/dataSources/${options.dataSourceId}`,
      ...attributes(offerId),
      productStatus: statuses.get(key) ?? approvedStatus(),
    };
  });
  const all = [...listed, ...extra];
  const page = all.slice(offset, offset + size);
  const next = offset + size < all.length ? Buffer.from(`offset:${offset + size}`).toString('base64url') : undefined;
  return { status: 200, body: { products: page, ...(next === undefined ? {} : { nextPageToken: next }) } };
}

/** `GET /datasources/v1/accounts/{a}/dataSources/{d}` as `Schema$DataSource`. */
function dataSourceCall(url: URL, options: GoogleServerOptions, kind: FakeDataSourceKind): Reply {
  const name = `accounts/${options.account}/dataSources/${options.dataSourceId}`;
  if (url.pathname !== `/datasources/v1/${name}`) return refuse(404, 'data source not found');
  if (kind === 404) return refuse(404, 'data source not found');
  if (kind === 403) return refuse(403, 'The caller does not have permission');
  const base = { name, dataSourceId: options.dataSourceId, displayName: 'catalog-bridge' };
  if (kind === 'file') return { status: 200, body: { ...base, input: 'FILE', primaryProductDataSource: {} } };
  const source =
    kind === 'primary'
      ? { primaryProductDataSource: { contentLanguage: 'cs', feedLabel: 'CZ' } }
      : { supplementalProductDataSource: {} };
  return { status: 200, body: { ...base, input: 'API', ...source } };
}

/** `GET /quota/v1/accounts/{a}/quotas` as `Schema$ListQuotaGroupsResponse` (int64 as text). */
function quotasCall(url: URL, options: GoogleServerOptions, groups: readonly FakeQuotaGroup[]): Reply {
  if (url.pathname !== `/quota/v1/accounts/${options.account}/quotas`) return refuse(404, 'no such method');
  return {
    status: 200,
    body: {
      quotaGroups: groups.map((group) => ({
        name: `accounts/${options.account}/quotas/${group.name}`,
        quotaUsage: String(group.usage),
        quotaLimit: String(group.dailyLimit),
        quotaMinuteLimit: String(group.minuteLimit),
        methodDetails: group.methods.map((path) => ({
          path,
          method: path.split('/').pop(),
          subapi: path.split('/')[0],
          version: 'v1',
        })),
      })),
    },
  };
}

function defaultQuotaGroups(): FakeQuotaGroup[] {
  return [
    {
      name: 'products',
      usage: 0,
      dailyLimit: 100_000,
      minuteLimit: 6_000,
      methods: [
        'products/v1/productInputs.insert',
        'products/v1/productInputs.patch',
        'products/v1/productInputs.delete',
        'products/v1/products.list',
      ],
    },
    {
      name: 'inventories',
      usage: 0,
      dailyLimit: 100_000,
      minuteLimit: 6_000,
      methods: ['inventories/v1/localInventories.insert', 'inventories/v1/localInventories.delete'],
    },
  ];
}

/** Counts a call against its group; a spent group answers 429 with the daily-limit message. */
function spendQuota(method: string | undefined, groups: readonly FakeQuotaGroup[]): Reply | undefined {
  const group = groups.find((candidate) => method !== undefined && candidate.methods.includes(method));
  if (group === undefined) return undefined;
  if (group.usage >= group.dailyLimit) return refuse(429, 'Quota exceeded: quota/daily_limit_exceeded (daily limit)');
  group.usage += 1;
  return undefined;
}

/** Starts the fake on 127.0.0.1; the token endpoint is `{baseUrl}/token`. */
export async function startGoogleServer(options: GoogleServerOptions): Promise<GoogleServer> {
  const state: State = { products: new Map(), local: new Map() };
  const issued: string[] = [];
  const address = { tokenUrl: '' };
  const knobs = {
    dataSourceKind: 'primary' as FakeDataSourceKind,
    quotaReads: 0,
    productListReads: 0,
    listFailure: undefined as number | undefined,
  };
  const statuses: FakeStatuses = new Map();
  const fileUploads = new Map<string, merchantapi_datasources_v1.Schema$FileUpload>();
  const extraListed: unknown[] = [];
  const accountIssues = new Map<string, merchantapi_issueresolution_v1.Schema$RenderedIssue[]>();
  const renderCalls: string[] = [];
  const groups = defaultQuotaGroups();
  const harness = await startHarness((request) => {
    const url = new URL(request.url, 'http://fake');
    if (url.pathname === '/token' && request.method === 'POST') return issueToken(request, options, address.tokenUrl, issued);
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (bearer === undefined || !issued.includes(bearer)) return refuse(401, 'Request had invalid authentication credentials.');
    const upload = /^\/datasources\/v1\/accounts\/[0-9]+\/dataSources\/([0-9]+)\/fileUploads\/latest$/.exec(url.pathname);
    if (upload !== null && request.method === 'GET') {
      const found = fileUploads.get(upload[1] ?? '');
      return found === undefined ? refuse(404, 'file upload not found') : { status: 200, body: found };
    }
    if (url.pathname.startsWith('/datasources/v1/') && request.method === 'GET')
      return dataSourceCall(url, options, knobs.dataSourceKind);
    if (url.pathname.startsWith('/issueresolution/v1/'))
      return renderIssuesCall(request, url, options, statuses, accountIssues, renderCalls);
    if (url.pathname.startsWith('/quota/v1/') && request.method === 'GET') {
      knobs.quotaReads += 1;
      return quotasCall(url, options, groups);
    }
    const spent = spendQuota(methodOf(request, url), groups);
    if (spent !== undefined) return spent;
    if (url.pathname.startsWith('/products/v1/') && request.method === 'GET') {
      knobs.productListReads += 1;
      if (knobs.listFailure !== undefined) return refuse(knobs.listFailure, 'The service is currently unavailable.');
      return productsListCall(url, options, state, statuses, extraListed);
    }
    if (url.pathname.startsWith('/products/v1/')) return productCall(request, url, options, state);
    if (url.pathname.startsWith('/inventories/v1/')) return localInventoryCall(request, url, options, state);
    return refuse(404, 'no such method');
  }, googleErrorBody);
  address.tokenUrl = `${harness.baseUrl}/token`;
  return {
    ...harness,
    products: state.products,
    localInventories: state.local,
    tokenUrl: address.tokenUrl,
    tokensIssued: () => issued.length,
    get dataSourceKind() {
      return knobs.dataSourceKind;
    },
    set dataSourceKind(kind: FakeDataSourceKind) {
      knobs.dataSourceKind = kind;
    },
    quotaGroups: groups,
    quotaReads: () => knobs.quotaReads,
    statuses,
    extraListed,
    productListReads: () => knobs.productListReads,
    fileUploads,
    accountIssues,
    renderCalls,
    failProductListing(status) {
      knobs.listFailure = status;
    },
    exhaustDailyQuota() {
      for (const group of groups) group.usage = group.dailyLimit;
    },
    resetDailyQuota() {
      for (const group of groups) group.usage = 0;
    },
  };
}
