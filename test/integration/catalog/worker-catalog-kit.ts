import { pino } from 'pino';
import { createPosClient, type PosClientConfig } from '../../../src/adapters/pos/pos-client.js';
import { openKeyv } from '../../../src/adapters/store/create-keyv.js';
import { createKeyvCatalogStore } from '../../../src/adapters/store/keyv-catalog-store.js';
import type { Config } from '../../../src/config/load-config.js';
import {
  type CatalogMeta,
  type CatalogService,
  catalogServiceOptions,
  createCatalogService,
  type SyncPhase,
  type SyncReport,
} from '../../../src/services/catalog/catalog-service.js';
import { createCatalogWorkers } from '../../../src/workers/create-catalog-workers.js';

const SOURCE = { id: 'pos:worker-catalog-kit', label: 'the test POS' };

/**
 * The catalog service as the app wires it (worker threads reading the POS over HTTP, a memory store) for
 * `config`'s POS, with a short `deadlineMs`. What it opens is pushed to `open`, for an `afterEach`/`afterAll`.
 */
export function createWorkerCatalog(
  config: Config,
  options: {
    readonly deadlineMs: number;
    readonly open: { close(): Promise<void> }[];
    readonly onPhase?: (phase: SyncPhase) => void;
  },
): CatalogService {
  const posConfig: PosClientConfig = { ...config.pos, baseUrl: config.pos.baseUrl ?? '', apiKey: config.pos.apiKey ?? '' };
  const { keyv } = openKeyv('memory://');
  const pos = createPosClient({ config: posConfig });
  const workers = createCatalogWorkers({ pos: posConfig });
  options.open.push(workers, pos);
  return createCatalogService({
    pos,
    workers,
    store: createKeyvCatalogStore<CatalogMeta>(keyv, { source: SOURCE }),
    internalStore: createKeyvCatalogStore<{ version: string }>(keyv, { source: SOURCE, prefix: 'internal' }),
    logger: pino({ level: 'silent' }),
    now: () => new Date(),
    options: { ...catalogServiceOptions(config), deadlineMs: options.deadlineMs },
    ...(options.onPhase === undefined ? {} : { onPhase: options.onPhase }),
  });
}

/**
 * The good full sync a test starts from. Its first try also starts the worker threads, whose modules are
 * compiled as they load: on a busy machine that alone can outlast a test's short deadline, so it is tried
 * again (at most three times) once the threads are warm. What the test checks comes after.
 */
export async function syncUntilPublished(service: CatalogService): Promise<SyncReport> {
  let report = await service.syncCatalog();
  for (let attempt = 1; report.outcome !== 'published' && attempt < 3; attempt++) report = await service.syncCatalog();
  return report;
}
