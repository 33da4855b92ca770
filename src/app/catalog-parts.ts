import { randomBytes, scrypt } from 'node:crypto';
import { hostname } from 'node:os';
import type { Keyv } from 'keyv';
import { createEnrichmentSource } from '../adapters/enrichment/enrichment-source.js';
import type { RedisGroup } from '../adapters/group/redis-group.js';
import type { Logger } from '../adapters/logger/create-logger.js';
import type { Metrics } from '../adapters/metrics/create-metrics.js';
import { createPosClient } from '../adapters/pos/pos-client.js';
import { openKeyv } from '../adapters/store/create-keyv.js';
import { createKeyvCatalogStore } from '../adapters/store/keyv-catalog-store.js';
import { createKeyvChangeHistory } from '../adapters/store/keyv-change-history.js';
import { createKeyvEnrichmentStore } from '../adapters/store/keyv-enrichment-store.js';
import { createKeyvMetaVerdictStore } from '../adapters/store/keyv-meta-verdict-store.js';
import { createKeyvVerdictStore } from '../adapters/store/keyv-verdict-store.js';
import type { Config } from '../config/load-config.js';
import { shuttingDown } from '../core/async/deadline.js';
import type { CatalogSnapshot } from '../core/catalog/catalog.js';
import { type CatalogSource, normalizePosBaseUrl, posSource, sandboxSource } from '../core/catalog/catalog-source.js';
import type { ChangeHistory } from '../core/catalog/change-log.js';
import { type RunningSandbox, startSandbox } from '../sandbox/start-sandbox.js';
import {
  type CatalogMeta,
  type CatalogService,
  catalogServiceOptions,
  createCatalogService,
} from '../services/catalog/catalog-service.js';
import type { CatalogStore } from '../services/catalog/catalog-store.js';
import type { CatalogWorkers } from '../services/catalog/catalog-workers.js';
import type { EnrichmentSheetInput, EnrichmentTableInput } from '../services/catalog/enrich-catalog.js';
import type { PosClient } from '../services/catalog/pos-port.js';
import { createSyncPhases, type SyncPhases } from '../services/catalog/sync-phases.js';
import type { EnrichmentDocument } from '../services/enrichment/enrichment-ports.js';
import { createEnrichmentService, type EnrichmentService } from '../services/enrichment/enrichment-service.js';
import type { VerdictStore } from '../services/push/google-verdicts.js';
import type { MetaVerdictStore } from '../services/push/meta-verdicts.js';
import { createCatalogWorkers } from '../workers/create-catalog-workers.js';

/**
 * The catalog's parts wired from the configuration (the source, the sandbox, the POS client, the store, the
 * enrichment sheet and the catalog service), shared by the server (`start-app.ts`) and the one-shot CLI
 * (`cli/sync-once.ts`), so that both read the same POS and store the same way (the templates: `feed-parts.ts`).
 */

/** The built-in sandbox POS when `POS_BASE_URL` is unset (on loopback, any free port). */
export async function startSandboxIfNeeded(
  config: Config,
  logger: Logger,
  overrides: { readonly salesPerMinute?: number } = {},
): Promise<RunningSandbox | undefined> {
  if (config.pos.baseUrl !== undefined) return undefined;
  return startSandbox({
    units: config.sandbox.units,
    articles: config.sandbox.articles,
    seed: config.sandbox.seed,
    salesPerMinute: overrides.salesPerMinute ?? config.sandbox.salesPerMinute,
    apiKey: config.sandbox.apiKey,
    host: '127.0.0.1',
    port: 0,
    logger: logger.child({ component: 'sandbox' }),
  });
}

/**
 * The source the configuration names (docs/decisions/0007): the built-in sandbox by its seed and size, or
 * the POS's normalized base URL with a short one-way hash of `POS_API_KEY`. The hash is scrypt (slow on
 * purpose, salted with the URL), so that even a short key cannot be found from it.
 */
export async function configuredSource(config: Config): Promise<CatalogSource> {
  const { baseUrl, apiKey } = config.pos;
  // The sandbox is read with its own key, so a stray POS_API_KEY does not make it another source.
  if (baseUrl === undefined) return sandboxSource(config.sandbox);
  const salt = `catalog-bridge source ${normalizePosBaseUrl(baseUrl)}`;
  const hash = await new Promise<Buffer>((resolve, reject) =>
    scrypt(apiKey ?? '', salt, 6, (error, key) => (error === null ? resolve(key) : reject(error))),
  );
  return posSource(baseUrl, hash.toString('hex'));
}

/**
 * The key sent to the POS read. In sandbox mode that is the sandbox's own key, whatever `POS_API_KEY` says:
 * a `.env` prepared for the real POS before `POS_BASE_URL` is filled in must not make the sandbox refuse
 * every call. (Config validation requires `POS_API_KEY` with `POS_BASE_URL`, so the fallback is not reached.)
 */
function posApiKey(config: Config): string {
  return config.pos.baseUrl === undefined ? config.sandbox.apiKey : (config.pos.apiKey ?? '');
}

/**
 * Which POS is read, for people (the start-up log line after `POS: `, `/readyz`'s `pos`, the status page):
 * the sandbox with its URL (its source label leaves the URL out, as it changes every run) and why it is
 * read, or the configured POS's normalized base URL.
 */
export function describePos(config: Config, posUrl: string): string {
  if (config.pos.baseUrl !== undefined) return normalizePosBaseUrl(config.pos.baseUrl);
  const ignored = config.pos.apiKey === undefined ? '' : '; POS_API_KEY is ignored in sandbox mode';
  return `built-in sandbox at ${posUrl} (POS_BASE_URL is unset${ignored})`;
}

/** Several instances on one Redis (docs/scale-out.md): the group's Redis parts and this instance's role. */
export interface GroupParts {
  readonly redis: RedisGroup;
  readonly isLeader: () => boolean;
}

/** Whether the store is shared by a group of instances (Redis). */
export function isGroupStore(config: Config): boolean {
  return /^rediss?:\/\//.test(config.store.url);
}

/** This instance's name in the group: `INSTANCE_ID`, or its host, process id and a random suffix. */
export function instanceIdOf(config: Config): string {
  return config.group.instanceId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

export interface CatalogParts {
  /** Base URL of the POS read: the configured one, or the sandbox's. */
  readonly posUrl: string;
  /** Which POS is read, for people (`describePos`); logged once as `POS: …` when the parts are made. */
  readonly posDescription: string;
  readonly pos: PosClient;
  readonly store: CatalogStore<CatalogMeta>;
  /** Where the store is (`STORE_URL` without credentials), for log lines. */
  readonly storeLocation: string;
  /** The phase a full sync runs now (the admin area's progress page). */
  readonly phases: SyncPhases;
  readonly catalog: CatalogService;
  /** The changes feed's transitions, kept beside the catalog. */
  readonly changeHistory: ChangeHistory;
  /** The marketer's enrichment sheet, when `ENRICHMENT_SOURCE` is set. */
  readonly enrichment: EnrichmentService | undefined;
  /** Where a channel's verdicts on the items are kept, in the catalog's store (shared by a group). */
  verdictStore(channel: string, account: string): VerdictStore;
  /** Where Meta's verdicts on the items and the catalog are kept, in the catalog's store. */
  metaVerdictStore(catalogId: string): MetaVerdictStore;
  /** Aborts every sync running now or started later (a shutdown): they end soon, reported `SYNC_ABORTED`. */
  abortRuns(): void;
  /** Waits for the worker threads' tasks, then closes them, the POS client and the store. */
  close(): Promise<void>;
}

/** The POS client, the keyv store (`STORE_URL`, opened for `source`) and the catalog service over them. */
export function createCatalogParts(
  config: Config,
  sandbox: RunningSandbox | undefined,
  source: CatalogSource,
  logger: Logger,
  now: () => Date,
  group?: GroupParts,
): CatalogParts {
  const posUrl = config.pos.baseUrl ?? sandbox?.url ?? '';
  const apiKey = posApiKey(config);
  const opened = openKeyv(config.store.url);
  // In a group, pointers are native Redis keys moved only under the leader's lease (fencing).
  const pointer = group === undefined ? {} : { pointer: group.redis.pointer };
  const store = createKeyvCatalogStore<CatalogMeta>(opened.keyv, { source, ...pointer });
  const internalStore = createKeyvCatalogStore<{ version: string }>(opened.keyv, { source, prefix: 'internal', ...pointer });
  const posConfig = { ...config.pos, baseUrl: posUrl, apiKey };
  const posDescription = describePos(config, posUrl);
  // One plain line on which POS is read (and, in sandbox mode, that POS_API_KEY is not used).
  logger.info({ source: source.label }, `POS: ${posDescription}`);
  const pos = createPosClient({ config: posConfig, logger: logger.child({ component: 'pos-client' }) });
  // The full sync reads the POS from a worker thread with a client of its own, configured the same way.
  const workers = createCatalogWorkers({ pos: posConfig, debugLogs: logger.isLevelEnabled('debug') });
  const shutdown = new AbortController();
  const phases = createSyncPhases(now);
  const enrichment = createConfiguredEnrichment(config, opened.keyv, workers, logger, now);
  const catalog = createCatalogService({
    workers,
    store,
    internalStore,
    logger: logger.child({ component: 'catalog' }),
    now,
    options: catalogServiceOptions(config),
    signal: shutdown.signal,
    onPhase: phases.onPhase,
    ...(enrichment === undefined ? {} : { enrichment: enrichment.sheet }),
    ...(group === undefined
      ? {}
      : {
          group: { journal: group.redis.journal, switching: group.redis.switching, source: source.id, isLeader: group.isLeader },
        }),
  });
  return {
    posUrl,
    posDescription,
    pos,
    store,
    storeLocation: opened.location,
    phases,
    catalog,
    changeHistory: createKeyvChangeHistory(opened.keyv, {
      source: source.id,
      ...(group === undefined ? {} : { canWrite: group.isLeader }),
    }),
    enrichment: enrichment?.service,
    verdictStore: (channel, account) => createKeyvVerdictStore(opened.keyv, { channel, account }),
    metaVerdictStore: (catalogId) => createKeyvMetaVerdictStore(opened.keyv, { catalogId }),
    abortRuns: () => shutdown.abort(shuttingDown()),
    async close() {
      await enrichment?.close();
      await workers.close();
      await pos.close();
      // Both version lists share the connection.
      await opened.close();
    },
  };
}

/**
 * `ENRICHMENT_SOURCE` read on its schedule, its last good sheet kept in the store, and what a full sync
 * hands to its worker (the sheet's table, in shared memory).
 */
function createConfiguredEnrichment(
  config: Config,
  keyv: Keyv,
  workers: CatalogWorkers,
  logger: Logger,
  now: () => Date,
):
  | {
      readonly service: EnrichmentService;
      readonly sheet: () => Promise<EnrichmentTableInput | undefined>;
      readonly close: () => Promise<void>;
    }
  | undefined {
  const location = config.enrichment.source;
  if (location === undefined) return undefined;
  const source = createEnrichmentSource(location, {
    maxBytes: config.enrichment.maxBytes,
    timeoutMs: config.enrichment.timeoutMs,
  });
  const service = createEnrichmentService({
    source,
    store: createKeyvEnrichmentStore(keyv, { source: source.identity }),
    check: (document, signal) => workers.checkEnrichment(sheetInputOf(document, config.enrichment.maxBytes), signal),
    logger: logger.child({ component: 'enrichment' }),
    now,
  });
  return {
    service,
    sheet: () => service.current(),
    close: () => source.close(),
  };
}

function sheetInputOf(document: EnrichmentDocument, maxBytes: number): EnrichmentSheetInput {
  return {
    bytes: document.bytes,
    name: document.name,
    fetchedAt: document.fetchedAt,
    maxBytes,
    ...(document.contentType === undefined ? {} : { contentType: document.contentType }),
  };
}

/** Per-unit item counts change only with the products' offers: counted once per catalog family, in slices. */
export function recordCatalogMetrics(metrics: Metrics, snapshot: CatalogSnapshot, catalog: CatalogService): void {
  metrics.catalogItems.set({ unit: 'all' }, snapshot.products.length);
  metrics.catalogGeneratedAt.set(Date.parse(snapshot.generatedAt) / 1000);
  catalog.familyIndex(snapshot).then(
    (index) => {
      for (const unit of snapshot.units) metrics.catalogItems.set({ unit: unit.code }, index.unitCounts.get(unit.code) ?? 0);
    },
    () => undefined,
  );
}
