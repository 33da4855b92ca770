import type { RedisGroup } from '../adapters/group/redis-group.js';
import type { Logger } from '../adapters/logger/create-logger.js';
import type { Metrics } from '../adapters/metrics/create-metrics.js';
import { openWebhookInbox } from '../adapters/store/open-webhook-inbox.js';
import type { Config } from '../config/load-config.js';
import type { CatalogSource } from '../core/catalog/catalog-source.js';
import type { CatalogService } from '../services/catalog/catalog-service.js';
import type { PosClient } from '../services/catalog/pos-port.js';
import type { WebhookInbox } from '../services/webhooks/webhook-inbox.js';
import {
  createWebhookProcessor,
  type StoredWebhookEvent,
  type WebhookProcessor,
} from '../services/webhooks/webhook-processor.js';
import type { AppPart, Shared } from './app-part.js';

/** The POS webhook receiver's processing (docs/webhooks.md), wired: its inbox in the configured store and its metrics. */

/**
 * The webhook inbox for the configured store (`adapters/store/open-webhook-inbox.ts`), for `source`'s events;
 * in a group, the shared stream (events an earlier release left in its keyv inbox are moved into it).
 */
export function openConfiguredWebhookInbox(
  config: Config,
  source: CatalogSource,
  group?: { readonly redis: RedisGroup; readonly onError: (error: unknown, what: string) => void },
): WebhookInbox<StoredWebhookEvent> {
  if (group === undefined) return openWebhookInbox<StoredWebhookEvent>(config.store.url, source.id);
  return group.redis.inbox<StoredWebhookEvent>({
    source: source.id,
    claimIdleMs: config.group.claimIdleMs,
    onError: group.onError,
    legacy: openWebhookInbox<unknown>(config.store.url, source.id),
  });
}

export interface WebhookParts {
  readonly inbox: WebhookInbox<StoredWebhookEvent>;
  readonly webhooks: WebhookProcessor;
  /** Closes the inbox (after processing has stopped and the served catalog is stored). */
  readonly inboxPart: AppPart;
  /**
   * Stops processing and stores the served catalog: the store's write is started first, as processing may be
   * waiting for a delayed store, and written again once processing has stopped.
   */
  readonly processingPart: AppPart;
  /** Processes the events accepted before a restart and not processed yet (once the jobs run). */
  readonly backlogPart: AppPart;
}

export function createWebhookParts(
  config: Config,
  shared: Shared,
  deps: {
    readonly source: CatalogSource;
    readonly redis: RedisGroup | undefined;
    readonly pos: PosClient;
    readonly catalog: CatalogService;
  },
): WebhookParts {
  const { logger, metrics } = shared;
  const { catalog } = deps;
  const log = logger.child({ component: 'webhooks' });
  const inbox = openConfiguredWebhookInbox(
    config,
    deps.source,
    deps.redis && {
      redis: deps.redis,
      onError: (error, what) => logger.warn({ err: error, component: 'webhooks' }, `${what} failed; retrying`),
    },
  );
  const webhooks = createWebhookProcessor({
    inbox,
    pos: deps.pos,
    catalog,
    logger: log,
    now: shared.now,
    options: { movementWindowMs: config.webhook.movementWindowMs },
    onSale: (outcome, latencyMs) => recordSale(metrics, outcome, latencyMs),
  });
  const flushFailed = (error: unknown) => logger.error({ err: error }, 'could not store the served catalog');
  return {
    inbox,
    webhooks,
    inboxPart: { name: 'webhook-inbox', stop: () => inbox.close() },
    processingPart: {
      name: 'webhook-processing',
      stop: async () => {
        const flushing = catalog.flush().catch(flushFailed);
        await webhooks.stop();
        await flushing;
        await catalog.flush().catch(flushFailed);
      },
    },
    backlogPart: { name: 'webhook-backlog', start: () => resumeWebhooks(webhooks, logger) },
  };
}

function recordSale(metrics: Metrics, outcome: 'applied' | 'refetched' | 'dropped', latencyMs: number): void {
  metrics.webhookSales.inc({ outcome });
  if (outcome !== 'dropped') metrics.webhookApplyLatency.observe(latencyMs / 1000);
}

/** Events accepted before a restart and not processed yet. */
function resumeWebhooks(webhooks: WebhookProcessor, logger: Logger): void {
  webhooks.resume().then(
    (count) => {
      if (count > 0) logger.info({ events: count }, 'processing webhook events left from before the restart');
    },
    (error: unknown) => logger.error({ err: error }, 'could not read the webhook inbox'),
  );
}
