import { pino } from 'pino';
import type { PosClientConfig } from '../../../src/adapters/pos/pos-client.js';
import { openKeyv } from '../../../src/adapters/store/create-keyv.js';
import { createKeyvCatalogStore } from '../../../src/adapters/store/keyv-catalog-store.js';
import type { Config } from '../../../src/config/load-config.js';
import {
  type CatalogMeta,
  type CatalogService,
  catalogServiceOptions,
  createCatalogService,
  type SyncPhase,
} from '../../../src/services/catalog/catalog-service.js';
import { createCatalogWorkers } from '../../../src/workers/create-catalog-workers.js';

const SOURCE = { id: 'pos:worker-catalog-kit', label: 'the test POS' };

/**
 * The catalog service as the app wires it (worker threads reading the POS over HTTP, a memory store) for
 * `config`'s POS. Its sync deadline is `deadlineMs()`, read as each sync starts, so a test gives a hostile
 * sync a short one and the healthy syncs around it a long one. What it opens is pushed to `open`, for an
 * `afterEach`/`afterAll`.
 */
export function createWorkerCatalog(
  config: Config,
  options: {
    readonly deadlineMs: () => number;
    readonly open: { close(): Promise<void> }[];
    readonly onPhase?: (phase: SyncPhase) => void;
  },
): CatalogService {
  const posConfig: PosClientConfig = { ...config.pos, baseUrl: config.pos.baseUrl ?? '', apiKey: config.pos.apiKey ?? '' };
  const { keyv } = openKeyv('memory://');
  const workers = createCatalogWorkers({ pos: posConfig });
  options.open.push(workers);
  return createCatalogService({
    workers,
    store: createKeyvCatalogStore<CatalogMeta>(keyv, { source: SOURCE }),
    internalStore: createKeyvCatalogStore<{ version: string }>(keyv, { source: SOURCE, prefix: 'internal' }),
    logger: pino({ level: 'silent' }),
    now: () => new Date(),
    // A getter: the service reads its options as each sync starts.
    options: Object.defineProperty({ ...catalogServiceOptions(config) }, 'deadlineMs', {
      get: options.deadlineMs,
      enumerable: true,
    }),
    ...(options.onPhase === undefined ? {} : { onPhase: options.onPhase }),
  });
}

/** A deadline no healthy sync of a few hundred articles meets, even in fresh worker threads on a loaded machine. */
export const HEALTHY_DEADLINE_MS = 60_000;

/**
 * A deadline the test switches: `short` for the hostile sync under test, `HEALTHY_DEADLINE_MS` for the syncs
 * before and after it (a short deadline for those would fail them on a busy machine, not the POS).
 */
export function switchedDeadline(short: number): { readonly deadlineMs: () => number; hostile(on: boolean): void } {
  let current = HEALTHY_DEADLINE_MS;
  return {
    deadlineMs: () => current,
    hostile(on) {
      current = on ? short : HEALTHY_DEADLINE_MS;
    },
  };
}
