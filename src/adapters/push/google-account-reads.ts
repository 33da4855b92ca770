import { type Dispatcher, request } from 'undici';
import { classifyDataSource, dataSourceHttpProblem } from '../../core/push/google-data-source.js';
import { parseFileUpload } from '../../core/push/google-file-upload.js';
import { productName } from '../../core/push/google-offer-id.js';
import { GOOGLE_PRODUCTS_FIELDS, GOOGLE_PRODUCTS_PAGE_SIZE, parseProductsPage } from '../../core/push/google-product-status.js';
import { type GoogleQuotaGroup, parseQuotaPage } from '../../core/push/google-quota.js';
import { parseRenderedIssues, RENDER_ISSUES_BODY } from '../../core/push/google-rendered-issues.js';
import { createRedactor } from '../../core/redact-secrets.js';
import type { GoogleAccountReads } from '../../services/push/google-account-port.js';
import { describeNetworkError } from '../pos/pos-responses.js';
import { cleanMessage, readJson } from './channel-http.js';
import { googleErrorOf } from './google-error.js';
import { createGoogleTokenSource, type ServiceAccountKey } from './google-token.js';

/**
 * The reads the Google push makes besides its sends (docs/decisions/0013-channel-push.md, "Google Merchant
 * API v1"): the data source's kind (`datasources/v1 … dataSources.get`), the account's quotas
 * (`quota/v1 … quotas.list`), the products' verdicts (`products/v1 … products.list`) and Google's texts of
 * their issues and the account's (`issueresolution/v1 … renderproductissues`, `renderaccountissues`). None
 * throws: each answers a result or a message naming the problem.
 */

export interface GoogleAccountReadsOptions {
  readonly rootUrl: string;
  readonly account: string;
  readonly dataSourceId: string;
  /** GOOGLE_CONTENT_LANGUAGE and GOOGLE_FEED_LABEL: the products whose verdicts are the bridge's. */
  readonly contentLanguage: string;
  readonly feedLabel: string;
  readonly key: ServiceAccountKey;
  readonly tokenUrl?: string;
  readonly timeoutMs: number;
  readonly now?: () => number;
  readonly dispatcher?: Dispatcher;
}

/** Pages of the quota listing followed at most (the push's groups are a handful). */
const MAX_QUOTA_PAGES = 10;

export function createGoogleAccountReads(options: GoogleAccountReadsOptions): GoogleAccountReads {
  const root = new URL(options.rootUrl);
  const prefix = root.pathname.replace(/\/+$/, '');
  const tokens = createGoogleTokenSource({
    key: options.key,
    ...(options.tokenUrl === undefined ? {} : { tokenUrl: options.tokenUrl }),
    timeoutMs: options.timeoutMs,
    now: options.now ?? Date.now,
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
  });
  const redact = createRedactor([options.key.private_key, options.key.private_key.replace(/\n/g, '\\n')]);
  const name = `accounts/${options.account}/dataSources/${options.dataSourceId}`;

  async function get(
    path: string,
    query: Record<string, string> = {},
    body?: unknown,
  ): Promise<{ status: number; answer: unknown }> {
    const token = await tokens.token();
    const url = new URL(`${prefix}${path}`, root.origin);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const response = await request(url, {
      method: body === undefined ? 'GET' : 'POST',
      ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    const answer = await readJson(response.body);
    if (response.statusCode === 401) tokens.invalidate();
    return { status: response.statusCode, answer };
  }

  return {
    async dataSource() {
      try {
        const { status, answer } = await get(`/datasources/v1/${name}`);
        if (status !== 200) return dataSourceHttpProblem(name, status);
        const kind = classifyDataSource(name, answer);
        return typeof kind === 'string' ? { kind } : { problem: kind.problem, retry: false };
      } catch (error) {
        return { problem: `data source ${name} could not be read: ${describeNetworkError(error, redact)}`, retry: true };
      }
    },
    async productsPage(pageToken) {
      try {
        const { status, answer } = await get(`/products/v1/accounts/${options.account}/products`, {
          pageSize: String(GOOGLE_PRODUCTS_PAGE_SIZE),
          fields: GOOGLE_PRODUCTS_FIELDS,
          ...(pageToken === undefined ? {} : { pageToken }),
        });
        if (status !== 200) {
          return {
            problem: `products could not be read (HTTP ${status}${googleMessage(answer, redact)})`,
            retry: retryableRead(status),
          };
        }
        const page = await parseProductsPage(answer, options);
        return typeof page === 'string' ? { problem: page, retry: false } : { page };
      } catch (error) {
        return { problem: `products could not be read: ${describeNetworkError(error, redact)}`, retry: true };
      }
    },
    async fileUpload(dataSourceId) {
      const source = `accounts/${options.account}/dataSources/${dataSourceId}`;
      try {
        const { status, answer } = await get(`/datasources/v1/${source}/fileUploads/latest`);
        if (status !== 200)
          return { problem: `the last fetch of ${source} could not be read (HTTP ${status}${googleMessage(answer, redact)})` };
        const fetch = parseFileUpload(answer, source);
        return typeof fetch === 'string' ? { problem: fetch } : { fetch };
      } catch (error) {
        return { problem: `the last fetch of ${source} could not be read: ${describeNetworkError(error, redact)}` };
      }
    },
    async renderedIssues(subject, languageCode) {
      const method = subject.offerId === undefined ? 'renderaccountissues' : 'renderproductissues';
      const of = subject.offerId === undefined ? 'the account' : `product ${subject.offerId}`;
      try {
        const name =
          subject.offerId === undefined
            ? `accounts/${options.account}`
            : productName(options.account, { ...options, offerId: subject.offerId });
        const query = { languageCode, timeZone: 'UTC' };
        const { status, answer } = await get(`/issueresolution/v1/${name}:${method}`, query, RENDER_ISSUES_BODY);
        if (status !== 200) return { problem: `${method} of ${of} answered HTTP ${status}${googleMessage(answer, redact)}` };
        const issues = parseRenderedIssues(answer);
        return typeof issues === 'string' ? { problem: `${method} of ${of}: ${issues}` } : { issues };
      } catch (error) {
        return { problem: `${method} of ${of} failed: ${describeNetworkError(error, redact)}` };
      }
    },
    async quotas() {
      const groups: GoogleQuotaGroup[] = [];
      let pageToken: string | undefined;
      try {
        for (let page = 0; page < MAX_QUOTA_PAGES; page++) {
          const { status, answer } = await get(`/quota/v1/accounts/${options.account}/quotas`, {
            pageSize: '100',
            ...(pageToken === undefined ? {} : { pageToken }),
          });
          if (status !== 200) return { problem: `quotas could not be read (HTTP ${status})` };
          const parsed = parseQuotaPage(answer);
          if (typeof parsed === 'string') return { problem: parsed };
          groups.push(...parsed.groups);
          pageToken = parsed.nextPageToken;
          if (pageToken === undefined) break;
        }
        return { groups };
      } catch (error) {
        return { problem: `quotas could not be read: ${describeNetworkError(error, redact)}` };
      }
    },
  };
}

/** A failed read worth trying again later: the network, a refused (expired) token, throttling, Google's own trouble. */
function retryableRead(status: number): boolean {
  return status === 401 || status === 429 || status >= 500;
}

/** Google's own words for a failed call (`error.message`), redacted and cut short as every channel message. */
function googleMessage(answer: unknown, redact: (text: string) => string): string {
  const { message } = googleErrorOf(answer);
  return message === undefined ? '' : `: ${cleanMessage(message, redact)}`;
}
