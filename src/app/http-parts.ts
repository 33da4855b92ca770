import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Router } from 'express';
import type { EventLoopMonitor } from '../adapters/metrics/event-loop-monitor.js';
import type { Config } from '../config/load-config.js';
import type { CatalogSource } from '../core/catalog/catalog-source.js';
import { createHttpApp } from '../http/create-http-app.js';
import { createServerDrain, type ServerDrain } from '../http/drain-server.js';
import { operatorAccess } from '../http/middleware/token-auth.js';
import type { Scheduler } from '../jobs/scheduler.js';
import type { RunningSandbox } from '../sandbox/start-sandbox.js';
import type { SyncJob } from '../services/catalog/catalog-service.js';
import type { StoredCatalogStart } from '../services/catalog/catalog-start.js';
import { type ConsoleWarnings, createConsoleWarnings } from '../services/console/console-warning-sources.js';
import { fetchLogWarnings } from '../services/fetches/fetch-log-warnings.js';
import type { JobTiming } from '../services/health/readiness.js';
import { createReadiness } from '../services/health/readiness.js';
import type { StoreHealth } from '../services/health/store-health.js';
import { pushWarnings } from '../services/push/push-warnings.js';
import type { WebhookProcessor } from '../services/webhooks/webhook-processor.js';
import type { AppPart, Shared } from './app-part.js';
import type { CatalogParts } from './catalog-parts.js';
import type { FeedParts } from './feed-parts.js';
import type { InstanceGroup } from './group-parts.js';
import type { PushWiring } from './push-parts.js';
import { createRouters, operatorTokensOf } from './routers.js';

/** What `/readyz` reads, but the clock and whether a shutdown began (the HTTP part gives those). */
export type ReadinessSources = Omit<Parameters<typeof createReadiness>[0], 'now' | 'stopping'>;

export interface HttpParts {
  /** Listens at start (its routes made then, from the parts started before); drains at stop. */
  readonly part: AppPart;
  /** Base URL of the server as reachable from this machine (once listening). */
  url(): string;
  /** Ends the grace period of a drain in progress: connections still open are cut now. */
  cutConnections(): void;
}

/**
 * The HTTP server of the running bridge: `/readyz` and the routes. Its stop is the graceful drain: `/readyz`
 * answers 503 at once, the listener stops accepting, responses in flight get `graceMs` before they are cut.
 */
export function createHttpParts(
  config: Config,
  shared: Shared,
  deps: { readonly readiness: ReadinessSources; readonly routers: () => Router[] },
): HttpParts {
  const { logger } = shared;
  let drain: ServerDrain | undefined;
  let url: string | undefined;
  const part: AppPart = {
    name: 'http',
    async start() {
      const httpApp = createHttpApp({
        logger,
        health: {
          readiness: createReadiness({ ...deps.readiness, now: shared.now, stopping: () => drain?.started ?? false }),
        },
        details: operatorAccess(operatorTokensOf(config)),
        trustProxy: config.http.trustProxy,
        publicBaseUrl: config.http.publicBaseUrl,
        routers: deps.routers(),
      });
      const server = httpApp.listen(config.http.port, config.http.host);
      drain = createServerDrain(server);
      await once(server, 'listening');
      url = localUrlOf(server, config.http.host);
    },
    async stop({ graceMs }) {
      if (drain === undefined) return;
      const drained = await drain.run(graceMs);
      if (drained.cut > 0) logger.warn({ connections: drained.cut, graceMs }, 'shutdown cut connections still open');
    },
  };
  return {
    part,
    url: () => url ?? '',
    cutConnections: () => drain?.cut(),
  };
}

export function localUrlOf(server: Server, host: string): string {
  const { port } = server.address() as AddressInfo;
  const reachableHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${reachableHost}:${port}`;
}

/** The running bridge's parts the HTTP server reads (`start-app.ts`). */
export interface ServedParts {
  readonly source: CatalogSource;
  readonly sandbox: RunningSandbox | undefined;
  readonly catalog: CatalogParts;
  /** What the start loaded of the stored catalog (known once the catalog part started). */
  readonly stored: () => StoredCatalogStart;
  readonly storeHealth: StoreHealth;
  readonly webhooks: WebhookProcessor;
  readonly feeds: FeedParts;
  readonly push: PushWiring | undefined;
  readonly group: InstanceGroup | undefined;
  readonly jobs: Scheduler;
  readonly eventLoop: EventLoopMonitor;
}

/** The HTTP server wired to the running bridge's parts: `/readyz`, the console, the admin area, the feeds. */
export function createAppHttp(config: Config, shared: Shared, served: ServedParts): HttpParts {
  const { catalog, jobs, group, push, storeHealth } = served;
  const enrichment = () => catalog.enrichment?.status();
  const pushStatus = push === undefined ? {} : { push: () => push.status() };
  const timing = (job: SyncJob): JobTiming | undefined => {
    const status = jobs.status()[job];
    return status && { running: status.running, next: status.nextTry ?? status.nextRun };
  };
  return createHttpParts(config, shared, {
    readiness: {
      catalog: catalog.catalog,
      webhooks: served.webhooks,
      eventLoop: () => served.eventLoop.summary(),
      source: served.source.label,
      pos: catalog.posDescription,
      notServed: () => served.stored().notServed(),
      timing,
      store: () => storeHealth.state(),
      ...(group === undefined ? {} : { group: () => group.status() }),
      enrichment,
      warnings: served.feeds.warnings,
      ...pushStatus,
    },
    routers: () =>
      createRouters({
        config,
        logger: shared.logger,
        catalog: catalog.catalog,
        feeds: served.feeds.feeds,
        jobs,
        webhooks: served.webhooks,
        metrics: shared.metrics,
        source: served.source,
        pos: catalog.posDescription,
        stored: served.stored(),
        timing,
        storeHealth,
        runJob: group === undefined ? (job) => jobs.runNow(job) : (job) => group.runJob(job),
        // Only the instance that runs full syncs hears their phases (a follower's runs happen on the leader).
        phase: (job, since) =>
          job === 'sync-catalog' && (group?.coordinator.isLeader() ?? true) ? catalog.phases.current(since) : undefined,
        group: () => group?.status(),
        enrichment,
        warnings: served.feeds.warnings,
        fetches: served.feeds.fetches,
        consoleWarnings: createAppConsoleWarnings(config, shared, served),
        ...pushStatus,
        ...(push === undefined
          ? {}
          : { pushControl: push, verdicts: () => push.verdicts(), metaVerdicts: () => push.metaVerdicts() }),
      }),
  });
}

/** The console's warnings page (docs/console.md#warnings); the sandbox gives its products links. */
function createAppConsoleWarnings(config: Config, shared: Shared, served: ServedParts): ConsoleWarnings {
  const { catalog: parts, jobs, push, feeds } = served;
  const { catalog } = parts;
  return createConsoleWarnings({
    settings: {
      productUrl: config.feed.productUrl !== undefined || served.sandbox !== undefined,
      brand: config.feed.brand !== undefined,
    },
    pos: { sandbox: served.sandbox !== undefined, description: parts.posDescription },
    history: (job) => catalog.syncHistory(job),
    lastReport: (job) => catalog.lastReport(job),
    nextTry: (job) => {
      const status = jobs.status()[job];
      return status?.nextTry ?? status?.nextRun;
    },
    store: () => served.storeHealth.state(),
    enrichment: () => parts.enrichment?.status(),
    feeds: feeds.feeds,
    feedNames: feeds.feeds.templates.map((feed) => feed.name),
    fetchWarnings: () => fetchLogWarnings(feeds.fetches),
    ...(push === undefined ? {} : { pushWarnings: () => pushWarnings(push.status(), shared.now().getTime()) }),
  });
}
