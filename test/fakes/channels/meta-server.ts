import { type HarnessServer, type RecordedRequest, type Reply, startHarness } from './http-harness.js';
import { MetaCreateDataSchema, parseMetaBatchForm } from './meta-schema.js';

/**
 * A fake Meta Graph API catalog (docs/decisions/0013-channel-push.md, "Meta `items_batch`"): `POST
 * /{version}/{catalog_id}/items_batch`, validated with `meta-schema.ts` (bearer token, form content type, body),
 * keeping the catalog's copy (retailer id → fields) and answering `{ handles, validation_status }`; the
 * handles' `check_batch_request_status` and the catalog's `diagnostics` (paged) as Meta documents them. Graph API
 * errors carry `{ error: { message, type, code } }`; code 190 is a refused token.
 */

export type MetaItem = Record<string, string>;

export interface MetaServerOptions {
  readonly token: string;
  readonly catalogId: string;
  /** The version path segment, e.g. `v21.0`. */
  readonly version?: string;
  /** Items the catalog already holds. */
  readonly items?: Readonly<Record<string, MetaItem>>;
}

export interface MetaServer extends HarnessServer {
  /** The graph URL clients are configured with (`META_GRAPH_API_URL`, version included). */
  readonly graphUrl: string;
  /** The catalog's copy: retailer id → fields. */
  readonly items: Map<string, MetaItem>;
  /** Retailer ids whose next request Meta refuses in `validation_status` (e.g. a policy violation). */
  readonly invalidIds: Set<string>;
  /** Batch handles answered by `check_batch_request_status`: `finished` with nothing invalid unless set here. */
  readonly batches: Map<string, MetaBatchState>;
  /**
   * Retailer ids Meta accepts in the call but finds invalid while ingesting: the call's handle reports them in
   * `ids_of_invalid_requests` (once per id: the id is taken out of the set), and the item is not changed.
   */
  readonly ingestInvalidIds: Set<string>;
  /** Meta's message per retailer id found invalid at ingest (default `Invalid request`). */
  readonly ingestMessages: Map<string, string>;
  /**
   * The catalog's diagnostics as `GET /{catalog_id}/diagnostics` lists them (`ProductCatalogDiagnosticGroup`
   * fields), two a page with Graph API cursor paging.
   */
  readonly diagnostics: Record<string, unknown>[];
  /** `GET …/diagnostics` calls so far. */
  readonly diagnosticsReads: () => number;
  /** The status the next calls' handles report (default `finished`; e.g. `error`, `canceled`, `started`). */
  setNextBatchStatus(status: MetaBatchState['status']): void;
  /** Fault: the next `count` items are answered as accepted but not applied (a lost update). */
  loseNext(count: number): void;
}

/** One handle's state as `check_batch_request_status` reports it (guide "get-batch-request"). */
export interface MetaBatchState {
  readonly status: 'scheduled' | 'dispatched' | 'started' | 'finished' | 'canceled' | 'error';
  readonly idsOfInvalidRequests?: readonly string[];
}

/** A Graph API error body. */
export function metaErrorBody(status: number, message = `HTTP ${status}`, code?: number): unknown {
  const codes: Record<number, number> = { 401: 190, 429: 80014 };
  return { error: { message, type: 'OAuthException', code: code ?? codes[status] ?? 1, fbtrace_id: 'fake' } };
}

interface ValidationStatus {
  readonly retailer_id: string;
  readonly errors: { readonly message: string }[];
  readonly warnings: { readonly message: string }[];
}

let handleCounter = 0;

function reply(status: number, body: unknown): Reply {
  return { status, body };
}

export async function startMetaServer(options: MetaServerOptions): Promise<MetaServer> {
  const version = options.version ?? 'v21.0';
  const items = new Map<string, MetaItem>(Object.entries(options.items ?? {}).map(([id, item]) => [id, { ...item }]));
  const invalidIds = new Set<string>();
  const batchPath = `/${version}/${options.catalogId}/items_batch`;
  const statusPath = `/${version}/${options.catalogId}/check_batch_request_status`;
  const diagnosticsPath = `/${version}/${options.catalogId}/diagnostics`;
  const ingestMessages = new Map<string, string>();
  const diagnostics: Record<string, unknown>[] = [];
  let diagnosticsReads = 0;
  const batches = new Map<string, MetaBatchState>();
  const ingestInvalidIds = new Set<string>();
  let nextStatus: MetaBatchState['status'] = 'finished';
  let toLose = 0;

  /** `GET …/check_batch_request_status?handle=…&load_ids_of_invalid_requests=true`. */
  function batchStatus(url: URL): Reply {
    const handle = url.searchParams.get('handle') ?? '';
    const state = batches.get(handle);
    if (state === undefined) return reply(400, metaErrorBody(400, `Unknown handle ${handle}`, 100));
    const invalid = state.idsOfInvalidRequests ?? [];
    const loadIds = url.searchParams.get('load_ids_of_invalid_requests') === 'true';
    const errors = invalid.map((id, line) => ({ line, id, message: ingestMessages.get(id) ?? 'Invalid request' }));
    const data = { status: state.status, errors_total_count: invalid.length, errors, warnings: [] };
    return reply(200, { data: [loadIds ? { ...data, ids_of_invalid_requests: invalid } : data] });
  }

  /** `GET …/diagnostics[?after=cursor]`: `{ data, paging }`, two groups a page. */
  function diagnosticsPage(url: URL): Reply {
    diagnosticsReads += 1;
    const after = url.searchParams.get('after');
    const offset = after === null ? 0 : Number(Buffer.from(after, 'base64url').toString('utf8'));
    if (!Number.isInteger(offset) || offset < 0) return reply(400, metaErrorBody(400, 'Invalid cursor', 100));
    const data = diagnostics.slice(offset, offset + 2);
    const next = offset + 2 < diagnostics.length ? Buffer.from(String(offset + 2)).toString('base64url') : undefined;
    const paging =
      next === undefined
        ? { cursors: { before: 'MA', after: 'end' } }
        : { cursors: { before: 'MA', after: next }, next: `https://graph.facebook.com${diagnosticsPath}?after=${next}` };
    return reply(200, { data, paging });
  }

  function apply(method: string, data: Readonly<Record<string, string>>, upsert: boolean): string | undefined {
    const id = data.id ?? '';
    if (invalidIds.has(id)) {
      invalidIds.delete(id);
      return 'The item violates the commerce policies.';
    }
    if (toLose > 0) {
      toLose -= 1;
      return undefined;
    }
    if (method === 'DELETE') {
      items.delete(id);
      return undefined;
    }
    const held = items.get(id);
    // Meta's guide "Send Product Updates": with allow_upsert false an update of a missing item "will not be
    // completed"; otherwise it creates the item, which needs what a CREATE needs ("all the required fields").
    if (method === 'UPDATE' && held === undefined && !upsert) return `Item with retailer id ${id} does not exist.`;
    // An empty value clears a field: on a new item it is no value at all.
    const given = Object.fromEntries(Object.entries(data).filter(([, value]) => value !== ''));
    if (method === 'UPDATE' && held === undefined && !MetaCreateDataSchema.safeParse(given).success) {
      return `Item with retailer id ${id} does not exist and the update lacks required fields.`;
    }
    const next: MetaItem = method === 'CREATE' ? {} : { ...held };
    for (const [field, value] of Object.entries(data)) {
      // An empty value clears the field (how the bridge ends a sale; unconfirmed at Meta, see the decision).
      if (value === '') delete next[field];
      else next[field] = value;
    }
    items.set(id, next);
    return undefined;
  }

  function handle(request: RecordedRequest): Reply {
    const url = new URL(request.url, 'http://fake');
    const route = `${request.method} ${url.pathname}`;
    if (route !== `POST ${batchPath}` && route !== `GET ${statusPath}` && route !== `GET ${diagnosticsPath}`)
      return reply(404, metaErrorBody(404, 'Unknown path', 803));
    // The token belongs in the Authorization header only: one in the query string is refused here.
    if (url.searchParams.has('access_token')) return reply(400, metaErrorBody(400, 'access_token in the URL', 100));
    if (request.headers.authorization !== `Bearer ${options.token}`) {
      return reply(401, metaErrorBody(401, 'Invalid OAuth access token.'));
    }
    if (route === `GET ${diagnosticsPath}`) return diagnosticsPage(url);
    if (request.method === 'GET') return batchStatus(url);
    const contentType = request.headers['content-type']?.split(';')[0]?.trim();
    if (contentType !== 'application/x-www-form-urlencoded') {
      return reply(400, metaErrorBody(400, 'Expected a form body', 100));
    }
    const body = parseMetaBatchForm(request.body);
    if (!body.success) return reply(400, metaErrorBody(400, `Invalid parameter: ${body.error.message}`, 100));
    const statuses: ValidationStatus[] = [];
    const invalidAtIngest: string[] = [];
    for (const entry of body.data.requests) {
      if (ingestInvalidIds.delete(entry.data.id)) {
        invalidAtIngest.push(entry.data.id);
        continue;
      }
      const error = apply(entry.method, entry.data as Record<string, string>, body.data.allow_upsert ?? true);
      if (error !== undefined) statuses.push({ retailer_id: entry.data.id, errors: [{ message: error }], warnings: [] });
    }
    handleCounter += 1;
    const handle = `fake-handle-${handleCounter}`;
    batches.set(handle, { status: nextStatus, idsOfInvalidRequests: invalidAtIngest });
    return reply(200, { handles: [handle], validation_status: statuses });
  }

  const harness = await startHarness(handle, (status) => metaErrorBody(status));
  return {
    ...harness,
    graphUrl: `${harness.baseUrl}/${version}`,
    items,
    invalidIds,
    batches,
    ingestInvalidIds,
    ingestMessages,
    diagnostics,
    diagnosticsReads: () => diagnosticsReads,
    setNextBatchStatus: (status) => {
      nextStatus = status;
    },
    loseNext: (count) => {
      toLose = count;
    },
  };
}
